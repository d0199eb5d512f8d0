#include "netdesc/decode.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/wire_format_lite.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "log/escape.h"
#include "log/plain_text.h"

namespace radar::netdesc {
namespace {

namespace pb = google::protobuf;

constexpr int kMaxDepth = 32;          // nesting shown (templates cannot recurse; protobuf can)
constexpr size_t kMaxArrayShown = 64;  // elements of a scalar array on one line

size_t scalarSize(Scalar s) {
  switch (s) {
    case U8:
    case I8:
      return 1;
    case U16:
    case I16:
      return 2;
    case U32:
    case I32:
    case F32:
      return 4;
    case U64:
    case I64:
    case F64:
      return 8;
    default:
      return 0;
  }
}

uint64_t readUnsigned(const unsigned char* p, size_t n, ByteOrder order) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{p[order == BIG ? n - 1 - i : i]} << (8 * i);
  return v;
}

std::string scalarText(Scalar s, const unsigned char* p, ByteOrder order) {
  const uint64_t u = readUnsigned(p, scalarSize(s), order);
  char buf[48];
  switch (s) {
    case U8:
    case U16:
    case U32:
    case U64:
      std::snprintf(buf, sizeof(buf), "%" PRIu64, u);
      break;
    case I8:
      std::snprintf(buf, sizeof(buf), "%d", static_cast<int8_t>(u));
      break;
    case I16:
      std::snprintf(buf, sizeof(buf), "%d", static_cast<int16_t>(u));
      break;
    case I32:
      std::snprintf(buf, sizeof(buf), "%d", static_cast<int32_t>(u));
      break;
    case I64:
      std::snprintf(buf, sizeof(buf), "%" PRId64, static_cast<int64_t>(u));
      break;
    case F32: {
      float f;
      const uint32_t w = static_cast<uint32_t>(u);
      std::memcpy(&f, &w, 4);
      std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
      break;
    }
    case F64: {
      double d;
      std::memcpy(&d, &u, 8);
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      break;
    }
    default:
      return "?";
  }
  return buf;
}

// The bytes a template takes (0 when a record is unknown).
size_t templateSize(const Description* d, const Template& t, int depth = 0) {
  if (depth > kMaxDepth) return 0;
  size_t total = 0;
  for (const auto& f : t.field()) {
    size_t one = 0;
    if (f.scalar() != SCALAR_UNSPECIFIED)
      one = scalarSize(f.scalar());
    else if (f.chars())
      one = f.chars();
    else if (const Type* r = d ? d->type(f.record()) : nullptr; r && r->how_case() == Type::kTemplate)
      one = templateSize(d, r->template_(), depth + 1);
    total += one * std::max<uint32_t>(f.count(), 1);
  }
  return total;
}

// Decodes a template's fields from bytes[*at], appending lines. False when
// the bytes end first (*problem says where).
bool decodeTemplate(const Description* d, const std::string& type_name, const Template& t, std::string_view bytes,
                    size_t* at, int depth, Decoded* out, std::string* problem) {
  auto line = [out](std::string text, size_t from, size_t to) {
    out->lines.push_back(std::move(text));
    out->spans.push_back({from, to - from});
  };
  const std::string indent(2 * static_cast<size_t>(depth + 1), ' ');
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (const auto& f : t.field()) {
    const uint32_t count = std::max<uint32_t>(f.count(), 1);
    const bool array = f.count() > 1;
    auto shortOf = [&](size_t need) {
      *problem = "the message ends after " + std::to_string(bytes.size()) + " bytes, inside field '" + f.name() +
                 "' of '" + type_name + "' (" + std::to_string(need) + " more bytes needed there)";
      return false;
    };
    if (f.chars()) {
      for (uint32_t i = 0; i < count; ++i) {
        if (*at + f.chars() > bytes.size()) return shortOf(*at + f.chars() - bytes.size());
        std::string_view s = bytes.substr(*at, f.chars());
        s = s.substr(0, std::min(s.find('\0'), s.size()));
        line(indent + f.name() + (array ? "[" + std::to_string(i) + "]" : "") + " = " + quoted(s), *at,
             *at + f.chars());
        *at += f.chars();
      }
    } else if (f.scalar() != SCALAR_UNSPECIFIED) {
      const size_t size = scalarSize(f.scalar());
      const size_t from = *at;
      std::string values;
      uint32_t shown = 0;
      for (uint32_t i = 0; i < count; ++i) {
        if (*at + size > bytes.size()) {
          if (shown) line(indent + f.name() + "[0.." + std::to_string(shown - 1) + "] = " + values, from, *at);
          return shortOf(*at + size - bytes.size());
        }
        if (i < kMaxArrayShown) {
          values += (i ? " " : "") + scalarText(f.scalar(), p + *at, t.order());
          ++shown;
        }
        *at += size;
      }
      if (count > kMaxArrayShown) values += " ... (" + std::to_string(count) + " in all)";
      line(indent + f.name() + (array ? "[0.." + std::to_string(count - 1) + "]" : "") + " = " + values, from, *at);
    } else {
      const Type* r = d ? d->type(f.record()) : nullptr;
      if (!r || r->how_case() != Type::kTemplate || depth >= kMaxDepth) {
        *problem =
            "field '" + f.name() + "' of '" + type_name + "' is a record of unknown template '" + f.record() + "'";
        return false;
      }
      for (uint32_t i = 0; i < count; ++i) {
        // The record's line spans every byte of it, known once it is decoded.
        const size_t head = out->lines.size(), from = *at;
        line(indent + f.name() + (array ? "[" + std::to_string(i) + "]" : "") + ":", from, from);
        const bool whole = decodeTemplate(d, r->name(), r->template_(), bytes, at, depth + 1, out, problem);
        out->spans[head].length = *at - from;
        if (!whole) return false;
      }
    }
  }
  return true;
}

std::string scalarFieldText(const pb::Message& m, const pb::Reflection* r, const pb::FieldDescriptor* f, int i) {
  using FD = pb::FieldDescriptor;
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
      return std::to_string(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f));
    case FD::CPPTYPE_INT64:
      return std::to_string(rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f));
    case FD::CPPTYPE_UINT32:
      return std::to_string(rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f));
    case FD::CPPTYPE_UINT64:
      return std::to_string(rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f));
    case FD::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f)) ? "true" : "false";
    case FD::CPPTYPE_FLOAT: {
      char b[32];
      std::snprintf(b, sizeof(b), "%.9g", static_cast<double>(rep ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f)));
      return b;
    }
    case FD::CPPTYPE_DOUBLE: {
      char b[32];
      std::snprintf(b, sizeof(b), "%.17g", rep ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f));
      return b;
    }
    case FD::CPPTYPE_ENUM: {
      const pb::EnumValueDescriptor* e = rep ? r->GetRepeatedEnum(m, f, i) : r->GetEnum(m, f);
      return e ? e->name() : "?";
    }
    case FD::CPPTYPE_STRING: {
      const std::string s = rep ? r->GetRepeatedString(m, f, i) : r->GetString(m, f);
      return f->type() == FD::TYPE_BYTES && !looksLikeText(s) ? "bytes " + std::to_string(s.size()) + ": " + quoted(s)
                                                              : quoted(s);
    }
    default:
      return "?";
  }
}

