// radar export --parquet, read back by DuckDB (a reader radar shares no
// code with, from the npm registry: tests/bootstrap.sh installs it) and
// compared with the SQLite database of the same recording, row for row.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

#include "export/parquet.h"
#include "export/parquet_export.h"
#include "export/text.h"
#include "recorded.h"

namespace radar::testing {
namespace {

// ---- DuckDB and SQLite, each answering in one form ----------------------------------------------

std::string hex(std::string_view s) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

struct Answer {
  std::string error;              // DuckDB refused the query
  std::string columns;            // comma-separated names
  std::vector<std::string> rows;  // a row: each value "N" or "S" + hex of its text, spaces between
};

std::string duckdbDir() {
  if (const char* d = std::getenv("RADAR_DUCKDB")) return d;
  return std::string(std::getenv("HOME") ? std::getenv("HOME") : "/root") + "/.cache/radar/duckdb";
}

// Why DuckDB cannot be asked here, or "".
std::string noDuckdb() {
  if (shell("command -v node >/dev/null").exit_code != 0) return "node is not installed (apt-get install nodejs)";
  if (!std::filesystem::exists(duckdbDir() + "/node_modules/@duckdb/node-api"))
    return "DuckDB is not installed in " + duckdbDir() + " (tests/bootstrap.sh installs it with npm)";
  return "";
}

std::vector<Answer> duckdb(const std::vector<std::string>& queries) {
  std::string input;
  for (const auto& q : queries) input += q + "\n";
  const Result r = shell("node " + shellQuote(DUCKDB_READ) + " " + shellQuote(duckdbDir()), input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<Answer> answers;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("#error ", 0) == 0) {
      answers.push_back({line.substr(7), "", {}});
    } else if (line.rfind("#ok ", 0) == 0) {
      const auto space = line.find(' ', 4);
      answers.push_back({"", space == std::string::npos ? "" : line.substr(space + 1), {}});
    } else if (!answers.empty()) {
      answers.back().rows.push_back(line);
    }
  }
  EXPECT_EQ(answers.size(), queries.size()) << r.out << r.err;
  answers.resize(queries.size());
  return answers;
}

Answer sqlite(const std::string& db, const std::string& query) {
  Answer a;
  sqlite3* h = nullptr;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(h, query.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    a.error = sqlite3_errmsg(h);
  } else {
    for (int c = 0; c < sqlite3_column_count(s); ++c)
      a.columns += (c ? "," : "") + std::string(sqlite3_column_name(s, c));
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        row += c ? " " : "";
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
        row += sqlite3_column_type(s, c) == SQLITE_NULL ? "N" : "S" + hex(text ? text : "");
      }
      a.rows.push_back(row);
    }
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  return a;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// A table of every kind of column, written and read back.
struct Table {
  std::vector<exporting::parquet::Column> columns;
  std::vector<std::vector<std::optional<std::string>>> cells;  // as texts; integers in decimal
  std::vector<std::string> expected;                           // each row as DuckDB should give it
};

// What a text column holds after validUtf8, said without its code.
const std::pair<std::string, std::string> kBadTexts[] = {
    {"\xff", "\xef\xbf\xbd"},
    {"a\xc3", "a\xef\xbf\xbd"},
    {"\xed\xa0\x80z", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"},  // a surrogate's three bytes
    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                    // an overlong '/'
    {"ok \xe2\x82\xac \xf0\x9d\x84\x9e", "ok \xe2\x82\xac \xf0\x9d\x84\x9e"},
};

Table generatedTable(size_t rows) {
  Table t;
  t.columns = {{"seq", false}, {"random", false}, {"constant", false}, {"none", false},
               {"few", true},  {"unique", true},  {"bad", true}};
  std::mt19937_64 random(42);
  const int64_t extremes[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
  const char* const few[] = {"send", "receive", "channel", "process", ""};
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::optional<std::string>> row(7), shown(7);
    row[0] = std::to_string(1000 + 3 * r);
    if (random() % 5) row[1] = std::to_string(r % 97 == 0 ? extremes[r / 97 % 5] : int64_t(random()));
    row[2] = "7";
    if (random() % 7) row[4] = few[random() % 5];
    row[5] = r % 11 == 0 ? std::string() : "row \"" + std::to_string(r) + "\",\n\xc3\xa9" + std::to_string(random());
    const auto& [bad, valid] = kBadTexts[r % 5];
    row[6] = bad;
    shown = row;
    shown[6] = valid;
    std::string line;
    for (size_t c = 0; c < shown.size(); ++c) line += (c ? " " : "") + (shown[c] ? "S" + hex(*shown[c]) : "N");
    t.cells.push_back(row);
    t.expected.push_back(line);
  }
  return t;
}

void write(const Table& t, const std::string& path, size_t rows_per_group) {
  exporting::parquet::Writer w(t.columns, rows_per_group);
  std::string error;
  ASSERT_TRUE(w.open(path, &error)) << error;
  for (const auto& cells : t.cells) {
    std::vector<exporting::Value> row;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (!cells[c])
        row.push_back({});
      else if (t.columns[c].text)
        row.push_back(exporting::Value::of(std::string_view(*cells[c])));
      else
        row.push_back(exporting::Value::of(int64_t(std::stoll(*cells[c]))));
    }
    ASSERT_TRUE(w.add(row.data(), &error)) << error;
  }
  ASSERT_TRUE(w.finish({{"made.by", "parquet_test"}}, &error)) << error;
  EXPECT_EQ(w.rows(), t.cells.size());
}

TEST(ParquetWriter, RowGroupsEncodingsAndStatisticsReadBackByDuckdb) {
  if (const std::string no = noDuckdb(); !no.empty()) GTEST_SKIP() << no;
  const std::string file = testTempDir() + "/t.parquet";
  const Table t = generatedTable(2500);
  write(t, file, 1000);
  const auto a = duckdb({"select * from read_parquet('" + file + "') order by seq",
                         "select row_group_id, path_in_schema, encodings, stats_min_value, stats_max_value, "
                         "stats_null_count, row_group_num_rows from parquet_metadata('" +
                             file + "') order by row_group_id, column_id",
                         "select value from parquet_kv_metadata('" + file + "') where key = 'made.by'"});
  ASSERT_EQ(a[0].error, "");
  EXPECT_EQ(a[0].columns, "seq,random,constant,none,few,unique,bad");
  EXPECT_EQ(a[0].rows, t.expected);
  // Three row groups of 1000, 1000, 500 rows; the encoding each column's
  // values call for; each chunk's own minimum, maximum and null count.
  ASSERT_EQ(a[1].error, "");
  ASSERT_EQ(a[1].rows.size(), 3u * 7);
  auto field = [&](size_t group, size_t column, size_t k) {
    std::istringstream in(a[1].rows[group * 7 + column]);
    std::string v;
    for (size_t i = 0; i <= k; ++i) in >> v;
    return v;
  };
  const char* const encodings[] = {
      "DELTA_BINARY_PACKED, RLE",   "PLAIN, RLE", "DELTA_BINARY_PACKED, RLE",  "PLAIN, RLE",
      "PLAIN, RLE, RLE_DICTIONARY", "PLAIN, RLE", "PLAIN, RLE, RLE_DICTIONARY"};
  for (size_t g = 0; g < 3; ++g) {
    const size_t first = g * 1000, last = std::min<size_t>(2500, first + 1000) - 1;
    EXPECT_EQ(field(g, 0, 6), "S" + hex(std::to_string(last - first + 1)));
    for (size_t c = 0; c < 7; ++c) EXPECT_EQ(field(g, c, 2), "S" + hex(encodings[c])) << "column " << c;
    EXPECT_EQ(field(g, 0, 3), "S" + hex(*t.cells[first][0]));
    EXPECT_EQ(field(g, 0, 4), "S" + hex(*t.cells[last][0]));
    size_t nulls = 0;
    for (size_t r = first; r <= last; ++r) nulls += !t.cells[r][1];
    EXPECT_EQ(field(g, 1, 5), "S" + hex(std::to_string(nulls)));
    EXPECT_EQ(field(g, 3, 3), "N");  // all null: no minimum
    EXPECT_EQ(field(g, 3, 5), "S" + hex(std::to_string(last - first + 1)));
    EXPECT_EQ(field(g, 4, 3), "S");  // the empty text is the least
    EXPECT_EQ(field(g, 4, 4), "S" + hex("send"));
  }
  EXPECT_EQ(a[2].rows, std::vector<std::string>{"S" + hex("parquet_test")});
}

// a + b as the writer's arithmetic does it: modulo 2^64 (no overflow).
int64_t wrapping(int64_t a, uint64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + b); }

