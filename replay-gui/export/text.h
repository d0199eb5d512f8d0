// Text from a recorded program made fit for formats that require UTF-8
// (Parquet's strings, JSON): what a program wrote may be any bytes.
#pragma once

#include <string>
#include <string_view>

namespace radar::exporting {

// A text as valid UTF-8: each byte that does not begin or continue a
// well-formed sequence becomes U+FFFD (the text itself when already valid).
std::string validUtf8(std::string_view s);
bool isValidUtf8(std::string_view s);

// A JSON string (quotes included) of the text made valid UTF-8: quotes,
// backslashes and control characters escaped.
std::string jsonQuoted(std::string_view s);

}  // namespace radar::exporting
