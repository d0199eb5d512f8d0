// radar record --on deadlock: the recording read as it grows (trace/live.h)
// and a deadlock told as soon as it forms, with its cycle, then acted on:
// the processes stopped for gdb, or a command run with it as JSON.
//
// A cycle of processes each blocked sending or receiving on a channel whose
// other end only the next one holds is one the merge finds at the end of a
// recording; while the program runs, a cycle counts once each of its calls
// has been blocked for half a second (one that passes is not a deadlock).
#pragma once

#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace radar::trace {
class Trace;
struct Finding;
}  // namespace radar::trace

namespace radar::cli {

struct DeadlockAction {
  enum class Kind { Mark, Stop, Run } kind = Kind::Mark;
  std::string command;  // Run: a shell command, given the deadlock as JSON on its standard input
};

// "stop", "mark" or "run COMMAND"; false (with `error`) for anything else.
bool parseDeadlockAction(const std::string& text, DeadlockAction* action, std::string* error);

class DeadlockWatch {
 public:
  DeadlockWatch(std::string dir, DeadlockAction action);
  ~DeadlockWatch() { stop(); }
  DeadlockWatch(const DeadlockWatch&) = delete;
  DeadlockWatch& operator=(const DeadlockWatch&) = delete;

  void start();  // once the program runs
  void stop();

  // The deadlocks of a look at time `now_wall` (CLOCK_REALTIME, ns) whose
  // calls have all been blocked for at least `lasting_ns`.
  static std::vector<const trace::Finding*> lastingDeadlocks(const trace::Trace& t, int64_t now_wall,
                                                             int64_t lasting_ns);
  // A deadlock as one line of JSON: its text, processes and channels.
  static std::string json(const trace::Trace& t, const trace::Finding& f);

 private:
  void run();
  bool look();  // false when it cannot go on watching
  void act(const trace::Trace& t, const trace::Finding& f);

  const std::string dir_;
  const DeadlockAction action_;
  std::set<std::vector<int>> told_;  // the cycles told, by their pids
  std::thread watcher_;
  std::mutex lock_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace radar::cli
