// radar record --on CONDITION --do ACTION: the recording read as it grows
// (trace/live.h), and what the condition names acted on as soon as it
// happens -- the processes stopped for gdb, a command run with it as JSON,
// the recording so far copied aside, or just said.
//
// A condition is `deadlock` or a filter of events, every term of which an
// event must match: process=NAME, channel=NAME, kind=K (as radar events
// --kind), user=NAME (a user event of that name), contains=TEXT (a message
// whose bytes hold TEXT: its send, and each receive that got bytes of it). A deadlock is a cycle of processes each
// blocked sending or receiving on a channel whose other end only the next one holds; while the program runs, a cycle
// counts once each of its calls has been blocked for half a second (one that passes is not a deadlock). An event counts
// once its place in the story is sure (trace/live.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace radar::trace {
class Trace;
struct Finding;
struct EventFilter;
}  // namespace radar::trace

namespace radar::cli {

struct WatchAction {
  enum class Kind { Mark, Stop, Run, Snapshot } kind = Kind::Mark;
  std::string command;  // Run: a shell command, given what happened as JSON on its standard input
};

// "stop", "mark", "snapshot" or "run COMMAND"; false (with `error`) for
// anything else.
bool parseWatchAction(const std::string& text, WatchAction* action, std::string* error);

struct WatchCondition {
  bool deadlock = false;
  std::vector<std::string> processes, channels, kinds, users, contains;
  bool names(const trace::Trace& t, trace::EventFilter* filter) const;  // false: a name matches nothing yet
  // The condition as each process's recorder judges it alone (a
  // RADAR_STOP_AT value, log/stop_at.h); "" where it cannot: a deadlock, a
  // process or a channel named, an MPI collective's operation.
  std::string forRecorder() const;
};

// `deadlock`, or terms KEY=VALUE separated by spaces (a value in double
// quotes may hold spaces); false (with `error`) for anything else.
bool parseWatchCondition(const std::string& text, WatchCondition* condition, std::string* error);

// A process involved, and how to tell that its pid still is it: a pid
// whose process ended may be another's by the time it is acted on.
struct Involved {
  int pid = 0;
  int64_t alive_at_ns = 0;  // CLOCK_MONOTONIC: a moment it surely ran
};
// Whether `pid` is still the recorded process `who` names: it started
// before that moment (to the kernel's tick). A process that took the pid
// over started after the recorded one had ended.
bool stillTheImage(int pid, const Involved& who);
// SIGSTOP to it, if it still is: whether it was sent.
bool stopIfStillTheImage(const Involved& who);

// What happened, as said and acted on.
struct Happened {
  std::string text;                 // one line
  std::vector<Involved> processes;  // the processes involved
  std::string json;                 // one line of JSON, for a command
};

class RecordingWatch {
 public:
  RecordingWatch(std::string dir, WatchCondition condition, WatchAction action);
  ~RecordingWatch() { stop(); }
  RecordingWatch(const RecordingWatch&) = delete;
  RecordingWatch& operator=(const RecordingWatch&) = delete;

  void start();  // once the program runs
  void stop();

  // The deadlocks of a look at time `now_wall` (CLOCK_REALTIME, ns) whose
  // calls have all been blocked for at least `lasting_ns`.
  static std::vector<const trace::Finding*> lastingDeadlocks(const trace::Trace& t, int64_t now_wall,
                                                             int64_t lasting_ns);
  // A deadlock, and an event, as said and acted on.
  static Happened deadlock(const trace::Trace& t, const trace::Finding& f);
  static Happened event(const trace::Trace& t, uint32_t position);
  // Whether the event at `position` matches the condition's terms beyond
  // the filter's: its user event's name, its message's bytes.
  static bool matches(const trace::Trace& t, uint32_t position, const WatchCondition& condition);

 private:
  void run();
  bool look();  // false when it cannot go on watching
  void lookForDeadlocks(const trace::Trace& t, int64_t now);
  void lookAtEvents(const trace::Trace& t, int64_t now);
  void act(const Happened& what);
  std::string stopAll(const std::vector<Involved>& processes);

  const std::string dir_;
  const WatchCondition condition_;
  const WatchAction action_;
  std::set<std::vector<int>> told_;  // the cycles told, by their pids
  uint64_t seen_ = 0;                // events looked at so far
  int runs_ = 0, snapshots_ = 0;
  std::thread watcher_;
  std::mutex lock_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace radar::cli
