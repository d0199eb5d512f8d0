// Text without the C library's state (no locale, no allocation, no
// stdio), for injected code: appending to a fixed buffer, always
// NUL-terminated, never past `size`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "log/sys.h"

namespace radar::inject {

inline size_t appendStr(char* buf, size_t at, size_t size, const char* s) {
  while (*s && at + 1 < size) buf[at++] = *s++;
  buf[at] = 0;
  return at;
}

inline size_t appendHex(char* buf, size_t at, size_t size, uint64_t v) {
  char tmp[17];
  int n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  while (n && at + 1 < size) buf[at++] = tmp[--n];
  buf[at] = 0;
  return at;
}

inline size_t appendDec(char* buf, size_t at, size_t size, uint64_t v) {
  return at < size ? at + sys::formatDecimal(buf + at, size - at, v) : at;
}

inline uint64_t parseDec(const char*& s) {
  uint64_t v = 0;
  while (*s >= '0' && *s <= '9') v = v * 10 + static_cast<uint64_t>(*s++ - '0');
  return v;
}

}  // namespace radar::inject
