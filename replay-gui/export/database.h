// A recording as an SQLite database: the history of a run as relations to
// query (after Snodgrass's relational approach to monitoring). Tables:
// recording, processes, threads, channels, events (event_table.h),
// messages, findings, and bytes with --bytes; views for the temporal
// questions (queue lengths, time blocked, long waits, last sends).
// docs/queries.md documents every column and view, with examples.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "export/progress.h"
#include "export/tables.h"
#include "trace/trace.h"

struct sqlite3;

namespace radar::exporting {

struct DatabaseOptions {
  bool bytes = false;  // a `bytes` table with every send's and receive's bytes
  std::string radar_version;
  Progress progress;  // the events table's rows
};

struct DatabaseCounts {
  uint64_t events = 0, messages = 0;
};

// Writes the database into `path`, which must not exist yet (the caller
// renames it into place, and names it in an error). The events and messages tables are written
// straight into the file, on two threads (sqlite_bulk.h); SQLite then adds
// the other tables and the views in one transaction.
bool writeDatabase(const trace::Trace& t, const std::string& path, const DatabaseOptions& options,
                   DatabaseCounts* counts, std::string* error);

// SQL functions for a connection to the database of a trace (radar sql):
// contents(event), the bytes an event sent or received (a user event: its
// data), read from the logs; text(event), its line of the narration. The
// trace is asked for at the first call (a cached database is queried
// without merging the logs again); null and *error when it cannot be had.
using TraceSource = std::function<const trace::Trace*(std::string* error)>;
bool addFunctions(sqlite3* db, TraceSource trace, std::string* error);

}  // namespace radar::exporting
