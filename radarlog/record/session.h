// One recording made: the program started under the interposer with the
// recorder's settings, every descendant reaped (radar record is their
// subreaper, so orphans come back to it), then the logs compacted and
// summed up. `radar record` parses its command line into RecordSettings
// and prints the outcome.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "record/recording.h"

namespace radar::record {

struct RecordSettings {
  std::vector<std::string> command;  // as given: command[0] names the program
  std::string program;               // command[0] found on PATH
  std::string interposer;            // libradar-preload.so
  std::string version;               // radar's, kept in recording.txt
  std::string dir;                   // the recording directory
  bool dir_given = false;            // else radar's choice, removed when the program could not run
  bool force = false;                // replace the recording in `dir`
  bool aslr = false;
  bool nondet = false;
  bool sync = false;  // RADAR_SYNC: locks, semaphores, condition variables, barriers
  bool keep_writes = false;
  bool copies = false;   // RADAR_COPIES: every send keeps its bytes, none refers to a receive
  bool dormant = false;  // no log until radar attach (DIR/attach, the switch, made here)
  std::string stop_at;   // RADAR_STOP_AT: events each process stops itself at (log/stop_at.h)
  uint64_t flight = 0;   // radar record --flight: each log keeps about its last `flight` bytes
  // radar record --fallback: which programs the fallback recorder records
  // from outside (fallback/tracer.h): those the interposer cannot see into
  // (Auto), none, or every one (Always: to check the interposer against it).
  enum class Fallback { Off, Auto, Always } fallback = Fallback::Auto;
  std::optional<uint64_t> payload_limit;
  uint64_t tail = 0;  // 0: the default
  std::string redact;
  std::string net_text, net_path;  // a network description the recording carries
  // radar record --join: the recording id of a recording started on
  // another host (its processes' RADAR_RECORDING_ID), 16 bytes; empty: new.
  std::string join_id;
  // Called once the recording's directory is made, before the program
  // starts: the process it returns (the --live window; 0: none) is not the
  // program's, and radar record does not wait for it to end.
  std::function<pid_t()> prepared;
  // Called in radar record once the program runs (after its fork), with
  // its pid, for what radar shows while it does.
  std::function<void(pid_t)> started;
  // Called once every process has ended, with the program's wait status,
  // before radar record reads the logs.
  std::function<void(int)> ended;
};

// radar record's own children while the program runs (a command that
// radar record --do runs): reaped by radar record like the program's, but
// never told as the program's. `start` forks one and returns its pid; it
// runs with the lock that reaping takes to ask isOwnChild().
pid_t startOwnChild(const std::function<pid_t()>& start);

// radar record --flight: SIGUSR2 asks radar record for a freeze instead of
// being passed on to the program. Whether one was asked since the last call.
bool takeFreezeRequest();

// The recording id `--join` names: 32 hexadecimal digits, or a recording
// directory (its recording.txt says it). Empty with `error` otherwise.
std::string recordingIdToJoin(const std::string& what, std::string* error);

struct RecordOutcome {
  std::string error;     // nothing was recorded (the directory, a fork): why
  bool not_run = false;  // the program could not be run, and radar's directory is gone
  int root_status = 0;   // the program's wait status
  double seconds = 0;
  RecordingSummary summary;
};

// Why the descriptor limit leaves radar's own descriptors no room above the
// program's (they would take numbers the program would have had), and how
// to record; empty when it does.
std::string descriptorLimitProblem();

// Records the program into settings.dir and waits for every descendant.
RecordOutcome recordProgram(const RecordSettings& settings);

}  // namespace radar::record
