// radar diff and radar critical-path on programs recorded here.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "recorded.h"

namespace radar::testing {
namespace {

// The race sample, recorded until two runs print different totals: radar
// diff names where they part, a receive that took another message first.
TEST(Diff, TheRaceSampleRecordedUntilTwoOutcomesDiffer) {
  const std::string race = std::string(RADAR_SAMPLES) + "/race";
  const std::string work = testTempDir();
  std::map<std::string, std::string> by_outcome;  // output -> recording
  for (int run = 0; run < 40 && by_outcome.size() < 2; ++run) {
    const std::string dir = work + "/run" + std::to_string(run);
    const Result r =
        shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " + shellQuote(race) + " 3 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    by_outcome.emplace(r.out, dir);
  }
  if (by_outcome.size() < 2) GTEST_SKIP() << "40 runs of the race sample all gave the same total";
  const std::string a = by_outcome.begin()->second, b = std::next(by_outcome.begin())->second;
  const Result d = radar({"diff", a, b});
  EXPECT_EQ(d.exit_code, 1) << d.err;
  EXPECT_TRUE(std::regex_search(
      d.out, std::regex(R"(^the runs part here first \(a race, in race/race\S*>server\): it received)")))
      << d.out;
  EXPECT_NE(d.out.find("  first run : Process server["), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("  second run: Process server["), std::string::npos) << d.out;
  // A run against itself: nothing.
  const Result same = radar({"diff", a, a});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("no causal difference"), std::string::npos) << same.out;
}

TEST(Diff, BadInputGetsAClearError) {
  const Result one = radar({"diff", "/nonexistent"});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("give two recordings"), std::string::npos) << one.err;
  const Result missing = radar({"diff", "/nonexistent/a", "/nonexistent/b"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace radar::testing
