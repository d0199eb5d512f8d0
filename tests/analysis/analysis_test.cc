// radar diff, radar critical-path and radar patterns on programs recorded
// here.
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
  // --json, read by Python's parser: the same first difference, both
  // sides' events with their sentences; nothing for a run against itself.
  const std::string read = shellQuote(
      "import json, sys\n"
      "d = json.load(sys.stdin)\n"
      "if not d['differences']: print('none', d['processes_matched'], len(d['duration_ns'])); sys.exit()\n"
      "f = d['differences'][0]\n"
      "print(f['kind'], f['process'].endswith('>server'), f['first_run']['event'] > 0,\n"
      "      f['second_run']['sentence'].startswith('Process server['), isinstance(d['channels'], list))\n");
  const Result j = radar({"diff", "--json", a, b});
  EXPECT_EQ(j.exit_code, 1) << j.err;
  EXPECT_EQ(shell("python3 -c " + read, j.out).out, "a race True True True True\n") << j.out;
  const Result js = radar({"diff", "--json", a, a});
  EXPECT_EQ(js.exit_code, 0) << js.err;
  EXPECT_EQ(shell("python3 -c " + read, js.out).out, "none 9 2\n") << js.out;
}

// radar record --repeat N --until COMMAND: a program that exits 0 with a
// wrong answer from its third run on; the command, given each run's output,
// directory and status, stops the series there.
TEST(Diff, RecordUntilACommandFailsStopsAtTheFirstWrongAnswer) {
  const std::string work = testTempDir(), series = work + "/series", seen = work + "/seen";
  const std::string program = "n=$(cat " + shellQuote(work + "/count") +
                              " 2>/dev/null || echo 0); n=$((n + 1)); echo $n > " + shellQuote(work + "/count") +
                              "; echo answer $n";
  const std::string until = "echo \"$RADAR_RUN $RADAR_RUN_STATUS\" >> " + shellQuote(seen) + "; grep -qx 'answer [12]'";
  const Result r = radar({"record", "-o", series, "--repeat", "10", "--until", until, "--", "sh", "-c", program});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("radar: run 3: `" + until + "` exited with status 1, the 2 before it passed; kept " + series +
                       "/run-2 and " + series + "/run-3\n"),
            std::string::npos)
      << r.err;
  // Every run's output is radar's, and the diff of the two runs kept.
  EXPECT_EQ(r.out.substr(0, 27), "answer 1\nanswer 2\nanswer 3\n");
  EXPECT_NE(r.out.find("the runs part here first"), std::string::npos) << r.out;
  // The command saw each run's directory and status; only two runs are left.
  std::ifstream in(seen);
  std::stringstream said;
  said << in.rdbuf();
  EXPECT_EQ(said.str(), series + "/run-1 0\n" + series + "/run-2 0\n" + series + "/run-3 0\n");
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(series)) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"run-2", "run-3"}));
  // Asked wrongly: said so.
  EXPECT_NE(radar({"record", "--until", "true", "--", "true"}).err.find("--until needs --repeat N"), std::string::npos);
  EXPECT_NE(radar({"record", "--repeat", "2", "--until", "true", "--until-fail", "--", "true"})
                .err.find("--until and --until-fail: give one way to tell a failed run"),
            std::string::npos);
}

