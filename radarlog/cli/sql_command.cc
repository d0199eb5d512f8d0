// `radar sql DIR... [QUERY]`: the recording as an SQLite database, queried
// with one statement or in a shell (the sqlite3 shell's conventions).
#include <dirent.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "cli/output_file.h"
#include "cli/progress.h"
#include "export/database.h"
#include "export/event_table.h"

namespace radar::cli {

const char kSqlHelp[] =
    "usage: radar sql [OPTIONS] DIR... [QUERY]\n\n"
    "Queries a recording as an SQLite database: tables processes, arguments,\n"
    "threads, channels, events, messages, findings; views queue_lengths, waits,\n"
    "time_blocked, last_sends; functions contents(event) and text(event)\n"
    "(docs/queries.md). With a QUERY, prints its result; without, reads\n"
    "statements and the sqlite3 shell's .tables, .schema, .mode and .quit from\n"
    "standard input. The database is made once and kept in ~/.cache/radar/sql\n"
    "(or $XDG_CACHE_HOME) until the logs change.\n"
    "\n"
    "  --format F        table (the default), csv, json (an array of objects) or\n"
    "                    jsonl (an object a line)\n"
    "  --json            the same as --format json, as in radar's other commands\n"
    "  --no-cache        make the database afresh, and keep none\n" RADAR_NET_HELP RADAR_MERGE_HELP
    "\n"
    "Exit status: 0; 2 when the recording cannot be read, an option is wrong or\n"
    "a statement fails.\n";

const OptionSpec kSqlOptionList[] = {
    {"format", 0, "F"},   {"json", 0, nullptr, InUsage::kOr}, {"no-cache", 0, nullptr}, kNetOption, kNoNetOption,
    kMergeUnrelatedOption};
const std::span<const OptionSpec> kSqlOptions{kSqlOptionList};

namespace {

enum class Format { Table, Csv, Json, Jsonl };

bool parseFormat(const std::string& s, Format* out) {
  if (s == "table")
    *out = Format::Table;
  else if (s == "csv")
    *out = Format::Csv;
  else if (s == "json")
    *out = Format::Json;
  else if (s == "jsonl")
    *out = Format::Jsonl;
  else
    return false;
  return true;
}

bool isDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// FNV-1a, 64 bits: a name for the cache, not a defence.
struct Hash {
  uint64_t h = 1469598103934665603ull;
  void add(const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  }
  void add(const std::string& s) { add(s.data(), s.size() + 1); }
  void add(int64_t v) { add(&v, sizeof v); }
};

// What the database depends on: radar's and the schema's versions, the
// description chosen, whether unrelated recordings may merge, and each log of each directory by name, size, time
// and inode. Empty when a directory cannot be read.
std::string cacheKey(const std::vector<std::string>& dirs, const NetChoice& net, bool merge_unrelated) {
  Hash h;
  h.add(int64_t{merge_unrelated});
  h.add(std::string(RADAR_VERSION));
  h.add(int64_t{exporting::kDatabaseVersion});
  h.add(net.path);
  h.add(int64_t{net.carried});
  auto addFile = [&](const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return false;
    h.add(path);
    h.add(static_cast<int64_t>(st.st_size));
    h.add(static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
    h.add(static_cast<int64_t>(st.st_ino));
    return true;
  };
  if (!net.path.empty() && !addFile(net.path)) return "";
  for (const auto& dir : dirs) {
    char real[PATH_MAX];
    if (!::realpath(dir.c_str(), real)) return "";
    DIR* d = ::opendir(real);
    if (!d) return "";
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
      if (!addFile(std::string(real) + "/" + n)) return "";
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.h));
  return hex;
}

// ~/.cache/radar/sql (made private), or "" when there is no such place.
std::string cacheDirectory() {
  std::string base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/')
    base = x;
  else if (const char* home = std::getenv("HOME"); home && home[0] == '/')
    base = std::string(home) + "/.cache";
  else
    return "";
  for (const std::string& d : {base, base + "/radar", base + "/radar/sql"})
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) return "";
  struct stat st;
  const std::string dir = base + "/radar/sql";
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) return "";
  return dir;
}

