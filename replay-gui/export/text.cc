#include "export/text.h"

#include <cstdio>

namespace radar::exporting {

namespace {

// The length of the UTF-8 sequence at s[i], or 0 when it is not one.
size_t utf8Sequence(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned c = byte(i);
  auto tail = [&](size_t n) {
    for (size_t k = 1; k <= n; ++k)
      if ((byte(i + k) & 0xc0) != 0x80) return false;
    return true;
  };
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return tail(1) ? 2 : 0;
  const unsigned next = byte(i + 1);
  if (c >= 0xe0 && c <= 0xef) {
    const bool ok = (c != 0xe0 || next >= 0xa0) && (c != 0xed || next < 0xa0);  // no overlong, no surrogate
    return ok && tail(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const bool ok = (c != 0xf0 || next >= 0x90) && (c != 0xf4 || next < 0x90);  // no overlong, ≤ U+10FFFF
    return ok && tail(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

bool isValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8Sequence(s, i);
    if (!n) return false;
    i += n;
  }
  return true;
}

std::string validUtf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8Sequence(s, i);
    out.append(n ? s.substr(i, n) : "\xef\xbf\xbd");
    i += n ? n : 1;
  }
  return out;
}

std::string jsonQuoted(std::string_view s) {
  const std::string valid = isValidUtf8(s) ? std::string(s) : validUtf8(s);
  std::string out = "\"";
  for (const char c : valid) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace radar::exporting
