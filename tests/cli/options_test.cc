// The front door's option parsing (radarlog/cli/cli.h), without running a
// command: long and short forms, values inline or apart, repeats, "--",
// positionals, and a clear error for each mistake.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli.h"

namespace radar::cli {
namespace {

constexpr std::initializer_list<OptionSpec> kSpecs = {
    {"output", 'o', "DIR"}, {"force", 0, nullptr}, {"process", 'p', "P"}, {"json", 0, nullptr}};

// Parses words as argv[1..] of a command.
struct Parsed {
  Args args;
  bool ok;
  Parsed(std::vector<std::string> words, bool stop_at_positional = false) {
    words.insert(words.begin(), "cmd");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    storage = std::move(words);
    ok = args.parse(static_cast<int>(argv.size()), argv.data(), 1, kSpecs, stop_at_positional);
  }
  std::vector<std::string> storage;
};

TEST(Options, LongAndShortFormsWithValuesInlineOrApart) {
  for (const auto& words : std::vector<std::vector<std::string>>{{"--output", "rec", "dir"},
                                                                 {"--output=rec", "dir"},
                                                                 {"-o", "rec", "dir"},
                                                                 {"-orec", "dir"},
                                                                 {"dir", "-o", "rec"}}) {
    Parsed p(words);
    ASSERT_TRUE(p.ok) << p.args.error();
    EXPECT_EQ(p.args.value("output"), "rec");
    EXPECT_EQ(p.args.positional(), std::vector<std::string>{"dir"});
  }
}

TEST(Options, RepeatsFlagsAndTheEndOfOptions) {
  Parsed p({"-p", "a", "--process", "b", "--force", "x", "--", "--json", "-p"});
  ASSERT_TRUE(p.ok) << p.args.error();
  EXPECT_EQ(p.args.values("process"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(p.args.has("force"));
  EXPECT_FALSE(p.args.has("json"));  // after "--": positional
  EXPECT_EQ(p.args.positional(), (std::vector<std::string>{"x", "--json", "-p"}));
  EXPECT_FALSE(p.args.value("output"));
}

TEST(Options, AProgramsOwnOptionsAreItsWhenParsingStopsAtTheFirstPositional) {
  Parsed p({"-o", "rec", "nginx", "-p", "prefix", "--json"}, /*stop_at_positional=*/true);
  ASSERT_TRUE(p.ok) << p.args.error();
  EXPECT_EQ(p.args.value("output"), "rec");
  EXPECT_FALSE(p.args.has("json"));
  EXPECT_EQ(p.args.positional(), (std::vector<std::string>{"nginx", "-p", "prefix", "--json"}));
}

TEST(Options, EachMistakeIsSaid) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"-z"}, "unknown option '-z'"},
      {{"--output"}, "option '--output' needs a value"},
      {{"-o"}, "option '--output' needs a value"},
      {{"--force=yes"}, "option '--force' takes no value"},
  };
  for (const auto& [words, error] : cases) {
    Parsed p(words);
    EXPECT_FALSE(p.ok) << words[0];
    EXPECT_EQ(p.args.error(), error);
  }
}

TEST(Options, NumbersAndSizesWithAClearErrorOnJunk) {
  unsigned long long n = 0;
  Parsed given({"--output", "4096"});
  ASSERT_TRUE(given.ok);
  EXPECT_TRUE(given.args.number("output", &n, 7));
  EXPECT_EQ(n, 4096u);
  Parsed scaled({"--output", "12k"});  // sizes: k, M, G (KiB, MiB, GiB)
  EXPECT_TRUE(scaled.args.number("output", &n, 7));
  EXPECT_EQ(n, 12u * 1024);
  Parsed absent({});
  EXPECT_TRUE(absent.args.number("output", &n, 7));
  EXPECT_EQ(n, 7u);
  for (const char* junk : {"x", "12q", "-1", ""}) {
    Parsed bad({"--output", junk});
    ASSERT_TRUE(bad.ok);
    EXPECT_FALSE(bad.args.number("output", &n, 7)) << junk;
    EXPECT_NE(bad.args.error().find("--output"), std::string::npos) << bad.args.error();
  }
}

TEST(Options, RecordedTextIsMadeSafeForATerminal) {
  EXPECT_EQ(terminalSafe("plain"), "plain");
  EXPECT_EQ(terminalSafe("a\nb\tc\x1b[31m"), "a\\nb\\tc\\e[31m");
  EXPECT_EQ(terminalSafe("\xc2\x85"), "\\xc2\\x85");      // C1 control (NEL) in UTF-8
  EXPECT_EQ(terminalSafe("caf\xc3\xa9"), "caf\xc3\xa9");  // printable UTF-8 kept
  EXPECT_EQ(terminalSafe("\xff\xfe"), "\\xff\\xfe");      // not UTF-8
}

}  // namespace
}  // namespace radar::cli
