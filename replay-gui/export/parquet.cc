#include "export/parquet.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "export/text.h"

namespace radar::exporting::parquet {

namespace {

// parquet.thrift's numbers for what is written here.
enum : int32_t { kInt64 = 2, kByteArray = 6 };                            // Type
enum : int32_t { kOptional = 1 };                                         // FieldRepetitionType
enum : int32_t { kUtf8 = 0 };                                             // ConvertedType
enum : int32_t { kPlain = 0, kRle = 3, kDelta = 5, kRleDictionary = 8 };  // Encoding
enum : int32_t { kZstd = 6 };                                             // CompressionCodec
enum : int32_t { kDataPage = 0, kDictionaryPage = 2 };                    // PageType
constexpr int kZstdLevel = 1;                                             // fast: an export is written once, read often
constexpr size_t kMaxDictionaryBytes = size_t{1} << 20;

void varint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }

void littleEndian(std::string* out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out->push_back(static_cast<char>(v >> (8 * k)));
}

// Thrift's compact protocol, the encoding of Parquet's metadata: fields by
// the difference of their ids, integers as zigzag varints.
class Thrift {
 public:
  enum : int { kTrue = 1, kFalse = 2, kI32 = 5, kI64 = 6, kBinary = 8, kList = 9, kStruct = 12 };
  explicit Thrift(std::string* out) : out_(out) { last_.push_back(0); }

  void i32(int id, int32_t v) { field(id, kI32), varint(out_, zigzag(v)); }
  void i64(int id, int64_t v) { field(id, kI64), varint(out_, zigzag(v)); }
  void binary(int id, std::string_view v) { field(id, kBinary), bytes(v); }
  void boolean(int id, bool v) { field(id, v ? kTrue : kFalse); }
  void beginStruct(int id) { field(id, kStruct), last_.push_back(0); }
  void endStruct() { out_->push_back(0), last_.pop_back(); }
  void list(int id, int type, size_t size) {
    field(id, kList);
    if (size < 15) {
      out_->push_back(static_cast<char>(size << 4 | type));
    } else {
      out_->push_back(static_cast<char>(0xf0 | type));
      varint(out_, size);
    }
  }
  // Elements of a list.
  void i32(int32_t v) { varint(out_, zigzag(v)); }
  void bytes(std::string_view v) { varint(out_, v.size()), out_->append(v); }
  void beginElement() { last_.push_back(0); }

 private:
  void field(int id, int type) {
    const int delta = id - last_.back();
    if (delta > 0 && delta <= 15) {
      out_->push_back(static_cast<char>(delta << 4 | type));
    } else {
      out_->push_back(static_cast<char>(type));
      varint(out_, zigzag(id));
    }
    last_.back() = id;
  }
  std::string* out_;
  std::vector<int> last_;  // per open struct, its last field's id
};

// Values of `width` bits packed from each byte's least significant bit,
// as Parquet's bit-packed runs and delta miniblocks want them.
class Bits {
 public:
  explicit Bits(std::string* out) : out_(out) {}
  void put(uint64_t v, int width) {
    if (width == 0) return;
    if (width < 64) v &= (uint64_t{1} << width) - 1;
    acc_ |= v << used_;
    const int spill = used_ + width - 64;
    if (spill < 0) {
      used_ += width;
      return;
    }
    littleEndian(out_, acc_, 8);
    acc_ = spill ? v >> (width - spill) : 0;
    used_ = spill;
  }
  void flush() {
    littleEndian(out_, acc_, (used_ + 7) / 8);
    acc_ = 0, used_ = 0;
  }

