// The linearization's second core: copies events to their places.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

#include "trace/memory.h"
#include "trace/trace.h"

namespace radar::trace {

// Copies the events to the places the linearization gives them, on another
// core, a window of positions behind it: the ordering then touches neither
// the output nor the pages the copy fills. The input's pages are given back
// as the copy passes them (once the ordering says it will not read them
// again) and the output's are faulted in just before the copy writes them,
// so that the two arrays together stay about the size of one.
class Placer {
 public:
  Placer(const BigArray<Event>& events, Event* out, const uint32_t* position,
         const std::vector<std::pair<uint32_t, uint32_t>>& ranges, uint32_t total)
      : events_(events.data()),
        out_(out),
        position_(position),
        processes_(static_cast<uint32_t>(ranges.size())),
        total_(total),
        window_(std::max<uint32_t>(uint32_t{1} << 16, processes_ * 64)),
        windows_((total + window_ - 1) / window_) {
    next_.resize((size_t{windows_} + 1) * processes_);
    for (uint32_t p = 0; p < processes_; ++p) {
      next_[p] = ranges[p].first;
      done_.emplace_back(events_ + ranges[p].first);
    }
    if (windows_) thread_ = std::thread([this] { run(); });
  }
  ~Placer() {
    stop_.store(true, std::memory_order_relaxed);
    published_.fetch_add(1, std::memory_order_release);
    published_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  uint32_t window() const { return window_; }
  uint32_t windows() const { return windows_; }
  // The positions of the next window are decided; next[p] is process p's
  // first event not placed yet.
  void ordered(const std::vector<uint32_t>& next) {
    const uint32_t w = published_.load(std::memory_order_relaxed);
    std::copy(next.begin(), next.end(), next_.begin() + (size_t{w} + 1) * processes_);
    published_.store(w + 1, std::memory_order_release);
    published_.notify_one();
  }
  // Positions before this are in the output.
  uint32_t placed() const { return placed_.load(std::memory_order_acquire); }
  // The ordering will not read the input events placed before `end` again.
  void readBefore(uint32_t end) { readable_.store(end, std::memory_order_release); }
  // Waits for the copy to finish.
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    for (uint32_t w = 0; w < windows_; ++w) {
      for (uint32_t seen; (seen = published_.load(std::memory_order_acquire)) <= w;) published_.wait(seen);
      if (stop_.load(std::memory_order_relaxed)) return;
      const uint32_t begin = w * window_, end = std::min(total_, begin + window_);
      faultIn(out_ + begin, size_t{end - begin} * sizeof(Event));
      const uint32_t* from = &next_[size_t{w} * processes_];
      const uint32_t* to = from + processes_;
      for (uint32_t p = 0; p < processes_; ++p)
        for (uint32_t i = from[p]; i < to[p]; ++i) out_[position_[i]] = events_[i];
      placed_.store(end, std::memory_order_release);
      // Give back the input of the windows the ordering no longer reads.
      const uint32_t gone = readable_.load(std::memory_order_acquire) / window_;
      if (gone > released_) {
        released_ = gone;
        const uint32_t* upto = &next_[size_t{gone} * processes_];
        for (uint32_t p = 0; p < processes_; ++p) done_[p].release(events_ + upto[p]);
      }
    }
  }
  const Event* events_;
  Event* out_;
  const uint32_t* position_;
  const uint32_t processes_, total_, window_, windows_;
  // Window w's events of process p: [next_[w * processes_ + p], next_[(w + 1) * processes_ + p]).
  std::vector<uint32_t> next_;
  std::vector<ReadArray> done_;  // per process
  uint32_t released_ = 0;        // windows whose input was given back
  std::atomic<uint32_t> published_{0}, placed_{0}, readable_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace radar::trace
