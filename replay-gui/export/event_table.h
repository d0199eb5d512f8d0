// The events of a recording as a table: one schema for `radar events
// --format csv|jsonl` and the `events` table of the database (radar sql,
// radar export --sqlite). docs/queries.md documents each column; the
// columns only ever grow, at the end.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "export/value.h"
#include "trace/trace.h"

namespace radar::exporting {

struct Column {
  const char* name;
  const char* sql_type;  // INTEGER or TEXT
  const char* meaning;
};

enum EventColumn : int {
  kColEvent,     // the event's place in the story (radar replay --at-event)
  kColNumber,    // RADAR's global event number (Lamport time)
  kColProcess,   // processes.process
  kColThread,    // 0: the main thread, 1...: others, in order of appearance
  kColKind,      // send, receive, channel, readiness, process, user, nondeterminism
  kColCall,      // write, read, fork ...
  kColChannel,   // channels.channel, or null
  kColEntryNs,   // wall clock (ns since 1970) of the host, when the call began
  kColReturnNs,  // ... when it returned; null for a call that never did
  kColResult,    // the call's result (exit and wait: the status; kill and signal: the signal)
  kColFailed,    // 1: the call failed (returned an error)
  kColErrno,     // a failed call's errno, else null
  kColBytes,     // sends and receives: bytes moved; user events: bytes of data
  kColPeerPid,   // process events: the other process's pid; kill and signal: the pid
  kColExternal,  // 1: to or from outside the recording
  kColPeek,      // 1: a receive that looked (MSG_PEEK) and took nothing
  kEventColumnCount
};

const Column& eventColumn(int column);

// One event's values, column by column; null where nullness says.
struct EventRow {
  int64_t integer[kEventColumnCount] = {};
  bool null[kEventColumnCount] = {};
  std::string_view text[kEventColumnCount];  // kColKind, kColCall
  void values(Value* out) const;             // column by column, borrowing the texts
};

// Fills rows from a trace; re-reads a failed call's record for its errno.
class EventRows {
 public:
  explicit EventRows(const trace::Trace& t) : t_(t) {}
  void fill(uint32_t position, EventRow* row);

 private:
  const trace::Trace& t_;
  log::Record record_;
  std::string payload_;
  std::vector<std::string> strings_;
};

// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line end.
std::string csvField(std::string_view s);

// The table as CSV (RFC 4180, a header line first) or JSON lines.
void writeCsvHeader(std::FILE* out);
void writeCsvRow(std::FILE* out, const EventRow& row);
void writeJsonRow(std::FILE* out, const EventRow& row);

}  // namespace radar::exporting
