#include "export/parquet_export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <thread>

#include "export/event_table.h"
#include "export/parquet.h"
#include "export/tables.h"

namespace radar::exporting {

namespace {

std::vector<parquet::Column> columnsOf(const TableSchema& schema) {
  std::vector<parquet::Column> columns;
  for (const TableColumn& c : schema.columns) columns.push_back({c.name, c.text});
  return columns;
}

std::vector<parquet::Column> eventColumns() {
  std::vector<parquet::Column> columns;
  for (int c = 0; c < kEventColumnCount; ++c)
    columns.push_back({eventColumn(c).name, std::string_view(eventColumn(c).sql_type) == "TEXT"});
  return columns;
}

// A process's events are spread over the story among other processes':
// each is fetched this many events ahead of its turn.
constexpr size_t kAhead = 16;
constexpr size_t kRowsPerGroup = size_t{1} << 19;

class Exporter {
 public:
  Exporter(const trace::Trace& t, const std::string& radar_version, ParquetCounts* counts)
      : t_(t), radar_version_(radar_version), counts_(counts) {}

  // The small tables, then events and messages on two threads (each
  // process's files are its own).
  bool run(const std::string& dir, std::string* error, const Progress& progress) {
    for (Table table :
         {Table::Recording, Table::Processes, Table::Arguments, Table::Threads, Table::Channels, Table::Findings})
      if (!smallTable(dir, table, error)) return false;
    std::atomic<bool> failed{false};
    std::string messages_error;
    std::thread other([&] {
      parquet::Writer w(columnsOf(schemaOf(Table::Messages)), kRowsPerGroup, createdBy());
      for (uint32_t p = 0; p < t_.processes.size() && !failed; ++p)
        if (!messages(dir, p, w, &messages_error)) failed = true;
    });
    parquet::Writer w(eventColumns(), kRowsPerGroup, createdBy());
    uint64_t done = 0;
    for (uint32_t p = 0; p < t_.processes.size() && !failed; ++p) {
      if (!events(dir, p, w, error)) failed = true;
      done += t_.processes[p].event_count;
      if (progress) progress(done, t_.events.size());
    }
    other.join();
    if (failed && error->empty()) *error = messages_error;
    counts_->files = files_;
    return !failed;
  }

 private:
  std::string createdBy() const { return "radar version " + radar_version_; }

  parquet::KeyValues metadata(const char* table) const {
    return {{"radar.table", table},
            {"radar.version", radar_version_},
            {"radar.schema_version", std::to_string(kDatabaseVersion)}};
  }

  bool smallTable(const std::string& dir, Table table, std::string* error) {
    const TableSchema& schema = schemaOf(table);
    parquet::Writer w(columnsOf(schema), kRowsPerGroup, createdBy());
    if (!w.open(dir + "/" + schema.name + ".parquet", error)) return false;
    if (!tableRows(t_, table, radar_version_, [&](const Value* row) { return w.add(row, error); })) return false;
    ++files_;
    return w.finish(metadata(schema.name), error);
  }

  // The directory of a process's part of a big table.
  std::string partition(const std::string& dir, const char* table, uint32_t p, std::string* error) const {
    const std::string at =
        dir + "/" + table + "/host=" + hivePartitionValue(t_.processes[p].host) + "/process=" + std::to_string(p + 1);
    std::error_code ec;
    std::filesystem::create_directories(at, ec);
    if (ec) *error = "cannot make " + at + ": " + ec.message();
    return ec ? "" : at;
  }

  // A process's events, with the writer of the thread that writes them.
  bool events(const std::string& dir, uint32_t p, parquet::Writer& w, std::string* error) {
    if (t_.process_events[p].empty()) return true;
    const std::string at = partition(dir, "events", p, error);
    if (at.empty() || !w.open(at + "/part-0.parquet", error)) return false;
    EventRows rows(t_);
    EventRow row;
    Value v[kEventColumnCount];
    const trace::EventList& mine = t_.process_events[p];
    for (size_t k = 0; k < mine.size(); ++k) {
      if (k + kAhead < mine.size()) __builtin_prefetch(&t_.events[mine[k + kAhead]]);
      rows.fill(mine[k], &row);
      row.values(v);
      if (!w.add(v, error)) return false;
    }
    counts_->events += w.rows(), ++files_;
    return w.finish(metadata("events"), error);
  }

