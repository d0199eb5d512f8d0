#include "export/sqlite_bulk.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace radar::exporting::bulk {

namespace {

void put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void put32(uint8_t* p, uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<uint8_t>(v >> (24 - 8 * k));
}

// SQLite's variable-length integer: big-endian groups of 7 bits, the high
// bit saying "more follows"; a ninth byte, when needed, holds 8 bits.
int varintSize(uint64_t v) {
  if (v >> 56) return 9;
  int n = 1;
  while (v >>= 7) ++n;
  return n;
}
int putVarint(uint8_t* p, uint64_t v) {
  if (v <= 0x7f) {
    p[0] = static_cast<uint8_t>(v);
    return 1;
  }
  if (v >> 56) {
    p[8] = static_cast<uint8_t>(v);
    v >>= 8;
    for (int k = 7; k >= 0; --k, v >>= 7) p[k] = static_cast<uint8_t>((v & 0x7f) | 0x80);
    return 9;
  }
  const int n = varintSize(v);
  for (int k = n - 1; k >= 0; --k, v >>= 7) p[k] = static_cast<uint8_t>((v & 0x7f) | (k == n - 1 ? 0 : 0x80));
  return n;
}

// An integer's serial type (the record format's type code) and the bytes
// its value takes: 0 and 1 take none (schema format 4).
struct Serial {
  uint64_t type;
  int bytes;
};
Serial serialOf(const Value& v) {
  if (v.type == Value::Null) return {0, 0};
  if (v.type == Value::Text) return {13 + 2 * static_cast<uint64_t>(v.text.size()), static_cast<int>(v.text.size())};
  if (v.integer == 0) return {8, 0};
  if (v.integer == 1) return {9, 0};
  const uint64_t u = v.integer < 0 ? ~static_cast<uint64_t>(v.integer) : static_cast<uint64_t>(v.integer);
  if (u <= 0x7f) return {1, 1};
  if (u <= 0x7fff) return {2, 2};
  if (u <= 0x7fffff) return {3, 3};
  if (u <= 0x7fffffff) return {4, 4};
  if (u <= 0x7fffffffffffULL) return {5, 6};
  return {6, 8};
}

// A record: a header (its own size, then each column's serial type), then
// the values, integers big-endian.
void encodeRecord(const Value* values, int count, std::vector<uint8_t>* out) {
  uint64_t types = 0, body = 0;
  for (int c = 0; c < count; ++c) {
    const Serial s = serialOf(values[c]);
    types += static_cast<uint64_t>(varintSize(s.type));
    body += static_cast<uint64_t>(s.bytes);
  }
  uint64_t header = types + 1;
  if (varintSize(header) > 1) header = types + static_cast<uint64_t>(varintSize(types + 2));
  out->resize(header + body);
  uint8_t* h = out->data();
  uint8_t* b = h + header;
  h += putVarint(h, header);
  for (int c = 0; c < count; ++c) {
    const Serial s = serialOf(values[c]);
    h += putVarint(h, s.type);
    if (values[c].type == Value::Text) {
      std::memcpy(b, values[c].text.data(), values[c].text.size());
    } else {
      const uint64_t u = static_cast<uint64_t>(values[c].integer);
      for (int k = 0; k < s.bytes; ++k) b[k] = static_cast<uint8_t>(u >> (8 * (s.bytes - 1 - k)));
    }
    b += s.bytes;
  }
}

}  // namespace

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

bool File::create(const std::string& path, uint32_t page_size, std::string* error, uint32_t lock_byte) {
  page_size_ = page_size;
  lock_page_ = lock_byte / page_size + 1;
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *error = std::strerror(errno);
    return false;
  }
  return true;
}

uint32_t File::allocate() {
  uint32_t page = next_.fetch_add(1, std::memory_order_relaxed);
  if (page == lock_page_) page = next_.fetch_add(1, std::memory_order_relaxed);
  return page;
}

