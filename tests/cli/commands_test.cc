// The `radar` front door as a user meets it: every command in the table
// explains itself, and refuses bad options and paths that are no
// recording with a clear error and a non-zero exit, never a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fake_recording.h"
#include "temp_dirs.h"

namespace {

struct Result {
  int status = -1;  // the exit status; 128 + N when killed by signal N
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Result radar(const std::vector<std::string>& args) {
  static const std::string dir = radar::testing::TempDirs::make("radar-commands-test");
  const std::string out_path = dir + "/out", err_path = dir + "/err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
    std::vector<char*> argv{const_cast<char*>(RADAR_BIN)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::unsetenv("DISPLAY");  // replay: no window, a clear error instead
    ::execv(RADAR_BIN, argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

// The commands `radar help` lists.
std::vector<std::string> commands() {
  const Result r = radar({"help"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> names;
  std::istringstream lines(r.out.substr(r.out.find("Commands:")));
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ')
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
  return names;
}

TEST(Commands, EveryCommandExplainsItself) {
  const auto names = commands();
  ASSERT_GE(names.size(), 16u) << "the command table, as `radar help` lists it";
  for (const auto& name : names) {
    const Result help = radar({"help", name});
    EXPECT_EQ(help.status, 0) << name << ": " << help.err;
    EXPECT_NE(help.out.find("usage: radar " + name), std::string::npos) << name << ":\n" << help.out;
    if (name == "help" || name == "version") continue;
    const Result dashed = radar({name, "--help"});
    EXPECT_EQ(dashed.status, 0) << name << ": " << dashed.err;
    EXPECT_EQ(dashed.out, help.out) << name;
  }
  EXPECT_NE(radar({"version"}).out.find("radar "), std::string::npos);
  const Result unknown = radar({"frobnicate"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("'frobnicate' is not a radar command"), std::string::npos) << unknown.err;
}

TEST(Commands, AnUnknownOptionIsRefusedByName) {
  for (const auto& name : commands()) {
    if (name == "help" || name == "version") continue;
    const Result r = radar({name, "--no-such-option"});
    EXPECT_EQ(r.status, 2) << name << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("radar " + name + ": unknown option '--no-such-option'"), std::string::npos)
        << name << ": " << r.err;
  }
}

// What reads a recording is given a path that is none: the path is said,
// the exit is non-zero, and nothing crashes.
TEST(Commands, APathThatIsNoRecordingIsSaidClearly) {
  const std::string empty = radar::testing::TempDirs::make("radar-commands-empty");
  const std::string junk = radar::testing::TempDirs::make("radar-commands-junk");
  {
    std::ofstream log(junk + "/1234.rlog");
    log << "this is not a radar log, whatever its name says\n";
  }
  const std::set<std::string> not_reading = {"help", "version", "record", "run"};
  for (const auto& name : commands()) {
    if (not_reading.count(name)) continue;
    for (const std::string& path : {std::string("/nonexistent/radar-recording"), empty, junk}) {
      std::vector<std::string> args{name, path};
      if (name == "diff") args.push_back(path);
      if (name == "sql") args.push_back("select count(*) from events");
      if (name == "debug") args.push_back("1");
      if (name == "critical-path") args.push_back("1");
      const Result r = radar(args);
      EXPECT_LT(r.status, 128) << name << " " << path << " crashed: " << r.err;
      if (path == junk && (name == "dump" || name == "check")) {
        // Telling what is damaged is their work: said, either way.
        EXPECT_FALSE(r.out.empty() && r.err.empty()) << name << " said nothing about " << path;
        continue;
      }
      EXPECT_NE(r.status, 0) << name << " " << path << ":\n" << r.out;
      EXPECT_NE(r.err.find("radar " + name + ":"), std::string::npos) << name << " " << path << ": " << r.err;
      EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << name << ": " << r.err;
    }
  }
  const Result record = radar({"record"});
  EXPECT_EQ(record.status, 2) << record.err;
  const Result run = radar({"run"});
  EXPECT_EQ(run.status, 2) << run.err;
}

// A recording with a damaged log is told up to the damage, and the
// commands that tell it exit 3, so that a script can tell a partial story
// from a whole one; the same recording whole exits 0.
TEST(Commands, ADamagedLogIsToldAndExitsThree) {
  radar::testing::FakeRecording rec;
  radar::testing::FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 501, true);
  for (int i = 0; i < 300; ++i) w.send(1, std::string(20, 'w'), 10 + 2 * i, 11 + 2 * i);
  radar::testing::FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 501, false);
  for (int i = 0; i < 300; ++i) r.receive(1, std::string(20, 'w'), 1000 + 2 * i, 1001 + 2 * i);
  const std::string dir = rec.write();
  for (const char* command : {"events", "check", "stats"}) {
    const Result whole = radar({command, dir});
    EXPECT_EQ(whole.status, 0) << command << ": " << whole.err;
  }
  // Cut the writer's log inside its last frame.
  const std::string writer_log = dir + "/1-0-writer.rlog";
  std::string bytes = slurp(writer_log);
  ASSERT_GT(bytes.size(), 10000u);
  bytes.resize(bytes.size() - 100);
  std::ofstream(writer_log, std::ios::binary | std::ios::trunc) << bytes;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"events", dir},
                                               {"events", "--json", dir},
                                               {"events", "--format", "csv", dir},
                                               {"check", dir},
                                               {"check", "--strict", dir},
                                               {"check", "--json", dir},
                                               {"stats", dir},
                                               {"stats", "--json", dir}}) {
    const Result cut = radar(args);
    EXPECT_EQ(cut.status, 3) << args[0] << " " << args[1] << ": " << cut.err;
    EXPECT_FALSE(cut.out.empty()) << args[0] << " " << args[1] << ": the story up to the damage is still told";
    EXPECT_NE(cut.err.find("writer"), std::string::npos) << cut.err;
  }
  EXPECT_NE(radar({"help", "check"}).out.find("3 when a"), std::string::npos);
}

}  // namespace
