// radar diff and radar critical-path on programs recorded here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

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

// radar record --repeat N --until-fail: the race sample checked by grep (a
// test that fails when the total is wrong) is recorded until its status
// changes; the changed run and the one before it are kept and diffed.
TEST(Diff, RecordUntilTheStatusChangesKeepsTwoRunsAndDiffsThem) {
  const std::string race = std::string(RADAR_SAMPLES) + "/race";
  const std::string series = testTempDir() + "/series";
  const Result r = radar({"record", "-o", series, "--repeat", "40", "--until-fail", "--", "sh", "-c",
                          shellQuote(race) + " 3 | grep -qx 'hits = 60'"});
  if (r.err.find("every one exited with status") != std::string::npos)
    GTEST_SKIP() << "40 runs of the race sample all gave the same status";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m,
      std::regex(R"(radar: run (\d+) exited with status (\d+), the (\d+) before it with status (\d+); kept)")))
      << r.err;
  const int k = std::stoi(m[1]), status = std::stoi(m[2]), first = std::stoi(m[4]);
  EXPECT_EQ(std::stoi(m[3]), k - 1);
  EXPECT_NE(status, first);
  EXPECT_EQ(r.exit_code, status);
  EXPECT_TRUE(status == 0 || status == 1) << status;
  // Only the two runs are left, each a whole recording with its status.
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(series)) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  const std::string before = "run-" + std::to_string(k - 1), after = "run-" + std::to_string(k);
  EXPECT_EQ(left, (std::vector<std::string>{std::min(before, after), std::max(before, after)}));
  for (const auto& [run, want] : {std::pair{before, first}, std::pair{after, status}}) {
    std::ifstream in(series + "/" + run + "/recording.txt");
    std::stringstream text;
    text << in.rdbuf();
    // (A status of 0 is the field's default, not written.)
    const size_t at = text.str().find("root_status: ");
    const int recorded = at == std::string::npos ? 0 : std::stoi(text.str().substr(at + 13));
    EXPECT_EQ(recorded, want << 8) << run;
  }
  // The diff of the two: the totals differ because the server took the
  // clients' commands in another order.
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(R"(^the runs part here first \(a race, in sh/sh>race/race\S*>server\))")))
      << r.out;
  // The same diff as radar diff gives.
  const Result d = radar({"diff", series + "/" + before, series + "/" + after});
  EXPECT_EQ(d.out, r.out);
}

TEST(Diff, RecordRepeatKeepsEveryRun) {
  const std::string series = testTempDir() + "/series";
  const Result r = radar({"record", "-o", series, "--repeat", "3", "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int k = 1; k <= 3; ++k)
    EXPECT_TRUE(std::filesystem::exists(series + "/run-" + std::to_string(k) + "/recording.txt")) << k;
  EXPECT_FALSE(std::filesystem::exists(series + "/run-4"));
  EXPECT_NE(r.err.find("3 runs recorded into " + series), std::string::npos) << r.err;
  // Again: refused, unless --force, which replaces only the runs.
  const Result again = radar({"record", "-o", series, "--repeat", "2", "--", "false"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("not empty"), std::string::npos) << again.err;
  const Result forced = radar({"record", "-o", series, "--force", "--repeat", "2", "--", "false"});
  EXPECT_EQ(forced.exit_code, 1) << forced.err;
  EXPECT_FALSE(std::filesystem::exists(series + "/run-3"));
  std::ofstream(series + "/notes.txt") << "mine";
  const Result other = radar({"record", "-o", series, "--force", "--repeat", "2", "--", "true"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_TRUE(std::filesystem::exists(series + "/notes.txt"));
  // Mistakes.
  EXPECT_EQ(radar({"record", "--until-fail", "--", "true"}).exit_code, 2);
  EXPECT_EQ(radar({"record", "--repeat", "0", "--", "true"}).exit_code, 2);
  EXPECT_EQ(radar({"record", "--repeat", "x", "--", "true"}).exit_code, 2);
}

// Two runs given to one command are not silently one story: refused with
// a pointer to radar diff, by every command that merges, and by the replay.
TEST(Diff, TwoRunsAreNotMergedUnlessAsked) {
  const std::string race = std::string(RADAR_SAMPLES) + "/race";
  const std::string work = testTempDir();
  for (const char* run : {"/a", "/b"}) {
    const Result r = shell(shellQuote(radarPath()) + " record -o " + shellQuote(work + run) + " -- " +
                           shellQuote(race) + " 2 >/dev/null 2>&1");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::string a = work + "/a", b = work + "/b";
  for (const char* command : {"stats", "check", "events", "critical-path", "sql"}) {
    const Result r = radar({command, a, b});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("share no channel"), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find("radar diff"), std::string::npos) << command << ": " << r.err;
    EXPECT_EQ(r.out, "") << command;
  }
  const Result replay = shell("env -u DISPLAY " + shellQuote(radarPath()) + " replay " + shellQuote(a) + " " +
                              shellQuote(b) + " --snapshot " + shellQuote(work + "/view.png"));
  EXPECT_NE(replay.exit_code, 0);
  EXPECT_NE(replay.err.find("share no channel"), std::string::npos) << replay.err;
  // Asked to: one trace holding both, with the warning.
  const Result both = radar({"stats", "--merge-unrelated", a, b});
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.err.find("warning: the recordings given share no channel"), std::string::npos) << both.err;
  const Result one = radar({"stats", a});
  size_t servers_one = 0, servers_both = 0;
  for (size_t at = 0; (at = one.out.find("server[", at)) != std::string::npos; ++at) ++servers_one;
  for (size_t at = 0; (at = both.out.find("server[", at)) != std::string::npos; ++at) ++servers_both;
  EXPECT_GT(servers_one, 0u) << one.out;
  EXPECT_EQ(servers_both, 2 * servers_one) << both.out;
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