 private:
  std::string* out_;
  uint64_t acc_ = 0;
  int used_ = 0;
};

int bitWidth(uint64_t max) { return max ? 64 - __builtin_clzll(max) : 0; }

// The RLE / bit-packing hybrid (definition levels, dictionary indices):
// a run of eight or more equal values as one, the rest bit-packed in
// groups of eight (at most 63 groups a run, as every reader takes).
template <typename Values>
void hybrid(const Values& v, int width, std::string* out) {
  auto repeats = [&](size_t i, size_t cap) {
    size_t j = i + 1;
    while (j < v.size() && j - i < cap && v[j] == v[i]) ++j;
    return j - i;
  };
  for (size_t i = 0; i < v.size();) {
    if (const size_t run = repeats(i, SIZE_MAX); run >= 8) {
      varint(out, uint64_t{run} << 1);
      littleEndian(out, v[i], (width + 7) / 8);
      i += run;
      continue;
    }
    size_t end = i, groups = 0;
    do end += 8, ++groups;
    while (end < v.size() && groups < 63 && repeats(end, 8) < 8);
    varint(out, uint64_t{groups} << 1 | 1);
    Bits bits(out);
    for (size_t k = i; k < end; ++k) bits.put(k < v.size() ? v[k] : 0, width);
    bits.flush();
    i = end;
  }
}

// DELTA_BINARY_PACKED: blocks of 128 deltas in 4 miniblocks of 32, each
// delta less the block's least, packed at its miniblock's width.
void deltaBinaryPacked(const std::vector<int64_t>& v, std::string* out) {
  constexpr size_t kBlock = 128, kMiniblocks = 4, kPerMiniblock = kBlock / kMiniblocks;
  varint(out, kBlock), varint(out, kMiniblocks), varint(out, v.size());
  varint(out, zigzag(v.empty() ? 0 : v[0]));
  for (size_t begin = 1; begin < v.size(); begin += kBlock) {
    const size_t n = std::min(v.size() - begin, kBlock);
    uint64_t delta[kBlock];  // wrapping, as the format's arithmetic is
    int64_t least = INT64_MAX;
    for (size_t k = 0; k < n; ++k) {
      delta[k] = uint64_t(v[begin + k]) - uint64_t(v[begin + k - 1]);
      least = std::min(least, static_cast<int64_t>(delta[k]));
    }
    varint(out, zigzag(least));
    for (size_t k = 0; k < n; ++k) delta[k] -= uint64_t(least);
    int widths[kMiniblocks] = {};
    for (size_t m = 0; m < kMiniblocks; ++m) {
      uint64_t most = 0;
      for (size_t k = m * kPerMiniblock; k < std::min(n, (m + 1) * kPerMiniblock); ++k) most |= delta[k];
      widths[m] = bitWidth(most);
      out->push_back(static_cast<char>(widths[m]));
    }
    Bits bits(out);
    for (size_t m = 0; m < kMiniblocks && m * kPerMiniblock < n; ++m) {
      if (!widths[m]) continue;  // every delta the least: no bits
      for (size_t k = m * kPerMiniblock; k < (m + 1) * kPerMiniblock; ++k) bits.put(k < n ? delta[k] : 0, widths[m]);
      bits.flush();
    }
  }
}

void plainText(std::string_view s, std::string* out) {
  littleEndian(out, s.size(), 4);
  out->append(s);
}

}  // namespace

// One column's values of the row group being filled.
struct Writer::Buffer {
  std::vector<uint8_t> defined;  // a row's value is there (1) or null (0)
  std::vector<int64_t> integers;
  std::vector<uint32_t> indices;  // text: each value's entry in the dictionary
  struct Hash {                   // looks texts up without making a string of them
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> entries;
  std::vector<const std::string*> dictionary;  // in order of first appearance
  size_t dictionary_bytes = 0;

  void clear() {
    defined.clear(), integers.clear(), indices.clear(), entries.clear(), dictionary.clear();
    dictionary_bytes = 0;
  }
  size_t values() const { return integers.size() + indices.size(); }

