// `radar events --follow`: the story of a program told while it runs, each
// event once, as the final story tells it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "recorded.h"

namespace radar::testing {
namespace {

// A command started with its standard output on a pipe (or /dev/null).
struct Started {
  pid_t pid = -1;
  int out = -1;
};

Started start(const std::vector<std::string>& args, bool keep_output) {
  int fds[2] = {-1, -1};
  if (keep_output && ::pipe2(fds, O_CLOEXEC) != 0) return {};
  const int pid = spawn(args, fds[1], -1);
  if (keep_output) ::close(fds[1]);
  return {pid, fds[0]};
}

// What `fd` has to read within 50 ms, appended to `into`; false at its end.
bool readSome(int fd, std::string& into) {
  struct pollfd p {
    fd, POLLIN, 0
  };
  if (::poll(&p, 1, 50) <= 0) return true;
  char buf[65536];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n <= 0) return false;
  into.append(buf, static_cast<size_t>(n));
  return true;
}

struct Followed {
  std::string told;           // everything --follow printed
  std::string while_running;  // what it had printed while the ticker still ticked
  int status = -1;
};

// Follows `dir` while radar record records a ticker into it, until the
// follower ends by itself (killed a minute after the recording ends: it
// never does that). The ticker ticks `ticks` times, then on until the
// follower has told `told_while_running` of its sends (a file says so):
// however slow the machine, those are told while it runs. Three minutes
// without them is a failure (and the ticker is stopped).
Followed followWhileRecording(const std::string& dir, long interval_ms, long ticks, size_t told_while_running) {
  Followed f;
  const std::string until = dir + ".enough";
  const Started follower = start({radarPath(), "events", "--follow", "--json", dir}, true);
  const Started recorder = start({radarPath(), "record", "-o", dir, "--", programPath("ticker"),
                                  std::to_string(interval_ms), std::to_string(ticks), until},
                                 false);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  bool stopped = false;
  for (;;) {
    const bool enough = occurrences(f.told, " sends a message to ticker[") >= told_while_running;
    if (!stopped && (enough || std::chrono::steady_clock::now() > deadline)) {
      if (enough) f.while_running = f.told;  // the ticker ticks until the file exists
      std::ofstream(until) << "enough\n";
      stopped = true;
      deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    }
    if (!readSome(follower.out, f.told)) break;
    if (stopped && std::chrono::steady_clock::now() > deadline) {
      ::kill(follower.pid, SIGKILL);
      ADD_FAILURE() << "radar events --follow did not end with the recording";
      break;
    }
  }
  ::close(follower.out);
  ::waitpid(follower.pid, &f.status, 0);
  ::waitpid(recorder.pid, nullptr, 0);
  return f;
}

TEST(Follow, TellsTheStoryAsTheProgramRunsAndAsItEnds) {
  // Ticks 10 ms apart, 300 at least, and on until the follower has told
  // 150 of them: the story is told while the program runs, however little
  // of the machine a busy one gives the follower.
  const std::string dir = testTempDir() + "/ticking";
  const Followed f = followWhileRecording(dir, 10, 300, 150);
  EXPECT_TRUE(WIFEXITED(f.status) && WEXITSTATUS(f.status) == 0) << f.status;
  EXPECT_GE(occurrences(f.while_running, " sends a message to ticker["), 150u)
      << "told while the ticker ran: " << f.while_running.size() << " bytes";
  // Each event told once, and each as the finished recording tells it:
  // its number and its words (whom a message went to included).
  const Result final_story = radar({"events", "--json", dir});
  ASSERT_EQ(final_story.exit_code, 0) << final_story.err;
  EXPECT_GE(occurrences(final_story.out, " sends a message to ticker["), 300u);
  EXPECT_EQ(f.told, final_story.out);
}

TEST(Follow, AFinishedRecordingIsToldWhole) {
  const std::string dir = testTempDir() + "/finished";
  ASSERT_EQ(shell(shellQuote(radarPath()) + " record -o " + dir + " -- " + programPath("ticker") + " 1 20").exit_code,
            0);
  const Result followed = radar({"events", "--follow", dir});
  const Result told = radar({"events", dir});
  EXPECT_EQ(followed.exit_code, 0) << followed.err;
  EXPECT_EQ(followed.out, told.out);
  EXPECT_EQ(occurrences(followed.out, " sends a message to ticker["), 20u);
}

// radar record killed, and its program with it: nothing will write the
// logs any more, so the follower tells the rest and ends, saying why,
// rather than waiting forever for an end that radar record cannot write.
TEST(Follow, EndsOnceRadarRecordIsKilledAndItsProgramHasEnded) {
  const std::string dir = testTempDir() + "/killed";
  const Started recorder = start({radarPath(), "record", "-o", dir, "--", programPath("ticker"), "7", "99991"}, false);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  const int follower = spawn({radarPath(), "events", "--follow", dir}, -1, fds[1]);
  ::close(fds[1]);
  // Killed once the ticker is under way (however busy the machine).
  for (int waited = 0; waited < 300; ++waited) {
    if (occurrences(radar({"events", dir, "--kind", "write"}).out, " sends a message") >= 3) break;
    ::usleep(100 * 1000);
  }
  ::kill(recorder.pid, SIGKILL);
  ::waitpid(recorder.pid, nullptr, 0);
  ::usleep(300 * 1000);
  EXPECT_EQ(shell("pkill -KILL -f 'ticke[r] 7 99991'").exit_code, 0) << "the ticker ran on without radar record";
  // Ends by itself within seconds (killed after a minute: it never does).
  int status = -1;
  for (int waited = 0; waited < 600 && ::waitpid(follower, &status, WNOHANG) == 0; ++waited) ::usleep(100 * 1000);
  if (::waitpid(follower, &status, WNOHANG) == 0) {
    ::kill(follower, SIGKILL);
    ::waitpid(follower, &status, 0);
    ADD_FAILURE() << "radar events --follow did not end";
  }
  std::string said;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_NE(said.find("radar record is no longer recording"), std::string::npos) << said;
}

// A CSV told as the recording grows has its header first, though a
// process the filter names is not there at the first looks (the shell
// that will become it sleeps first): each row once, as the finished
// recording's CSV has them, the shell's before the ticker came too.
TEST(Follow, ACsvHasItsHeaderThoughTheProcessNamedComesLater) {
  const std::string dir = testTempDir() + "/csv";
  const std::vector<std::string> filter = {"--format", "csv", "--process", "sh", "--process", "ticker"};
  std::vector<std::string> follow = {radarPath(), "events", "--follow"};
  follow.insert(follow.end(), filter.begin(), filter.end());
  follow.push_back(dir);
  const Started follower = start(follow, true);
  const Started recorder = start({radarPath(), "record", "-o", dir, "--", "sh", "-c",
                                  "sleep 3; exec " + shellQuote(programPath("ticker")) + " 1 20"},
                                 false);
  std::string told;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  for (;;) {
    if (!readSome(follower.out, told)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(follower.pid, SIGKILL);
      ADD_FAILURE() << "radar events --follow did not end with the recording";
      break;
    }
  }
  ::close(follower.out);
  int status = -1;
  ::waitpid(follower.pid, &status, 0);
  ::waitpid(recorder.pid, nullptr, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::vector<std::string> once = {"events"};
  once.insert(once.end(), filter.begin(), filter.end());
  once.push_back(dir);
  const Result whole = radar(once);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  ASSERT_GE(occurrences(whole.out, "\n"), 22u) << whole.out;
  EXPECT_NE(whole.out.find(",process,exec,"), std::string::npos) << "the shell's exec: " << whole.out;
  EXPECT_EQ(told, whole.out);
}

// The window that follows a recording (radar record --live, radar replay
// --follow) is refused, saying why, where it cannot follow.
TEST(Live, ItsOptionsAreChecked) {
  const std::string replay = radarPath().substr(0, radarPath().rfind('/')) + "/../libexec/radar/radar-replay";
  if (::access(replay.c_str(), X_OK) != 0) GTEST_SKIP() << "radar was built without the replay (RADAR_BUILD_GUI=OFF)";
  const std::string radar_bin = shellQuote(radarPath());
  auto refused = [&](const std::string& line, const std::string& why) {
    const Result r = shell(line);
    EXPECT_EQ(r.exit_code, 2) << line;
    EXPECT_NE(r.err.find(why), std::string::npos) << line << ": " << r.err;
  };
  refused("env -u DISPLAY -u WAYLAND_DISPLAY " + radar_bin + " record --live -- true", "--live needs a display");
  refused("DISPLAY=:99 " + radar_bin + " record --live --repeat 2 -- true", "--live and --repeat");
  refused("DISPLAY=:99 " + radar_bin + " record --live --flight 1M -- true", "--live and --flight");
  refused(radar_bin + " replay --follow --snapshot x.png somewhere", "--follow shows the recording as it grows");
  refused(radar_bin + " replay --follow --at-event 3 somewhere", "--follow shows the recording as it grows");
}

}  // namespace
}  // namespace radar::testing
