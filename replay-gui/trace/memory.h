// Memory helpers of the merge, which copies arrays of hundreds of MiB
// into new orders: give back what was read for the last time, fault in
// what is about to be written on another core.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

namespace radar::trace {

// An array read once from the front, about to be thrown away: the pages
// already read can go back to the kernel. The merge copies its biggest arrays
// into a new order, and this keeps both copies from being resident at once.
// Only whole pages are given back, 64 KiB at least at a time.
class ReadArray {
 public:
  explicit ReadArray(const void* front) : released_((address(front) + kPage - 1) & ~(kPage - 1)) {}
  // Everything before `upto` has been read for the last time.
  void release(const void* upto) {
    const uintptr_t end = address(upto) & ~(kPage - 1);
    if (end < released_ + 16 * kPage) return;
    ::madvise(reinterpret_cast<void*>(released_), end - released_, MADV_DONTNEED);
    released_ = end;
  }

 private:
  static constexpr uintptr_t kPage = 4096;
  static uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }
  uintptr_t released_;
};

// Faults in the pages of an array being written front to back, a few MiB
// ahead of the writer, on another core. A merge writes hundreds of MiB of
// fresh memory, and where page faults are slow (virtual machines whose host
// backs guest memory lazily) they cost as much as the work itself; this
// takes them off the merge's own thread. MADV_POPULATE_WRITE faults pages in
// without writing to them, so racing the writer is harmless; on kernels
// without it (before 5.14) the helper just stops.
class FaultAhead {
 public:
  FaultAhead(const void* begin, size_t bytes)
      : done_(address(begin) & ~(kPage - 1)), end_(address(begin) + bytes), cursor_(address(begin)) {
    if (bytes >= kStep) thread_ = std::thread([this] { run(); });
  }
  ~FaultAhead() {
    stop_.store(true, std::memory_order_relaxed);
    if (thread_.joinable()) thread_.join();
  }
  // Everything before `cursor` has been written.
  void at(const void* cursor) { cursor_.store(address(cursor), std::memory_order_relaxed); }

 private:
  static constexpr uintptr_t kPage = 4096, kStep = uintptr_t{2} << 20, kLead = uintptr_t{4} << 20;
  static uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }
  void run() {
    while (!stop_.load(std::memory_order_relaxed) && done_ < end_) {
      const uintptr_t target = std::min(end_, cursor_.load(std::memory_order_relaxed) + kLead);
      if (done_ >= target) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        continue;
      }
      const uintptr_t to = std::min({target, (done_ + kStep) & ~(kStep - 1), end_});
      if (::madvise(reinterpret_cast<void*>(done_), to - done_, MADV_POPULATE_WRITE) != 0) return;
      done_ = to;
    }
  }
  uintptr_t done_;
  const uintptr_t end_;
  std::atomic<uintptr_t> cursor_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace radar::trace
