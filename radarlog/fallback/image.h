// One image of a traced process (what runs between two execs) and its log:
// the tracer's counterpart of the interposer's recorder state. It knows the
// image's descriptors (classified on first use, as the interposer does),
// numbers its channels, keeps each channel's stream offsets, and appends
// events to the log, which is written exactly as the interposer writes one.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fallback/descriptors.h"
#include "fallback/uring.h"
#include "log/fields.h"
#include "log/unseen.h"
#include "log/writer.h"

namespace radar::fallback {

// What every log of the recording shares.
struct TracerConfig {
  std::string dir;  // the recording directory
  uint8_t recording_id[16] = {};
  std::string host, boot_id;
  std::string version;  // radar's
  std::string redact;   // RADAR_REDACT
  std::optional<uint64_t> payload_limit;
  uint32_t tail_capacity = 0;  // 0: the default
  bool flight = false;         // radar record --flight: the logs keep the flight recorder's slot
  ExternalFiles external;
};

// Where an image comes from (its header's link to the log before it).
struct ImageStart {
  log::Origin origin = log::Origin::Root;
  uint64_t parent_log = 0;
  uint64_t parent_counter = 0;
  uint32_t generation = 0;
};

class TracedImage {
 public:
  TracedImage(pid_t pid, const TracerConfig& config, const ImageStart& start);
  TracedImage(const TracedImage&) = delete;
  TracedImage& operator=(const TracedImage&) = delete;
  ~TracedImage();

  // Creates the log and defines the channels of the descriptors open now;
  // false with `error` when the log cannot be made.
  bool open(std::string* error);
  void close();
  pid_t pid() const { return pid_; }
  uint64_t logId() const { return log_id_; }
  uint32_t generation() const { return generation_; }
  uint64_t lastCounter() const { return writer_.lastCounter(); }
  // The bytes of a message kept in the log (radar record --payload-limit).
  uint64_t payloadLimit() const { return config_.payload_limit.value_or(UINT64_MAX); }

  // ---- descriptors
  struct Fd {
    FdClass cls = FdClass::Unknown;
    uint32_t channel = 0;
    bool store_received = false;
  };
  // What `fd` is, classified (and its channel defined) on first use.
  const Fd& descriptor(int fd, log::ChannelOrigin origin = log::ChannelOrigin::Inherited);
  // What is known of `fd` without asking (null: nothing).
  const Fd* known(int fd) const {
    auto it = fds_.find(fd);
    return it == fds_.end() ? nullptr : &it->second;
  }
  // A descriptor made by a call (pipe, socket, accept): classified now.
  const Fd& created(int fd, log::ChannelOrigin origin);
  // The same for a number whatever it was before: its channel (0: none).
  uint32_t remade(int fd, log::ChannelOrigin origin) {
    forget(fd);
    const Fd& d = created(fd, origin);
    return d.cls == FdClass::Channel ? d.channel : 0;
  }
  void forget(int fd) { fds_.erase(fd); }
  // The descriptors known in [first, last] (close_range).
  std::vector<std::pair<int, Fd>> knownIn(uint64_t first, uint64_t last) const;
  // A socket bound or connected: its channel defined again, under the same
  // index, with its new addresses.
  void refresh(int fd);
  void duplicated(int from, int to);
  // A System V message queue's channel, by its id (defined on first use, as
  // the interposer defines one: fd -1, inode 2^32 + id).
  uint32_t sysvQueue(int id);

  // A mechanism radar does not see through (log/unseen.h), said in the log
  // (once an image and mechanism, as the interposer says it).
  void sayUnseen(log::Unseen what, const std::string& detail);

  // The io_uring rings it set up, followed (uring.h).
  Rings& rings() { return rings_; }

  // ---- events: the thread (`tid`), the channel's stream offset, and the
  // counter are set here. Returns the counter (0 for annotations).
  uint64_t append(pid_t tid, log::EventFields& e);

 private:
  uint32_t define(int fd, const DescribedFd& d, log::ChannelOrigin origin, uint32_t index = 0);
  void note(int error);

  pid_t pid_;
  const TracerConfig& config_;
  ImageStart start_;
  uint64_t log_id_ = 0;
  uint32_t generation_ = 0;
  log::LogWriter writer_;
  std::map<int, Fd> fds_;
  std::map<int, uint32_t> sysv_queues_;  // id -> channel
  uint32_t channels_ = 0;
  bool said_refused_ = false;
  uint32_t said_unseen_ = 0;                           // a bit per log::Unseen
  std::map<uint32_t, std::array<uint64_t, 2>> moved_;  // per channel: bytes sent, received
  Rings rings_;
};

}  // namespace radar::fallback