  // A text's entry in the dictionary, added at its first appearance.
  uint32_t entry(std::string_view text) {
    if (!indices.empty() && *dictionary[indices.back()] == text) return indices.back();  // a run
    if (const auto at = entries.find(text); at != entries.end()) return at->second;
    std::string valid = isValidUtf8(text) ? std::string(text) : validUtf8(text);
    const auto [at, added] = entries.try_emplace(std::move(valid), static_cast<uint32_t>(dictionary.size()));
    if (added) {
      dictionary.push_back(&at->first);
      dictionary_bytes += at->first.size() + 4;
    }
    return at->second;
  }
};

struct Writer::Chunk {
  uint64_t start = 0, data_page = 0, uncompressed = 0, compressed = 0, rows = 0, nulls = 0;
  bool dictionary = false;
  int32_t encoding = kPlain;
  std::string min, max;  // PLAIN, texts without their length (written when a value is not null)
};

// What a writer reuses from page to page: buffers and zstd's context.
struct Writer::Scratch {
  std::string values, dictionary, levels, body, page, packed;
  ZSTD_CCtx* zstd = ZSTD_createCCtx();
  ~Scratch() { ZSTD_freeCCtx(zstd); }
};

namespace {

// A page: its header and its body compressed, after what `page` holds.
bool encodePage(int32_t type, const std::string& body, uint64_t values, int32_t encoding, Writer::Scratch& s,
                uint64_t* uncompressed, std::string* error) {
  s.packed.resize(ZSTD_compressBound(body.size()));
  const size_t n = ZSTD_compressCCtx(s.zstd, s.packed.data(), s.packed.size(), body.data(), body.size(), kZstdLevel);
  if (ZSTD_isError(n)) {
    *error = std::string("zstd: ") + ZSTD_getErrorName(n);
    return false;
  }
  const size_t header_at = s.page.size();
  Thrift h(&s.page);
  h.i32(1, type);
  h.i32(2, static_cast<int32_t>(body.size()));
  h.i32(3, static_cast<int32_t>(n));
  if (type == kDictionaryPage) {
    h.beginStruct(7);
    h.i32(1, static_cast<int32_t>(values));
    h.i32(2, kPlain);
  } else {
    h.beginStruct(5);
    h.i32(1, static_cast<int32_t>(values));
    h.i32(2, encoding);
    h.i32(3, kRle);
    h.i32(4, kRle);
  }
  h.endStruct();
  s.page.push_back(0);  // the header's end
  *uncompressed = s.page.size() - header_at + body.size();
  s.page.append(s.packed.data(), n);
  return true;
}

}  // namespace

Writer::Writer(std::vector<Column> columns, size_t rows_per_group, std::string created_by)
    : columns_(std::move(columns)),
      created_by_(std::move(created_by)),
      rows_per_group_(std::max<size_t>(rows_per_group, 1)),
      scratch_(std::make_unique<Scratch>()) {
  for (size_t c = 0; c < columns_.size(); ++c) buffers_.push_back(std::make_unique<Buffer>());
}

Writer::~Writer() {
  if (file_) {
    std::fclose(file_);
    ::unlink(path_.c_str());  // never finished: not a Parquet file
  }
}

bool Writer::open(const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 || !(file_ = ::fdopen(fd, "wb"))) {
    *error = "cannot make " + path + ": " + std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return false;
  }
  path_ = path;
  groups_.clear(), group_rows_.clear();
  offset_ = 0, rows_ = 0, pending_ = 0;
  for (auto& b : buffers_) b->clear();
  return write("PAR1", error);
}

bool Writer::write(std::string_view bytes, std::string* error) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    *error = "cannot write " + path_ + ": " + std::strerror(errno);
    return false;
  }
  offset_ += bytes.size();
  return true;
}

bool Writer::add(const Value* row, std::string* error) {
  for (size_t c = 0; c < columns_.size(); ++c) {
    Buffer& b = *buffers_[c];
    const Value& v = row[c];
    b.defined.push_back(v.type != Value::Null);
    if (v.type == Value::Null) continue;
    if (!columns_[c].text) {
      b.integers.push_back(v.integer);
      continue;
    }
    b.indices.push_back(b.entry(v.text));
  }
  ++rows_;
  return ++pending_ < rows_per_group_ || flushRowGroup(error);
}