// Where each field of a protobuf message lies in its bytes, by number, in
// wire order: from its tag to its end, and where its contents begin (after
// a length). A parsed message forgets this; the message window needs it to
// show a field's bytes.
struct WireField {
  size_t begin = 0, contents = 0, end = 0;
};
std::unordered_map<uint32_t, std::vector<WireField>> wireFields(std::string_view bytes) {
  using WFL = pb::internal::WireFormatLite;
  std::unordered_map<uint32_t, std::vector<WireField>> out;
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  while (true) {
    const size_t begin = static_cast<size_t>(in.CurrentPosition());
    const uint32_t tag = in.ReadTag();
    if (!tag) break;
    size_t contents = static_cast<size_t>(in.CurrentPosition());
    bool ok;
    if (WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t len = 0;
      ok = in.ReadVarint32(&len);
      contents = static_cast<size_t>(in.CurrentPosition());
      ok = ok && in.Skip(static_cast<int>(len));
    } else {
      ok = WFL::SkipField(&in, tag);
    }
    if (!ok) break;
    out[WFL::GetTagFieldNumber(tag)].push_back({begin, contents, static_cast<size_t>(in.CurrentPosition())});
  }
  return out;
}

// A parsed protobuf message's fields, a line each, with the bytes each came
// from (`bytes` are the message's, at `base` in the decoded bytes).
void protobufLines(const pb::Message& m, int depth, std::string_view bytes, size_t base, Decoded* out) {
  const pb::Reflection* r = m.GetReflection();
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  const auto where = wireFields(bytes);
  const std::string indent(2 * static_cast<size_t>(depth + 1), ' ');
  for (const auto* f : fields) {
    const int n = f->is_repeated() ? r->FieldSize(m, f) : 1;
    const auto it = where.find(static_cast<uint32_t>(f->number()));
    const std::vector<WireField>* seen = it == where.end() ? nullptr : &it->second;
    for (int i = 0; i < n; ++i) {
      // One occurrence per element, or a packed run for them all (and the
      // last occurrence of a field given twice, as protobuf keeps it).
      WireField at;
      bool exact = false;
      if (seen && f->is_repeated() && seen->size() == static_cast<size_t>(n)) {
        at = (*seen)[static_cast<size_t>(i)];
        exact = true;
      } else if (seen && f->is_repeated()) {
        at = {seen->front().begin, seen->front().contents, seen->back().end};
      } else if (seen) {
        at = seen->back();
        exact = true;
      }
      out->spans.push_back({base + at.begin, at.end - at.begin});
      const std::string name = f->name() + (f->is_repeated() ? "[" + std::to_string(i) + "]" : "");
      if (f->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE) {
        out->lines.push_back(indent + name + ":");
        if (depth < kMaxDepth) {
          const std::string_view inner = exact ? bytes.substr(at.contents, at.end - at.contents) : std::string_view();
          const size_t size_before = out->spans.size();
          protobufLines(f->is_repeated() ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f), depth + 1, inner,
                        base + at.contents, out);
          if (!exact)  // where the inner fields lie is not known
            for (size_t k = size_before; k < out->spans.size(); ++k) out->spans[k] = {};
        }
      } else {
        out->lines.push_back(indent + name + " = " + scalarFieldText(m, r, f, i));
      }
    }
  }
}