// Ctrl-C during a run ends the series after it, and that run is not judged:
// the command is not run on it and nothing is called caught.
TEST(Diff, RecordUntilInterruptedJudgesNoRun) {
  const std::string work = testTempDir(), marker = work + "/judged";
  const Result r = shell(shellQuote(radarPath()) + " record -o " + shellQuote(work + "/series") +
                         " --repeat 5 --until " + shellQuote("touch " + shellQuote(marker) + "; false") +
                         " -- sleep 1 & p=$!; for i in $(seq 200); do [ -d " + shellQuote(work + "/series/run-1") +
                         " ] && break; sleep 0.05; done; kill -INT $p; wait $p; echo status $?");
  EXPECT_NE(r.out.find("status 0"), std::string::npos) << r.out << r.err;  // sleep's own status
  EXPECT_NE(r.err.find("radar: interrupted: 1 run recorded into " + work + "/series (run-1 ... run-1)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the interrupted run was judged";
  EXPECT_TRUE(std::filesystem::exists(work + "/series/run-1/recording.txt"));
}

// The race sample prints a wrong total and exits 0: --until-fail never
// catches it, --until with grep does (at whichever run it first happens).
TEST(Diff, RecordUntilCatchesTheRaceSamplesWrongTotal) {
  const std::string race = std::string(RADAR_SAMPLES) + "/race";
  const std::string series = testTempDir() + "/series";
  const Result r =
      radar({"record", "-o", series, "--repeat", "40", "--until", "grep -qx 'hits = 60'", "--", race, "3"});
  if (r.err.find("every one passed") != std::string::npos)
    GTEST_SKIP() << "40 runs of the race sample all printed hits = 60";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.err, m, std::regex(R"(radar: run (\d+): `grep -qx 'hits = 60'` exited with status 1)")))
      << r.err;
  const std::string last = r.out.substr(
      0, r.out.find("the runs part") == std::string::npos ? std::string::npos : r.out.find("the runs part"));
  EXPECT_TRUE(std::regex_search(last, std::regex(R"(hits = (?!60\n)\d+\n$)"))) << r.out;
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

// The two runs side by side in the replay (radar diff --replay opens the
// same window): drawn, and said where they part.
TEST(Diff, BothRunsSideBySideInTheReplay) {
  const std::string series = testTempDir() + "/series";
  const Result r = radar({"record", "-o", series, "--repeat", "40", "--until-fail", "--", "sh", "-c",
                          shellQuote(std::string(RADAR_SAMPLES) + "/race") + " 3 | grep -qx 'hits = 60'"});
  std::smatch m;
  if (!std::regex_search(r.err, m, std::regex(R"(kept (\S+) and (\S+)\n)")))
    GTEST_SKIP() << "40 runs of the race sample all gave the same status";
  const std::string png = testTempDir() + "/runs.png";
  const Result shot = shell("env -u DISPLAY " + shellQuote(radarPath()) + " replay --diff " + shellQuote(m[1]) + " " +
                            shellQuote(m[2]) + " --snapshot " + shellQuote(png) + " --size 1600x800");
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  // The server named as radar names processes, in each run.
  EXPECT_TRUE(std::regex_search(
      shot.out, std::regex(R"(^First, the runs part here \(a race, in server\[\d+\] and server\[\d+\]\))")))
      << shot.out;
  std::ifstream image(png, std::ios::binary);
  char header[24] = {};
  image.read(header, sizeof header);
  ASSERT_EQ(std::string(header + 1, 3), "PNG");
  const auto be32 = [&](int at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(header[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(header[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(header[at + 2])) << 8) | static_cast<uint8_t>(header[at + 3]);
  };
  EXPECT_EQ(be32(16), 1600u);
  EXPECT_EQ(be32(20), 800u);
  // Mistakes.
  EXPECT_EQ(radar({"replay", "--diff", m[1]}).exit_code, 2);
  EXPECT_EQ(radar({"replay", "--diff", m[1], m[2], "--at-event", "3"}).exit_code, 2);
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

// radar patterns on the samples: each one's known shape.
class SamplePatterns : public ::testing::Test {
 protected:
  // Records a sample (its input on stdin) and returns radar patterns' JSON.
  std::string patternsOf(const std::string& sample, const std::vector<std::string>& args, const std::string& input,
                         const std::string& net = "") {
    work_ = testTempDir();
    const std::string dir = work_ + "/" + sample;
    std::string line = shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                       shellQuote(std::string(RADAR_SAMPLES) + "/" + sample);
    for (const auto& a : args) line += " " + shellQuote(a);
    const Result r = shell(line + " >/dev/null 2>&1", input);
    EXPECT_EQ(r.exit_code, 0) << sample;
    std::vector<std::string> command{"patterns", "--json", dir};
    if (!net.empty()) command.insert(command.begin() + 1, {"--net", net});
    const Result p = radar(command);
    EXPECT_EQ(p.exit_code, 0) << p.err;
    return p.out;
  }
  std::string work_;  // where the last sample was recorded
  static bool has(const std::string& json, const std::string& pattern) {
    return std::regex_search(json, std::regex(pattern));
  }
};

TEST_F(SamplePatterns, CalcPipelineStages) {
  std::string input;
  for (int k = 1; k <= 20; ++k) input += "(" + std::to_string(k) + " + 3) * x - 4 / 2\n";
  const std::string json = patternsOf("calc", {}, input);
  // The scanner sends each line's tokens to the parser and their values to
  // the interpreter; the parser is a stage between them.
  EXPECT_TRUE(has(
      json,
      R"re("kind":"round","name":null,"process":"scanner".*"steps":\[\{"text":"sends to parser".*\{"text":"sends to interpreter".*"repetitions":20,)re"))
      << json;
  EXPECT_TRUE(has(
      json,
      R"re("kind":"pipeline stage","name":null,"process":"parser".*"steps":\[\{"text":"receives from scanner".*\{"text":"sends to interpreter".*"repetitions":20,)re"))
      << json;
  EXPECT_TRUE(has(json, R"re("links":\[\{"kind":"pipeline","patterns":\[\d+,\d+,\d+\]\}\])re")) << json;
}

TEST_F(SamplePatterns, BroadcastRounds) {
  std::string input;
  for (int k = 1; k <= 30; ++k) input += std::to_string(k) + "\n";
  const std::string json = patternsOf("broadcast", {}, input + "999\n");
  EXPECT_TRUE(has(
      json,
      R"re("kind":"round","name":null,"process":"sender".*"steps":\[\{"text":"sends to receiver1".*\{"text":"sends to receiver2".*"repetitions":31,)re"))
      << json;
}

TEST_F(SamplePatterns, KvstoreRequestResponse) {
  const std::string json = patternsOf("kvstore", {"4", "6"}, "");
  // Six clients of five requests each, and the shutdown: the server
  // answers them as one role, however they interleave.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      json, m,
      std::regex(
          R"re("kind":"request/response","name":null,"process":"server".*?"steps":\[\{"text":"receives from client".*?\{"text":"sends to client".*?"repetitions":(\d+),)re")))
      << json;
  EXPECT_GE(std::stoi(m[1]), 20);
  EXPECT_LE(std::stoi(m[1]), 31);
}

// How many requests each server received, by its label, from radar events.
std::map<std::string, uint64_t> requestsByServer(const std::string& events) {
  std::map<std::string, uint64_t> out;
  const std::regex receive(R"re(Process (server\[\d+\]) receives a message from initiator\[\d+\] on requests)re");
  for (auto it = std::sregex_iterator(events.begin(), events.end(), receive); it != std::sregex_iterator(); ++it)
    ++out[(*it)[1]];
  return out;
}

TEST_F(SamplePatterns, MpxQueueing) {
  const std::string mpx_net = std::string(RADAR_SOURCE_SAMPLES) + "/mpx.netdesc";
  const std::string json = patternsOf("mpx", {"3", "200"}, "", mpx_net);
  const std::string dir = work_ + "/mpx";
  // Which server got how many of the 200 requests is the scheduler's
  // choice: a server that answered two or more shows the pattern.
  const Result told = radar({"events", "--net", mpx_net, dir});
  ASSERT_EQ(told.exit_code, 0) << told.err;
  uint64_t requests = 0, repeated = 0, servers = 0;
  for (const auto& [server, n] : requestsByServer(told.out)) {
    requests += n;
    if (n >= 2) repeated += n, ++servers;
  }
  ASSERT_EQ(requests, 200u) << told.out;
  // Each server serves requests; the initiator's requests queue in the
  // pipe (its capacity is 16 of them).
  std::string listed = "server\\[\\d+\\]";
  for (uint64_t k = 1; k < servers; ++k) listed += "\",\"server\\[\\d+\\]";
  EXPECT_TRUE(has(
      json,
      R"re("kind":"request/response","name":null,"process":"server","processes":\[")re" + listed +
          R"re("\],"steps":\[\{"text":"receives Request from initiator".*?"text":"sends Reply to initiator".*?"repetitions":)re" +
          std::to_string(repeated) + ","))
      << json;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      json, m,
      std::regex(
          R"re("kind":"burst","name":null,"process":"initiator".*?"text":"sends Request to server".*?"most_queued":(\d+))re")))
      << json;
  EXPECT_GE(std::stoi(m[1]), 2);
  EXPECT_LE(std::stoi(m[1]), 18);  // what the pipe holds, and the one being written
  EXPECT_TRUE(has(json, R"re("links":\[\{"kind":"queue")re")) << json;

  // Named in the description: radar patterns says the names, radar events
  // tells each server's stretch as one event (--expand: every event).
  std::ifstream in(mpx_net);
  std::stringstream text;
  text << in.rdbuf()
       << "pattern { name: \"serving\" process: \"server\"\n"
          "          step: \"receives Request from initiator\" step: \"sends Reply to initiator\" }\n"
          "pattern { name: \"queueing\" step: \"sends Request to server (200 times)\" }\n"
          "pattern { name: \"absent\" step: \"exits\" }\n";
  const std::string net = work_ + "/named.netdesc";
  std::ofstream(net) << text.str();
  const Result named = radar({"patterns", "--net", net, dir});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_TRUE(has(named.out,
                  R"re(\n +\d+\. serving, request/response × )re" + std::to_string(repeated) + R"re( in server\[)re"))
      << named.out;
  EXPECT_TRUE(has(named.out, R"re(\n +\d+\. queueing, burst × 200 in initiator\[)re")) << named.out;
  EXPECT_NE(named.err.find("the description's pattern 'absent' matches no pattern found"), std::string::npos)
      << named.err;
  const Result folded = radar({"events", "--net", net, dir});
  const Result expanded = radar({"events", "--net", net, "--expand", dir});
  const Result plain = radar({"events", dir});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  auto lines = [](const std::string& s) { return static_cast<uint64_t>(std::count(s.begin(), s.end(), '\n')); };
  EXPECT_EQ(lines(expanded.out), lines(plain.out));
  std::smatch s;
  uint64_t served = 0, stretches = 0;
  std::string rest = folded.out;
  const std::regex serving(
      R"re(Process server\[\d+\] does serving × (\d+) \(events \d+ to \d+; --expand tells them\)\. Event \d+\.)re");
  while (std::regex_search(rest, s, serving)) {
    served += std::stoull(s[1]);
    ++stretches;
    rest = s.suffix();
  }
  // The repeating servers' requests and replies and the initiator's 200
  // sends are told as one line a stretch.
  EXPECT_EQ(lines(folded.out), lines(plain.out) - 200 - 2 * repeated + stretches + 1) << folded.out;
  EXPECT_EQ(served, repeated) << folded.out;
  EXPECT_TRUE(has(folded.out, R"re(Process initiator\[\d+\] does queueing × 200 )re")) << folded.out;
}

