// Decoding: every template field type in both byte orders, nesting and
// arrays, protobuf messages from a .proto file, text, every framing, and
// messages too short or too long for their type.
#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>

#include <cstring>
#include <memory>

#include "netdesc/decode.h"

namespace radar::netdesc {
namespace {

std::unique_ptr<Description> describe(const std::string& text) {
  std::vector<Problem> problems;
  auto d = Description::parse(text, std::string(RADAR_TEST_DATA) + "/../t.netdesc", &problems);
  EXPECT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  return d;
}

// Appends v's low `n` bytes in `order`.
void put(std::string& s, uint64_t v, size_t n, bool big) {
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(v >> (8 * (big ? n - 1 - i : i))));
}

std::string allScalars(bool big) {
  std::string b;
  put(b, 200, 1, big);
  put(b, 60000, 2, big);
  put(b, 4000000000u, 4, big);
  put(b, 18000000000000000000ull, 8, big);
  put(b, static_cast<uint8_t>(-100), 1, big);
  put(b, static_cast<uint16_t>(-30000), 2, big);
  put(b, static_cast<uint32_t>(-2000000000), 4, big);
  put(b, static_cast<uint64_t>(-9000000000000000000ll), 8, big);
  float f = 1.5f;
  uint32_t fw;
  std::memcpy(&fw, &f, 4);
  put(b, fw, 4, big);
  double d = -2.25;
  uint64_t dw;
  std::memcpy(&dw, &d, 8);
  put(b, dw, 8, big);
  return b;
}

std::string scalarsType(const char* order) {
  return std::string("type { name: \"S\" template { order: ") + order +
         " field { name: \"u8\" scalar: U8 } field { name: \"u16\" scalar: U16 } field { name: \"u32\" scalar: U32 }"
         " field { name: \"u64\" scalar: U64 } field { name: \"i8\" scalar: I8 } field { name: \"i16\" scalar: I16 }"
         " field { name: \"i32\" scalar: I32 } field { name: \"i64\" scalar: I64 } field { name: \"f32\" scalar: F32 }"
         " field { name: \"f64\" scalar: F64 } } }\n";
}

const std::vector<std::string> kScalarLines = {
    "  u8 = 200",  "  u16 = 60000",  "  u32 = 4000000000",  "  u64 = 18000000000000000000",
    "  i8 = -100", "  i16 = -30000", "  i32 = -2000000000", "  i64 = -9000000000000000000",
    "  f32 = 1.5", "  f64 = -2.25"};

TEST(Decode, EveryScalarInBothByteOrders) {
  for (bool big : {false, true}) {
    auto d = describe(scalarsType(big ? "BIG" : "LITTLE"));
    const Decoded out = decodeMessage(d.get(), d->type("S"), allScalars(big));
    EXPECT_EQ(out.type, "S");
    EXPECT_EQ(out.lines, kScalarLines) << out.toString();
    EXPECT_EQ(out.problem, "");
    EXPECT_EQ(out.decoded_bytes, 42u);
    // Read in the other order, the values differ: the order is honoured.
    auto other = describe(scalarsType(big ? "LITTLE" : "BIG"));
    EXPECT_NE(decodeMessage(other.get(), other->type("S"), allScalars(big)).lines, kScalarLines);
  }
}

TEST(Decode, CharsArraysAndNestedRecords) {
  auto d = describe(R"(
type { name: "Point" template { field { name: "x" scalar: I16 } field { name: "y" scalar: I16 } } }
type { name: "Path" template {
  field { name: "name" chars: 6 }
  field { name: "tags" chars: 3 count: 2 }
  field { name: "count" scalar: U8 }
  field { name: "weights" scalar: U8 count: 3 }
  field { name: "start" record: "Point" }
  field { name: "steps" record: "Point" count: 2 }
} }
)");
  std::string b = std::string("north\0", 6) + std::string("ab\0xyz", 6);
  b += '\x02';
  b += std::string("\x01\x02\x03", 3);
  put(b, 1, 2, false);
  put(b, static_cast<uint16_t>(-1), 2, false);
  put(b, 10, 2, false);
  put(b, 20, 2, false);
  put(b, 30, 2, false);
  put(b, 40, 2, false);
  const Decoded out = decodeMessage(d.get(), d->type("Path"), b);
  const std::vector<std::string> want = {
      "  name = \"north\"", "  tags[0] = \"ab\"", "  tags[1] = \"xyz\"", "  count = 2", "  weights[0..2] = 1 2 3",
      "  start:",           "    x = 1",          "    y = -1",          "  steps[0]:", "    x = 10",
      "    y = 20",         "  steps[1]:",        "    x = 30",          "    y = 40"};
  EXPECT_EQ(out.lines, want) << out.toString();
  EXPECT_EQ(out.problem, "");
}

TEST(Decode, TooShortIsDecodedAsFarAsItGoesTooLongShowsTheRest) {
  auto d = describe(scalarsType("LITTLE"));
  const std::string all = allScalars(false);
  const Decoded cut = decodeMessage(d.get(), d->type("S"), all.substr(0, 20));  // 2 bytes into i32
  EXPECT_EQ(cut.lines, std::vector<std::string>(kScalarLines.begin(), kScalarLines.begin() + 6)) << cut.toString();
  EXPECT_NE(cut.problem.find("ends after 20 bytes, inside field 'i32' of 'S' (2 more bytes needed there)"),
            std::string::npos)
      << cut.problem;
  EXPECT_NE(cut.problem.find("a 'S' is 42 bytes"), std::string::npos) << cut.problem;
  EXPECT_EQ(cut.decoded_bytes, 18u);
  EXPECT_NE(cut.rest.find("00000000  00 6c "), std::string::npos) << cut.rest;  // i32's first 2 bytes
  const Decoded extra = decodeMessage(d.get(), d->type("S"), all + "tail");
  EXPECT_EQ(extra.lines, kScalarLines);
  EXPECT_NE(extra.problem.find("4 bytes beyond the 42 of 'S'"), std::string::npos) << extra.problem;
  EXPECT_NE(extra.rest.find("74 61 69 6c"), std::string::npos) << extra.rest;
  EXPECT_NE(extra.rest.find("|tail|"), std::string::npos) << extra.rest;
  // Nothing at all, and one byte: never a crash, always a reason.
  EXPECT_NE(decodeMessage(d.get(), d->type("S"), "").problem.find("ends after 0 bytes"), std::string::npos);
  EXPECT_NE(decodeMessage(d.get(), d->type("S"), "x").problem.find("inside field 'u16'"), std::string::npos);
}

// A shapes.Polygon "triangle" of area 0.5 with two points, x = first and
// first + 1, y = -x when `ys`.
std::unique_ptr<google::protobuf::Message> triangle(const Description& d, int first, bool ys) {
  const auto* type = d.protobufType(*d.type("Shape"));
  if (!type) return nullptr;
  std::unique_ptr<google::protobuf::Message> m(d.messageFactory().GetPrototype(type)->New());
  const auto* r = m->GetReflection();
  r->SetString(m.get(), type->FindFieldByName("name"), "triangle");
  for (int i = 0; i < 2; ++i) {
    auto* point = r->AddMessage(m.get(), type->FindFieldByName("point"));
    point->GetReflection()->SetInt32(point, point->GetDescriptor()->FindFieldByName("x"), first + i);
    if (ys) point->GetReflection()->SetInt32(point, point->GetDescriptor()->FindFieldByName("y"), -(first + i));
  }
  r->SetDouble(m.get(), type->FindFieldByName("area"), 0.5);
  return m;
}

TEST(Decode, ProtobufMessagesFromAProtoFile) {
  auto d = describe("proto_file: \"data/shapes.proto\"\ntype { name: \"Shape\" protobuf: \"shapes.Polygon\" }\n");
  const auto* type = d->protobufType(*d->type("Shape"));
  ASSERT_TRUE(type);
  auto m = triangle(*d, 1, true);
  const auto* r = m->GetReflection();
  r->SetEnumValue(m.get(), type->FindFieldByName("kind"), 1);
  const std::string bytes = m->SerializeAsString();
  const Decoded out = decodeMessage(d.get(), d->type("Shape"), bytes);
  const std::vector<std::string> want = {"  name = \"triangle\"", "  point[0]:", "    x = 1",  "    y = -1",
                                         "  point[1]:",           "    x = 2",   "    y = -2", "  area = 0.5",
                                         "  kind = CONCAVE"};
  EXPECT_EQ(out.lines, want) << out.toString();
  EXPECT_EQ(out.problem, "");
  // Cut in the middle of a field: the fields before it, and why.
  const Decoded cut = decodeMessage(d.get(), d->type("Shape"), bytes.substr(0, 13));
  ASSERT_FALSE(cut.lines.empty());
  EXPECT_EQ(cut.lines[0], "  name = 8 bytes \"triangle\"") << cut.toString();
  EXPECT_NE(cut.problem.find("not a valid shapes.Polygon"), std::string::npos) << cut.problem;
  EXPECT_FALSE(cut.rest.empty());
}

TEST(Decode, TextAndBytesWithoutAType) {
  const Decoded text = decodeMessage(nullptr, nullptr, "hello\nworld");
  EXPECT_EQ(text.type, "text");
  EXPECT_EQ(text.lines, (std::vector<std::string>{"  \"hello\\n\"", "  \"world\""}));
  const Decoded bytes = decodeMessage(nullptr, nullptr, std::string("\x01\x02\xff", 3));
  EXPECT_EQ(bytes.type, "bytes");
  EXPECT_NE(bytes.rest.find("01 02 ff"), std::string::npos);
  EXPECT_NE(bytes.rest.find("|...|"), std::string::npos);
  auto d = describe("type { name: \"Line\" text {} }\n");
  EXPECT_EQ(decodeMessage(d.get(), d->type("Line"), "ok\n").lines, std::vector<std::string>{"  \"ok\\n\""});
  EXPECT_EQ(decodeMessage(d.get(), d->type("Line"), std::string("\0\1", 2)).problem, "not text");
}

Framing lengthPrefix(uint32_t bytes, ByteOrder order, bool includes = false) {
  Framing f;
  f.mutable_length_prefix()->set_bytes(bytes);
  f.mutable_length_prefix()->set_order(order);
  f.mutable_length_prefix()->set_includes_prefix(includes);
  return f;
}

TEST(Decode, EveryFraming) {
  using Messages = std::vector<std::pair<size_t, size_t>>;
  for (uint32_t n : {1u, 2u, 4u, 8u})
    for (ByteOrder order : {LITTLE, BIG}) {
      std::string b;
      put(b, 3, n, order == BIG);
      b += "abc";
      put(b, 0, n, order == BIG);
      put(b, 5, n, order == BIG);
      b += "de";  // announced 5, only 2 here
      const Split s = splitMessages(lengthPrefix(n, order), b);
      EXPECT_EQ(s.messages, (Messages{{0, n + 3}, {n + 3, n}})) << n << " " << order;
      EXPECT_EQ(s.unfinished_at, 2 * n + 3);
      EXPECT_EQ(s.unfinished_needs, n + 5);
    }
  std::string inclusive;
  put(inclusive, 6, 2, true);
  inclusive += "abcd";
  EXPECT_EQ(splitMessages(lengthPrefix(2, BIG, true), inclusive).messages, (Messages{{0, 6}}));
  Framing lines;
  lines.set_newline(true);
  const Split l = splitMessages(lines, "one\ntwo\nthr");
  EXPECT_EQ(l.messages, (Messages{{0, 4}, {4, 4}}));
  EXPECT_EQ(l.unfinished_at, 8u);
  Framing fixed;
  fixed.set_fixed_size(4);
  EXPECT_EQ(splitMessages(fixed, "aaaabbbbcc").messages, (Messages{{0, 4}, {4, 4}}));
  EXPECT_EQ(splitMessages(Framing(), "anything").messages, (Messages{{0, 8}}));
  // An absurd length never reads past the bytes.
  std::string absurd;
  put(absurd, ~uint64_t{0}, 8, true);
  EXPECT_TRUE(splitMessages(lengthPrefix(8, BIG), absurd + "x").messages.empty());
}

// A port that frames Pairs (two bytes) by a 2-byte big-endian length, and
// what a send on it carried: two whole Pairs (1 2, 3 4) and the start of a
// message announcing 9 bytes.
const char* kPairs = R"(
process { name: "p" port { name: "OUT" direction: OUT type: "Pair" framing { length_prefix { bytes: 2 order: BIG } } } }
type { name: "Pair" template { field { name: "a" scalar: U8 } field { name: "b" scalar: U8 } } }
)";
std::string twoPairsAndAStart() {
  std::string b;
  put(b, 2, 2, true);
  b += "\x01\x02";
  put(b, 2, 2, true);
  b += "\x03\x04";
  put(b, 9, 2, true);
  b += "\x05";
  return b;
}

