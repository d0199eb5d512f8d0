// One re-run of one recorded process image, alone, under gdb or on its
// own, fed from the recording by libradar-rerun.so: the image chosen, its
// replay script built into a private directory, the recorded executable
// checked, the launch made, then the re-run in its sandbox and how it
// compares. `radar debug` parses its command line into DebugOptions, asks
// the user to agree to the launch, and runs the session.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/launch.h"
#include "driver/script_builder.h"
#include "trace/trace.h"

namespace radar::driver {

// What a re-run needs of radar's installation, and gdb unless --no-gdb.
struct Installation {
  std::string gdb;  // empty: re-run without it
  std::string library, launcher, extension;
  std::string mpi_library;  // the MPI stand-ins: absent where radar was built without MPI
};

struct DebugOptions {
  std::string process;  // as the user named it: pid, name, name[pid], pid.generation
  unsigned long long at_event = 0;
  bool under_gdb = true;
  bool batch = false;  // gdb non-interactively
  std::vector<std::string> gdb_args;
  bool allow_changed = false;  // re-run an executable rebuilt since the recording
  bool keep = false;           // keep the replay script
  bool aslr = false;
  bool sandboxed = true;
  std::vector<std::string> env, unset_env;  // --env NAME[=VALUE], --unset-env NAME
  int64_t stall_limit_ns = 0;               // 0: from the recording
};

// radar debug's exit statuses (docs/debugging-one-process.md).
inline constexpr int kReRunAsRecorded = 0;
inline constexpr int kReRunDiffered = 1;
inline constexpr int kReRunNotPossible = 2;  // bad options, or the re-run could not be made

class DebugSession {
 public:
  DebugSession(const trace::Trace& trace, Installation installed, DebugOptions options);
  ~DebugSession();
  DebugSession(const DebugSession&) = delete;
  DebugSession& operator=(const DebugSession&) = delete;

  // Everything up to the launch: false, with why in *error, when it cannot
  // be re-run as asked (said as a usage error when *usage).
  bool prepare(std::string* error, bool* usage);
  // What will run, for the user to agree to; and what the recording names
  // but a re-run never takes from it.
  const LaunchSpec& launch() const { return launch_; }
  const Script& script() const { return script_; }
  // Variables radar debug sets itself: not the recording's word.
  static const std::vector<std::string>& ownVariables();

  // The re-run: its exit status (kReRun*, 128+N when signal N ended radar
  // debug, gdb's own under gdb). Says what happened on stderr.
  int run();

  // RADAR_DEBUG_TIMING=1: where the time goes (the benchmark reads it).
  void noteTimes(int64_t started_ns, int64_t loaded_ns) {
    started_ns_ = started_ns;
    loaded_ns_ = loaded_ns;
  }

 private:
  class TempDir;
  bool makeScript(std::string* error);
  bool writeFiles(std::string* error);
  void addRadarVariables();
  void reportTimes() const;

  const trace::Trace& trace_;
  Installation installed_;
  DebugOptions options_;
  uint32_t image_ = 0;
  std::unique_ptr<TempDir> temp_;
  std::string script_path_, status_path_;
  Script script_;
  bool script_in_file_ = false;
  LaunchSpec launch_;
  int64_t started_ns_ = 0, loaded_ns_ = 0, built_ns_ = 0;
};

// A word for the shell, quoted: gdb runs its exec-wrapper through one.
std::string shellQuote(const std::string& s);

// CLOCK_MONOTONIC in nanoseconds: the clock of noteTimes().
int64_t monotonicNs();

}  // namespace radar::driver
