#include "log/crc32c.h"

#include "log/fields.h"

#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>

#include "log/injected.h"  // last: compiled into the interposer too
#endif

namespace radar {
namespace {

struct Table {
  uint32_t t[8][256];
  constexpr Table() : t() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
};
constexpr Table kTable;

uint32_t crcPortable(uint32_t crc, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= crc;
    crc = kTable.t[7][w & 0xff] ^ kTable.t[6][(w >> 8) & 0xff] ^ kTable.t[5][(w >> 16) & 0xff] ^
          kTable.t[4][(w >> 24) & 0xff] ^ kTable.t[3][(w >> 32) & 0xff] ^ kTable.t[2][(w >> 40) & 0xff] ^
          kTable.t[1][(w >> 48) & 0xff] ^ kTable.t[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ kTable.t[0][(crc ^ *p++) & 0xff];
  return crc;
}

constexpr uint32_t kPoly = 0x82F63B78u;  // reflected

// a * b modulo the polynomial, bits reflected (bit 31 is x^0).
constexpr uint32_t multiplyModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1) ? (b >> 1) ^ kPoly : b >> 1;
  }
  return product;
}

// x^(8 * len) modulo the polynomial: shifts a CRC over len zero bytes.
constexpr uint32_t shiftBytes(uint64_t len) {
  uint32_t power = 1u << 30;   // x^1, squared below into x^(2^k)
  uint32_t result = 1u << 31;  // x^0
  for (uint64_t bits = len * 8; bits; bits >>= 1) {
    if (bits & 1) result = multiplyModP(power, result);
    power = multiplyModP(power, power);
  }
  return result;
}

#if defined(__x86_64__)
// A CRC register moved over kLane zero bytes, as four byte-indexed tables:
// it is linear in the register, so each table holds the images of one byte.
constexpr size_t kLane = 4096;
struct Shift {
  uint32_t t[4][256];
  constexpr explicit Shift(uint64_t len) : t() {
    const uint32_t power = shiftBytes(len);
    uint32_t image[32] = {};
    for (int bit = 0; bit < 32; ++bit) image[bit] = multiplyModP(power, 1u << bit);
    for (int k = 0; k < 4; ++k)
      for (uint32_t b = 0; b < 256; ++b)
        for (int bit = 0; bit < 8; ++bit)
          if (b & (1u << bit)) t[k][b] ^= image[8 * k + bit];
  }
  uint32_t operator()(uint32_t crc) const {
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
  }
};
constexpr Shift kOverOneLane(kLane), kOverTwoLanes(2 * kLane);

// The crc32 instruction takes three cycles and the CPU starts one a cycle:
// three lanes of a buffer are run at once, and their registers joined
// (register over a|b|c = its value over a moved over b and c, then b's
// moved over c, then c's).
__attribute__((target("sse4.2"))) uint32_t crcHardware(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  while (n >= 3 * kLane) {
    uint64_t a = c, b = 0, d = 0;
    for (size_t i = 0; i < kLane; i += 8) {
      uint64_t wa, wb, wd;
      std::memcpy(&wa, p + i, 8);
      std::memcpy(&wb, p + kLane + i, 8);
      std::memcpy(&wd, p + 2 * kLane + i, 8);
      a = _mm_crc32_u64(a, wa);
      b = _mm_crc32_u64(b, wb);
      d = _mm_crc32_u64(d, wd);
    }
    c = kOverTwoLanes(static_cast<uint32_t>(a)) ^ kOverOneLane(static_cast<uint32_t>(b)) ^ static_cast<uint32_t>(d);
    p += 3 * kLane;
    n -= 3 * kLane;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

bool haveSse42() {
  // cpuid leaf 1, ecx bit 20; read directly so that nothing needs
  // initialising before the first call (the interposer hashes early).
  unsigned eax = 1, ebx, ecx = 0, edx;
  asm volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
  return (ecx >> 20) & 1;
}
#endif

}  // namespace

uint32_t crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  return multiplyModP(shiftBytes(len_b), crc_a) ^ crc_b;
}

uint32_t crc32c(uint32_t crc, const void* data, size_t len) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
#if defined(__x86_64__)
  // No function-local static: its guard would need the C++ runtime, which
  // the injected library does not link. A benign race: both threads agree.
  static int hardware = 0;  // 0 unknown, 1 yes, 2 no
  int h = __atomic_load_n(&hardware, __ATOMIC_RELAXED);
  if (h == 0) {
    h = haveSse42() ? 1 : 2;
    __atomic_store_n(&hardware, h, __ATOMIC_RELAXED);
  }
  crc = h == 1 ? crcHardware(crc, p, len) : crcPortable(crc, p, len);
#else
  crc = crcPortable(crc, p, len);
#endif
  return ~crc;
}

namespace log {

uint32_t crc32cOfFirst(const Iov* pieces, size_t count, uint64_t n) {
  uint32_t crc = 0;
  for (size_t i = 0; i < count && n; ++i) {
    const size_t len = pieces[i].len < n ? pieces[i].len : static_cast<size_t>(n);
    crc = crc32c(crc, pieces[i].base, len);
    n -= len;
  }
  return crc;
}

}  // namespace log

}  // namespace radar
