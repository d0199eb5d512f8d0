// A recording's tables as rows: one definition for the SQLite database
// (database.h) and the Parquet files (parquet_export.h), so that both have
// the same columns holding the same values. The events table has its own
// (event_table.h). docs/queries.md documents every column.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "export/value.h"
#include "trace/trace.h"

namespace radar::exporting {

struct TableColumn {
  const char* name;
  bool text;  // TEXT, else INTEGER
};

struct TableSchema {
  const char* name;
  std::vector<TableColumn> columns;
};

enum class Table { Recording, Processes, Arguments, Threads, Channels, Findings, Messages };
const TableSchema& schemaOf(Table table);

// Takes one row, its values in the schema's order (borrowed until it
// returns); false stops the rows.
using RowSink = std::function<bool(const Value* row)>;

// Every row of a table; false when the sink stopped. Messages come in the
// order of their sends (messageRowsOf gives one send's).
bool tableRows(const trace::Trace& t, Table table, const std::string& radar_version, const RowSink& sink);

// The messages table's rows of one event: for a send that moved bytes, a
// row per receive that took some of them (peeks aside), and a row without
// a receive for bytes nobody received (or that went outside the
// recording); nothing for another event.
bool messageRowsOf(const trace::Trace& t, uint32_t event, const RowSink& sink);

// The schema version, in the recording table: bumped when a table or view
// changes, so that a cached database of another version is made again.
inline constexpr int kDatabaseVersion = 2;  // 2: findings' severity and cause

}  // namespace radar::exporting