bool schemaIsCurrent(sqlite3* db) {
  sqlite3_stmt* s = nullptr;
  bool ok = sqlite3_prepare_v2(db, "select value from recording where key = 'schema_version'", -1, &s, nullptr) ==
                SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) == exporting::kDatabaseVersion;
  sqlite3_finalize(s);
  return ok;
}

// A value as text for people (table), CSV or JSON.
std::string valueText(sqlite3_stmt* s, int c) {
  switch (sqlite3_column_type(s, c)) {
    case SQLITE_NULL:
      return "";
    case SQLITE_FLOAT: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.15g", sqlite3_column_double(s, c));
      return buf;
    }
    default: {
      const void* p = sqlite3_column_blob(s, c);
      return std::string(static_cast<const char*>(p ? p : ""), static_cast<size_t>(sqlite3_column_bytes(s, c)));
    }
  }
}

// Column widths in characters, not bytes: UTF-8 continuation bytes do not count.
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

class Printer {
 public:
  explicit Printer(Format f) : format_(f) {}
  Format format_;

  // Runs every statement of `sql`; false (after printing why) at the first
  // that fails.
  bool run(sqlite3* db, const std::string& sql) {
    const char* at = sql.c_str();
    while (*at) {
      sqlite3_stmt* s = nullptr;
      const char* tail = nullptr;
      if (sqlite3_prepare_v2(db, at, -1, &s, &tail) != SQLITE_OK) {
        std::fprintf(stderr, "radar sql: %s\n", sqlite3_errmsg(db));
        return false;
      }
      at = tail;
      if (!s) continue;  // blanks or a comment
      const bool ok = print(db, s);
      sqlite3_finalize(s);
      if (!ok) return false;
    }
    return true;
  }

 private:
  bool print(sqlite3* db, sqlite3_stmt* s) {
    const int n = sqlite3_column_count(s);
    std::vector<std::string> names;
    for (int c = 0; c < n; ++c) names.push_back(sqlite3_column_name(s, c));
    std::vector<std::vector<std::string>> table;  // the table format lines columns up
    std::vector<bool> numeric(n, true);
    bool first = true;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < n; ++c) row.push_back(valueText(s, c));
      if (format_ == Format::Table) {
        for (int c = 0; c < n; ++c) {
          const int type = sqlite3_column_type(s, c);
          if (type == SQLITE_TEXT || type == SQLITE_BLOB) numeric[c] = false;
          row[c] = terminalSafe(row[c]);
        }
        table.push_back(std::move(row));
        continue;
      }
      if (format_ == Format::Csv) {
        if (first)
          for (int c = 0; c < n; ++c) std::printf("%s%s", c ? "," : "", exporting::csvField(names[c]).c_str());
        if (first) std::fputs("\r\n", stdout);
        for (int c = 0; c < n; ++c) std::printf("%s%s", c ? "," : "", exporting::csvField(row[c]).c_str());
        std::fputs("\r\n", stdout);
      } else {
        std::fputs(format_ == Format::Json ? (first ? "[{" : ",\n{") : "{", stdout);
        for (int c = 0; c < n; ++c) {
          std::printf("%s%s:", c ? "," : "", jsonString(names[c]).c_str());
          const int type = sqlite3_column_type(s, c);
          if (type == SQLITE_NULL)
            std::fputs("null", stdout);
          else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
            std::fputs(row[c].c_str(), stdout);
          else
            std::fputs(jsonString(row[c]).c_str(), stdout);
        }
        std::fputs(format_ == Format::Json ? "}" : "}\n", stdout);
      }
      first = false;
    }
    if (rc != SQLITE_DONE) {
      std::fprintf(stderr, "radar sql: %s\n", sqlite3_errmsg(db));
      return false;
    }
    if (format_ == Format::Json && !first) std::fputs("]\n", stdout);
    if (format_ == Format::Table && n) printTable(names, table, numeric);
    return true;
  }

  static void printTable(const std::vector<std::string>& names, const std::vector<std::vector<std::string>>& rows,
                         const std::vector<bool>& numeric) {
    std::vector<size_t> w(names.size());
    for (size_t c = 0; c < names.size(); ++c) {
      w[c] = width(names[c]);
      for (const auto& r : rows) w[c] = std::max(w[c], width(r[c]));
    }
    auto line = [&](const std::vector<std::string>& cells, bool header) {
      std::string out;
      for (size_t c = 0; c < cells.size(); ++c) {
        const std::string pad(w[c] - width(cells[c]), ' ');
        const bool right = numeric[c] && !header;
        out += (c ? "  " : "") + (right ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : ""));
      }
      std::printf("%s\n", out.c_str());
    };
    line(names, true);
    std::string rule;
    for (size_t c = 0; c < names.size(); ++c) rule += (c ? "  " : "") + std::string(w[c], '-');
    std::printf("%s\n", rule.c_str());
    for (const auto& r : rows) line(r, false);
  }
};

