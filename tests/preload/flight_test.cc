// radar record --flight SIZE: a server that does not end, recorded into
// logs that keep only their last SIZE, frozen into recordings of their own
// while it runs.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "recorded.h"

namespace radar::testing {
namespace {

using std::chrono::seconds;

std::vector<std::string> logsOf(const std::string& dir) {
  std::vector<std::string> logs;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".rlog") == 0) logs.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  return logs;
}

// The disk space the largest log of `dir` takes.
uint64_t largestLog(const std::string& dir) {
  uint64_t largest = 0;
  for (const std::string& path : logsOf(dir)) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) largest = std::max<uint64_t>(largest, uint64_t(st.st_blocks) * 512);
  }
  return largest;
}

// The pids whose parent is `pid`.
std::vector<pid_t> childrenOf(pid_t pid) {
  std::vector<pid_t> out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  for (pid_t child; in >> child;) out.push_back(child);
  return out;
}

// radar record --flight of flight_pair, its standard error kept.
struct FlightRun {
  pid_t recorder = -1;
  std::string err_path;
  std::string said() const { return slurp(err_path); }
};

FlightRun startFlight(const std::string& dir, const std::vector<std::string>& options,
                      const std::vector<std::string>& program) {
  FlightRun run;
  run.err_path = dir + ".err";
  const int err = ::open(run.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  std::vector<std::string> args = {radarPath(), "record", "-o", dir};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("--");
  args.insert(args.end(), program.begin(), program.end());
  run.recorder = spawn(args, -1, err);
  ::close(err);
  return run;
}

bool waitFor(const std::string& path, seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (::access(path.c_str(), F_OK) != 0) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

int secondsToRun() {
  const char* s = std::getenv("RADAR_FLIGHT_SECONDS");
  return s && std::atoi(s) >= 10 ? std::atoi(s) : 60;
}

// The events of a recording's story whose kind is `kind` ("write",
// "read") in a second before its last `margin_ms` (where a message may be
// on its way when the recording ends, or when a freeze copied one log and
// not yet the other).
std::vector<std::string> lastSecond(const std::string& dir, const std::string& kind, int64_t margin_ms) {
  const Result events = radar({"events", dir, "--json", "--kind", kind});
  std::vector<std::string> lines;
  std::stringstream in(events.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const std::regex time("\"time_ns\":([0-9]+)");
  std::smatch m;
  if (lines.empty() || !std::regex_search(lines.back(), m, time)) return {};
  const long long end = std::stoll(m[1].str());
  std::vector<std::string> out;
  for (const std::string& line : lines)
    if (std::regex_search(line, m, time) && std::stoll(m[1].str()) >= end - 1'000'000'000 - margin_ms * 1'000'000 &&
        std::stoll(m[1].str()) <= end - margin_ms * 1'000'000)
      out.push_back(line);
  return out;
}

TEST(Flight, AServerUnderLoadKeepsItsLastMegabyteThroughFreezesAndSIGKILL) {
  const std::string dir = testTempDir() + "/flight";
  const int run_for = secondsToRun();
  constexpr uint64_t kFlight = 1 << 20;
  // One log may hold its flight size, its tail (256 KiB) and what is
  // written between two trims, beside its control block.
  constexpr uint64_t kBound = kFlight + (256 << 10) + (768 << 10);
  FlightRun run = startFlight(dir, {"--flight", "1M"}, {programPath("flight_pair"), std::to_string(run_for + 30)});
  ASSERT_GT(run.recorder, 0);
  std::vector<uint64_t> sizes;
  bool froze = false;
  for (int t = 0; t < run_for - 4; t += 2) {
    std::this_thread::sleep_for(seconds(2));
    sizes.push_back(largestLog(dir));
    EXPECT_LE(sizes.back(), kBound) << "after " << t + 2 << " s";
    if (t >= run_for / 2 && !froze) {
      froze = true;
      // Two freezes, side by side: SIGUSR2 to radar record, radar dump-flight.
      ::kill(run.recorder, SIGUSR2);
      EXPECT_TRUE(waitFor(dir + "/flight-1/recording.txt", seconds(20))) << run.said();
      const Result dumped = radar({"dump-flight", dir});
      EXPECT_EQ(dumped.exit_code, 0) << dumped.err;
      EXPECT_EQ(dumped.out, dir + "/flight-2\n");
    }
  }
  ASSERT_GE(sizes.size(), 3u);
  std::printf("largest log on disk, every 2 s of %d s:", run_for);
  for (uint64_t size : sizes) std::printf(" %llu KiB", static_cast<unsigned long long>(size >> 10));
  std::printf("\n");
  EXPECT_GT(sizes.back(), kFlight / 2) << "the logs kept less than asked";

  // SIGKILL to the server and its client, as if the machine's OOM killer
  // came: radar record ends, and the logs are read as they are.
  const std::vector<pid_t> program = childrenOf(run.recorder);
  ASSERT_FALSE(program.empty());
  for (pid_t server : program) {
    for (pid_t child : childrenOf(server)) ::kill(child, SIGKILL);
    ::kill(server, SIGKILL);
  }
  int status = 0;
  ::waitpid(run.recorder, &status, 0);
  EXPECT_LE(largestLog(dir), kBound);

  for (const std::string& d : {dir, dir + "/flight-1", dir + "/flight-2"}) {
    const Result check = radar({"check", d, "--json"});
    EXPECT_NE(check.out.find("\"problems\":[]"), std::string::npos) << d << ": " << check.out;
    // (Killed with SIGKILL, a process may have sent bytes whose record it
    // never wrote, between the call and its log: only the freezes, taken
    // while both ran, have every byte explained.)
    if (d != dir) {
      EXPECT_NE(check.out.find("\"bytes_unmatched\":0,"), std::string::npos) << d << ": " << check.out;
      EXPECT_EQ(occurrences(check.out, "no-sender") + occurrences(check.out, "never-received"), 0u)
          << d << ": " << check.out;
    }
    // The last second's messages are all there, and all matched (in the
    // recording killed at its end; a freeze's are matched or outside its
    // window, never unexplained).
    for (const char* kind : {"write", "read"}) {
      // (A freeze copies the logs one after the other: half a second aside
      // for a machine that makes that slow, a sanitized build say.)
      const std::vector<std::string> last = lastSecond(d, kind, d == dir ? 100 : 500);
      EXPECT_GT(last.size(), 100u) << d << ": " << kind;
      // In a freeze, told as outside the window where a busy machine
      // spread the copies of the two logs far apart.
      const bool frozen = d != dir;
      for (const std::string& line : last) {
        const bool matched =
            line.find(std::string(kind) == "write" ? "a message to flight_pair" : "a message from flight_pair") !=
                std::string::npos ||
            (frozen && (line.find("the flight recorder kept of its receiver") != std::string::npos ||
                        line.find("the flight recorder's window does not hold") != std::string::npos));
        if (!matched) {
          ADD_FAILURE() << d << ": " << line;
          break;
        }
      }
    }
  }
}

// --save-on: a worker's crash, or its exit with a status other than 0,
// freezes the flight recorder's logs while the server goes on.
TEST(Flight, ACrashOrAnErrorFreezesTheLogsWhileTheProgramRuns) {
  for (const std::string what : {"crash", "error"}) {
    const std::string dir = testTempDir() + "/save-on-" + what;
    FlightRun run = startFlight(dir, {"--flight", "256K", "--save-on", what}, {programPath("flight_pair"), "4", what});
    ASSERT_GT(run.recorder, 0);
    EXPECT_TRUE(waitFor(dir + "/flight-1/recording.txt", seconds(20))) << run.said();
    int status = 0;
    ::waitpid(run.recorder, &status, 0);
    const std::string said = run.said();
    EXPECT_NE(said.find(what == "crash" ? "was killed by signal 6" : "exited with status 3"), std::string::npos)
        << said;
    EXPECT_NE(said.find("froze the logs into " + dir + "/flight-1"), std::string::npos) << said;
    // Frozen while the server and its client ran on: they are in it, and
    // nothing is blamed on them for what the freeze cut off.
    const Result check = radar({"check", dir + "/flight-1", "--json"});
    EXPECT_NE(check.out.find("\"problems\":[]"), std::string::npos) << check.out;
    EXPECT_EQ(occurrences(check.out, "never-ended") + occurrences(check.out, "never-received"), 0u) << check.out;
    const Result events = radar({"events", dir + "/flight-1"});
    EXPECT_GT(occurrences(events.out, "a message from flight_pair"), 10u);
  }
}

TEST(Flight, ItsOptionsAreChecked) {
  EXPECT_EQ(radar({"record", "--flight", "1K", "--", "true"}).exit_code, 2);
  EXPECT_EQ(radar({"record", "--save-on", "crash", "--", "true"}).exit_code, 2);
  EXPECT_EQ(radar({"record", "--flight", "1M", "--save-on", "oops", "--", "true"}).exit_code, 2);
  EXPECT_EQ(radar({"record", "--flight", "5G", "--", "true"}).exit_code, 2);
  EXPECT_EQ(radar({"record", "--flight", "1M", "--on", "kind=write", "--", "true"}).exit_code, 2);
  const std::string dir = testTempDir() + "/not-flight";
  ASSERT_EQ(radar({"record", "-o", dir, "--", "true"}).exit_code, 0);
  const Result dumped = radar({"dump-flight", dir});
  EXPECT_EQ(dumped.exit_code, 2);
  EXPECT_NE(dumped.err.find("not a flight recording"), std::string::npos) << dumped.err;
}

}  // namespace
}  // namespace radar::testing
