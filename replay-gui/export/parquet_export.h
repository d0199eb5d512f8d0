// `radar export --parquet DIR`: the tables of `radar sql` as Parquet files,
// for the engines that read them (DuckDB, ClickHouse, Spark, Trino,
// pandas). The big tables are split by host and process, Hive-style, so
// that an engine reads them in parallel and skips what a query does not
// need:
//   DIR/events/host=H/process=N/part-0.parquet    a process's events
//   DIR/messages/host=H/process=N/part-0.parquet  the messages it sent
//   DIR/{recording,processes,arguments,threads,channels,findings}.parquet
// The columns are the SQLite tables' (tables.h, event_table.h), with the
// same values; docs/queries.md documents them.
#pragma once

#include <cstdint>
#include <string>

#include "export/progress.h"
#include "trace/trace.h"

namespace radar::exporting {

struct ParquetCounts {
  uint64_t events = 0, messages = 0, files = 0;
};

// Writes the directory `dir` whole or not at all: into a new directory
// beside it, renamed into place at the end. `dir` must not exist, or be
// empty.
bool writeParquet(const trace::Trace& t, const std::string& dir, const std::string& radar_version,
                  ParquetCounts* counts, std::string* error, const Progress& progress = {});

// A Hive partition's value in a path: bytes other than letters, digits,
// '.', '_' and '-' percent-encoded; an empty value as Hive's default.
std::string hivePartitionValue(const std::string& value);

}  // namespace radar::exporting
