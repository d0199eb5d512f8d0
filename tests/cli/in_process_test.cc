// The commands called as a library (radar_commands), in this process, as
// main() calls them: what they print and their exit statuses are those of
// the `radar` executable for the same command line.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "fake_recording.h"
#include "temp_dirs.h"

namespace {

struct Result {
  int status = -1;
  std::string out, err;
  bool operator==(const Result&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Result& r) {
  return os << "status " << r.status << "\n--- out:\n" << r.out << "--- err:\n" << r.err;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& scratch() {
  static const std::string dir = radar::testing::TempDirs::make("radar-in-process-test");
  return dir;
}

// Standard output and error sent to files while `run` runs.
template <class Run>
Result captured(Run run) {
  const std::string out_path = scratch() + "/out", err_path = scratch() + "/err";
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ::dup2(out, 1);
  ::dup2(err, 2);
  Result r;
  r.status = run();
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  for (int fd : {out, err, saved_out, saved_err}) ::close(fd);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

Result inProcess(std::vector<std::string> args) {
  args.insert(args.begin(), "radar");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return captured([&] { return radar::cli::runCommandLine(static_cast<int>(args.size()), argv.data()); });
}

Result executable(const std::vector<std::string>& args) {
  return captured([&] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::vector<char*> argv{const_cast<char*>(RADAR_BIN)};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(RADAR_BIN, argv.data());
      ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  });
}

// A client whose last question the server never read.
std::string recordingWithALostMessage() {
  radar::testing::FakeRecording rec;
  radar::testing::clientAndServer(rec, 3);
  rec.process("talker", 300).pipeEnd(2, 900, true).send(2, "lost", 100, 101).exit(0, 102);
  return rec.write();
}

TEST(InProcess, CommandsTellWhatTheExecutableTells) {
  const std::string dir = recordingWithALostMessage();
  for (const std::vector<std::string>& args : {std::vector<std::string>{"check", dir},
                                               {"check", "--strict", dir},
                                               {"events", dir},
                                               {"stats", "--json", dir},
                                               {"patterns", dir},
                                               {"critical-path", dir, "client"},
                                               {"sql", dir, "select count(*) from events"},
                                               {"check", "--no-such-option"},
                                               {"help", "debug"},
                                               {"frobnicate"}}) {
    SCOPED_TRACE(args[0]);
    const Result in = inProcess(args);
    EXPECT_EQ(in, executable(args));
    EXPECT_FALSE(in.out.empty() && in.err.empty()) << "said nothing";
  }
}

TEST(InProcess, FindingsAndStatusesAreTheCommands) {
  const std::string dir = recordingWithALostMessage();
  const Result check = inProcess({"check", "--strict", dir});
  EXPECT_EQ(check.status, 1) << check;
  EXPECT_NE(check.out.find("never-received"), std::string::npos) << check;
  EXPECT_NE(check.out.find("talker[300]"), std::string::npos) << check;
  const Result events = inProcess({"events", dir});
  EXPECT_EQ(events.status, 0) << events;
  EXPECT_NE(events.out.find("Process client[100] sends a message to server[200]"), std::string::npos) << events;
  const Result bad = inProcess({"events", "--no-such-option", dir});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("radar events: unknown option '--no-such-option'"), std::string::npos) << bad;
  for (const char* name : {"record", "events", "check", "debug", "replay", "sql", "export"}) {
    const radar::cli::Command* c = radar::cli::findCommand(name);
    ASSERT_TRUE(c) << name;
    EXPECT_NE(std::string(c->help).find(std::string("usage: radar ") + name), std::string::npos) << name;
  }
  EXPECT_FALSE(radar::cli::findCommand("frobnicate"));
}

}  // namespace
