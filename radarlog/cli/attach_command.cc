// `radar attach PID`: turns on the recording of a program that `radar
// record --dormant` runs. Its processes map the recording's switch (the
// file DIR/attach, read-only and shared) and test its first byte at each
// call; the first call after it is set opens the process's log.
#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "log/escape.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::cli {

const char kAttachHelp[] =
    "usage: radar attach PID\n\n"
    "Starts recording a program that `radar record --dormant` runs: each process of\n"
    "its tree is recorded from its next call on, into the recording's directory, as\n"
    "are the processes it creates from then on. PID is any process of the tree.\n"
    "\n"
    "A process started without radar cannot be attached: radar records a program\n"
    "from its start (radar record -- PROGRAM), or, started with radar record\n"
    "--dormant, from when it is attached.\n"
    "\n"
    "Exit status: 0 when the recording is on (or was already); 2 when PID is not a\n"
    "process of a dormant recording, or the recording's switch cannot be set.\n";

namespace {

struct Mapped {
  bool recorder = false;  // radar's interposer is loaded
  std::string dir;        // the recording whose switch it maps ("": none)
};

// What /proc/PID/maps says radar put in the process; false (with `error`)
// when it cannot be read.
bool readMaps(int pid, Mapped* out, std::string* error) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  if (!maps) {
    *error = errno == ENOENT ? "no process " + std::to_string(pid)
                             : "cannot read the memory map of process " + std::to_string(pid) + ": " +
                                   std::strerror(errno) + " (another user's process?)";
    return false;
  }
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const auto endsWith = [&](const std::string& tail) {
      return path.size() > tail.size() && path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (endsWith("/libradar-preload.so")) out->recorder = true;
    if (endsWith("/attach")) out->dir = path.substr(0, path.size() - 7);
  }
  return true;
}

// Whether `dir` holds a dormant recording (its recording.txt says so).
bool isDormantRecording(const std::string& dir) {
  std::ifstream meta(dir + "/recording.txt");
  std::stringstream text;
  text << meta.rdbuf();
  proto::Recording rec;
  return meta && google::protobuf::TextFormat::ParseFromString(text.str(), &rec) && rec.dormant();
}

// Sets the switch's first byte; `was_on` says whether it was set already.
bool turnOn(const std::string& dir, bool* was_on, std::string* error) {
  const std::string path = dir + "/attach";
  const int fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  struct stat st {};
  bool ok = fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 4096 &&
            (st.st_uid == ::geteuid() || ::geteuid() == 0);
  char byte = 0;
  ok = ok && ::pread(fd, &byte, 1, 0) == 1;
  *was_on = byte != 0;
  const char on = 1;
  ok = ok && (*was_on || ::pwrite(fd, &on, 1, 0) == 1);
  if (!ok) *error = "cannot set the switch " + path + (errno ? std::string(": ") + std::strerror(errno) : "");
  if (fd >= 0) ::close(fd);
  return ok;
}

// `dir` as the user would name it: relative to the working directory
// when it is inside it.
std::string shownPath(const std::string& dir) {
  char cwd[4096];
  if (!::getcwd(cwd, sizeof cwd)) return dir;
  const std::string here = std::string(cwd) + "/";
  return dir.compare(0, here.size(), here) == 0 ? dir.substr(here.size()) : dir;
}

}  // namespace

int runAttach(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, {})) return usageError("attach", args.error());
  if (args.positional().size() != 1) return usageError("attach", "expected one PID");
  const std::string& text = args.positional()[0];
  char* end = nullptr;
  const long pid = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || pid <= 0 || pid > 0x3fffffff)
    return usageError("attach", "expected a process id, got '" + text + "'");
  Mapped mapped;
  std::string error;
  if (!readMaps(static_cast<int>(pid), &mapped, &error)) {
    std::fprintf(stderr, "radar attach: %s\n", error.c_str());
    return kExitUsage;
  }
  if (!mapped.recorder) {
    std::fprintf(stderr,
                 "radar attach: process %ld was not started under radar: its recorder is not loaded. radar records "
                 "a program from its start (radar record -- PROGRAM), or from when it is attached if started with "
                 "radar record --dormant -- PROGRAM\n",
                 pid);
    return kExitUsage;
  }
  if (mapped.dir.empty() || !isDormantRecording(mapped.dir)) {
    std::fprintf(stderr,
                 "radar attach: process %ld is not in a dormant recording: it is recorded from its start already "
                 "(radar record without --dormant), or it could not see its recording's switch (it was started "
                 "with other credentials)\n",
                 pid);
    return kExitUsage;
  }
  bool was_on = false;
  if (!turnOn(mapped.dir, &was_on, &error)) {
    std::fprintf(stderr, "radar attach: %s\n", terminalSafe(error).c_str());
    return kExitUsage;
  }
  std::fprintf(stderr,
               was_on ? "radar attach: the recording into %s is on already\n"
                      : "radar attach: recording into %s: each process from its next call\n",
               terminalSafe(shownPath(mapped.dir)).c_str());
  return kExitOk;
}

}  // namespace radar::cli
