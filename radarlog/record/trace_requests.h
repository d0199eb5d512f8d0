// Requests to trace a thread through its exec (log::TraceRequest): a
// recorded process about to run a program the interposer cannot see into
// asks, the log handout's thread takes the request, and radar record's main
// thread carries it out, as the tracer must: ptrace answers only the thread
// that attached.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "log/log_handout.h"

namespace radar::record {

class TraceRequests {
 public:
  struct Pending {
    log::TraceRequest request{};
    pid_t process = 0;    // the asking process (the kernel says which)
    int connection = -1;  // where the answer goes
  };

  // On the main thread: requests poke it (a signal that interrupts its
  // waitpid) from now on.
  void servedByThisThread();
  // From the handout's thread: queued, and the main thread poked until it
  // has taken it (or, after two seconds, refused: the answer is EAGAIN; the
  // asker waits five).
  void hand(const Pending& pending);
  // On the main thread: the requests waiting, for it to carry out and
  // answer.
  std::vector<Pending> take();
  // Sends the answer and closes the connection; false when the asker was
  // no longer there to take it.
  static bool answer(int connection, int32_t error);

 private:
  std::mutex mutex_;
  std::condition_variable taken_;
  std::vector<Pending> waiting_;
  pid_t main_thread_ = 0;
};

}  // namespace radar::record