// A protobuf message that does not parse: its fields, by number and wire
// type, as far as they go.
size_t protobufWireLines(const pb::Descriptor* type, std::string_view bytes, Decoded* out, std::string* problem) {
  using WFL = pb::internal::WireFormatLite;
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  size_t good = 0;
  while (true) {
    const uint32_t tag = in.ReadTag();
    if (!tag) {
      if (in.CurrentPosition() < static_cast<int>(bytes.size()))
        *problem = "not a valid " + type->full_name() + ": a bad field tag at byte " + std::to_string(good);
      return good;
    }
    const int number = static_cast<int>(WFL::GetTagFieldNumber(tag));
    const pb::FieldDescriptor* f = type->FindFieldByNumber(number);
    const std::string name = "  " + (f ? f->name() : "field " + std::to_string(number));
    auto line = [&](std::string text) {
      out->lines.push_back(std::move(text));
      out->spans.push_back({good, static_cast<size_t>(in.CurrentPosition()) - good});
    };
    bool ok = true;
    switch (WFL::GetTagWireType(tag)) {
      case WFL::WIRETYPE_VARINT: {
        uint64_t v = 0;
        ok = in.ReadVarint64(&v);
        if (ok) line(name + " = " + std::to_string(v) + " (varint)");
        break;
      }
      case WFL::WIRETYPE_FIXED32: {
        uint32_t v = 0;
        ok = in.ReadLittleEndian32(&v);
        if (ok) line(name + " = " + std::to_string(v) + " (fixed32)");
        break;
      }
      case WFL::WIRETYPE_FIXED64: {
        uint64_t v = 0;
        ok = in.ReadLittleEndian64(&v);
        if (ok) line(name + " = " + std::to_string(v) + " (fixed64)");
        break;
      }
      case WFL::WIRETYPE_LENGTH_DELIMITED: {
        uint32_t len = 0;
        std::string s;
        ok = in.ReadVarint32(&len) && in.ReadString(&s, static_cast<int>(len));
        if (ok)
          line(name + " = " + std::to_string(len) + " bytes " + quoted(s.substr(0, 64)) + (s.size() > 64 ? "..." : ""));
        break;
      }
      default:
        ok = false;
    }
    if (!ok) {
      *problem = "not a valid " + type->full_name() + ": field " + std::to_string(number) + " at byte " +
                 std::to_string(good) + " is cut short or of an unknown kind";
      return good;
    }
    good = static_cast<size_t>(in.CurrentPosition());
  }
}

}  // namespace

