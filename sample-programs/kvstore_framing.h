// kvstore_framing.h -- the wire format shared by kvstore_server and
// kvstore_client: a 4-byte big-endian length, then a serialized protobuf
// message (kvstore.proto).
#pragma once

#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include <google/protobuf/message_lite.h>

namespace kvstore {

inline constexpr uint32_t kMaxMessage = 1 << 20;

// Appends message, framed, to out.
inline void frame(const google::protobuf::MessageLite& message, std::string& out) {
  std::string body = message.SerializeAsString();
  uint32_t length = htonl(static_cast<uint32_t>(body.size()));
  out.append(reinterpret_cast<const char*>(&length), sizeof length);
  out += body;
}

// If buffer starts with a whole framed message, moves its body into body and
// returns 1; returns 0 if more bytes are needed, -1 if the length is too big.
inline int unframe(std::string& buffer, std::string& body) {
  if (buffer.size() < 4) return 0;
  uint32_t length;
  std::memcpy(&length, buffer.data(), sizeof length);
  length = ntohl(length);
  if (length > kMaxMessage) return -1;
  if (buffer.size() < 4 + static_cast<size_t>(length)) return 0;
  body.assign(buffer, 4, length);
  buffer.erase(0, 4 + static_cast<size_t>(length));
  return 1;
}

inline bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace kvstore
