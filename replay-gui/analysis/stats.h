// Per process and per channel: messages, bytes, time blocked, time queued.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace radar::analysis {

// An analysis reads a merged trace and speaks its language.
using namespace radar::trace;

struct ProcessStats {
  uint64_t sends = 0, receives = 0, bytes_sent = 0, bytes_received = 0;
  int64_t send_ns = 0, receive_ns = 0, wait_ns = 0;  // time in sends, receives, poll/select/epoll
  uint64_t events = 0;
};

struct ChannelStats {
  uint64_t messages = 0, bytes = 0;
  uint64_t matched = 0;   // receives matched to a send
  int64_t queued_ns = 0;  // sum over received pieces: receive return - send return
  int64_t max_queued_ns = 0;
};

struct Statistics {
  std::vector<ProcessStats> processes;
  std::vector<ChannelStats> channels;
};

Statistics computeStatistics(const Trace& trace);

}  // namespace radar::analysis