std::string quoted(std::string_view s) {
  std::string out;
  appendQuoted(&out, s);
  return out;
}

void appendQuoted(std::string* into, std::string_view s) {
  into->reserve(into->size() + s.size() + 2);
  *into += '"';
  appendEscaped(into, s);
  *into += '"';
}

void appendEscaped(std::string* into, std::string_view s) { log::appendEscaped(*into, s, log::Escaping::Quoted); }

bool looksLikeText(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    i += log::plainAsciiPrefix(s.data() + i, s.size() - i);
    if (i >= s.size()) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return false;
      ++i;
      continue;
    }
    // A UTF-8 sequence: a lead byte and its continuation bytes.
    const int more = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : -1;
    if (more < 0 || i + static_cast<size_t>(more) >= s.size()) return false;
    for (int k = 1; k <= more; ++k)
      if ((static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xc0) != 0x80) return false;
    i += static_cast<size_t>(more) + 1;
  }
  return true;
}

std::string hexDump(std::string_view bytes, size_t limit) {
  std::string out;
  const size_t n = std::min(bytes.size(), limit);
  char line[128];
  for (size_t at = 0; at < n; at += 16) {
    int w = std::snprintf(line, sizeof(line), "%08zx  ", at);
    std::string text;
    for (size_t k = 0; k < 16; ++k) {
      if (at + k < n) {
        const unsigned char c = static_cast<unsigned char>(bytes[at + k]);
        w += std::snprintf(line + w, sizeof(line) - static_cast<size_t>(w), "%02x ", c);
        text += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
      } else {
        w += std::snprintf(line + w, sizeof(line) - static_cast<size_t>(w), "   ");
      }
      if (k == 7) w += std::snprintf(line + w, sizeof(line) - static_cast<size_t>(w), " ");
    }
    out += line;
    out += " |" + text + "|\n";
  }
  if (bytes.size() > n) out += "... " + std::to_string(bytes.size() - n) + " more bytes\n";
  return out;
}

std::string Decoded::toString() const {
  std::string out;
  appendTo(&out);
  return out;
}

void Decoded::appendTo(std::string* into) const {
  std::string& out = *into;
  size_t size = type.size() + 1 + rest.size() + problem.size() + 8;
  for (const auto& l : lines) size += l.size() + 1;
  out.reserve(out.size() + size);
  out += type;
  out += '\n';
  for (const auto& l : lines) {
    out += l;
    out += '\n';
  }
  if (!problem.empty()) out += "  (" + problem + ")\n";
  out += rest;
}

namespace {
// Text as decoded: one quoted line per line of the text, its newline kept.
template <class Each>
void forEachTextLine(std::string_view s, Each each) {
  while (!s.empty()) {
    const size_t nl = s.find('\n');
    each(s.substr(0, nl == std::string_view::npos ? s.size() : nl + 1));
    s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
  }
}
bool isTextType(const Type* type) {
  return !type || type->how_case() == Type::kText || type->how_case() == Type::HOW_NOT_SET;
}
}  // namespace

