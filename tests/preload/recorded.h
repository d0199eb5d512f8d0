// Test helper: runs `radar record` on a program and loads the recording.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "log/reader.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::testing {

// A record with its own copies of what the reader's views pointed to.
struct Event {
  log::Record r;
  std::string payload;
  std::vector<std::string> strings;
  std::string address;
  log::Kind kind() const { return r.kind; }
};

struct ProcessLog {
  std::string path;
  proto::Header header;
  log::ControlState control;
  std::vector<Event> events;                        // counted events, in counter order
  std::map<uint32_t, proto::ChannelInfo> channels;  // by index (latest definition)
  std::vector<std::string> notes;
  std::vector<log::Record> outputs;  // OUTPUT records: writes to files and devices
  std::string error;                 // damage, if any

  std::string exe() const;  // basename of header.executable
  std::vector<const Event*> ofKind(log::Kind kind) const;
  const Event* first(log::Kind kind) const;
  const proto::ChannelInfo* channel(uint32_t index) const;
  // Concatenated payloads of the sends (or receives) on channels with this inode.
  std::string bytesOn(uint64_t ino, bool sends) const;
};

struct Recording {
  int exit_code = -1;
  std::string out, err, dir;
  std::vector<ProcessLog> logs;
  proto::Recording meta;

  std::vector<const ProcessLog*> byExe(const std::string& name) const;
  const ProcessLog* onlyExe(const std::string& name) const;  // null unless exactly one
  const ProcessLog* byPid(int pid, uint32_t generation = 0) const;
};

struct RecordOptions {
  std::vector<std::string> radar_args;  // before "--"
  std::string input;                    // the program's stdin
  std::string dir;                      // default: a new temporary directory
  std::string shell_prefix;             // e.g. "ulimit -f 300;" (run through sh)
};

// A command's exit status and what it printed.
struct Result {
  int exit_code = -1;
  std::string out, err;
};
// Runs a shell command line with `input` on its stdin.
Result shell(const std::string& line, const std::string& input = "");
// Runs the radar executable with `args` (`radar debug` with --no-sandbox
// where the sandbox cannot be made, see radarDebug()).
Result radar(const std::vector<std::string>& args, const std::string& input = "");
// Whether radar debug can make its sandbox here (user, mount, network, IPC,
// UTS and PID namespaces): not where a container's seccomp profile or a
// chroot refuses new namespaces. Probed once.
bool sandboxAvailable();
// "radar debug", quoted for a shell line; with --no-sandbox where the
// sandbox cannot be made, so that the re-run itself is still tested there.
std::string radarDebug();
std::string shellQuote(const std::string& s);
std::string slurp(const std::string& path);
// How many times `what` occurs in `text`.
size_t occurrences(const std::string& text, const std::string& what);
// Starts `args` (args[0] a path) with its standard input /dev/null and its
// output and errors into descriptors `out` and `err` (-1: /dev/null);
// returns its pid.
int spawn(const std::vector<std::string>& args, int out, int err);

std::string programPath(const std::string& name);  // a test program
std::string radarPath();
std::string testTempDir();
Recording record(const std::vector<std::string>& command, const RecordOptions& options = {});
Recording load(const std::string& dir);
uint32_t crc(const std::string& bytes);

}  // namespace radar::testing
