// An export's file, written on a thread of its own a buffer of about 1 MiB
// at a time: the kernel's copy of one into the page cache runs beside the
// building of the next. The writer appends whole records (pcapng blocks,
// trace packets) to buffer() and says where each ends; at most two full
// buffers wait.
#pragma once

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace radar::exporting {

class OutputQueue {
 public:
  explicit OutputQueue(std::FILE* out) : out_(out), thread_([this] { run(); }) { filling_.reserve(kChunk + kSlack); }
  ~OutputQueue() { stop(); }

  std::string& buffer() { return filling_; }
  // After a whole record: hands the buffer over once it is full.
  void recordEnded() {
    if (filling_.size() >= kChunk) handOver();
  }
  // Writes what is left; false with *error when a write failed.
  bool finish(std::string* error) {
    if (!filling_.empty()) handOver();
    stop();
    if (!failed_ && (std::fflush(out_) != 0 || std::ferror(out_))) {
      failed_ = true;
      errno_ = errno;
    }
    if (failed_) *error = std::string("cannot write: ") + std::strerror(errno_);
    return !failed_;
  }

 private:
  static constexpr size_t kChunk = 1 << 20, kSlack = 128 * 1024;

  void handOver() {
    std::unique_lock<std::mutex> hold(lock_);
    room_.wait(hold, [&] { return full_.size() < 2; });
    full_.push_back(std::move(filling_));
    if (!spare_.empty()) {
      filling_ = std::move(spare_.back());
      spare_.pop_back();
    } else {
      filling_ = std::string();
      filling_.reserve(kChunk + kSlack);
    }
    ready_.notify_one();
  }
  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> hold(lock_);
      done_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  void run() {
    for (;;) {
      std::string chunk;
      {
        std::unique_lock<std::mutex> hold(lock_);
        ready_.wait(hold, [&] { return !full_.empty() || done_; });
        if (full_.empty()) return;
        chunk = std::move(full_.front());
        full_.pop_front();
      }
      room_.notify_one();
      if (!failed_ && std::fwrite(chunk.data(), 1, chunk.size(), out_) != chunk.size()) {
        errno_ = errno;
        failed_ = true;  // read by the builder only after join()
      }
      chunk.clear();
      std::lock_guard<std::mutex> hold(lock_);
      spare_.push_back(std::move(chunk));
    }
  }

  std::FILE* out_;
  std::string filling_;
  std::mutex lock_;
  std::condition_variable ready_, room_;
  std::deque<std::string> full_;
  std::vector<std::string> spare_;
  bool done_ = false, failed_ = false;
  int errno_ = 0;
  std::thread thread_;  // last: it starts once the rest is made
};

}  // namespace radar::exporting