void appendDecoded(const Description* d, const Type* type, std::string_view bytes, TextOut* out) {
  if (!isTextType(type) || !(bytes.empty() || looksLikeText(bytes))) {
    decodeMessage(d, type, bytes).appendTo(&out->text);
    out->grew();
    return;
  }
  // Text, the common big case: written in place, a piece of a long line at
  // a time, not line by line into a Decoded and then copied.
  std::string& text = out->text;
  const bool named = type && type->how_case() == Type::kText && !type->name().empty();
  text += named ? type->name() : std::string("text");
  text += '\n';
  if (!out->spill) text.reserve(text.size() + bytes.size() + bytes.size() / 16 + 64);
  forEachTextLine(bytes, [&](std::string_view line) {
    text += "  \"";
    for (size_t at = 0; at < line.size(); at += TextOut::kPiece) {
      appendEscaped(&text, line.substr(at, TextOut::kPiece));
      out->grew();
    }
    text += "\"\n";
    out->grew();
  });
}

Decoded decodeMessage(const Description* d, const Type* type, std::string_view bytes) {
  Decoded out;
  if (isTextType(type)) {
    if (type && type->how_case() == Type::kText) out.type = type->name();
    if (bytes.empty() || looksLikeText(bytes)) {
      if (out.type.empty()) out.type = "text";
      forEachTextLine(bytes, [&](std::string_view line) {
        std::string quoted_line = "  ";
        appendQuoted(&quoted_line, line);
        out.lines.push_back(std::move(quoted_line));
        out.spans.push_back({static_cast<size_t>(line.data() - bytes.data()), line.size()});
      });
      out.decoded_bytes = bytes.size();
    } else {
      if (out.type.empty())
        out.type = "bytes";
      else
        out.problem = "not text";
      out.rest = hexDump(bytes);
    }
    return out;
  }
  out.type = type->name();
  if (type->how_case() == Type::kTemplate) {
    size_t at = 0;
    decodeTemplate(d, type->name(), type->template_(), bytes, &at, 0, &out, &out.problem);
    out.decoded_bytes = at;
    if (out.problem.empty() && at < bytes.size())
      out.problem =
          std::to_string(bytes.size() - at) + " bytes beyond the " + std::to_string(at) + " of '" + type->name() + "'";
    if (at < bytes.size()) out.rest = hexDump(bytes.substr(at));
    const size_t size = templateSize(d, type->template_());
    if (!out.problem.empty() && size)
      out.problem += " (a '" + type->name() + "' is " + std::to_string(size) + " bytes)";
    return out;
  }
  // A protobuf message type.
  const pb::Descriptor* descriptor = d ? d->protobufType(*type) : nullptr;
  if (!descriptor) {
    out.problem = "protobuf type '" + type->protobuf() + "' is not loaded";
    out.rest = hexDump(bytes);
    return out;
  }
  std::unique_ptr<pb::Message> m(d->messageFactory().GetPrototype(descriptor)->New());
  if (m->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    protobufLines(*m, 0, bytes, 0, &out);
    out.decoded_bytes = bytes.size();
    return out;
  }
  out.decoded_bytes = protobufWireLines(descriptor, bytes, &out, &out.problem);
  if (out.problem.empty()) out.problem = "not a valid " + descriptor->full_name();
  if (out.decoded_bytes < bytes.size()) out.rest = hexDump(bytes.substr(out.decoded_bytes));
  return out;
}

Split splitMessages(const Framing& framing, std::string_view bytes) {
  Split s;
  size_t at = 0;
  switch (framing.how_case()) {
    case Framing::kLengthPrefix: {
      const auto& lp = framing.length_prefix();
      const size_t prefix = lp.bytes() == 1 || lp.bytes() == 2 || lp.bytes() == 8 ? lp.bytes() : 4;
      while (at + prefix <= bytes.size()) {
        const uint64_t announced =
            readUnsigned(reinterpret_cast<const unsigned char*>(bytes.data()) + at, prefix, lp.order());
        uint64_t len = lp.includes_prefix()              ? announced
                       : announced > UINT64_MAX - prefix ? UINT64_MAX
                                                         : announced + prefix;
        if (len < prefix) len = prefix;  // a length smaller than its own prefix: take the prefix alone
        if (len > bytes.size() - at) {
          s.unfinished_needs = len;
          break;
        }
        s.messages.push_back({at, static_cast<size_t>(len)});
        at += static_cast<size_t>(len);
      }
      break;
    }
    case Framing::kNewline:
      while (at < bytes.size()) {
        const size_t nl = bytes.find('\n', at);
        if (nl == std::string_view::npos) break;
        s.messages.push_back({at, nl + 1 - at});
        at = nl + 1;
      }
      break;
    case Framing::kFixedSize:
      while (framing.fixed_size() && at + framing.fixed_size() <= bytes.size()) {
        s.messages.push_back({at, framing.fixed_size()});
        at += framing.fixed_size();
      }
      break;
    default:
      if (!bytes.empty()) s.messages.push_back({0, bytes.size()});
      at = bytes.size();
  }
  s.unfinished_at = at;
  return s;
}

