// One cell of a table row, as the exports write it: an integer, a text or
// null. The text is borrowed: it lives until the row has been taken.
#pragma once

#include <cstdint>
#include <string_view>

namespace radar::exporting {

struct Value {
  enum Type : uint8_t { Null, Integer, Text } type = Null;
  int64_t integer = 0;
  std::string_view text;
  static Value of(int64_t v) { return {Integer, v, {}}; }
  static Value of(std::string_view s) { return {Text, 0, s}; }
};

}  // namespace radar::exporting
