// radar record --on TERMS --do stop, told to the recorder inside each
// process (RADAR_STOP_AT), so that a process stops itself at the event --
// its record in its log, nothing after it -- rather than when radar record
// reads it a moment later. Only the terms a recorder can judge alone go:
// kind=, user= and contains= (in the bytes a send sends); a condition that
// names a process or a channel is left to radar record.
//
// The value: terms KEY:HEX separated by commas, each value's bytes in hex
// (any byte can be looked for): k a kind (any of them), u a user event's
// name (any of them), c a text the message holds (all of them).
// Header-only, without allocation: the recorder reads it in the program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "log/fields.h"
#include "log/kind_match.h"

namespace radar::log {

constexpr char kStopAtVariable[] = "RADAR_STOP_AT";

namespace stop_at {

constexpr size_t kMostBytes = 256;  // of one value
constexpr size_t kMostSpec = 1024;  // of the whole, as the recorder keeps it

inline int hexValue(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

// The next term of `spec` from `at`: its key and value; false at the end
// or on a malformed term.
inline bool nextTerm(const char* spec, size_t* at, char* key, uint8_t* value, size_t* len) {
  const char* p = spec + *at;
  if (!p[0] || p[1] != ':') return false;
  *key = p[0];
  p += 2;
  size_t n = 0;
  for (; hexValue(p[0]) >= 0 && hexValue(p[1]) >= 0 && n < kMostBytes; p += 2)
    value[n++] = static_cast<uint8_t>(hexValue(p[0]) << 4 | hexValue(p[1]));
  if (*p != ',' && *p != 0) return false;
  *len = n;
  *at = static_cast<size_t>(p - spec) + (*p == ',');
  return true;
}

// Whether the bytes a send stores hold `text`, across its buffers.
inline bool payloadHolds(const EventFields& e, const uint8_t* text, size_t n) {
  if (n == 0) return true;
  size_t left = e.payload_len;
  for (size_t i = 0; i < e.payload_iov_count && left; ++i) {
    const auto* base = static_cast<const uint8_t*>(e.payload[i].base);
    const size_t len = e.payload[i].len < left ? e.payload[i].len : left;
    for (size_t o = 0; o < len; ++o) {
      if (base[o] != text[0]) continue;
      // Compare from here on, into the next buffers where it goes on.
      size_t matched = 0, j = i, k = o, in_left = left - o;
      while (matched < n && j < e.payload_iov_count && in_left) {
        const auto* b = static_cast<const uint8_t*>(e.payload[j].base);
        if (k >= e.payload[j].len) {
          ++j;
          k = 0;
          continue;
        }
        if (b[k] != text[matched]) break;
        ++matched, ++k, --in_left;
      }
      if (matched == n) return true;
    }
    left -= len;
  }
  return false;
}

}  // namespace stop_at

// Whether an event matches every term of a RADAR_STOP_AT value.
inline bool stopAtMatches(const char* spec, const EventFields& e) {
  // radar's own records (the header, notes, outputs) are no event of the story.
  if (categoryOf(e.kind) == Category::Annotation) return false;
  bool kinds = false, kind_matched = false, users = false, user_matched = false;
  size_t at = 0, len = 0;
  char key = 0;
  uint8_t value[stop_at::kMostBytes];
  while (stop_at::nextTerm(spec, &at, &key, value, &len)) {
    const std::string_view text(reinterpret_cast<const char*>(value), len);
    if (key == 'k') {
      kinds = true;
      kind_matched |= kindMatches(text, e.kind);
    } else if (key == 'u') {
      users = true;
      user_matched |= e.kind == Kind::User && e.string_count >= 1 && e.strings[0] && text == e.strings[0];
    } else if (key == 'c') {
      if (categoryOf(e.kind) != Category::Send || !stop_at::payloadHolds(e, value, len)) return false;
    } else {
      return false;
    }
  }
  return at > 0 && spec[at] == 0 && (!kinds || kind_matched) && (!users || user_matched);
}

}  // namespace radar::log