void TextOut::flush() {
  if (!spill) return;
  if (!text.empty()) spill(text);
  text.clear();
}

void TextOut::spillWholeCharacters() {
  size_t cut = text.size();
  // A UTF-8 lead byte among the last three whose character is not complete.
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto c = static_cast<unsigned char>(text[text.size() - back]);
    if ((c & 0xc0) == 0x80) continue;  // a continuation byte
    const size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (length > back) cut = text.size() - back;
    break;
  }
  spill(std::string_view(text).substr(0, cut));
  text.erase(0, cut);
}

std::string describeBytes(const Description* d, const Port* port, std::string_view bytes) {
  TextOut out;
  appendDescribedBytes(d, port, bytes, &out);
  return std::move(out.text);
}

void appendDescribedBytes(const Description* d, const Port* port, std::string_view bytes, TextOut* into) {
  std::string& out = into->text;
  if (bytes.empty()) {  // nothing to decode: a read at end of file, or an empty send
    out += "no bytes\n";
    return;
  }
  const Type* type = d && port && !port->type().empty() ? d->type(port->type()) : nullptr;
  const Framing framing = port ? port->framing() : Framing();
  const Split split = splitMessages(framing, bytes);
  const bool several = split.messages.size() > 1 || split.unfinished_at < bytes.size();
  size_t n = 0;
  for (const auto& [at, len] : split.messages) {
    std::string_view message = bytes.substr(at, len);
    std::string label;
    if (several)
      label = "message " + std::to_string(++n) + " (bytes " + std::to_string(at) + " to " +
              std::to_string(at + len - 1) + "): ";
    // What the framing adds around the message is not the type's.
    std::string frame;
    if (framing.how_case() == Framing::kLengthPrefix) {
      const size_t prefix = framing.length_prefix().bytes() ? framing.length_prefix().bytes() : 4;
      frame = "length " + std::to_string(len - prefix) + ", ";
      message = message.substr(std::min(prefix, message.size()));
    } else if (framing.how_case() == Framing::kNewline && type && type->how_case() != Type::kText) {
      message = message.substr(0, message.size() - 1);
    }
    out += label;
    out += frame;
    appendDecoded(d, type, message, into);
  }
  if (split.unfinished_at < bytes.size()) {
    const size_t left = bytes.size() - split.unfinished_at;
    out += std::to_string(left) + " bytes of a message that continues after this send";
    if (split.unfinished_needs) out += " (it announces " + std::to_string(split.unfinished_needs) + " bytes)";
    out += ":\n" + hexDump(bytes.substr(split.unfinished_at));
  }
}

namespace {
// A decoded message's lines under `depth`, at `base` in the bytes.
void addDecoded(const Decoded& decoded, int depth, size_t base, size_t decoded_size, std::vector<FieldLine>* out) {
  for (size_t k = 0; k < decoded.lines.size(); ++k) {
    const std::string& l = decoded.lines[k];
    const size_t indent = std::min(l.find_first_not_of(' '), l.size());
    FieldLine f{depth + static_cast<int>(indent / 2) - 1, l.substr(indent), {}};
    if (k < decoded.spans.size() && decoded.spans[k].length)
      f.bytes = {base + decoded.spans[k].offset, decoded.spans[k].length};
    out->push_back(std::move(f));
  }
  if (!decoded.problem.empty()) out->push_back({depth, "(" + decoded.problem + ")", {}});
  if (decoded.decoded_bytes < decoded_size) {
    const size_t left = decoded_size - decoded.decoded_bytes;
    out->push_back({depth,
                    std::to_string(left) + (left == 1 ? " byte" : " bytes") + " not decoded",
                    {base + decoded.decoded_bytes, left}});
  }
}
}  // namespace

