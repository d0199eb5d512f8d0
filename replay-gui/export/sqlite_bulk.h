// Rowid tables written straight into a new SQLite file, in SQLite's
// documented file format (sqlite.org/fileformat2.html), for the tables
// that are most of a recording's database (events, messages): a row costs
// the encoding of its record, not a trip through SQLite's virtual machine,
// and tables fill at once on several threads. The file is then opened with
// SQLite, which adds everything else through its API.
//
// What is written is the subset of the format SQLite itself writes for
// tables filled in rowid order: leaf and interior table b-tree pages, no
// overflow pages (a record must fit in a page), no free pages, UTF-8, a
// rollback journal file format. The page holding the lock byte (at 1 GiB)
// is never used, as SQLite requires.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "export/value.h"

namespace radar::exporting::bulk {

using Value = exporting::Value;

// The file and its pages. Page 1 (the header and the schema) is written
// last, by finish().
class File {
 public:
  ~File();
  // SQLite's lock byte, fixed in its builds (tests move it, through
  // sqlite3_test_control, to reach it in a small file).
  static constexpr uint32_t kLockByte = 0x40000000;
  // A new file (it must not exist) of pages of `page_size` bytes (a power
  // of two from 512 to 65536). Errors are said without the file's name
  // (the caller's may be a temporary one).
  bool create(const std::string& path, uint32_t page_size, std::string* error, uint32_t lock_byte = kLockByte);
  uint32_t pageSize() const { return page_size_; }
  // A page number no one else has; thread-safe.
  uint32_t allocate();
  bool write(uint32_t page, const uint8_t* data, std::string* error);
  // Page 1: the header and the schema, naming each table's root page;
  // `sql` is each table's `CREATE TABLE` statement.
  struct Table {
    std::string name, sql;
    uint32_t root;
  };
  bool finish(const std::vector<Table>& tables, std::string* error);

 private:
  int fd_ = -1;
  uint32_t page_size_ = 0;
  uint32_t lock_page_ = 0;         // the page of the lock byte, which no b-tree may use
  std::atomic<uint32_t> next_{2};  // page 1 is the schema's
};

// A table b-tree leaf page being filled: the page header at `header` (100
// on page 1, after the file header), the cell pointers after it in key
// order, the cells from the page's end down.
class Leaf {
 public:
  Leaf(uint8_t* page, uint32_t size, uint32_t header) : page_(page), size_(size), header_(header) { clear(); }
  void clear() {
    cells_ = 0;
    content_ = size_;
  }
  uint32_t cells() const { return cells_; }
  // False when the cell does not fit.
  bool add(int64_t rowid, const std::vector<uint8_t>& record);
  // Writes the page header and zeroes the unused space.
  void seal();
  // The most a cell's record may hold without an overflow page.
  static uint64_t maxRecord(uint32_t page_size) { return page_size - 35; }

 private:
  uint8_t* page_;
  uint32_t size_, header_;
  uint32_t cells_ = 0, content_ = 0;
};

// One rowid table's b-tree, filled in increasing rowid order on one thread.
// A column declared INTEGER PRIMARY KEY is the rowid itself: SQLite stores
// it as a null in the record, and so must the caller.
class Table {
 public:
  // Takes its root page from `file` now, so that roots are numbered in the
  // order the tables are made.
  explicit Table(File& file);
  uint32_t root() const { return root_; }
  bool add(int64_t rowid, const Value* values, int count, std::string* error);
  // Writes the last leaf and the interior pages above the leaves.
  bool finish(std::string* error);
  uint64_t rows() const { return rows_; }

 private:
  struct Child {
    uint32_t page;
    int64_t last_rowid;
  };
  bool writeInterior(const Child* children, size_t count, uint32_t page, std::string* error);

  File& file_;
  const uint32_t size_;
  uint32_t root_;
  std::vector<uint8_t> page_;
  Leaf leaf_;
  int64_t last_rowid_ = 0;
  uint64_t rows_ = 0;
  std::vector<Child> leaves_;
  std::vector<uint8_t> record_;
};

}  // namespace radar::exporting::bulk