TEST(Decode, ASendSplitIntoItsMessagesEachDecoded) {
  auto d = describe(kPairs);
  const Port* port = d->port(*d->process("p"), "OUT");
  const std::string b = twoPairsAndAStart();
  const std::string text = describeBytes(d.get(), port, b);
  EXPECT_NE(text.find("message 1 (bytes 0 to 3): length 2, Pair\n  a = 1\n  b = 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("message 2 (bytes 4 to 7): length 2, Pair\n  a = 3\n  b = 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("3 bytes of a message that continues after this send (it announces 11 bytes)"), std::string::npos)
      << text;
  // Without a description: as text or hex.
  EXPECT_EQ(describeBytes(nullptr, nullptr, "hi"), "text\n  \"hi\"\n");
  // A read at end of file moved nothing: nothing to decode, no complaint.
  EXPECT_EQ(describeBytes(d.get(), port, ""), "no bytes\n");
  EXPECT_EQ(describeBytes(nullptr, nullptr, ""), "no bytes\n");
}

// A big text decoded as it is made: the pieces handed over add up to the
// whole, none ends inside a UTF-8 character, and none is much bigger than
// TextOut::kPiece (the text is never held whole).
TEST(DescribeBytes, BigTextIsHandedOverInWholeCharacters) {
  std::string bytes;
  for (int line = 0; bytes.size() < 5 * TextOut::kPiece; ++line) {
    bytes += "line " + std::to_string(line) + " caf\xc3\xa9 \xe2\x82\xac \"quoted\" ";
    bytes.append(static_cast<size_t>(line % 7) * 40000, 'x');
    bytes += line % 3 ? "\n" : "\t";
  }
  for (size_t shift = 0; shift < 4; ++shift) {
    // A line longer than two pieces, with a 4-byte character across the
    // boundary of its second piece.
    std::string shifted = bytes + "\n" + std::string(2 * TextOut::kPiece - shift, 'y') + "\xf0\x9f\x99\x82";
    shifted.append(10, 'y');
    TextOut out;
    std::string joined;
    size_t pieces = 0;
    out.spill = [&](std::string_view piece) {
      ++pieces;
      EXPECT_LE(piece.size(), 3 * TextOut::kPiece);
      EXPECT_TRUE(looksLikeText(piece)) << "piece " << pieces << " cuts a character";
      joined += piece;
    };
    appendDescribedBytes(nullptr, nullptr, shifted, &out);
    out.flush();
    EXPECT_TRUE(out.text.empty());
    EXPECT_GE(pieces, 5u);
    EXPECT_EQ(joined, describeBytes(nullptr, nullptr, shifted));
  }
}

// The message window's tree: every line knows the bytes it stands for, so
// that selecting a field shows its bytes (Wireshark's details and bytes).
std::string bytesOf(const std::string& all, const FieldLine& l) { return all.substr(l.bytes.offset, l.bytes.length); }

const FieldLine& lineNamed(const std::vector<FieldLine>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.text == text) return l;
  static const FieldLine none{-1, "(missing)", {}};
  ADD_FAILURE() << "no line " << text;
  return none;
}