// radar critical-path on a recorded sample: the path's segments account
// for exactly the time from its first event to its last; the server's
// interactions are each client request answered.
TEST_F(SamplePatterns, CriticalPathAndInteractionsOfKvstore) {
  patternsOf("kvstore", {"4", "6"}, "");
  const std::string dir = work_ + "/kvstore";
  const Result path = radar({"critical-path", "--json", dir});
  ASSERT_EQ(path.exit_code, 0) << path.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(path.out, m, std::regex(R"re("begin_ns":(-?\d+),"end_ns":(-?\d+))re"))) << path.out;
  const long long begin = std::stoll(m[1]), end = std::stoll(m[2]);
  long long sum = 0;
  int segments = 0;
  std::string rest = path.out;
  while (std::regex_search(
      rest, m, std::regex(R"re("kind":"(running|blocked|transit|queued)","begin_ns":-?\d+,"ns":(\d+))re"))) {
    sum += std::stoll(m[2]);
    ++segments;
    rest = m.suffix();
  }
  EXPECT_GT(segments, 5);
  EXPECT_EQ(sum, end - begin);
  // Every client's five requests and the shutdown, answered by the server.
  const Result inter = radar({"critical-path", "--interactions", "--json", dir});
  ASSERT_EQ(inter.exit_code, 0) << inter.err;
  int answered = 0;
  rest = inter.out;
  while (std::regex_search(rest, m, std::regex(R"re("server":"server\[\d+\]","interactions":(\d+))re"))) {
    answered += std::stoi(m[1]);
    rest = m.suffix();
  }
  EXPECT_EQ(answered, 31) << inter.out;
  // An event that is not there.
  const Result bad = radar({"critical-path", "--to", "100000", dir});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no such event"), std::string::npos) << bad.err;
}

