// The variables radar record passes to the interposer, and the name
// patterns of the environment variables whose values logs leave out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "log/log_handout.h"
#include "log/recorder_env.h"

namespace radar::log {
namespace {

// The quick match of the patterns most are (a literal with a `*` at either
// end) agrees with the general one, on every pattern and name of a small
// alphabet, in any case.
TEST(Redact, TheQuickMatchAgreesWithTheGeneralOne) {
  const std::string letters = "AB_*?a";
  auto all = [&](size_t max) {
    std::vector<std::string> out{""};
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].size() < max)
        for (char c : letters) out.push_back(out[i] + c);
    return out;
  };
  size_t quick = 0;
  for (const std::string& pattern : all(4)) {
    if (pattern.empty()) continue;
    for (std::string name : all(4)) {
      if (name.find_first_of("*?") != std::string::npos) continue;
      bool simple = false;
      const bool fast = literalMatches(pattern.data(), pattern.size(), name.data(), name.size(), &simple);
      const bool general = globMatches(pattern.data(), pattern.size(), name.data(), name.size());
      if (simple) ++quick;
      ASSERT_EQ(simple ? fast : general, general) << pattern << " " << name;
      ASSERT_EQ(isRedacted(pattern.c_str(), (name + "=v").c_str()), general) << pattern << " " << name;
    }
  }
  EXPECT_GT(quick, 10000u);  // (the quick path was taken)
}

TEST(Redact, PatternsMatchWholeNamesInAnyCase) {
  EXPECT_TRUE(isRedacted("*TOKEN*", "GITHUB_TOKEN=x"));
  EXPECT_TRUE(isRedacted("*TOKEN*", "token=x"));
  EXPECT_TRUE(isRedacted("*_KEY", "AWS_SECRET_ACCESS_KEY=x"));
  EXPECT_FALSE(isRedacted("*_KEY", "KEYBOARD=x"));
  EXPECT_FALSE(isRedacted("*_KEY", "MY_KEYS=x"));
  EXPECT_TRUE(isRedacted("A?C", "ABC=1"));
  EXPECT_FALSE(isRedacted("A?C", "AC=1"));
  EXPECT_TRUE(isRedacted("*a*b*c", "XAYBZC=1"));
  EXPECT_FALSE(isRedacted("*a*b*c", "XAYBZCD=1"));
  EXPECT_TRUE(isRedacted("", "") == false);
  // The name only: a value that looks like a match does not count.
  EXPECT_FALSE(isRedacted("PATH", "PATHS=PATH"));
  EXPECT_TRUE(isRedacted("FOO:BAR:BAZ", "BAR=1"));
  EXPECT_FALSE(isRedacted("FOO::BAZ", "BAR=1"));
  EXPECT_TRUE(isRedacted(kDefaultRedactPatterns, "PGPASSWORD=x"));
  EXPECT_TRUE(isRedacted(kDefaultRedactPatterns, "DB_PASSWORD=x"));
  EXPECT_FALSE(isRedacted(kDefaultRedactPatterns, "HOME=/root"));
  EXPECT_FALSE(isRedacted(kDefaultRedactPatterns, "PATH=/usr/bin"));
  EXPECT_EQ(variableNameLength("NAME=value=more"), 4u);
  EXPECT_EQ(variableNameLength("NOVALUE"), 7u);
}

TEST(Redact, RadarsOwnVariablesAreKnown) {
  EXPECT_TRUE(isRecorderVariable("RADAR_REDACT=*TOKEN*"));
  EXPECT_TRUE(isRecorderVariable("RADAR_DIR"));
  EXPECT_FALSE(isRecorderVariable("RADAR_PORT_IN=3"));
  EXPECT_FALSE(isRecorderVariable("RADAR_DIRECTORY=x"));
}

// radar record makes files for processes only under a log's name: never
// a path, never its own files.
TEST(LogHandout, OnlyLogNamesAreMade) {
  auto ok = [](const std::string& name) { return isHandoutName(name.data(), name.size()); };
  EXPECT_TRUE(ok("4242-0-dnsmasq.rlog"));
  EXPECT_TRUE(ok("4242-1-apache2.3.rlog"));
  EXPECT_FALSE(ok("../4242-0-x.rlog"));
  EXPECT_FALSE(ok("4242-0-x/../../etc.rlog"));
  EXPECT_FALSE(ok("/tmp/4242-0-x.rlog"));
  EXPECT_FALSE(ok("recording.txt"));
  EXPECT_FALSE(ok("4242-0-x.rlog.partial"));
  EXPECT_FALSE(ok(std::string("4242-0-x\0.rlog", 15)));
  EXPECT_FALSE(ok("4242-0-" + std::string(300, 'x') + ".rlog"));
  // The address names the recording and its directory, in the abstract
  // namespace: two parts of one recording on one machine (--join) differ.
  const uint8_t id[16] = {0xab, 1};
  auto address = [&](const char* dir) {
    struct sockaddr_un addr;
    const socklen_t len = handoutAddress(id, dir, &addr);
    EXPECT_EQ(addr.sun_path[0], 0);
    return std::string(addr.sun_path + 1, len - offsetof(struct sockaddr_un, sun_path) - 1);
  };
  EXPECT_EQ(address("/tmp/rec").rfind("radar-logs-ab010000000000000000000000000000-", 0), 0u) << address("/tmp/rec");
  EXPECT_EQ(address("/tmp/rec").size(), std::string("radar-logs-").size() + 32 + 1 + 16);
  EXPECT_EQ(address("/tmp/rec"), address("/tmp/rec"));
  EXPECT_NE(address("/tmp/rec"), address("/tmp/rec-b"));
}

}  // namespace
}  // namespace radar::log
