// radar record --dormant and radar attach: a program that runs unrecorded
// until attached, then is recorded from each process's next call on.
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "recorded.h"

namespace radar::testing {
namespace {

size_t logsIn(const std::string& dir) {
  size_t n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      n += name.size() > 5 && name.compare(name.size() - 5, 5, ".rlog") == 0;
    }
    ::closedir(d);
  }
  return n;
}

// radar record --dormant of the ticker, its standard error on a pipe.
struct Dormant {
  pid_t recorder = -1;
  int err = -1;
  std::string said;
  int program = 0;  // the pid radar record says to attach to
};

Dormant startDormant(const std::string& dir, const std::vector<std::string>& program,
                     const std::vector<std::string>& options = {}) {
  Dormant d;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return d;
  std::vector<std::string> args = {radarPath(), "record", "-o", dir, "--dormant"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  d.recorder = spawn(args, -1, fds[1]);
  ::close(fds[1]);
  d.err = fds[0];
  const std::regex attach("radar attach ([0-9]+)");
  char buf[512];
  for (ssize_t n; (n = ::read(d.err, buf, sizeof buf)) > 0;) {
    d.said.append(buf, static_cast<size_t>(n));
    std::smatch m;
    if (std::regex_search(d.said, m, attach)) {
      d.program = std::stoi(m[1].str());
      break;
    }
  }
  return d;
}

std::string finish(Dormant& d, int* status) {
  char buf[512];
  for (ssize_t n; (n = ::read(d.err, buf, sizeof buf)) > 0;) d.said.append(buf, static_cast<size_t>(n));
  ::close(d.err);
  ::waitpid(d.recorder, status, 0);
  return d.said;
}

TEST(Attach, ADormantProgramIsRecordedFromWhenItIsAttached) {
  const std::string dir = testTempDir() + "/dormant";
  Dormant d = startDormant(dir, {programPath("ticker"), "10", "400"});  // four seconds of ticks
  ASSERT_GT(d.program, 0) << d.said;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(logsIn(dir), 0u) << "recorded while dormant";
  const Result attached = radar({"attach", std::to_string(d.program)});
  EXPECT_EQ(attached.exit_code, 0) << attached.err;
  EXPECT_NE(attached.err.find("recording into"), std::string::npos) << attached.err;
  int status = -1;
  const std::string said = finish(d, &status);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
  EXPECT_EQ(said.find("not recorded"), std::string::npos) << said;
  // Both processes, from the attach on. The pipe was open before: where
  // its stream stood then is not known, so its bytes are told as seen by
  // one side only, and nothing is blamed on either.
  EXPECT_EQ(logsIn(dir), 2u);
  const Result told = radar({"events", dir});
  const size_t sends = occurrences(told.out, " sends a message on pipe");
  EXPECT_GT(sends, 100u) << told.out;
  EXPECT_LT(sends, 400u) << told.out;
  EXPECT_EQ(occurrences(told.out, "not seen received (the channel was open before radar attach)"), sends);
  EXPECT_GT(
      occurrences(told.out, "receives a message radar did not see sent (the channel was open before radar attach)"),
      100u);
  const Result checked = radar({"check", dir});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  EXPECT_EQ(checked.out.find("never-received"), std::string::npos) << checked.out;
  EXPECT_EQ(checked.out.find("no-sender"), std::string::npos) << checked.out;
  // Its life before the attach is not in the recording: no re-run.
  const Result rerun = shell(radarDebug() + " " + dir + " " + std::to_string(d.program) + " --no-gdb --yes");
  EXPECT_NE(rerun.exit_code, 0);
  EXPECT_NE(rerun.err.find("was recorded from radar attach on, not from its start"), std::string::npos) << rerun.err;
}

// The port the echo server writes into `port_file` once it listens (0:
// none came within ten seconds).
int portIn(const std::string& port_file) {
  int port = 0;
  for (int tries = 0; tries < 500 && !port; ++tries) {
    std::ifstream in(port_file);
    if (!(in >> port)) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return port;
}

// One request to the echo server on 127.0.0.1:port; its reply.
std::string ask(int port, const std::string& request) {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in addr {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string reply;
  if (s >= 0 && ::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::write(s, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    char buf[512];
    for (ssize_t n; (n = ::read(s, buf, sizeof buf)) > 0;) reply.append(buf, static_cast<size_t>(n));
  }
  if (s >= 0) ::close(s);
  return reply;
}

TEST(Attach, AServerAttachedRecordsTheRequestsThatFollowExactly) {
  const std::string dir = testTempDir() + "/server", port_file = testTempDir() + "/port";
  Dormant d = startDormant(dir, {programPath("echo_server"), port_file});
  ASSERT_GT(d.program, 0) << d.said;
  const int port = portIn(port_file);
  ASSERT_GT(port, 0) << d.said;
  for (int i = 1; i <= 5; ++i)
    EXPECT_EQ(ask(port, "before " + std::to_string(i) + "\n"), "echo: before " + std::to_string(i) + "\n");
  EXPECT_EQ(logsIn(dir), 0u);
  const Result attached = radar({"attach", std::to_string(d.program)});
  ASSERT_EQ(attached.exit_code, 0) << attached.err;
  for (int i = 1; i <= 20; ++i)
    EXPECT_EQ(ask(port, "after " + std::to_string(i) + "\n"), "echo: after " + std::to_string(i) + "\n");
  ask(port, "quit\n");
  int status = -1;
  const std::string said = finish(d, &status);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
  // Every request after the attach, received and answered with its bytes;
  // none from before.
  const Result told = radar({"events", "--decode", dir});
  ASSERT_EQ(told.exit_code, 0) << told.err;
  for (int i = 1; i <= 20; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_EQ(occurrences(told.out, "\"after " + n + "\\n\""), 1u) << n << "\n" << told.out;
    EXPECT_EQ(occurrences(told.out, "\"echo: after " + n + "\\n\""), 1u) << n << "\n" << told.out;
  }
  EXPECT_EQ(told.out.find("\"before "), std::string::npos) << told.out;
  EXPECT_EQ(occurrences(told.out, " receives a message from 127.0.0.1:"), 21u) << told.out;  // and quit
  EXPECT_EQ(told.out.find("open before radar attach"), std::string::npos) << told.out;
  const Result checked = radar({"check", dir});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

// A dormant server with a flight recorder: once attached, each process
// keeps the last of its log; a freeze holds the latest requests whole,
// matched, and nothing from before the attach.
TEST(Attach, ADormantFlightRecorderKeepsTheLatestOfWhatFollowsTheAttach) {
  const std::string dir = testTempDir() + "/dormant-flight", port_file = testTempDir() + "/flight-port";
  Dormant d = startDormant(dir, {programPath("echo_server"), port_file}, {"--flight", "64K"});
  ASSERT_GT(d.program, 0) << d.said;
  const int port = portIn(port_file);
  ASSERT_GT(port, 0) << d.said;
  EXPECT_EQ(ask(port, "before\n"), "echo: before\n");
  const Result attached = radar({"attach", std::to_string(d.program)});
  ASSERT_EQ(attached.exit_code, 0) << attached.err;
  // Requests of 64 letters drawn at random: what the logs hold does not
  // compress away, and the first ones leave the 64K ring (beyond the 256K
  // tail every log has).
  constexpr int kRequests = 5000;
  uint32_t seed = 12345;
  auto request = [&seed](int i) {
    std::string r = "after " + std::to_string(i) + " ";
    for (int k = 0; k < 64; ++k) r.push_back(static_cast<char>('a' + (seed = seed * 1103515245 + 12345) % 26));
    return r + "\n";
  };
  std::vector<std::string> sent;
  for (int i = 1; i <= kRequests; ++i) {
    sent.push_back(request(i));
    ASSERT_EQ(ask(port, sent.back()), "echo: " + sent.back());
  }
  const Result frozen = radar({"dump-flight", dir});
  ASSERT_EQ(frozen.exit_code, 0) << frozen.err;
  const std::string freeze = dir + "/flight-1";
  ask(port, "quit\n");
  int status = -1;
  const std::string said = finish(d, &status);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;

  const Result told = radar({"events", "--decode", freeze});
  ASSERT_EQ(told.exit_code, 0) << told.err;
  for (int i = kRequests - 9; i <= kRequests; ++i) {
    const std::string line = sent[static_cast<size_t>(i - 1)];
    const std::string quoted = line.substr(0, line.size() - 1) + "\\n\"";
    EXPECT_EQ(occurrences(told.out, "\"" + quoted), 1u) << i;
    EXPECT_EQ(occurrences(told.out, "\"echo: " + quoted), 1u) << i;
  }
  EXPECT_EQ(told.out.find("\"after 1 "), std::string::npos) << "the first requests left the ring";
  EXPECT_EQ(told.out.find("\"before"), std::string::npos);
  const Result checked = radar({"check", freeze});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

// radar attach wakes a program while it forks: a child forked while a
// thread of its parent opens the parent's log (and holds its lock) has a
// copy caught half made. It opens its own, and never waits for a thread
// it does not have.
TEST(Attach, ChildrenForkedWhileTheirParentWakesAreRecordedAndNeverHang) {
  const std::string dir = testTempDir() + "/forking";
  Dormant d = startDormant(dir, {programPath("forks_while_woken"), "3", "400"});
  ASSERT_GT(d.program, 0) << d.said;
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const Result attached = radar({"attach", std::to_string(d.program)});
  EXPECT_EQ(attached.exit_code, 0) << attached.err;
  int status = -1;
  const std::string said = finish(d, &status);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
  EXPECT_EQ(said.find("hangs"), std::string::npos) << said;
  EXPECT_GT(logsIn(dir), 10u) << "children recorded after the attach";
  const Result checked = radar({"check", dir});
  EXPECT_EQ(checked.out.find("damaged"), std::string::npos) << checked.out;
}

TEST(Attach, ANeverAttachedProgramLeavesNoLogAndNoComplaint) {
  const std::string dir = testTempDir() + "/never";
  Dormant d = startDormant(dir, {programPath("ticker"), "10", "20"});
  int status = -1;
  const std::string said = finish(d, &status);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
  EXPECT_EQ(logsIn(dir), 0u);
  EXPECT_NE(said.find("never attached"), std::string::npos) << said;
  EXPECT_EQ(said.find("not recorded"), std::string::npos) << said;
}

TEST(Attach, AProcessStartedWithoutRadarIsExplained) {
  const Result r = radar({"attach", std::to_string(::getpid())});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was not started under radar"), std::string::npos) << r.err;
  const Result none = radar({"attach", "999999999"});
  EXPECT_EQ(none.exit_code, 2);
  const Result junk = radar({"attach", "12abc"});
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("expected a process id"), std::string::npos) << junk.err;
}

}  // namespace
}  // namespace radar::testing
