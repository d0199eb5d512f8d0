// The XXH64 of a whole file, for telling whether a program on disk is still
// the one that was recorded (host code only: it uses libc).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "log/xxhash64.h"

namespace radar::log {

// False when the file cannot be read whole.
inline bool hashFile(const std::string& path, uint64_t* hash, uint64_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Xxh64 h;
  uint64_t total = 0;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    h.update(buf, static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  ::close(fd);
  *hash = h.digest();
  *size = total;
  return true;
}

}  // namespace radar::log
