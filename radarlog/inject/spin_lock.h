// A lock for code injected into a program (the MPI libraries, recording's
// and re-run's): it spins, with no allocation and no system call, for
// tables held a few instructions long.
#pragma once

#include <atomic>

namespace radar::inject {

class SpinLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

struct Held {
  explicit Held(SpinLock& l) : lock(l) { lock.lock(); }
  ~Held() { lock.unlock(); }
  Held(const Held&) = delete;
  Held& operator=(const Held&) = delete;
  SpinLock& lock;
};

}  // namespace radar::inject
