// `radar replay`'s options as radar's command table has them (its usage
// lines and shell completion are made from it) are the ones the replay
// application's parser takes, no more and no fewer.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/replay_options.h"
#include "cli/commands.h"

namespace {

TEST(ReplayOptions, TheCommandTableHasEveryOptionTheParserTakes) {
  const radar::cli::Command* replay = radar::cli::findCommand("replay");
  ASSERT_NE(replay, nullptr);
  std::set<std::string> table;
  for (const auto& o : replay->options) {
    const std::string name = std::string("--") + o.long_name;
    table.insert(name);
    std::vector<std::string> words = {"radar-replay", "rec", name};
    if (o.value) words.push_back("1");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    radar::app::ReplayOptions parsed;
    std::string error;
    radar::app::parseReplayOptions(static_cast<int>(argv.size()), argv.data(), &parsed, &error);
    EXPECT_EQ(error.find("unknown option"), std::string::npos) << name << ": " << error;
  }
  // The names the parser compares arguments with, in its source.
  std::ifstream source(RADAR_SOURCE_DIR "/replay-gui/app/replay_options.cc");
  std::stringstream text;
  text << source.rdbuf();
  const std::string code = text.str();
  ASSERT_FALSE(code.empty());
  size_t parsed = 0;
  const std::regex compared("a == \"(--[a-z-]+)\"");
  for (auto m = std::sregex_iterator(code.begin(), code.end(), compared); m != std::sregex_iterator(); ++m) {
    if ((*m)[1] == "--help") continue;
    EXPECT_TRUE(table.count((*m)[1])) << (*m)[1] << " is parsed but not in radar's command table";
    ++parsed;
  }
  EXPECT_GE(parsed, 12u);
}

}  // namespace