namespace {

// A chunk's values (its data page's body after the definition levels) and
// dictionary (its dictionary page's body), with their encoding.
struct Encoded {
  std::string& values;
  std::string& dictionary;
  int32_t encoding = kPlain;
};

void encodeIntegers(const std::vector<int64_t>& v, Encoded* e, std::string* min, std::string* max) {
  deltaBinaryPacked(v, &e->values);
  if (e->values.size() < v.size() * 8) {
    e->encoding = kDelta;
  } else {  // PLAIN: little-endian, as this machine holds them
    static_assert(std::endian::native == std::endian::little);
    e->values.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t));
  }
  if (v.empty()) return;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  littleEndian(min, static_cast<uint64_t>(*lo), 8), littleEndian(max, static_cast<uint64_t>(*hi), 8);
}

template <typename Buffer>
void encodeTexts(const Buffer& b, Encoded* e, std::string* min, std::string* max) {
  const bool dictionary = !b.indices.empty() && b.dictionary_bytes <= kMaxDictionaryBytes &&
                          b.dictionary.size() <= b.indices.size() / 2 + 1;
  if (dictionary) {
    for (const std::string* s : b.dictionary) plainText(*s, &e->dictionary);
    const int width = std::max(1, bitWidth(b.dictionary.size() - 1));
    e->values.push_back(static_cast<char>(width));
    hybrid(b.indices, width, &e->values);
    e->encoding = kRleDictionary;
  } else {
    for (uint32_t k : b.indices) plainText(*b.dictionary[k], &e->values);
  }
  if (b.dictionary.empty()) return;
  // Statistics compare texts as unsigned bytes, as std::string does.
  const auto [lo, hi] = std::minmax_element(b.dictionary.begin(), b.dictionary.end(),
                                            [](const std::string* x, const std::string* y) { return *x < *y; });
  *min = **lo, *max = **hi;
}

}  // namespace

bool Writer::flushRowGroup(std::string* error) {
  if (!pending_) return true;
  std::vector<Chunk>& chunks = groups_.emplace_back();
  Scratch& s = *scratch_;
  for (size_t c = 0; c < columns_.size(); ++c) {
    Buffer& b = *buffers_[c];
    Chunk chunk;
    chunk.start = offset_, chunk.rows = pending_, chunk.nulls = pending_ - b.values();
    s.values.clear(), s.dictionary.clear(), s.levels.clear(), s.body.clear(), s.page.clear();
    Encoded e{s.values, s.dictionary};
    if (columns_[c].text)
      encodeTexts(b, &e, &chunk.min, &chunk.max);
    else
      encodeIntegers(b.integers, &e, &chunk.min, &chunk.max);
    chunk.encoding = e.encoding;
    uint64_t size = 0;
    if ((chunk.dictionary = e.encoding == kRleDictionary)) {
      if (!encodePage(kDictionaryPage, s.dictionary, b.dictionary.size(), kPlain, s, &size, error)) return false;
      chunk.uncompressed += size;
    }
    chunk.data_page = offset_ + s.page.size();
    hybrid(b.defined, 1, &s.levels);
    littleEndian(&s.body, s.levels.size(), 4);
    s.body += s.levels;
    s.body += s.values;
    if (!encodePage(kDataPage, s.body, pending_, e.encoding, s, &size, error)) return false;
    chunk.uncompressed += size;
    chunk.compressed = s.page.size();
    if (!write(s.page, error)) return false;
    chunks.push_back(std::move(chunk));
    b.clear();
  }
  group_rows_.push_back(pending_);
  pending_ = 0;
  return true;
}