bool File::write(uint32_t page, const uint8_t* data, std::string* error) {
  off_t at = static_cast<off_t>(page - 1) * page_size_;
  size_t left = page_size_;
  while (left) {
    const ssize_t n = ::pwrite(fd_, data, left, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::strerror(n < 0 ? errno : ENOSPC);
      return false;
    }
    data += n;
    at += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

bool File::finish(const std::vector<Table>& tables, std::string* error) {
  std::vector<uint8_t> page(page_size_, 0);
  Leaf schema(page.data(), page_size_, 100);
  std::vector<uint8_t> record;
  int64_t rowid = 0;
  for (const Table& t : tables) {
    // sqlite_schema: type, name, tbl_name, rootpage, sql.
    const Value row[] = {Value::of("table"), Value::of(t.name), Value::of(t.name), Value::of(int64_t{t.root}),
                         Value::of(t.sql)};
    encodeRecord(row, 5, &record);
    if (record.size() > Leaf::maxRecord(page_size_) || !schema.add(++rowid, record)) {
      *error = "the schema does not fit in the first page";
      return false;
    }
  }
  schema.seal();
  const uint32_t pages = next_.load() - 1;
  uint8_t* h = page.data();
  std::memcpy(h, "SQLite format 3", 16);
  put16(h + 16, page_size_ == 65536 ? 1 : page_size_);
  h[18] = h[19] = 1;                   // the rollback journal's file format
  h[20] = 0;                           // no space reserved at the end of pages
  h[21] = 64, h[22] = 32, h[23] = 32;  // payload fractions: fixed by the format
  put32(h + 24, 1);                    // file change counter
  put32(h + 28, pages);                // valid: the change counter equals the version-valid-for number
  put32(h + 40, 1);                    // schema cookie
  put32(h + 44, 4);                    // schema format 4: integers 0 and 1 take no bytes
  put32(h + 56, 1);                    // UTF-8
  put32(h + 92, 1);                    // version-valid-for
  put32(h + 96, SQLITE_VERSION_NUMBER);
  if (!write(1, page.data(), error)) return false;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  return true;
}

bool Leaf::add(int64_t rowid, const std::vector<uint8_t>& record) {
  const uint32_t cell =
      static_cast<uint32_t>(varintSize(record.size()) + varintSize(static_cast<uint64_t>(rowid)) + record.size());
  if (header_ + 8 + 2 * (cells_ + 1) + cell > content_) return false;
  content_ -= cell;
  uint8_t* p = page_ + content_;
  p += putVarint(p, record.size());
  p += putVarint(p, static_cast<uint64_t>(rowid));
  std::memcpy(p, record.data(), record.size());
  put16(page_ + header_ + 8 + 2 * cells_++, content_);
  return true;
}

void Leaf::seal() {
  uint8_t* h = page_ + header_;
  h[0] = 0x0d;  // a table b-tree leaf
  put16(h + 1, 0);
  put16(h + 3, cells_);
  put16(h + 5, content_ & 0xffff);  // 65536 (an empty page of 64 KiB) is written 0
  h[7] = 0;
  const uint32_t used = header_ + 8 + 2 * cells_;
  std::memset(page_ + used, 0, content_ - used);
}

Table::Table(File& file)
    : file_(file), size_(file.pageSize()), root_(file.allocate()), page_(size_), leaf_(page_.data(), size_, 0) {}

bool Table::add(int64_t rowid, const Value* values, int count, std::string* error) {
  if (rows_ && rowid <= last_rowid_) {
    *error = "rows out of rowid order";
    return false;
  }
  encodeRecord(values, count, &record_);
  if (record_.size() > Leaf::maxRecord(size_)) {
    *error = "a row of " + std::to_string(record_.size()) + " bytes does not fit in a page";
    return false;
  }
  if (!leaf_.add(rowid, record_)) {
    const uint32_t page = file_.allocate();
    leaf_.seal();
    if (!file_.write(page, page_.data(), error)) return false;
    leaves_.push_back({page, last_rowid_});
    leaf_.clear();
    leaf_.add(rowid, record_);
  }
  last_rowid_ = rowid;
  ++rows_;
  return true;
}

bool Table::finish(std::string* error) {
  leaf_.seal();
  if (leaves_.empty()) return file_.write(root_, page_.data(), error);  // one leaf: the root
  const uint32_t last = file_.allocate();
  if (!file_.write(last, page_.data(), error)) return false;
  leaves_.push_back({last, last_rowid_});
  // Levels of interior pages up to one, the root. A child but the last
  // takes a cell (a page number, a varint key) and its pointer: at most 15
  // bytes; the last is the page header's right-most pointer. Children are
  // shared out evenly, so that no interior page has a single child.
  const size_t per_page = (size_ - 12) / 15 + 1;
  std::vector<Child> level = std::move(leaves_), above;
  while (true) {
    const size_t n = level.size();
    const size_t pages = (n + per_page - 1) / per_page;
    if (pages == 1) return writeInterior(level.data(), n, root_, error);
    above.clear();
    size_t first = 0;
    for (size_t k = 0; k < pages; ++k) {
      const size_t count = n / pages + (k < n % pages ? 1 : 0);
      const uint32_t page = file_.allocate();
      if (!writeInterior(&level[first], count, page, error)) return false;
      first += count;
      above.push_back({page, level[first - 1].last_rowid});
    }
    level.swap(above);
  }
}

// An interior page: a cell per child but the last (its page, the largest
// rowid under it), the last child in the page header.
bool Table::writeInterior(const Child* children, size_t count, uint32_t page, std::string* error) {
  uint8_t* p = page_.data();
  uint32_t content = size_;
  for (size_t k = 0; k + 1 < count; ++k) {
    const uint64_t key = static_cast<uint64_t>(children[k].last_rowid);
    content -= 4 + static_cast<uint32_t>(varintSize(key));
    put32(p + content, children[k].page);
    putVarint(p + content + 4, key);
    put16(p + 12 + 2 * k, content);
  }
  p[0] = 0x05;  // a table b-tree interior page
  put16(p + 1, 0);
  put16(p + 3, static_cast<uint32_t>(count - 1));
  put16(p + 5, content & 0xffff);
  p[7] = 0;
  put32(p + 8, children[count - 1].page);
  const uint32_t used = 12 + 2 * static_cast<uint32_t>(count - 1);
  std::memset(p + used, 0, content - used);
  return file_.write(page, p, error);
}

}  // namespace radar::exporting::bulk