// A random table: columns of random kinds (runs, small and huge deltas,
// wrapping ones, few and many distinct texts, nulls at any rate), as many
// rows as `rows`, and the rows as DuckDB should give them.
Table randomTable(std::mt19937_64& random, size_t rows) {
  Table t;
  const size_t columns = 1 + random() % 6;
  std::vector<int> kind(columns);
  for (size_t c = 0; c < columns; ++c) {
    kind[c] = static_cast<int>(random() % 6);
    t.columns.push_back({"c" + std::to_string(c), kind[c] >= 4});
  }
  std::vector<int64_t> last(columns, static_cast<int64_t>(random()));
  std::vector<unsigned> null_rate(columns);
  for (auto& r : null_rate) r = static_cast<unsigned>(random() % 4 == 0 ? 0 : random() % 100);
  for (size_t r = 0; r < rows; ++r) {
    std::vector<std::optional<std::string>> row(columns);
    std::string line;
    for (size_t c = 0; c < columns; ++c) {
      if (random() % 100 < null_rate[c]) {
        line += (c ? " N" : "N");
        continue;
      }
      int64_t v = 0;
      switch (kind[c]) {
        case 0:  // small steps
          v = last[c] = wrapping(last[c], random() % 3);
          break;
        case 1:  // jumps, wrapping past the ends
          v = last[c] = wrapping(last[c], random() % 5 == 0 ? random() : random() % 1000);
          break;
        case 2:
          v = static_cast<int64_t>(random());
          break;  // anything
        case 3:
          v = random() % 2 ? INT64_MIN + static_cast<int64_t>(random() % 3)
                           : INT64_MAX - static_cast<int64_t>(random() % 3);
          break;
        default:
          break;
      }
      std::string text = kind[c] < 4    ? std::to_string(v)
                         : kind[c] == 4 ? std::string(1 + random() % 3, static_cast<char>('a' + random() % 4))
                                        : "t" + std::to_string(random() % (rows + 1));
      row[c] = text;
      line += (c ? " S" : "S") + hex(text);
    }
    t.cells.push_back(row);
    t.expected.push_back(line);
  }
  return t;
}