namespace {

void statistics(Thrift& t, const Writer::Chunk& c);
void columnChunk(Thrift& t, const Column& column, const Writer::Chunk& c);

void schema(Thrift& t, const std::vector<Column>& columns) {
  t.list(2, Thrift::kStruct, columns.size() + 1);
  t.beginElement();
  t.binary(4, "schema");
  t.i32(5, static_cast<int32_t>(columns.size()));
  t.endStruct();
  for (const Column& c : columns) {
    t.beginElement();
    t.i32(1, c.text ? kByteArray : kInt64);
    t.i32(3, kOptional);
    t.binary(4, c.name);
    if (c.text) {
      t.i32(6, kUtf8);
      t.beginStruct(10);  // LogicalType STRING
      t.beginStruct(1);
      t.endStruct();
      t.endStruct();
    }
    t.endStruct();
  }
}

}  // namespace

bool Writer::finish(const KeyValues& metadata, std::string* error) {
  if (!flushRowGroup(error)) return false;
  std::string footer;
  Thrift t(&footer);
  t.i32(1, 1);
  schema(t, columns_);
  t.i64(3, static_cast<int64_t>(rows_));
  t.list(4, Thrift::kStruct, groups_.size());
  for (size_t g = 0; g < groups_.size(); ++g) {
    t.beginElement();
    t.list(1, Thrift::kStruct, columns_.size());
    uint64_t bytes = 0;
    for (size_t c = 0; c < columns_.size(); ++c) {
      columnChunk(t, columns_[c], groups_[g][c]);
      bytes += groups_[g][c].uncompressed;
    }
    t.i64(2, static_cast<int64_t>(bytes));
    t.i64(3, static_cast<int64_t>(group_rows_[g]));
    t.endStruct();
  }
  t.list(5, Thrift::kStruct, metadata.size());
  for (const auto& [key, value] : metadata) {
    t.beginElement();
    t.binary(1, key);
    t.binary(2, value);
    t.endStruct();
  }
  t.binary(6, created_by_);
  t.list(7, Thrift::kStruct, columns_.size());  // min and max by each type's own order
  for (size_t c = 0; c < columns_.size(); ++c) {
    t.beginElement();
    t.beginStruct(1);
    t.endStruct();
    t.endStruct();
  }
  footer.push_back(0);
  littleEndian(&footer, footer.size(), 4);
  footer += "PAR1";
  if (!write(footer, error)) return false;
  std::FILE* f = file_;
  file_ = nullptr;
  const bool flushed = std::fflush(f) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(f) == 0;  // closed even when the flush failed
  if (!flushed || !closed) {
    *error = "cannot write " + path_ + ": " + std::strerror(flushed ? errno : flush_errno);
    ::unlink(path_.c_str());
    return false;
  }
  return true;
}

namespace {

void columnChunk(Thrift& t, const Column& column, const Writer::Chunk& c) {
  t.beginElement();
  t.i64(2, static_cast<int64_t>(c.start));
  t.beginStruct(3);
  t.i32(1, column.text ? kByteArray : kInt64);
  const std::vector<int32_t> encodings =
      c.dictionary ? std::vector<int32_t>{kPlain, kRle, kRleDictionary} : std::vector<int32_t>{c.encoding, kRle};
  t.list(2, Thrift::kI32, encodings.size());
  for (int32_t e : encodings) t.i32(e);
  t.list(3, Thrift::kBinary, 1);
  t.bytes(column.name);
  t.i32(4, kZstd);
  t.i64(5, static_cast<int64_t>(c.rows));
  t.i64(6, static_cast<int64_t>(c.uncompressed));
  t.i64(7, static_cast<int64_t>(c.compressed));
  t.i64(9, static_cast<int64_t>(c.data_page));
  if (c.dictionary) t.i64(11, static_cast<int64_t>(c.start));
  statistics(t, c);
  t.endStruct();
  t.endStruct();
}

void statistics(Thrift& t, const Writer::Chunk& c) {
  t.beginStruct(12);
  t.i64(3, static_cast<int64_t>(c.nulls));
  if (c.nulls < c.rows) {
    t.binary(5, c.max);
    t.binary(6, c.min);
  }
  t.endStruct();
}

}  // namespace

}  // namespace radar::exporting::parquet