TEST(Diff, BadInputGetsAClearError) {
  const Result one = radar({"diff", "/nonexistent"});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("give two recordings"), std::string::npos) << one.err;
  const Result missing = radar({"diff", "/nonexistent/a", "/nonexistent/b"});
  EXPECT_EQ(missing.exit_code, 2);
}

// ---- every --json follows its documented schema (docs/json) -------------------------------------

// Why `output` does not follow docs/json/NAME.schema.json ("" when it does),
// checked by Python's jsonschema, which radar shares nothing with.
std::string schemaErrors(const std::string& name, const std::string& output, bool lines = false) {
  const Result r =
      shell("/usr/bin/python3 " + shellQuote(RADAR_SOURCE_ROOT "/tests/cli/validate_json.py") + " " +
                shellQuote(RADAR_SOURCE_ROOT "/docs/json/" + name + ".schema.json") + (lines ? " --lines" : ""),
            output);
  return r.exit_code == 0 ? "" : r.out + r.err;
}

TEST(Json, EveryCommandsOutputFollowsItsDocumentedSchema) {
  if (shell("/usr/bin/python3 -c 'import jsonschema'").exit_code != 0)
    GTEST_SKIP() << "Python's jsonschema is not installed (apt-get install python3-jsonschema)";
  const std::string work = testTempDir();
  std::string input;
  for (int k = 1; k <= 20; ++k) input += "(" + std::to_string(k) + " + 3) * x - 4 / 2\n";
  const std::string calc = work + "/calc";
  ASSERT_EQ(shell(shellQuote(radarPath()) + " record -o " + shellQuote(calc) + " -- " +
                      shellQuote(std::string(RADAR_SAMPLES) + "/calc") + " >/dev/null 2>&1",
                  input)
                .exit_code,
            0);
  struct Case {
    std::string schema;
    std::vector<std::string> command;
    bool lines = false;
  };
  const std::vector<Case> cases = {
      {"check", {"check", "--json", calc}},
      {"stats", {"stats", "--json", calc}},
      {"events", {"events", "--json", calc}, true},
      {"critical-path", {"critical-path", "--json", calc}},
      {"critical-path", {"critical-path", "--interactions", "--json", calc}},
      {"patterns", {"patterns", "--json", calc}},
      {"sql", {"sql", "--json", calc, "select * from events limit 20"}},
      {"diff", {"diff", "--json", calc, calc}},
  };
  for (const Case& c : cases) {
    const Result r = radar(c.command);
    EXPECT_LE(r.exit_code, 1) << r.err;
    EXPECT_EQ(schemaErrors(c.schema, r.out, c.lines), "") << c.command[0] << " " << c.command[1] << ":\n" << r.out;
  }
  // Two runs of the race sample that part: differences with both sides.
  std::map<std::string, std::string> by_outcome;
  for (int run = 0; run < 40 && by_outcome.size() < 2; ++run) {
    const std::string dir = work + "/race" + std::to_string(run);
    by_outcome.emplace(shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                             shellQuote(std::string(RADAR_SAMPLES) + "/race") + " 3 2>/dev/null")
                           .out,
                       dir);
  }
  if (by_outcome.size() == 2) {
    const Result d = radar({"diff", "--json", by_outcome.begin()->second, std::next(by_outcome.begin())->second});
    EXPECT_NE(d.out.find("\"differences\":[{"), std::string::npos) << d.out;
    EXPECT_EQ(schemaErrors("diff", d.out), "") << d.out;
  }
  // The check can fail: an output that breaks a schema is said.
  EXPECT_NE(schemaErrors("stats", "{\"processes\":[],\"channels\":[]}"), "");
  EXPECT_NE(schemaErrors("events", "{\"event\":0}\n", true), "");
}

}  // namespace
}  // namespace radar::testing
