#include "export/parquet_export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

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

class Exporter {
 public:
  Exporter(const trace::Trace& t, const std::string& radar_version, ParquetCounts* counts)
      : t_(t), radar_version_(radar_version), counts_(counts) {}

  bool run(const std::string& dir, std::string* error) {
    for (Table table :
         {Table::Recording, Table::Processes, Table::Arguments, Table::Threads, Table::Channels, Table::Findings})
      if (!smallTable(dir, table, error)) return false;
    for (uint32_t p = 0; p < t_.processes.size(); ++p)
      if (!events(dir, p, error) || !messages(dir, p, error)) return false;
    return true;
  }

 private:
  parquet::KeyValues metadata(const char* table) const {
    return {{"radar.table", table},
            {"radar.version", radar_version_},
            {"radar.schema_version", std::to_string(kDatabaseVersion)}};
  }

  bool smallTable(const std::string& dir, Table table, std::string* error) {
    const TableSchema& schema = schemaOf(table);
    parquet::Writer w(columnsOf(schema));
    if (!w.open(dir + "/" + schema.name + ".parquet", error)) return false;
    if (!tableRows(t_, table, radar_version_, [&](const Value* row) { return w.add(row, error); })) return false;
    ++counts_->files;
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

  bool events(const std::string& dir, uint32_t p, std::string* error) {
    if (t_.process_events[p].empty()) return true;
    const std::string at = partition(dir, "events", p, error);
    parquet::Writer w(eventColumns());
    if (at.empty() || !w.open(at + "/part-0.parquet", error)) return false;
    EventRows rows(t_);
    EventRow row;
    Value v[kEventColumnCount];
    for (uint32_t i : t_.process_events[p]) {
      rows.fill(i, &row);
      row.values(v);
      if (!w.add(v, error)) return false;
    }
    counts_->events += w.rows(), ++counts_->files;
    return w.finish(metadata("events"), error);
  }

  bool messages(const std::string& dir, uint32_t p, std::string* error) {
    std::unique_ptr<parquet::Writer> w;  // made at the process's first message
    for (uint32_t i : t_.process_events[p]) {
      const bool ok = messageRowsOf(t_, i, [&](const Value* row) {
        if (!w) {
          const std::string at = partition(dir, "messages", p, error);
          w = std::make_unique<parquet::Writer>(columnsOf(schemaOf(Table::Messages)));
          if (at.empty() || !w->open(at + "/part-0.parquet", error)) return false;
        }
        return w->add(row, error);
      });
      if (!ok) return false;
    }
    if (!w) return true;
    counts_->messages += w->rows(), ++counts_->files;
    return w->finish(metadata("messages"), error);
  }

  const trace::Trace& t_;
  const std::string& radar_version_;
  ParquetCounts* counts_;
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

bool writeParquet(const trace::Trace& t, const std::string& dir, const std::string& radar_version,
                  ParquetCounts* counts, std::string* error) {
  std::string partial = dir + ".partial-XXXXXX";
  if (!::mkdtemp(partial.data())) {
    *error = "cannot make a directory beside " + dir + ": " + std::strerror(errno);
    return false;
  }
  const mode_t mask = ::umask(0);  // mkdtemp's 0700, widened as for any new directory
  ::umask(mask);
  ::chmod(partial.c_str(), 0777 & ~mask);
  ParquetCounts ignored;
  bool ok = Exporter(t, radar_version, counts ? counts : &ignored).run(partial, error);
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