TEST(DescribeFields, TemplateFieldsKnowTheirBytesAndPaths) {
  auto d = describe(R"(
process { name: "p" port { name: "OUT" direction: OUT type: "Path" } }
type { name: "Point" template { field { name: "x" scalar: I16 } field { name: "y" scalar: I16 } } }
type { name: "Path" template {
  field { name: "name" chars: 6 }
  field { name: "count" scalar: U8 }
  field { name: "weights" scalar: U8 count: 3 }
  field { name: "start" record: "Point" }
} }
)");
  std::string b = std::string("north\0", 6) + "\x02" + std::string("\x01\x02\x03", 3);
  put(b, 1, 2, false);
  put(b, static_cast<uint16_t>(-1), 2, false);
  b += "zz";  // beyond the type
  const auto lines = describeFields(d.get(), d->port(*d->process("p"), "OUT"), b);
  ASSERT_GE(lines.size(), 8u);
  EXPECT_EQ(lines[0].text, "Path");
  EXPECT_EQ(lines[0].depth, 0);
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "name = \"north\"")), std::string("north\0", 6));
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "count = 2")), "\x02");
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "weights[0..2] = 1 2 3")), "\x01\x02\x03");
  const FieldLine& start = lineNamed(lines, "start:");
  EXPECT_EQ(start.bytes.offset, 10u);
  EXPECT_EQ(start.bytes.length, 4u);
  const FieldLine& y = lineNamed(lines, "y = -1");
  EXPECT_EQ(y.depth, 2);
  EXPECT_EQ(bytesOf(b, y), "\xff\xff");
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "2 bytes not decoded")), "zz");
  // Names for a filter: nested fields by their path, values unquoted.
  for (size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].text == "y = -1") {
      EXPECT_EQ(fieldPath(lines, k), "start.y");
    }
    if (lines[k].text == "weights[0..2] = 1 2 3") {
      EXPECT_EQ(fieldPath(lines, k), "weights");
    }
    if (lines[k].text == "name = \"north\"") {
      EXPECT_EQ(fieldValue(lines[k]), "north");
    }
  }
  EXPECT_EQ(fieldPath(lines, 0), "");
}

