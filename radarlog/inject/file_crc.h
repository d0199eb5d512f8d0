// The CRC-32C of bytes a call copied between files inside the kernel
// (copy_file_range, sendfile): read back from the source where the copy
// began, in pieces on the stack, so that the recorder and the re-run
// checksum a copy as they checksum a write (OUTPUT, ScriptOutput).
#pragma once

#include <cstddef>
#include <cstdint>

#include "log/crc32c.h"
#include "log/sys.h"

namespace radar::inject {

// Of `n` bytes of `fd` from `pos`: what could be read of them (a source
// changed since gives another checksum, as it should).
inline uint32_t fileCrc32c(int fd, uint64_t pos, uint64_t n) {
  uint8_t piece[4096];
  uint32_t crc = 0;
  while (n) {
    const size_t want = n < sizeof piece ? static_cast<size_t>(n) : sizeof piece;
    const long got = sys::pread(fd, piece, want, pos);
    if (got <= 0) break;
    crc = crc32c(crc, piece, static_cast<size_t>(got));
    pos += static_cast<uint64_t>(got);
    n -= static_cast<uint64_t>(got);
  }
  return crc;
}

}  // namespace radar::inject
