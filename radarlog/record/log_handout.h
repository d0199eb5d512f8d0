// radar record's side of the log handout (log/log_handout.h): log files
// made for recorded processes that may not make them, such as a server's
// workers after it dropped root.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "record/trace_requests.h"

namespace radar::record {

// Serves on a thread of its own from start() until it is destroyed. It
// passes requests to trace a thread (log::TraceRequest) on, from the same
// processes, for threads of theirs. It
// answers only the processes radar record started and their descendants
// (the kernel says who asks: SO_PEERCRED), and makes only files with a
// log's name, new (O_EXCL), never through a link, 0600, in the directory.
class LogHandout {
 public:
  LogHandout() = default;
  LogHandout(const LogHandout&) = delete;
  LogHandout& operator=(const LogHandout&) = delete;
  ~LogHandout();

  // Listens at the address of the recording made in `dir` (absolute, as
  // the recorded processes' RADAR_DIR says). False, with `error`, when it
  // cannot: recording goes on, but a process that drops its privileges
  // then writes no log.
  bool start(int dir_fd, const std::string& dir, const uint8_t recording_id[16], std::string* error);
  // Where requests to trace a thread through its exec go (none: refused).
  void passTraceRequestsTo(TraceRequests* requests) { trace_requests_.store(requests); }

 private:
  void serve();
  bool answer(int connection);
  bool isDescendant(pid_t pid) const;

  int dir_fd_ = -1;
  int listener_ = -1;
  int stop_[2] = {-1, -1};
  pid_t self_ = 0;
  std::atomic<TraceRequests*> trace_requests_{nullptr};
  // A pthread, not a std::thread: where one cannot be made (few
  // descriptors allowed, under a sanitizer) start() says so and recording
  // goes on.
  pthread_t thread_{};
  bool running_ = false;
};

}  // namespace radar::record
