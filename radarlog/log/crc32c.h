// CRC-32C (Castagnoli), the content hash receives carry: with SSE 4.2 it
// runs at memory speed, so hashing every received byte costs little.
#pragma once

#include <cstddef>
#include <cstdint>

namespace radar {

// crc32c(crc32c(0, a), b) == crc32c(0, a + b): pass the previous value to
// continue over scattered buffers.
uint32_t crc32c(uint32_t crc, const void* data, size_t len);

// crc32c(0, a + b) from crc32c(0, a), crc32c(0, b) and b's length, without
// the bytes: the merge checks which sends a receive's bytes came from.
uint32_t crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

}  // namespace radar
