// A stream of records shaped like a recorded ping-pong: alternating
// 64-byte sends and receives on one channel, jittered times, a checksum on
// each receive. Shared by the writer benchmark and the log tool.
#pragma once

#include <cstdint>
#include <string>

#include "log/fields.h"

namespace radar::bench {

class PingPongStream {
 public:
  explicit PingPongStream(bool payload) : payload_(payload) {
    for (int i = 0; i < 64; ++i) bytes_[i] = static_cast<char>('a' + i % 26);
  }
  // Turns `e` into the next record (valid until the next call). Only the
  // fields that change are written, as a recorder would fill them.
  void next(log::EventFields& e) {
    const bool send = (n_++ & 1) == 0;
    e.kind = send ? log::Kind::Write : log::Kind::Read;
    now_ += 200 + static_cast<int64_t>(rand() % 300);  // user code between calls
    e.entry_ns = now_;
    now_ += 2000 + static_cast<int64_t>(rand() % 4000);  // waiting for the peer
    e.return_ns = now_;
    e.fd = 3;
    e.channel = 1;
    e.has_offset = true;
    e.offset = offset_[send ? 0 : 1];
    offset_[send ? 0 : 1] += 64;
    e.size = 64;
    e.result = 64;
    e.has_hash = !send;
    e.hash = send ? 0 : static_cast<uint32_t>(rand());
    e.payload_len = 0;
    if (payload_ && send) {
      iov_ = {bytes_, 64};
      e.payload = &iov_;
      e.payload_iov_count = 1;
      e.payload_len = 64;
      bytes_[n_ % 64] ^= 1;  // payloads that vary a little
    }
  }

 private:
  uint64_t rand() {  // xorshift64: cheap, deterministic
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  bool payload_;
  uint64_t state_ = 88172645463325252ULL;
  uint64_t n_ = 0;
  int64_t now_ = 1'000'000'000'000;
  uint64_t offset_[2] = {0, 0};
  char bytes_[64];
  log::Iov iov_{};
};

}  // namespace radar::bench
