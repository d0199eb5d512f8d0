// What is different about the run that failed? Two recordings of one
// program compared causally: processes aligned by where they come from in
// the process tree (the path of names and birth order from the first
// process, not pids), channels by the processes and descriptors that use
// them; then each aligned process's calls side by side until they part.
// The first difference in causal order (RADAR's numbers) is the one that
// matters: everything after it may follow from it. Calls whose number or
// outcome is the scheduler's (waits for readiness, receives that found
// nothing yet, clock reads) are left out of the comparison.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::analysis {

// An analysis reads a merged trace and speaks its language.
using namespace radar::trace;

struct RunDifference {
  enum class Kind : uint8_t {
    Call,       // the process made another call (or the same call on another channel)
    Contents,   // a message with other bytes
    Race,       // a receive took another process's message
    Result,     // a call returned something else (a failure, another status)
    Ended,      // one run's process ended (or was cut off) where the other's went on
    OnlyInOne,  // a process one run has and the other has not
  };
  Kind kind;
  uint32_t a = kNone, b = kNone;  // the events (positions) where they part; kNone on the side that has none
  uint32_t process_a = kNone, process_b = kNone;
  std::string what;     // one line, for people
  std::string process;  // where it comes from (processKeys())
};

// A channel's traffic in both runs (when they differ in count or timing).
struct ChannelComparison {
  std::string name_a, name_b;
  uint64_t messages_a = 0, messages_b = 0, bytes_a = 0, bytes_b = 0;
  double latency_ms_a = 0, latency_ms_b = 0;  // mean, send return to receive return
};

struct RunDiff {
  std::vector<RunDifference> differences;   // one per process pair that parts, first in causal order first
  std::vector<uint32_t> partner;            // by process of the first run: its process in the second, or kNone
  std::vector<ChannelComparison> channels;  // the aligned channels whose counts or timing differ
  uint32_t processes_matched = 0;
  int64_t duration_ns_a = 0, duration_ns_b = 0;
};

const char* runDifferenceName(RunDifference::Kind k);

// How a difference's text (`what`) names other processes: by where they
// come from in the tree ("race/race#4>client"), the same in both runs, as
// `radar diff` prints them; or as the rest of radar names them
// ("client[4012]"), each run by its own pids, as the replay window does.
// Processes are matched by their keys either way.
enum class DiffNames : uint8_t { Keys, Labels };

// `timing_ms`: a channel's mean latency differs when the two runs' are at
// least this far apart and one is at least twice the other.
// Traces loaded with LoadOptions::keep_hashes compare messages by their
// checksums (a difference in a message's bytes goes unseen only where two
// CRC-32Cs collide, about 1 in 4 000 000 000); others by their bytes.
RunDiff diffRuns(const Trace& a, const Trace& b, double timing_ms = 1.0, DiffNames names = DiffNames::Keys);

// The two runs' events matched as `radar diff` compares them: a process's
// k-th call (the scheduler's calls left out) in one run stands for its
// partner's k-th in the other, so that stepping one run moves the other to
// the same place in the program. Made once: each step is a binary search.
class RunAlignment {
 public:
  RunAlignment(const Trace& a, const Trace& b, const RunDiff& diff);
  // The event of the second run where `position` of the first stands: its
  // partner's call of the same rank as the last compared call at or before
  // it (or the partner's last call, if it made fewer); kNone without a
  // partner or before the process's first compared call. And the other way.
  uint32_t inSecond(uint32_t position) const { return across(0, position); }
  uint32_t inFirst(uint32_t position) const { return across(1, position); }

 private:
  uint32_t across(int from, uint32_t position) const;
  const Trace* runs_[2];
  std::vector<uint32_t> partner_[2];                // by process, the other run's
  std::vector<std::vector<uint32_t>> compared_[2];  // by process: its compared calls' positions
};

// The two runs' findings as one list: a finding of one run is the other's
// where both are of one kind about the same processes and channels (by
// where they come from, as the diff aligns them), each process ended the
// same way; findings about no process, where told alike. Errors first,
// then warnings and notes; within each, the first run's order (its
// ranking), then the second run's own.
struct FindingPair {
  uint32_t a = kNone, b = kNone;  // its index in each run's findings; kNone where that run has none
};
std::vector<FindingPair> pairFindings(const Trace& a, const Trace& b);

// Where a process comes from: "sh/curl#2>curl" (the second child named
// curl of the first process sh, after its exec).
std::vector<std::string> processKeys(const Trace& t);

}  // namespace radar::analysis
