// Bytes told as text, one way for every place that shows them: a decoded
// message's quoted strings, radar dump's fields, lines printed to a
// terminal, JSON strings. The styles differ only in what each byte
// becomes; runs of plain printable ASCII are copied as they are, eight
// bytes a step (log/plain_text.h), since messages can be hundreds of MB.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "log/plain_text.h"

namespace radar::log {

enum class Escaping {
  Quoted,    // within quotes, for people: " \ \n \t \r escaped, other controls \xNN, other bytes as they are
  Ascii,     // within quotes, ASCII only (radar dump): the same, and every byte above 0x7e as \xNN
  Terminal,  // a line printed to a terminal: \n \t \e, other controls and bytes not printable UTF-8 as \xNN
  Json,      // a JSON string's contents: " \ \n \t \r escaped, the rest not printable UTF-8 as \u00NN
};

// The length of the printable UTF-8 character at text[at] (2 to 4 bytes),
// or 0: not valid UTF-8, overlong, a surrogate, or a C1 control.
inline size_t printableUtf8Length(std::string_view text, size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  const size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
  if (!len || at + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(text[at + k]) & 0xc0) != 0x80) return 0;
  const auto c1 = static_cast<unsigned char>(text[at + 1]);
  if (len == 2 && c == 0xc2 && c1 < 0xa0) return 0;                                   // C1 control
  if (len == 3 && ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0))) return 0;  // overlong, surrogate
  if (len == 4 && ((c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))) return 0;  // overlong, too large
  return len;
}

namespace escape_detail {

// A byte as a code: \xNN, or \u00NN in JSON.
template <class Sink>
void code(Sink& out, unsigned char c, Escaping how) {
  static const char digits[] = "0123456789abcdef";
  out += how == Escaping::Json ? "\\u00" : "\\x";
  out += digits[c >> 4];
  out += digits[c & 15];
}

// Appends what text[i] (and the bytes after it that one character takes)
// becomes; returns how many bytes it took.
template <class Sink>
size_t one(Sink& out, std::string_view text, size_t i, Escaping how) {
  const auto c = static_cast<unsigned char>(text[i]);
  const bool quotes = how != Escaping::Terminal;
  if (quotes && (c == '"' || c == '\\')) {
    out += c == '"' ? "\\\"" : "\\\\";
  } else if (c == '\n' || c == '\t' || (c == '\r' && quotes)) {
    out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
  } else if (c == 0x1b && how == Escaping::Terminal) {
    out += "\\e";
  } else if (c < 0x20 || c == 0x7f) {
    code(out, c, how);
  } else if (c < 0x80 || how == Escaping::Quoted) {
    out += static_cast<char>(c);
  } else if (how == Escaping::Ascii) {
    code(out, c, how);
  } else if (const size_t len = printableUtf8Length(text, i)) {
    out.append(text.data() + i, len);
    return len;
  } else if (how == Escaping::Json && c == 0xc2 && i + 1 < text.size() &&
             static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
    code(out, static_cast<unsigned char>(text[i + 1]), how);  // a C1 control, well formed: its code point
    return 2;
  } else {
    code(out, c, how);  // valid JSON is valid UTF-8: a stray byte is the code point of its number
  }
  return 1;
}

}  // namespace escape_detail

// Appends `text` escaped as `how` says to `out`: a std::string, or any
// sink with append(const char*, size_t) and += for a char and a C string.
template <class Sink>
void appendEscaped(Sink& out, std::string_view text, Escaping how) {
  const unsigned char quote = how == Escaping::Terminal ? 0 : '"', backslash = how == Escaping::Terminal ? 0 : '\\';
  for (size_t i = 0; i < text.size();) {
    size_t run = plainAsciiPrefix(text.data() + i, text.size() - i, quote, backslash);
    // Quoted, bytes above 0x7f stand for themselves: in the run too.
    while (how == Escaping::Quoted && i + run < text.size() && static_cast<unsigned char>(text[i + run]) >= 0x80) {
      ++run;
      run += plainAsciiPrefix(text.data() + i + run, text.size() - i - run, quote, backslash);
    }
    if (run) {
      out.append(text.data() + i, run);
      i += run;
      continue;
    }
    i += escape_detail::one(out, text, i, how);
  }
}

// Text safe to print on a terminal (Escaping::Terminal): a recorded name
// cannot move the cursor or change the terminal's settings.
inline std::string terminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  appendEscaped(out, text, Escaping::Terminal);
  return out;
}

}  // namespace radar::log
