// radar record --on CONDITION --do ACTION: the deadlock sample's ring told
// while it is stuck, before its watchdog kills it, and the ticker's events
// acted on as they happen.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "recorded.h"

namespace radar::testing {
namespace {

std::string sample(const std::string& name) { return radarPath().substr(0, radarPath().rfind('/') + 1) + name; }

// A process's state letter in /proc (R, S, T ...), '?' when it is gone.
char processState(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
}

struct Watched {
  std::string err;                     // radar record's standard error, the program's output too
  std::vector<char> states_when_told;  // the cycle's processes' states when the deadlock was told
  int status = -1;
};

// radar record with `radar_args`, of the deadlock sample in `mode`; what
// it and the program print read as it comes.
Watched recordDeadlockSample(const std::vector<std::string>& radar_args, const std::string& mode) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  std::vector<std::string> args = {radarPath(), "record", "-o", testTempDir() + "/ring"};
  args.insert(args.end(), radar_args.begin(), radar_args.end());
  for (const std::string& a : {std::string("--"), sample("deadlock"), mode}) args.push_back(a);
  const int pid = spawn(args, fds[1], fds[1]);
  ::close(fds[1]);
  Watched w;
  const std::regex stopped("gdb -p PID:((?: [0-9]+)+)");
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
    w.err.append(buf, static_cast<size_t>(n));
    std::smatch m;
    if (w.states_when_told.empty() && std::regex_search(w.err, m, stopped)) {
      std::istringstream pids(m[1].str());
      for (int p; pids >> p;) w.states_when_told.push_back(processState(p));
    }
  }
  ::close(fds[0]);
  ::waitpid(pid, &w.status, 0);
  return w;
}

TEST(OnDeadlock, TheRingIsToldAndStoppedBeforeItsWatchdogFires) {
  const Watched w = recordDeadlockSample({"--on", "deadlock", "--do", "stop"}, "ring");
  ASSERT_TRUE(WIFEXITED(w.status)) << w.err;
  EXPECT_EQ(WEXITSTATUS(w.status), 3) << w.err;  // the watchdog's status: the program ran as it would
  const size_t told = w.err.find("radar record: a deadlock: "), watchdog = w.err.find("deadlock: workers killed");
  ASSERT_NE(told, std::string::npos) << w.err;
  ASSERT_NE(watchdog, std::string::npos) << w.err;
  EXPECT_LT(told, watchdog) << w.err;
  // Its cycle, each process waiting for the one before it in the ring.
  for (const char* wait : {"alpha[", "beta[", "gamma["}) EXPECT_NE(w.err.find(wait, told), std::string::npos);
  EXPECT_NE(w.err.find("waits for", told), std::string::npos) << w.err;
  // Its three processes were stopped when it was told.
  EXPECT_EQ(w.states_when_told, std::vector<char>({'T', 'T', 'T'})) << w.err;
}

TEST(OnDeadlock, ACommandGetsTheDeadlockAsJson) {
  const std::string out = testTempDir() + "/deadlock.json";
  const Watched w = recordDeadlockSample({"--on", "deadlock", "--do", "run cat > " + out}, "ring");
  ASSERT_TRUE(WIFEXITED(w.status)) << w.err;
  std::ifstream file(out);
  const std::string json((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(json.rfind("{\"kind\":\"deadlock\",\"text\":", 0), 0u) << json;
  for (const char* name : {"\"name\":\"alpha[", "\"name\":\"beta[", "\"name\":\"gamma["})
    EXPECT_NE(json.find(name), std::string::npos) << json;
  EXPECT_NE(json.find("\"channels\":[\"pipe "), std::string::npos) << json;
  // Marked, not stopped: the watchdog still found them running.
  EXPECT_TRUE(w.states_when_told.empty()) << w.err;
}

TEST(OnDeadlock, ARingThatTurnsIsNoDeadlock) {
  const Watched w = recordDeadlockSample({"--on", "deadlock"}, "chain");
  ASSERT_TRUE(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0) << w.err;
  EXPECT_EQ(w.err.find("a deadlock"), std::string::npos) << w.err;
}

TEST(OnDeadlock, WrongConditionsAndActionsAreRefused) {
  for (const std::string& line :
       {std::string(" record --do stop -- true"), std::string(" record --on lunch -- true"),
        std::string(" record --on colour=red -- true"), std::string(" record --on deadlock --do explode -- true")}) {
    const Result r = shell(shellQuote(radarPath()) + line);
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.err;
    EXPECT_NE(r.err.find("radar record:"), std::string::npos) << r.err;
  }
}

// radar record --on ... of the ticker (ticks every `interval_ms`, `count`
// of them); radar record's standard error read until `until` shows, or to
// its end.
struct Ticking {
  int recorder = -1, err = -1;
  std::string dir, said;
};

Ticking recordTicker(const std::string& name, const std::vector<std::string>& radar_args, int interval_ms, int count,
                     const std::string& until) {
  Ticking t;
  t.dir = testTempDir() + "/" + name;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return t;
  std::vector<std::string> args = {radarPath(), "record", "-o", t.dir};
  args.insert(args.end(), radar_args.begin(), radar_args.end());
  for (const std::string& a :
       {std::string("--"), programPath("ticker"), std::to_string(interval_ms), std::to_string(count)})
    args.push_back(a);
  t.recorder = spawn(args, -1, fds[1]);
  ::close(fds[1]);
  t.err = fds[0];
  char buf[4096];
  // A minute at most: a ticker stopped by its recorder keeps radar record
  // waiting, and a message that never comes would keep this test so.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (t.said.find(until) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    struct pollfd p {
      t.err, POLLIN, 0
    };
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(t.err, buf, sizeof buf);
    if (n <= 0) break;
    t.said.append(buf, static_cast<size_t>(n));
  }
  if (t.said.find(until) == std::string::npos) {
    ADD_FAILURE() << "radar record did not say '" << until << "': " << t.said;
    ::kill(t.recorder, SIGKILL);
    shell("pkill -KILL -f 'ticke[r] " + std::to_string(interval_ms) + " " + std::to_string(count) + "'");
  }
  return t;
}

