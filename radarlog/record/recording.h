// A recording directory as a whole: its logs, what ended how, and what
// could not be recorded. Used by `radar record` after the program ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "radar/proto/radarlog.pb.h"

namespace radar::cli {

struct RecordingSummary {
  size_t logs = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;  // disk space the logs use
  std::vector<proto::Recording::Problem> problems;
};

// A new directory name for a recording: BASE-YYYYMMDD-HHMMSS, with -2,
// -3 ... when that exists.
std::string newRecordingDirectory(const std::string& base);

// Removes a previous recording's files from `dir` (logs, recording.txt).
bool clearRecording(const std::string& dir);

// Reads every log; with `finalize`, first compacts those whose process died
// without closing them. `recording` gives the processes radar record reaped.
RecordingSummary summarizeRecording(const std::string& dir, const proto::Recording& recording,
                                    bool finalize);

}  // namespace radar::cli