TEST(DescribeFields, ProtobufFieldsKnowTheirBytesParsedOrNot) {
  auto d = describe(
      "proto_file: \"data/shapes.proto\"\ntype { name: \"Shape\" protobuf: \"shapes.Polygon\" }\n"
      "process { name: \"p\" port { name: \"OUT\" direction: OUT type: \"Shape\" } }\n");
  auto m = triangle(*d, 7, false);
  ASSERT_TRUE(m);
  const std::string b = m->SerializeAsString();
  const Port* port = d->port(*d->process("p"), "OUT");
  const auto lines = describeFields(d.get(), port, b);
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "name = \"triangle\"")), "\x0a\x08triangle");
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "point[1]:")), "\x12\x02\x08\x08");
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "x = 8")), "\x08\x08");
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "area = 0.5")).substr(0, 1), "\x19");
  for (size_t k = 0; k < lines.size(); ++k)
    if (lines[k].text == "x = 8") {
      EXPECT_EQ(fieldPath(lines, k), "point.x");
    }
  // A message that does not parse: its fields as far as they go, each with its bytes.
  const auto cut = describeFields(d.get(), port, b.substr(0, 13));
  EXPECT_EQ(bytesOf(b, lineNamed(cut, "name = 8 bytes \"triangle\"")), "\x0a\x08triangle");
  EXPECT_EQ(bytesOf(b, lineNamed(cut, "3 bytes not decoded")), b.substr(10, 3));
}