std::vector<FieldLine> describeFields(const Description* d, const Port* port, std::string_view bytes,
                                      size_t max_lines) {
  std::vector<FieldLine> out;
  if (bytes.empty()) {
    out.push_back({0, "no bytes", {}});
    return out;
  }
  const Type* type = d && port && !port->type().empty() ? d->type(port->type()) : nullptr;
  const Framing framing = port ? port->framing() : Framing();
  const Split split = splitMessages(framing, bytes);
  const bool several = split.messages.size() > 1 || split.unfinished_at < bytes.size();
  const int depth = several ? 1 : 0;
  size_t n = 0;
  for (const auto& [at, len] : split.messages) {
    if (out.size() >= max_lines) break;
    if (several)
      out.push_back({0,
                     "message " + std::to_string(++n) + " (bytes " + std::to_string(at) + " to " +
                         std::to_string(at + len - 1) + ")",
                     {at, len}});
    std::string_view message = bytes.substr(at, len);
    size_t body = at;
    std::vector<FieldLine> frame;  // what the framing adds around the message
    if (framing.how_case() == Framing::kLengthPrefix) {
      const size_t prefix =
          std::min<size_t>(framing.length_prefix().bytes() ? framing.length_prefix().bytes() : 4, message.size());
      frame.push_back({depth, "length prefix = " + std::to_string(len - prefix), {at, prefix}});
      message = message.substr(prefix);
      body += prefix;
    } else if (framing.how_case() == Framing::kNewline && type && type->how_case() != Type::kText) {
      message = message.substr(0, message.size() - 1);
    }
    const Decoded decoded = decodeMessage(d, type, message);
    out.insert(out.end(), frame.begin(), frame.end());
    out.push_back({depth, decoded.type, {body, message.size()}});
    addDecoded(decoded, depth + 1, body, message.size(), &out);
  }
  if (split.unfinished_at < bytes.size() && out.size() < max_lines) {
    const size_t left = bytes.size() - split.unfinished_at;
    std::string text = std::to_string(left) + " bytes of a message that continues after this send";
    if (split.unfinished_needs) text += " (it announces " + std::to_string(split.unfinished_needs) + " bytes)";
    out.push_back({0, text, {split.unfinished_at, left}});
  }
  if (out.size() > max_lines) {
    const size_t more = out.size() - max_lines;
    out.resize(max_lines);
    out.push_back({0, "… " + std::to_string(more) + " more lines", {}});
  }
  return out;
}

namespace {
// A line's own name: "count" of "count = 3", "items" of "items[2]:".
std::string_view lineName(std::string_view text) {
  size_t end = text.find(" = ");
  if (end == std::string_view::npos) {
    if (text.empty() || text.back() != ':') return {};
    end = text.size() - 1;
  }
  std::string_view name = text.substr(0, end);
  if (const size_t bracket = name.find('['); bracket != std::string_view::npos) name = name.substr(0, bracket);
  return name;
}
}  // namespace

std::string fieldValue(const FieldLine& line) {
  const size_t eq = line.text.find(" = ");
  if (eq == std::string::npos) return {};
  std::string v = line.text.substr(eq + 3);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

std::string fieldPath(const std::vector<FieldLine>& lines, size_t index) {
  if (index >= lines.size()) return {};
  std::string path(lineName(lines[index].text));
  if (path.empty()) return {};
  int depth = lines[index].depth;
  for (size_t k = index; k-- > 0 && depth > 0;) {
    if (lines[k].depth >= depth) continue;
    depth = lines[k].depth;
    const std::string_view parent = lineName(lines[k].text);
    if (parent.empty()) break;  // a type's or a message's line: the top
    path = std::string(parent) + "." + path;
  }
  return path;
}

}  // namespace radar::netdesc
