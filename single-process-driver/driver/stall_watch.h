// A re-run without a debugger never hangs: the program may wait for
// something radar did not record (a message queue, a semaphore or a futex
// in shared memory, an eventfd) that no process of the re-run will ever
// give it. StallWatch tells when that happened: the re-run has made no
// progress in the script for longer than the recording ever waited between
// two of its events, and every thread of the program sleeps in the kernel
// in a call that is no timer of its own (sleep, nanosleep).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

namespace radar::driver {

class StallWatch {
 public:
  // `progress` reads the events replayed so far and whether the re-run is
  // still running; `limit_ns`: how long without progress is a stall.
  struct Progress {
    uint64_t consumed = 0;
    bool running = true;
  };
  StallWatch(std::function<Progress()> progress, int64_t limit_ns)
      : progress_(std::move(progress)), limit_ns_(limit_ns) {}

  // Called now and then while the program runs (it looks every tenth of a
  // second at most; `pid` gives the program's pid when it must look at its
  // threads). True once it is stuck: `why()` then says where.
  bool stuck(const std::function<pid_t()>& pid);
  const std::string& why() const { return why_; }

  // How long a re-run may wait without progress: ten seconds, or twice the
  // longest wait between two events of the recording when longer.
  static int64_t limitFor(int64_t longest_recorded_wait_ns);

 private:
  std::function<Progress()> progress_;
  int64_t limit_ns_;
  int64_t last_change_ns_ = 0, last_look_ns_ = 0;
  uint64_t last_consumed_ = ~uint64_t{0};
  std::string why_;
};

// Where a program's threads are: empty when one of them runs, or sleeps in
// a timer of its own; else "futex (thread 4242), mq_timedreceive (thread
// 4243)".
std::string blockedCalls(pid_t pid);

}  // namespace radar::driver