// Forty random tables, each in row groups of a random size (one row to
// more than the table), read back whole by DuckDB in one session.
TEST(ParquetWriter, RandomTablesReadBackWhole) {
  if (const std::string no = noDuckdb(); !no.empty()) GTEST_SKIP() << no;
  const std::string dir = testTempDir();
  std::mt19937_64 random(7);
  std::vector<Table> tables;
  std::vector<std::string> queries;
  for (int k = 0; k < 40; ++k) {
    const size_t rows = k % 8 == 0 ? random() % 3 : random() % 3000;
    tables.push_back(randomTable(random, rows));
    const std::string file = dir + "/t" + std::to_string(k) + ".parquet";
    write(tables.back(), file, 1 + random() % (rows + 10));
    queries.push_back("select * from read_parquet('" + file + "')");
  }
  const auto answers = duckdb(queries);
  for (size_t k = 0; k < tables.size(); ++k) {
    ASSERT_EQ(answers[k].error, "") << "table " << k;
    EXPECT_EQ(answers[k].rows, tables[k].expected) << "table " << k << " (" << tables[k].cells.size() << " rows)";
  }
}

TEST(ParquetWriter, AnEmptyTableIsAFileWithItsColumns) {
  if (const std::string no = noDuckdb(); !no.empty()) GTEST_SKIP() << no;
  const std::string file = testTempDir() + "/empty.parquet";
  Table t = generatedTable(0);
  write(t, file, 1000);
  const auto a = duckdb({"select * from read_parquet('" + file + "')"});
  EXPECT_EQ(a[0].error, "");
  EXPECT_EQ(a[0].columns, "seq,random,constant,none,few,unique,bad");
  EXPECT_TRUE(a[0].rows.empty());
}