int finish(Ticking& t) {
  char buf[4096];
  for (ssize_t n; (n = ::read(t.err, buf, sizeof buf)) > 0;) t.said.append(buf, static_cast<size_t>(n));
  ::close(t.err);
  int status = -1;
  ::waitpid(t.recorder, &status, 0);
  return status;
}

// The ticks a recording's story holds, as its ticker's writes.
size_t ticksIn(const std::string& dir) {
  return occurrences(radar({"events", dir, "--json", "--kind", "write", "--process", "ticker"}).out,
                     "\"kind\":\"write\"");
}

// Stopped by its own recorder at the event: its log ends with it (the
// ticker writes tick 10 and stops there, though 390 more were to come).
TEST(OnEvent, StopStopsTheProcessAtItsEventWithItsLogEndingThere) {
  Ticking t =
      recordTicker("stop", {"--on", "kind=write contains=\"tick 10\"", "--do", "stop"}, 20, 400, "for gdb -p PID:");
  const std::regex stopped("a message to ticker\\[[0-9]+\\].*gdb -p PID: ([0-9]+)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(t.said, m, stopped)) << t.said;
  const int pid = std::stoi(m[1].str());
  EXPECT_EQ(processState(pid), 'T') << t.said;
  EXPECT_EQ(ticksIn(t.dir), 10u) << "its log ends with the event";
  const Result last = radar({"events", t.dir, "--process", "ticker", "--kind", "write", "--from", "1"});
  EXPECT_NE(last.out.rfind("(8 bytes)"), std::string::npos) << last.out;  // "tick 10\n"
  ::kill(pid, SIGKILL);                                                   // and its child ends on end of file
  finish(t);
}

// A condition that names a process is judged by radar record as it reads
// the logs: the process stops a moment after its event, its log holding
// it and what came until then.
TEST(OnEvent, StopOfANamedProcessComesAsRadarRecordSeesIt) {
  Ticking t = recordTicker("stop-named", {"--on", "process=ticker kind=write contains=\"tick 10\"", "--do", "stop"}, 20,
                           400, "for gdb -p PID:");
  const std::regex stopped("a message to ticker\\[[0-9]+\\].*gdb -p PID: ([0-9]+)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(t.said, m, stopped)) << t.said;
  const int pid = std::stoi(m[1].str());
  EXPECT_EQ(processState(pid), 'T') << t.said;
  // A few ticks more at most (a look every 0.2 s, a tick every 20 ms).
  const size_t ticks = ticksIn(t.dir);
  EXPECT_GE(ticks, 10u);
  EXPECT_LE(ticks, 80u);
  ::kill(pid, SIGKILL);
  finish(t);
}

TEST(OnEvent, ACommandGetsTheEventAsJson) {
  const std::string out = testTempDir() + "/event.json";
  Ticking t = recordTicker("run", {"--on", "kind=write contains=\"tick 5\"", "--do", "run cat > " + out}, 10, 30, "");
  const int status = finish(t);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << t.said;
  const std::string json = slurp(out);
  EXPECT_EQ(json.rfind("{\"kind\":\"event\",\"event\":", 0), 0u) << json;
  EXPECT_NE(json.find("\"call\":\"write\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"process\":\"ticker["), std::string::npos) << json;
  EXPECT_EQ(occurrences(t.said, ": Process ticker["), 1u) << t.said;  // once: only tick 5 matches
}

TEST(OnEvent, ASnapshotIsTheRecordingSoFar) {
  Ticking t = recordTicker("snapshot", {"--on", "kind=write contains=\"tick 10\"", "--do", "snapshot"}, 20, 100, "");
  const int status = finish(t);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << t.said;
  EXPECT_NE(t.said.find("the recording so far copied into " + t.dir + "/snapshot-1"), std::string::npos) << t.said;
  const Result check = radar({"check", t.dir + "/snapshot-1", "--json"});
  EXPECT_NE(check.out.find("\"problems\":[],"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("\"findings\":[]"), std::string::npos) << check.out;
  const size_t ticks = ticksIn(t.dir + "/snapshot-1");
  EXPECT_GE(ticks, 10u);
  EXPECT_LT(ticks, 100u);
  EXPECT_EQ(ticksIn(t.dir), 100u);
}

}  // namespace
}  // namespace radar::testing
