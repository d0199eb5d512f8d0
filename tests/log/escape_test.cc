// One escaping for every place that shows bytes as text: each style on
// every kind of byte, and long runs copied as they are.
#include "log/escape.h"

#include <gtest/gtest.h>

#include <string>

namespace radar::log {
namespace {

std::string escaped(std::string_view text, Escaping how) {
  std::string out;
  appendEscaped(out, text, how);
  return out;
}

// Quotes, backslash, newline, tab, return, a control, escape, delete,
// "é" (UTF-8), a C1 control (U+0085, well formed) and a stray byte.
const std::string kEveryKind = std::string("a\"\\\n\t\r\x01\x1b\x7f") + "\xc3\xa9" + "\xc2\x85" + "\xff" + "z";

TEST(Escaping, EachStyleTellsEveryKindOfByte) {
  EXPECT_EQ(escaped(kEveryKind, Escaping::Quoted),
            std::string("a\\\"\\\\\\n\\t\\r\\x01\\x1b\\x7f") + "\xc3\xa9" + "\xc2\x85" + "\xff" + "z");
  EXPECT_EQ(escaped(kEveryKind, Escaping::Ascii), "a\\\"\\\\\\n\\t\\r\\x01\\x1b\\x7f\\xc3\\xa9\\xc2\\x85\\xffz");
  EXPECT_EQ(escaped(kEveryKind, Escaping::Terminal),
            std::string("a\"\\\\n\\t\\x0d\\x01\\e\\x7f") + "\xc3\xa9" + "\\xc2\\x85\\xffz");
  EXPECT_EQ(escaped(kEveryKind, Escaping::Json),
            std::string("a\\\"\\\\\\n\\t\\r\\u0001\\u001b\\u007f") + "\xc3\xa9" + "\\u0085\\u00ffz");
}

TEST(Escaping, LongRunsAreCopiedWhole) {
  const std::string plain(1000, 'x');
  for (Escaping how : {Escaping::Quoted, Escaping::Ascii, Escaping::Terminal, Escaping::Json})
    EXPECT_EQ(escaped(plain + "\n" + plain, how), plain + "\\n" + plain);
  // Quoted, bytes above 0x7f stand for themselves in the run.
  const std::string high = std::string(100, 'y') + "\xe2\x82\xac" + std::string(100, 'y');
  EXPECT_EQ(escaped(high, Escaping::Quoted), high);
  EXPECT_EQ(escaped(high, Escaping::Json), high);
  EXPECT_EQ(escaped("", Escaping::Json), "");
}

TEST(Escaping, ACharacterCutAtTheEndIsBytes) {
  EXPECT_EQ(escaped("\xe2\x82", Escaping::Json), "\\u00e2\\u0082");
  EXPECT_EQ(escaped("\xe2\x82", Escaping::Terminal), "\\xe2\\x82");
  EXPECT_EQ(printableUtf8Length("\xe2\x82\xac", 0), 3u);
  EXPECT_EQ(printableUtf8Length("\xed\xa0\x80", 0), 0u);  // a surrogate
}

}  // namespace
}  // namespace radar::log
