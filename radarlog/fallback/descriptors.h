// What a descriptor of a traced process is, asked of a copy of it in the
// tracer: the same identities the interposer gives a channel (pipe and FIFO
// inodes, socket addresses, a Unix socket's peer), so that the merge pairs
// a fallback-recorded process's channels with anyone's.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "log/fields.h"

namespace radar::fallback {

enum class FdClass : uint8_t {
  Unknown,     // not open, or not to be asked
  Channel,     // its messages are recorded
  Output,      // a regular file or a device: writes are OUTPUT (length and checksum)
  NotChannel,  // /dev/null, /dev/zero, an epoll or signal descriptor ...
};

// radar record's own descriptors the program inherited (RADAR_EXTERNAL).
using ExternalFiles = std::vector<std::pair<uint64_t, uint64_t>>;  // dev, ino

struct DescribedFd {
  FdClass cls = FdClass::Unknown;
  int refused = 0;  // Unknown because the kernel refused a copy of it: errno (EPERM ...)
  log::ChannelType type = log::ChannelType::Unspecified;
  bool store_received = false;  // its receives keep their bytes: its senders may not be recorded
  uint64_t dev = 0, ino = 0, peer_ino = 0, rdev = 0;
  uint64_t count = 0;      // an eventfd's, when described
  bool semaphore = false;  // an eventfd made with EFD_SEMAPHORE
  uint32_t access = 0;
  bool external = false;
  int32_t domain = 0, socket_type = 0, protocol = 0;
  struct sockaddr_storage local {
  }, peer{};
  socklen_t local_len = 0, peer_len = 0;
  std::string path;

  // Its CHANNEL record's fields (pointing into this).
  log::ChannelFields channelFields(uint32_t index, int fd, log::ChannelOrigin origin) const;
};

// Descriptor `fd` of process `pid`, through a copy of it (pidfd_getfd).
DescribedFd describeDescriptor(pid_t pid, int fd, const ExternalFiles& external);

}  // namespace radar::fallback
