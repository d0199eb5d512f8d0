// `radar dump-flight DIR`: freezes what a flight recording's logs hold now
// (radar record --flight) into DIR/flight-N, a recording of its own. Done
// here, not by radar record: a copy of a log is checked against the
// writer's and the trimmer's marks, so both may go on meanwhile.
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
#include "record/flight.h"

namespace radar::cli {

const char kDumpFlightHelp[] =
    "usage: radar dump-flight DIR\n\n"
    "Freezes what the logs of a flight recording (radar record --flight SIZE) hold\n"
    "now -- about the last SIZE of each process -- into DIR/flight-N (N one more than\n"
    "the last), a recording every command reads: radar replay DIR/flight-N. The\n"
    "program goes on; each freeze is kept beside the others. SIGUSR2 to radar record\n"
    "does the same.\n"
    "\n"
    "Exit status: 0 when frozen; 2 when DIR is not a flight recording of this user's,\n"
    "or nothing could be frozen.\n";

namespace {

// DIR must be a directory of this user's that nobody else may write into:
// the freeze writes there.
bool checkDirectory(const std::string& dir, std::string* error) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    *error = dir + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    *error = dir + ": not a directory";
    return false;
  }
  if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
    *error = dir + ": not a directory of yours that only you can write into";
    return false;
  }
  return true;
}

}  // namespace

int runDumpFlight(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, {})) return usageError("dump-flight", args.error());
  if (args.positional().size() != 1) return usageError("dump-flight", "expected one recording directory");
  const std::string dir = args.positional()[0];
  std::string error;
  if (!checkDirectory(dir, &error)) {
    std::fprintf(stderr, "radar dump-flight: %s\n", log::terminalSafe(error).c_str());
    return kExitUsage;
  }
  std::ifstream meta(dir + "/recording.txt");
  std::stringstream text;
  text << meta.rdbuf();
  proto::Recording recording;
  if (!meta || !google::protobuf::TextFormat::ParseFromString(text.str(), &recording) || !recording.flight() ||
      recording.frozen()) {
    std::fprintf(stderr, "radar dump-flight: %s is not a flight recording (radar record --flight SIZE)\n",
                 log::terminalSafe(dir).c_str());
    return kExitUsage;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string into = record::nextFreezeDirectory(dir);
    if (record::freezeRecording(dir, into, recording, &error)) {
      std::printf("%s\n", log::terminalSafe(into).c_str());
      return 0;
    }
    if (error.find("File exists") == std::string::npos) break;  // else another freeze took that name
  }
  std::fprintf(stderr, "radar dump-flight: %s\n", log::terminalSafe(error).c_str());
  return kExitUsage;
}

}  // namespace radar::cli