// The sqlite3 shell's dot commands radar knows. False: `.quit`.
bool dotCommand(sqlite3* db, const std::string& line, Printer* printer, bool* failed) {
  std::vector<std::string> words;
  for (size_t at = 0; at < line.size();) {
    const size_t start = line.find_first_not_of(" \t", at);
    if (start == std::string::npos) break;
    const size_t end = line.find_first_of(" \t", start);
    words.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    at = end == std::string::npos ? line.size() : end;
  }
  const std::string& cmd = words[0];
  if (cmd == ".quit" || cmd == ".exit") return false;
  if (cmd == ".tables") {
    Printer names(Format::Csv);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "select name from sqlite_schema where type in ('table', 'view') order by name", -1, &s,
                       nullptr);
    std::string all;
    while (sqlite3_step(s) == SQLITE_ROW) all += std::string(all.empty() ? "" : "  ") + valueText(s, 0);
    sqlite3_finalize(s);
    std::printf("%s\n", all.c_str());
  } else if (cmd == ".schema") {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "select sql from sqlite_schema where sql is not null and (?1 is null or name = ?1)", -1, &s,
                       nullptr);
    if (words.size() > 1) sqlite3_bind_text(s, 1, words[1].c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(s) == SQLITE_ROW) std::printf("%s;\n", valueText(s, 0).c_str());
    sqlite3_finalize(s);
  } else if (cmd == ".mode" && words.size() == 2 && parseFormat(words[1], &printer->format_)) {
  } else if (cmd == ".help") {
    std::printf(
        ".tables          the tables and views\n"
        ".schema [NAME]   how they are made\n"
        ".mode MODE       table, csv, json or jsonl\n"
        ".quit            leave\n");
  } else {
    std::fprintf(stderr, "radar sql: unknown command or wrong arguments: %s (see .help)\n", line.c_str());
    *failed = true;
  }
  return true;
}

// Statements from standard input until its end or .quit.
bool shellLoop(sqlite3* db, Printer* printer) {
  const bool interactive = ::isatty(0);
  bool failed = false;
  std::string buffer, line;
  if (interactive) std::printf("radar sql: enter SQL statements ending in ';', .help, or .quit\n");
  while (true) {
    if (interactive) {
      std::fputs(buffer.empty() ? "radar> " : "   ...> ", stdout);
      std::fflush(stdout);
    }
    if (!std::getline(std::cin, line)) break;
    if (buffer.empty() && !line.empty() && line[0] == '.') {
      if (!dotCommand(db, line, printer, &failed)) break;
      continue;
    }
    buffer += line + "\n";
    if (!sqlite3_complete(buffer.c_str())) continue;
    if (!printer->run(db, buffer)) failed = true;
    buffer.clear();
    std::fflush(stdout);
  }
  if (!buffer.empty() && buffer.find_first_not_of(" \t\n") != std::string::npos && !printer->run(db, buffer))
    failed = true;
  return !failed || interactive;
}

}  // namespace

