// Tables written straight into SQLite's file format (export/sqlite_bulk.h),
// read back by SQLite itself: its integrity check, every row and value,
// rowid look-ups through the interior pages, and SQLite writing on.
#include "export/sqlite_bulk.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <random>
#include <thread>

namespace radar::exporting::bulk {
namespace {

std::string tempPath(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/radar-bulk-" + std::to_string(::getpid()) + "-" + name;
}

// A value as SQLite's quote() prints it, to compare with the database's.
std::string quoted(const Value& v) {
  if (v.type == Value::Null) return "NULL";
  if (v.type == Value::Integer) return std::to_string(v.integer);
  std::string s = "'";
  for (char c : v.text) s += c == '\'' ? std::string("''") : std::string(1, c);
  return s + "'";
}

// Rows of random values of every width of integer, texts up to `longest`.
struct Rows {
  std::vector<int64_t> rowids;
  std::vector<std::vector<Value>> values;
  std::vector<std::string> texts;  // kept for the views
};
Rows randomRows(std::mt19937_64& rng, size_t count, int columns, bool first_is_rowid, size_t longest) {
  static const int64_t kEdges[] = {
      0,       1,       -1,        127,       128,       -128,         -129,        32767,     32768,    -32769,
      8388607, 8388608, INT32_MAX, INT32_MIN, 1LL << 40, -(1LL << 47), (1LL << 47), INT64_MAX, INT64_MIN};
  Rows r;
  r.texts.reserve(count * static_cast<size_t>(columns));
  int64_t rowid = static_cast<int64_t>(rng() % 3);
  for (size_t i = 0; i < count; ++i) {
    rowid += 1 + static_cast<int64_t>(rng() % (i % 7 == 0 ? 100000 : 3));  // gaps, some wide
    r.rowids.push_back(rowid);
    std::vector<Value> row(static_cast<size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      if (c == 0 && first_is_rowid) continue;  // INTEGER PRIMARY KEY: stored as a null
      switch (rng() % 5) {
        case 0:
          break;
        case 1:
          row[c] = Value::of(kEdges[rng() % std::size(kEdges)]);
          break;
        case 2:
          row[c] = Value::of(static_cast<int64_t>(rng()) >> (rng() % 64));
          break;
        default: {
          std::string text;
          const size_t n = rng() % 4 == 0 ? rng() % (longest + 1) : rng() % 12;
          for (size_t k = 0; k < n; ++k) text += static_cast<char>('a' + rng() % 26);
          if (rng() % 9 == 0) text += "é'\"";
          r.texts.push_back(std::move(text));
          row[c] = Value::of(std::string_view(r.texts.back()));
        }
      }
    }
    r.values.push_back(std::move(row));
  }
  return r;
}

std::string query(sqlite3* db, const std::string& sql) {
  std::string out;
  char* message = nullptr;
  auto add = [](void* p, int n, char** values, char**) {
    auto* s = static_cast<std::string*>(p);
    for (int k = 0; k < n; ++k) *s += (k ? "|" : "") + std::string(values[k] ? values[k] : "NULL");
    *s += "\n";
    return 0;
  };
  if (sqlite3_exec(db, sql.c_str(), add, &out, &message) != SQLITE_OK) {
    out = std::string("error: ") + (message ? message : "?");
    sqlite3_free(message);
  }
  return out;
}

// "" when equal, else the first line that differs (a table's worth of
// rows is too much to print).
std::string firstDifference(const std::string& got, const std::string& want) {
  size_t line = 1, at = 0;
  while (true) {
    const size_t g = got.find('\n', at), w = want.find('\n', at);
    const std::string a = got.substr(at, g == std::string::npos ? g : g - at);
    const std::string b = want.substr(at, w == std::string::npos ? w : w - at);
    if (a != b || (g == std::string::npos) != (w == std::string::npos))
      return "line " + std::to_string(line) + ": got \"" + a + "\", want \"" + b + "\"";
    if (g == std::string::npos) return "";
    at = g + 1;
    ++line;
  }
}

struct Case {
  uint32_t page_size;
  size_t rows_a, rows_b;
  size_t longest = 2000;  // the longest text, at most what lets a row of 7 fit
};

// Writes table a (an INTEGER PRIMARY KEY and 5 columns) and table b (7
// columns, the rowid its own) on two threads, then checks them through SQLite.
void writeAndCheck(const Case& c, uint32_t lock_byte = File::kLockByte) {
  SCOPED_TRACE("page size " + std::to_string(c.page_size) + ", " + std::to_string(c.rows_a) + " and " +
               std::to_string(c.rows_b) + " rows");
  std::mt19937_64 rng(c.page_size * 1000003 + c.rows_a * 31 + c.rows_b);
  const size_t longest = std::min<size_t>(c.longest, Leaf::maxRecord(c.page_size) / 8 - 12);
  const Rows a = randomRows(rng, c.rows_a, 6, true, longest);
  const Rows b = randomRows(rng, c.rows_b, 7, false, longest);
  const std::string path = tempPath("t.sqlite");
  ::unlink(path.c_str());
  File file;
  std::string error;
  ASSERT_TRUE(file.create(path, c.page_size, &error, lock_byte)) << error;
  Table ta(file), tb(file);
  std::string error_b;
  bool ok_b = true;
  std::thread other([&] {
    for (size_t i = 0; i < b.rowids.size() && ok_b; ++i) ok_b = tb.add(b.rowids[i], b.values[i].data(), 7, &error_b);
    ok_b = ok_b && tb.finish(&error_b);
  });
  for (size_t i = 0; i < a.rowids.size(); ++i) ASSERT_TRUE(ta.add(a.rowids[i], a.values[i].data(), 6, &error)) << error;
  ASSERT_TRUE(ta.finish(&error)) << error;
  other.join();
  ASSERT_TRUE(ok_b) << error_b;
  ASSERT_TRUE(file.finish({{"a", "CREATE TABLE a (id INTEGER PRIMARY KEY, c1, c2, c3, c4, c5)", ta.root()},
                           {"b", "CREATE TABLE b (c0, c1, c2, c3, c4, c5, c6)", tb.root()}},
                          &error))
      << error;

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  EXPECT_EQ(query(db, "pragma integrity_check"), "ok\n");
  // Every row, every value, in rowid order.
  auto expected = [](const Rows& r, bool first_is_rowid) {
    std::string out;
    for (size_t i = 0; i < r.rowids.size(); ++i) {
      out += std::to_string(r.rowids[i]);
      for (size_t k = first_is_rowid ? 1 : 0; k < r.values[i].size(); ++k) out += "|" + quoted(r.values[i][k]);
      out += "\n";
    }
    return out;
  };
  EXPECT_EQ(firstDifference(query(db, "select id, quote(c1), quote(c2), quote(c3), quote(c4), quote(c5) from a"),
                            expected(a, true)),
            "");
  EXPECT_EQ(firstDifference(query(db,
                                  "select rowid, quote(c0), quote(c1), quote(c2), quote(c3), quote(c4), "
                                  "quote(c5), quote(c6) from b"),
                            expected(b, false)),
            "");
  // Look-ups by rowid go down the interior pages: each finds its row, and
  // a rowid in a gap finds none.
  for (int k = 0; k < 50 && !a.rowids.empty(); ++k) {
    const size_t i = rng() % a.rowids.size();
    EXPECT_EQ(query(db, "select id from a where id = " + std::to_string(a.rowids[i])),
              std::to_string(a.rowids[i]) + "\n");
    if (i + 1 < a.rowids.size() && a.rowids[i + 1] > a.rowids[i] + 1) {
      EXPECT_EQ(query(db, "select id from a where id = " + std::to_string(a.rowids[i] + 1)), "");
    }
  }
  // SQLite writes on: new tables, rows at both ends of ours.
  EXPECT_EQ(query(db,
                  "begin; create table more (x); insert into more values (1); insert into a (id, c1) values "
                  "(-5, 'first'); insert into b values (1, 2, 3, 4, 5, 6, 7); commit;"),
            "");
  EXPECT_EQ(query(db, "pragma integrity_check"), "ok\n");
  EXPECT_EQ(query(db, "select count(*) from a"), std::to_string(c.rows_a + 1) + "\n");
  EXPECT_EQ(query(db, "select count(*) from b"), std::to_string(c.rows_b + 1) + "\n");
  sqlite3_close(db);
  ::unlink(path.c_str());
}

TEST(SqliteBulk, TablesReadBackWholeThroughSqlite) {
  // Empty tables, tables of one leaf, and deep ones: at 512-byte pages an
  // interior page holds at most 34 children, so 20 000 rows take three
  // levels above the leaves.
  for (const Case& c :
       {Case{512, 0, 0}, Case{512, 1, 3}, Case{512, 20000, 7000}, Case{4096, 30000, 100}, Case{65536, 3000, 20000}})
    writeAndCheck(c);
}

TEST(SqliteBulk, ThePageOfTheLockByteIsLeftUnused) {
  // SQLite's lock byte moved to 128 KiB: at 512-byte pages, page 257 is
  // the one no b-tree may use. (An unmoved byte makes the check fail:
  // "2nd reference to page 257".)
  ASSERT_EQ(sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, 0x20000), File::kLockByte);
  writeAndCheck(Case{512, 5000, 5000}, 0x20000);
}

TEST(SqliteBulk, ARowTooBigForAPageIsRefused) {
  const std::string path = tempPath("big.sqlite");
  ::unlink(path.c_str());
  File file;
  std::string error;
  ASSERT_TRUE(file.create(path, 512, &error)) << error;
  Table t(file);
  const std::string text(600, 'x');
  const Value v[] = {Value::of(text)};
  EXPECT_FALSE(t.add(1, v, 1, &error));
  EXPECT_EQ(error, "a row of 603 bytes does not fit in a page");
  const Value small[] = {Value::of(int64_t{7})};
  ASSERT_TRUE(t.add(5, small, 1, &error)) << error;
  EXPECT_FALSE(t.add(5, small, 1, &error));
  EXPECT_EQ(error, "rows out of rowid order");
  // An existing file is never written over.
  File again;
  EXPECT_FALSE(again.create(path, 512, &error));
  EXPECT_EQ(error, "File exists");
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace radar::exporting::bulk
