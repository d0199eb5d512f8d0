// Decoding messages for people, field by field, as a description says
// (RADAR's "Freeze Frame": "an integer and two floating point numbers, not
// 10 octal bytes"). A message that does not fit its type is decoded as far
// as it fits, with the rest in hex and a one-line reason; without a type,
// text is shown as text and anything else as hex and ASCII. Never throws,
// never reads past the bytes given.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netdesc/description.h"

namespace radar::netdesc {

// Bytes a decoded line stands for: [offset, offset + length) of the bytes
// decoded; length 0 when it has none of its own or they are not known.
struct Span {
  size_t offset = 0, length = 0;
};

struct Decoded {
  std::string type;                // the type's name; "text" or "bytes" without one
  std::vector<std::string> lines;  // "name = value", indented two spaces per level of nesting
  std::vector<Span> spans;         // the bytes of each line
  std::string problem;             // why decoding stopped short, one line; empty when it did not
  std::string rest;                // the bytes not decoded, as hex and ASCII
  size_t decoded_bytes = 0;
  std::string toString() const;
  void appendTo(std::string* out) const;  // the same, appended
};

// One message. `type` null: text or hex and ASCII.
Decoded decodeMessage(const Description* description, const Type* type, std::string_view bytes);

// Decoded text as it is made: appended to `text`; with a `spill`, handed
// over in pieces of about a megabyte as it grows, so that a message of
// hundreds of megabytes is never held whole (nor its memory touched).
struct TextOut {
  static constexpr size_t kPiece = size_t{1} << 20;
  std::string text;
  std::function<void(std::string_view)> spill;
  // A piece never ends inside a UTF-8 character: the terminal safety
  // checks each piece on its own.
  void grew() {
    if (spill && text.size() >= kPiece) spillWholeCharacters();
  }
  void flush();  // what is left, at the end
 private:
  void spillWholeCharacters();
};

// decodeMessage(...).appendTo(&out->text), without holding a big text.
void appendDecoded(const Description* description, const Type* type, std::string_view bytes, TextOut* out);

// How bytes split into messages under a framing: [offset, length) of each
// whole message, then where the bytes of an unfinished one start (==
// bytes.size() when none).
struct Split {
  std::vector<std::pair<size_t, size_t>> messages;
  size_t unfinished_at = 0;
  // For a length prefix: how many bytes the unfinished message announced
  // (its prefix included), 0 when unknown.
  uint64_t unfinished_needs = 0;
};
Split splitMessages(const Framing& framing, std::string_view bytes);

// Everything a send carried, for people: its messages as the port's
// framing splits them, each decoded with the port's type. `port` null:
// one message, undescribed. No bytes at all (end of file): "no bytes".
std::string describeBytes(const Description* description, const Port* port, std::string_view bytes);
void appendDescribedBytes(const Description* description, const Port* port, std::string_view bytes,
                          TextOut* out);  // the same, appended

// A send's contents as a tree, as Wireshark's packet details: a line each
// for the type, each field (nested by `depth`), each message when a framing
// splits several, what could not be decoded; each with the bytes it stands
// for, so that a viewer can show them. At most `max_lines` (the rest
// counted on a last line).
struct FieldLine {
  int depth = 0;
  std::string text;  // "name = value", "name:", a type's name, a text line quoted
  Span bytes;
};
std::vector<FieldLine> describeFields(const Description* description, const Port* port, std::string_view bytes,
                                      size_t max_lines = 100000);
// A field line's name ("header.count" for a nested field, without array
// indexes) and value ("" for a record or a line that is not a field).
std::string fieldValue(const FieldLine& line);
std::string fieldPath(const std::vector<FieldLine>& lines, size_t index);

// The shared renderings. quoted(): in double quotes, with C escapes
// (\n, \", \\, \x01): as protobuf's text format writes strings.
bool looksLikeText(std::string_view bytes);
std::string quoted(std::string_view s);
void appendQuoted(std::string* out, std::string_view s);   // the same, appended (no copy of a large one)
void appendEscaped(std::string* out, std::string_view s);  // the same without the quotes
std::string hexDump(std::string_view bytes, size_t limit = 4096);

}  // namespace radar::netdesc