namespace {

// The cached database of a recording, when it is there and current.
sqlite3* openCached(const std::string& path) {
  sqlite3* db = nullptr;
  if (path.empty() || ::access(path.c_str(), R_OK) != 0) return nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK || !schemaIsCurrent(db)) {
    sqlite3_close(db);
    return nullptr;
  }
  return db;
}

// A new database of the trace at `path` (a temporary one, gone when
// closed, when there is no cache), opened read-only; null after saying why.
sqlite3* makeDatabase(const trace::Trace& t, std::string path) {
  bool temporary = false;
  if (path.empty()) {
    char name[] = "/tmp/radar-sql-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) {
      std::fprintf(stderr, "radar sql: cannot make a temporary database: %s\n", std::strerror(errno));
      return nullptr;
    }
    ::close(fd);
    path = std::string(name) + ".sqlite";
    ::unlink(name);
    temporary = true;
  }
  exporting::DatabaseOptions options;
  options.radar_version = RADAR_VERSION;
  TerminalProgress shown("radar sql: building the database", "events");
  options.progress = [&](uint64_t done, uint64_t total) { shown.update(done, total); };
  std::string error;
  const bool made = writeThroughTemporary(
      path,
      [&](const std::string& partial, std::string* e) {
        ::unlink(partial.c_str());  // writeDatabase makes it
        if (exporting::writeDatabase(t, partial, options, nullptr, e)) return true;
        *e = "cannot write " + path + ": " + *e;
        return false;
      },
      &error);
  shown.finish();
  if (!made) {
    std::fprintf(stderr, "radar sql: %s\n", error.c_str());
    return nullptr;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "radar sql: cannot open %s: %s\n", path.c_str(), sqlite3_errmsg(db));
    sqlite3_close(db);
    return nullptr;
  }
  if (temporary) ::unlink(path.c_str());  // open: readable until closed
  return db;
}

}  // namespace

int runSql(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kSqlOptions)) return usageError("sql", args.error());
  std::vector<std::string> dirs = args.positional();
  if (dirs.empty()) return usageError("sql", "no recording given");
  std::string query;
  if (dirs.size() >= 2 && !isDirectory(dirs.back())) {
    query = dirs.back();
    dirs.pop_back();
  }
  Format format = Format::Table;
  if (args.has("json") && args.has("format")) return usageError("sql", "--json is --format json: give one of them");
  if (!parseFormat(args.has("json") ? "json" : args.value("format").value_or("table"), &format))
    return usageError("sql", "--format: expected table, csv, json or jsonl");
  const NetChoice net = netChoice(args);
  const bool merge_unrelated = args.has("merge-unrelated");

  // The trace, loaded when first needed: for a new database, or for the
  // contents() and text() of a cached one.
  Loaded loaded;
  bool load_failed = false;
  auto trace = [&](std::string* error) -> const trace::Trace* {
    if (!loaded && !load_failed) {
      loaded = loadForCommand("sql", dirs, net, merge_unrelated);
      load_failed = !loaded;
    }
    if (!loaded) *error = "the recording cannot be read";
    return loaded.trace.get();
  };

  const std::string key = args.has("no-cache") ? "" : cacheKey(dirs, net, merge_unrelated);
  const std::string cache = key.empty() ? "" : cacheDirectory();
  const std::string path = cache.empty() ? "" : cache + "/" + key + ".sqlite";
  sqlite3* db = openCached(path);
  if (!db) {
    std::string error;
    if (!trace(&error) || !(db = makeDatabase(*loaded.trace, path))) return kExitUsage;
  }
  std::string error;
  if (!exporting::addFunctions(db, trace, &error)) {
    std::fprintf(stderr, "radar sql: %s\n", error.c_str());
    sqlite3_close(db);
    return kExitUsage;
  }
  Printer printer(format);
  const bool ok = query.empty() ? shellLoop(db, &printer) : printer.run(db, query);
  sqlite3_close(db);
  return ok ? kExitOk : kExitUsage;
}

}  // namespace radar::cli
