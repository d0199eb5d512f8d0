// A recording directory as a whole: its logs, what ended how, and what
// could not be recorded. Used by `radar record` after the program ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "radar/proto/radarlog.pb.h"

namespace radar::record {

struct RecordingSummary {
  size_t logs = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;  // disk space the logs use
  std::vector<proto::Recording::Problem> problems;
  // Each program that ran, hashed if the file is still as it was then.
  std::vector<proto::Recording::Executable> executables;
  // What processes used that radar does not record, one line each:
  // "pid N EXE: uses io_uring (liburing): ...".
  std::vector<std::string> unseen;
};

// Why the interposer cannot see into the program in `file`: "statically
// linked", "a Go program (...)"; with `or_missed`, also "it uses io_uring
// through liburing" (the fallback recorder sees more of it). Empty when it
// can (or it is no ELF executable radar knows).
std::string unseenByTheInterposer(const std::string& file, bool or_missed = false);

// A new directory name for a recording: BASE-YYYYMMDD-HHMMSS, with -2,
// -3 ... when that exists.
std::string newRecordingDirectory(const std::string& base);

// Opens the directory a recording is written into, creating it (0700) when
// it does not exist. One that exists must be a directory owned by the user
// and writable by nobody else: someone who can write into it could plant a
// link where radar writes, or replace the logs. Returns a descriptor
// (O_DIRECTORY) for the files radar writes there, or -1 with `error` set.
// The descriptor holds an exclusive lock on the directory until it is
// closed: another radar record refuses it meanwhile.
// `created` says whether it was made now; `empty` whether it holds nothing.
int openRecordingDirectory(const std::string& dir, bool* created, bool* empty, std::string* error);

// Removes a previous recording's files from the directory (logs,
// recording.txt), never following a link.
bool clearRecording(int dir_fd);

// Writes `text` to `name` in the directory, replaced whole (a reader never
// sees half of it), 0600, never following a link.
bool writeFileAtomically(int dir_fd, const std::string& name, const std::string& text);

// What a recording still being made holds so far, read from each log's
// control block (its highest event counter, log-format.md) and its size:
// cheap enough to ask several times a second while the program runs.
struct RecordingSoFar {
  size_t logs = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;  // disk space the logs use, as RecordingSummary counts it
};
RecordingSoFar recordingSoFar(const std::string& dir);

// Reads every log; with `finalize`, first compacts those whose process died
// without closing them. `recording` gives the processes radar record reaped.
RecordingSummary summarizeRecording(const std::string& dir, const proto::Recording& recording, bool finalize);

}  // namespace radar::record
