// Protocol-buffer wire format, by hand: the writer runs inside recorded
// programs and must not allocate, so it encodes varints and length-delimited
// fields itself (tests check it against libprotobuf's parser).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace radar::wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

constexpr uint32_t tag(uint32_t field, WireType type) { return (field << 3) | type; }

inline size_t varintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

inline uint8_t* putVarint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

constexpr uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
constexpr int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// Reads a varint from [p, end). Returns false on truncation or on more than
// ten bytes; p is advanced past the varint on success.
inline bool getVarint(const uint8_t*& p, const uint8_t* end, uint64_t& out) {
  if (__builtin_expect(p < end && *p < 0x80, 1)) {  // most tags and values
    out = *p++;
    return true;
  }
  uint64_t v = 0;
  for (int shift = 0; shift < 70 && p < end; shift += 7) {
    uint8_t b = *p++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      out = v;
      return true;
    }
  }
  return false;
}

inline uint32_t loadLE32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t loadLE64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void storeLE32(void* p, uint32_t v) { std::memcpy(p, &v, 4); }

// Two sinks with one interface, so that each message is described once and
// run twice: first to measure, then to write.
struct SizeSink {
  size_t n = 0;
  void varint(uint64_t v) { n += varintSize(v); }
  void fixed32(uint32_t) { n += 4; }
  void fixed64(uint64_t) { n += 8; }
  void bytes(const void*, size_t len) { n += len; }
};

struct BufferSink {
  uint8_t* p;
  void varint(uint64_t v) { p = putVarint(p, v); }
  void fixed32(uint32_t v) {
    std::memcpy(p, &v, 4);
    p += 4;
  }
  void fixed64(uint64_t v) {
    std::memcpy(p, &v, 8);
    p += 8;
  }
  void bytes(const void* d, size_t len) {
    if (len) std::memcpy(p, d, len);
    p += len;
  }
};

template <class Sink>
inline void putUint(Sink& s, uint32_t field, uint64_t v) {
  s.varint(tag(field, kVarint));
  s.varint(v);
}
// int32/int64 fields: negative values are sign-extended to ten bytes, as
// protobuf does.
template <class Sink>
inline void putInt(Sink& s, uint32_t field, int64_t v) {
  putUint(s, field, static_cast<uint64_t>(v));
}
template <class Sink>
inline void putSint(Sink& s, uint32_t field, int64_t v) {
  putUint(s, field, zigzag(v));
}
template <class Sink>
inline void putFixed32(Sink& s, uint32_t field, uint32_t v) {
  s.varint(tag(field, kFixed32));
  s.fixed32(v);
}
template <class Sink>
inline void putFixed64(Sink& s, uint32_t field, uint64_t v) {
  s.varint(tag(field, kFixed64));
  s.fixed64(v);
}
template <class Sink>
inline void putBytes(Sink& s, uint32_t field, const void* d, size_t len) {
  s.varint(tag(field, kLengthDelimited));
  s.varint(len);
  s.bytes(d, len);
}
template <class Sink>
inline void putString(Sink& s, uint32_t field, const char* str) {
  putBytes(s, field, str, str ? std::strlen(str) : 0);
}
// A nested message: `body(sink)` writes its fields; it runs once more to
// measure the length that precedes it.
template <class Sink, class Body>
inline void putMessage(Sink& s, uint32_t field, Body&& body) {
  SizeSink size;
  body(size);
  s.varint(tag(field, kLengthDelimited));
  s.varint(size.n);
  body(s);
}

}  // namespace radar::wire