TEST(DescribeFields, FramedMessagesAndTextKnowTheirBytes) {
  auto d = describe(kPairs);
  const std::string b = twoPairsAndAStart();
  const auto lines = describeFields(d.get(), d->port(*d->process("p"), "OUT"), b);
  const FieldLine& second = lineNamed(lines, "message 2 (bytes 4 to 7)");
  EXPECT_EQ(second.depth, 0);
  EXPECT_EQ(bytesOf(b, second), b.substr(4, 4));
  EXPECT_EQ(bytesOf(b, lineNamed(lines, "b = 4")), "\x04");
  EXPECT_EQ(lineNamed(lines, "b = 4").depth, 2);
  EXPECT_EQ(bytesOf(b, lines[1]), b.substr(0, 2)) << lines[1].text;  // the first length prefix
  EXPECT_EQ(bytesOf(b, lines.back()), b.substr(8)) << lines.back().text;
  const std::string text = "hello\nworld";
  const auto t = describeFields(nullptr, nullptr, text);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(bytesOf(text, t[2]), "world");
  EXPECT_EQ(describeFields(nullptr, nullptr, "")[0].text, "no bytes");
  // However many lines, at most the limit and a count of the rest.
  std::string many;
  for (int i = 0; i < 50; ++i) many += "line\n";
  const auto capped = describeFields(nullptr, nullptr, many, 10);
  ASSERT_EQ(capped.size(), 11u);
  EXPECT_EQ(capped.back().text, "… 41 more lines");
}

}  // namespace
}  // namespace radar::netdesc
