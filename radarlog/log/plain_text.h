// How far bytes are plain printable ASCII (0x20 to 0x7e), eight at a time.
//
// Messages can be hundreds of megabytes: every pass that decides what
// needs escaping (decoding for people, terminal safety, quoting) starts
// with the long runs that need nothing. A byte loop with an early exit is
// not vectorized by the compiler; this tests a 64-bit word per step, the
// same on every architecture and at every optimization level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace radar::log {

namespace plain_detail {
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;
// Non-zero when some byte of w is below 0x20 or above 0x7e.
constexpr uint64_t notPrintable(uint64_t w) {
  const uint64_t below = (w - kOnes * 0x20) & ~w & kHighs;
  const uint64_t above = ((w + kOnes * (0x7f - 0x7e)) | w) & kHighs;
  return below | above;
}
// Non-zero when some byte of w equals c.
constexpr uint64_t hasByte(uint64_t w, unsigned char c) {
  const uint64_t x = w ^ (kOnes * c);
  return (x - kOnes) & ~x & kHighs;
}
inline bool plainByte(unsigned char c, unsigned char but1, unsigned char but2) {
  return c - 0x20u < 0x5fu && c != but1 && c != but2;
}
}  // namespace plain_detail

// The length of the longest prefix of [p, p + n) made of bytes 0x20 to
// 0x7e other than `but1` and `but2` (0: no exception).
inline size_t plainAsciiPrefix(const char* p, size_t n, unsigned char but1 = 0, unsigned char but2 = 0) {
  using namespace plain_detail;
  const bool but1_used = but1 - 0x20u < 0x5fu, but2_used = but2 - 0x20u < 0x5fu;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint64_t a, b;
    std::memcpy(&a, p + i, 8);
    std::memcpy(&b, p + i + 8, 8);
    uint64_t bad = notPrintable(a) | notPrintable(b);
    if (but1_used) bad |= hasByte(a, but1) | hasByte(b, but1);
    if (but2_used) bad |= hasByte(a, but2) | hasByte(b, but2);
    if (bad) break;
  }
  while (i < n && plainByte(static_cast<unsigned char>(p[i]), but1, but2)) ++i;
  return i;
}

}  // namespace radar::log