  // The messages a process sent; no file when it sent none.
  bool messages(const std::string& dir, uint32_t p, parquet::Writer& w, std::string* error) {
    bool opened = false;  // at the process's first message
    const RowSink sink = [&](const Value* row) {
      if (!opened) {
        const std::string at = partition(dir, "messages", p, error);
        if (at.empty() || !w.open(at + "/part-0.parquet", error)) return false;
        opened = true;
      }
      return w.add(row, error);
    };
    const trace::EventList& mine = t_.process_events[p];
    for (size_t k = 0; k < mine.size(); ++k) {
      prefetchMessage(mine, k);
      if (!messageRowsOf(t_, mine[k], sink)) return false;
    }
    if (!opened) return true;
    counts_->messages += w.rows(), ++files_;
    return w.finish(metadata("messages"), error);
  }

  // What messageRowsOf reads of a send, fetched ahead in stages: its
  // event, then its first message's edge, then that edge's receive.
  void prefetchMessage(const trace::EventList& mine, size_t k) const {
    if (k + kAhead < mine.size()) __builtin_prefetch(&t_.events[mine[k + kAhead]]);
    if (k + kAhead / 2 < mine.size() && isSend(mine[k + kAhead / 2]))
      if (const auto edges = t_.messagesFrom(mine[k + kAhead / 2]); !edges.empty())
        __builtin_prefetch(&t_.edges[edges.front()]);
    if (k + kAhead / 4 < mine.size() && isSend(mine[k + kAhead / 4]))
      if (const auto edges = t_.messagesFrom(mine[k + kAhead / 4]); !edges.empty())
        __builtin_prefetch(&t_.events[t_.edges[edges.front()].to]);
  }
  bool isSend(uint32_t i) const { return log::categoryOf(t_.events[i].eventKind()) == log::Category::Send; }

  const trace::Trace& t_;
  const std::string& radar_version_;
  ParquetCounts* counts_;
  std::atomic<uint64_t> files_{0};
};

}  // namespace

std::string hivePartitionValue(const std::string& value) {
  if (value.empty()) return "__HIVE_DEFAULT_PARTITION__";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '.' || c == '_' || c == '-') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

namespace {

// Why `dir` cannot be made into the export's directory, or "": it must not
// exist, or be an empty directory (checked before the work, and again by
// the rename at its end).
std::string unusable(const std::string& dir) {
  if (dir.empty() || dir == "/" || dir == "." || dir == "..") return "--parquet: give the name of a new directory";
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(dir, ec);
  if (!std::filesystem::exists(status)) return "";
  if (std::filesystem::is_symlink(status)) return dir + " is a symbolic link: name a new directory";
  if (!std::filesystem::is_directory(status) || !std::filesystem::is_empty(dir, ec) || ec)
    return dir + " exists and is not empty: remove it or name another";
  return "";
}

// A new directory beside `dir`, named so that no other is (mode as the
// umask makes it), or "".
std::string partialBeside(const std::string& dir, std::string* error) {
  std::random_device seed;
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string name = dir + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(seed() % 1000000);
    if (::mkdir(name.c_str(), 0777) == 0) return name;
    if (errno != EEXIST) break;
  }
  *error = "cannot make a directory beside " + dir + ": " + std::strerror(errno);
  return "";
}

}  // namespace

bool writeParquet(const trace::Trace& t, const std::string& dir_asked, const std::string& radar_version,
                  ParquetCounts* counts, std::string* error, const Progress& progress) {
  std::string dir = dir_asked;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();  // "out/": out, not a name inside it
  if (*error = unusable(dir); !error->empty()) return false;
  const std::string partial = partialBeside(dir, error);
  if (partial.empty()) return false;
  ParquetCounts ignored;
  bool ok = Exporter(t, radar_version, counts ? counts : &ignored).run(partial, error, progress);
  if (ok && ::rename(partial.c_str(), dir.c_str()) != 0) {
    *error = errno == EEXIST || errno == ENOTEMPTY ? dir + " exists and is not empty: remove it or name another"
                                                   : "cannot make " + dir + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) {
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);
  }
  return ok;
}

}  // namespace radar::exporting