TEST(ParquetWriter, TextIsMadeValidUtf8ByteByByte) {
  for (const auto& [bad, valid] : kBadTexts) {
    EXPECT_EQ(exporting::validUtf8(bad), valid);
    EXPECT_EQ(exporting::isValidUtf8(bad), bad == valid);
  }
  EXPECT_TRUE(exporting::isValidUtf8(""));
  EXPECT_FALSE(exporting::isValidUtf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
}

TEST(ParquetWriter, AFileNeverFinishedIsRemovedAndAnExistingOneKept) {
  const std::string dir = testTempDir();
  std::string error;
  {
    exporting::parquet::Writer w({{"a", false}});
    ASSERT_TRUE(w.open(dir + "/half.parquet", &error)) << error;
    const exporting::Value v = exporting::Value::of(int64_t{1});
    ASSERT_TRUE(w.add(&v, &error));
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/half.parquet"));
  std::ofstream(dir + "/there.parquet") << "mine";
  exporting::parquet::Writer w({{"a", false}});
  EXPECT_FALSE(w.open(dir + "/there.parquet", &error));
  EXPECT_EQ(error, "cannot make " + dir + "/there.parquet: File exists");
  std::ifstream in(dir + "/there.parquet");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "mine");
}

// ---- radar export --parquet --------------------------------------------------------------------

const char* const kTables[] = {"recording", "processes", "arguments", "threads",
                               "channels",  "findings",  "events",    "messages"};

// Where DuckDB reads a table of the export in `dir`.
std::string source(const std::string& dir, const std::string& table) {
  if (table == "events" || table == "messages")
    return "read_parquet('" + dir + "/" + table + "/*/*/*.parquet', hive_partitioning = false)";
  return "read_parquet('" + dir + "/" + table + ".parquet')";
}

// How a table of the export differs from the database's, or "".
std::string tableDiffers(const std::string& db, const std::string& dir, const std::string& table) {
  const Answer expected = sqlite(db, "select * from " + table);
  if (!expected.error.empty()) return "SQLite: " + expected.error;
  std::string names = expected.columns;
  std::replace(names.begin(), names.end(), ',', ' ');
  std::string list;
  for (std::istringstream in(names); in >> names;) list += (list.empty() ? "\"" : ", \"") + names + "\"";
  const auto a =
      duckdb({"select * from " + source(dir, table) + " limit 0", "select " + list + " from " + source(dir, table)});
  if (!a[0].error.empty() || !a[1].error.empty()) return "DuckDB: " + a[0].error + a[1].error;
  if (a[0].columns != expected.columns) return "columns " + a[0].columns + " where SQLite has " + expected.columns;
  const auto got = sorted(a[1].rows), want = sorted(expected.rows);
  std::vector<std::string> only;
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(only));
  if (!only.empty() || got.size() != want.size())
    return std::to_string(only.size()) + " of " + std::to_string(got.size()) + " rows not in SQLite's " +
           std::to_string(want.size());
  return "";
}

struct Exported {
  Recording rec;
  std::string db, dir;
};

