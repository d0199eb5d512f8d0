// CRC-32C (Castagnoli), the content hash receives carry: with SSE 4.2 it
// runs at memory speed, so hashing every received byte costs little.
#pragma once

#include <cstddef>
#include <cstdint>

namespace radar {

// crc32c(crc32c(0, a), b) == crc32c(0, a + b): pass the previous value to
// continue over scattered buffers.
uint32_t crc32c(uint32_t crc, const void* data, size_t len);

}  // namespace radar
