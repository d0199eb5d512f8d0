// XXH64, from its specification: zstd frames end with the low 32 bits of
// the XXH64 of their content, and the raw frames the writer builds itself
// need it too (libzstd does not export its copy). Streaming, allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace radar {

class Xxh64 {
 public:
  void update(const void* data, size_t len) {
    const auto* p = static_cast<const uint8_t*>(data);
    total_ += len;
    if (buffered_ + len < 32) {
      std::memcpy(buffer_ + buffered_, p, len);
      buffered_ += len;
      return;
    }
    if (buffered_) {
      const size_t fill = 32 - buffered_;
      std::memcpy(buffer_ + buffered_, p, fill);
      stripe(buffer_);
      p += fill;
      len -= fill;
      buffered_ = 0;
    }
    if (len >= 32) {
      // In locals: stored through `this` each stripe, the lanes would be
      // written back and reloaded around every load of the data (which may
      // alias them as far as the compiler knows).
      uint64_t a = v_[0], b = v_[1], c = v_[2], d = v_[3];
      for (; len >= 32; p += 32, len -= 32) {
        a = round(a, load64(p));
        b = round(b, load64(p + 8));
        c = round(c, load64(p + 16));
        d = round(d, load64(p + 24));
      }
      v_[0] = a;
      v_[1] = b;
      v_[2] = c;
      v_[3] = d;
    }
    std::memcpy(buffer_, p, len);
    buffered_ = len;
  }

  uint64_t digest() const {
    uint64_t h;
    if (total_ >= 32) {
      h = rotl(v_[0], 1) + rotl(v_[1], 7) + rotl(v_[2], 12) + rotl(v_[3], 18);
      for (uint64_t v : v_) h = (h ^ round(0, v)) * kP1 + kP4;
    } else {
      h = kP5;  // seed 0
    }
    h += total_;
    const uint8_t* p = buffer_;
    size_t len = buffered_;
    for (; len >= 8; p += 8, len -= 8) {
      h ^= round(0, load64(p));
      h = rotl(h, 27) * kP1 + kP4;
    }
    if (len >= 4) {
      uint32_t k;
      std::memcpy(&k, p, 4);
      h ^= uint64_t{k} * kP1;
      h = rotl(h, 23) * kP2 + kP3;
      p += 4;
      len -= 4;
    }
    for (; len; ++p, --len) {
      h ^= *p * kP5;
      h = rotl(h, 11) * kP1;
    }
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
  }

 private:
  static constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL, kP3 = 0x165667B19E3779F9ULL,
                            kP4 = 0x85EBCA77C2B2AE63ULL, kP5 = 0x27D4EB2F165667C5ULL;
  static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
  static uint64_t round(uint64_t acc, uint64_t input) { return rotl(acc + input * kP2, 31) * kP1; }
  static uint64_t load64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  void stripe(const uint8_t* p) {
    for (int i = 0; i < 4; ++i) v_[i] = round(v_[i], load64(p + 8 * i));
  }

  uint64_t v_[4] = {kP1 + kP2, kP2, 0, 0 - kP1};
  uint8_t buffer_[32] = {};
  size_t buffered_ = 0;
  uint64_t total_ = 0;
};

}  // namespace radar
