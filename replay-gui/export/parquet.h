// Parquet files (parquet.apache.org/docs/file-format), written directly:
// flat tables of optional 64-bit integer and UTF-8 text columns, the shape
// of every table radar exports. Each row group is a column chunk per
// column: text through a dictionary where its distinct values are few
// (RLE_DICTIONARY), integers as deltas where that is smaller
// (DELTA_BINARY_PACKED), else plainly; one data page (v1) per chunk,
// compressed with zstd; the chunk's null count, minimum and maximum in its
// metadata. A writer holds one row group in memory, no more.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "export/value.h"

namespace radar::exporting::parquet {

struct Column {
  std::string name;
  bool text;  // UTF-8 text, else a 64-bit integer
};

using KeyValues = std::vector<std::pair<std::string, std::string>>;

class Writer {
 public:
  // `created_by`: the writing application, as the footer names it.
  explicit Writer(std::vector<Column> columns, size_t rows_per_group = size_t{1} << 19,
                  std::string created_by = "radar");
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Makes `path` (which must not exist) and writes the magic number. A
  // writer that finished a file may open another: it keeps its memory.
  bool open(const std::string& path, std::string* error);
  // One row, a value per column (an integer column takes integers and
  // nulls, a text column texts and nulls). Text that is not valid UTF-8 is
  // stored with U+FFFD in place of each bad byte.
  bool add(const Value* row, std::string* error);
  // The last row group, the footer (with `metadata` as its key-value
  // pairs), and closes the file.
  bool finish(const KeyValues& metadata, std::string* error);
  uint64_t rows() const { return rows_; }

  struct Chunk;    // a column chunk's place and metadata, once written
  struct Scratch;  // what is reused from page to page

 private:
  struct Buffer;
  bool flushRowGroup(std::string* error);
  bool write(std::string_view bytes, std::string* error);

  std::vector<Column> columns_;
  std::string created_by_;
  size_t rows_per_group_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::unique_ptr<Scratch> scratch_;
  std::vector<std::vector<Chunk>> groups_;  // per row group, a chunk per column
  std::vector<uint64_t> group_rows_;
  std::FILE* file_ = nullptr;
  std::string path_;
  uint64_t offset_ = 0, rows_ = 0;
  size_t pending_ = 0;  // rows in the row group being filled
};

}  // namespace radar::exporting::parquet