// A recording with sockets, pipes, a fork and exec per command, and a
// finding (bytes nobody read), exported both ways.
Exported exported(const std::string& work) {
  Exported e;
  e.rec = record({"/bin/sh", "-c", std::string(HTTP_PAIR) + " " + work + "/http.sock; seq 1 20000 | head -1"});
  EXPECT_EQ(e.rec.exit_code, 0) << e.rec.err;
  e.db = work + "/run.sqlite", e.dir = work + "/run.parquet";
  const Result r = radar({"export", "--sqlite", e.db, "--parquet", e.dir, e.rec.dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("radar export: " + e.dir + ": "), std::string::npos) << r.err;
  return e;
}

TEST(ExportParquet, EveryTableEqualsTheSqliteDatabaseRowForRow) {
  if (const std::string no = noDuckdb(); !no.empty()) GTEST_SKIP() << no;
  const Exported e = exported(testTempDir());
  for (const char* table : kTables) EXPECT_EQ(tableDiffers(e.db, e.dir, table), "") << table;
  const auto counts = sqlite(e.db,
                             "select (select count(*) from events), (select count(*) from messages), "
                             "(select count(*) from findings), (select count(*) from processes)");
  ASSERT_EQ(counts.rows.size(), 1u);
  EXPECT_EQ(counts.rows[0].find("S30"), std::string::npos) << "a table is empty: " << counts.rows[0];
  // Split by host and process: each file holds its own process's events,
  // and the messages its process sent; Hive's layout gives the host.
  const std::string events = e.dir + "/events/*/*/*.parquet", messages = e.dir + "/messages/*/*/*.parquet";
  const auto a =
      duckdb({"select count(*) from read_parquet('" + events +
                  "', hive_partitioning = false, filename = true) "
                  "where filename not like '%/process=' || process || '/part-0.parquet'",
              "select count(*) from read_parquet('" + messages +
                  "', hive_partitioning = false, filename = true) m "
                  "join " +
                  source(e.dir, "events") +
                  " e on e.event = m.send "
                  "where m.filename not like '%/process=' || e.process || '/part-0.parquet'",
              "select distinct host from read_parquet('" + e.dir + "/events/**/*.parquet', hive_partitioning = true)"});
  EXPECT_EQ(a[0].rows, std::vector<std::string>{"S30"}) << a[0].error;
  EXPECT_EQ(a[1].rows, std::vector<std::string>{"S30"}) << a[1].error;
  EXPECT_EQ(a[2].rows, sqlite(e.db, "select distinct host from processes").rows) << a[2].error;
}

TEST(ExportParquet, APlantedErrorIsCaught) {
  if (const std::string no = noDuckdb(); !no.empty()) GTEST_SKIP() << no;
  const Exported e = exported(testTempDir());
  // A file cut short by one byte: DuckDB refuses it.
  const std::string one = e.dir + "/events/" +
                          std::filesystem::directory_iterator(e.dir + "/events")->path().filename().string() +
                          "/process=1/part-0.parquet";
  ASSERT_TRUE(std::filesystem::exists(one));
  std::filesystem::resize_file(one, std::filesystem::file_size(one) - 1);
  EXPECT_NE(tableDiffers(e.db, e.dir, "events").find("DuckDB: "), std::string::npos);
  // One channel's name written otherwise: the comparison sees it.
  Table channels;
  channels.columns = {{"channel", false}, {"name", true}, {"type", true}, {"external", false}, {"external_peer", true}};
  const Answer rows = sqlite(e.db,
                             "select channel, name || case when channel = 2 then '!' else '' end, type, "
                             "external, external_peer from channels");
  for (const std::string& line : rows.rows) {
    std::vector<std::optional<std::string>> cells;
    std::istringstream in(line);
    for (std::string v; in >> v;) {
      std::string text;
      for (size_t k = 1; k + 1 < v.size(); k += 2) text += static_cast<char>(std::stoi(v.substr(k, 2), nullptr, 16));
      cells.push_back(v == "N" ? std::nullopt : std::optional<std::string>(text));
    }
    channels.cells.push_back(cells);
  }
  std::filesystem::remove(e.dir + "/channels.parquet");
  write(channels, e.dir + "/channels.parquet", 1000);
  const std::string n = std::to_string(rows.rows.size());
  EXPECT_EQ(tableDiffers(e.db, e.dir, "channels"), "1 of " + n + " rows not in SQLite's " + n);
}

TEST(ExportParquet, ABadDestinationGetsAClearErrorAndLeavesNothing) {
  const std::string work = testTempDir();
  Recording rec = record({"/bin/sh", "-c", "echo hi | cat"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string taken = work + "/taken";
  std::filesystem::create_directories(taken);
  std::ofstream(taken + "/mine") << "mine";
  Result r = radar({"export", "--parquet", taken, rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "radar export: " + taken + " exists and is not empty: remove it or name another\n");
  r = radar({"export", "--parquet", work + "/no/such/out", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "radar export: cannot make a directory beside " + work + "/no/such/out: No such file or directory\n");
  r = radar({"export", "--parquet", "-", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--parquet: give a directory, not '-'"), std::string::npos) << r.err;
  // A full disk (a file size limit): the system's words, nothing left.
  r = shell("bash -c " + shellQuote("trap '' XFSZ; ulimit -f 1; exec " + shellQuote(radarPath()) +
                                    " export --parquet " + shellQuote(work + "/full") + " " + shellQuote(rec.dir)));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(work)) left.push_back(entry.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"taken"});  // nothing half made beside it
  // A link is not written through, even to an empty directory.
  std::filesystem::create_directories(work + "/empty");
  std::filesystem::create_directory_symlink(work + "/empty", work + "/link");
  r = radar({"export", "--parquet", work + "/link", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "radar export: " + work + "/link is a symbolic link: name a new directory\n");
  std::filesystem::remove(work + "/link");
  // An empty directory is taken; a name ending in '/' (as completion
  // leaves it) names the directory, not a file inside it.
  r = radar({"export", "--parquet", work + "/empty/", rec.dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(work + "/empty/processes.parquet"));
  r = radar({"export", "--parquet", work + "/new/", rec.dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(work + "/new/processes.parquet"));
}

}  // namespace
}  // namespace radar::testing
