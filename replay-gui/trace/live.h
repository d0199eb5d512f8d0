// A recording still being made: how much of its story is told for good.
//
// The logs of running processes are read as they grow (every record is in
// the page cache once its call returned). A snapshot's story is a prefix
// of the final one up to the first event that something not logged yet
// could still come before: a call that returned just before and is being
// logged, the calls of a child whose log is not there yet, the send still
// in progress (its thread slot says so) whose bytes a receive got.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::trace {

// Whether radar record has finished with the directory (its recording.txt
// says when it ended). A directory that is not a recording has not.
bool recordingEnded(const std::string& dir);
// Whether the radar record that was making it is gone without finishing it
// (killed): recording.txt says it began and not that it ended, and no
// process holds the lock radar record keeps on the directory while it runs.
// Its program's processes may still be writing their logs.
bool recorderGone(const std::string& dir);
// Of several directories: each ended or gone so, and one at least gone.
bool recordersGone(const std::vector<std::string>& dirs);
// Whether a process of the trace that has not ended may still run: its pid
// is there, on this machine.
bool anyProcessAlive(const Trace& t);

// Whether it is a flight recording radar record is still making: its logs
// lose their oldest frames as they grow, so it is read through its freezes
// (radar dump-flight), not followed.
bool flightRecorderRunning(const std::string& dir);

// Whether reading a running process's log went wrong: a reader can meet
// its writer moving the tail into a frame. Read again a moment later.
bool runningLogUnreadable(const Trace& t);

struct LiveTimes {
  int64_t now_wall = 0;  // CLOCK_REALTIME when the logs began to be read
  // How long a call may take between reading the clock as it returns and
  // storing its record (a thread preempted there).
  int64_t log_margin_ns = 100'000'000;
  // How long a new process may take to make its log, and a new program
  // image after an exec: past that it is taken for one radar does not see.
  int64_t new_log_wait_ns = 2'000'000'000;
  // How long a send that nobody has received yet waits for its receiver
  // before it is told without one ("not received yet").
  int64_t receiver_wait_ns = 1'000'000'000;
};

// The wall time before which every call of every process has been logged.
int64_t completeBefore(const Trace& t, const LiveTimes& times);

// How many of the story's events are told for good: their place and what
// they say will not change as the recording grows.
uint32_t settledEvents(const Trace& t, const LiveTimes& times);

// One look at a recording that may still be being made: its logs read as
// they stand. A running one is told as a freeze of this moment
// (LoadOptions::running_at_ns): a send not received yet, a process still
// running are no finding, and a receive whose send is not logged yet says
// so.
struct LiveLook {
  std::unique_ptr<Trace> trace;  // null: not readable now (error says why)
  bool ended = false;            // radar record had finished: the trace is whole
  bool recorder_lost = false;    // ended so: radar record was killed, and its processes have ended too
  std::string error;
  double seconds = 0;  // how long the look took
};
LiveLook lookAtRecording(const std::vector<std::string>& dirs, bool merge_unrelated);

}  // namespace radar::trace
