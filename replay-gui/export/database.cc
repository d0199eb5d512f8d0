#include "export/database.h"

#include <sqlite3.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "analysis/narrative.h"
#include "export/event_table.h"
#include "export/sqlite_bulk.h"
#include "export/tables.h"
#include "trace/findings.h"

namespace radar::exporting {

using trace::Trace;

namespace {

const char kSchema[] = R"sql(
create table recording (key text primary key, value text);
create table processes (
  process integer primary key, pid integer, generation integer, name text, executable text,
  parent integer, host text, first_event integer, last_event integer, events integer,
  end text, end_code integer, next_image integer, external integer);
create table arguments (process integer, position integer, argument text, primary key (process, position));
create table threads (process integer, thread integer, tid integer, primary key (process, thread));
create table channels (channel integer primary key, name text, type text, external integer, external_peer text);
create table findings (finding integer primary key, kind text, severity text, text text, cause integer,
                       event integer, bytes integer, processes text, channels text);
)sql";

// The temporal questions, as views (docs/queries.md has examples).
// Written with the events table, straight into the file (sqlite_bulk.h).
const char kMessagesTable[] =
    "CREATE TABLE messages (send integer, receive integer, channel integer, bytes integer, latency_ns integer)";

const char kViews[] = R"sql(
create view queue_changes as
  select channel, send as event, bytes as delta from messages
  union all
  select channel, receive as event, -bytes from messages where receive is not null;
create view queue_lengths as
  select channel, event, sum(sum(delta)) over (partition by channel order by event) as queued_bytes
  from queue_changes group by channel, event;
create view waits as
  select event, process, thread, channel, call, return_ns - entry_ns as waited_ns
  from events where kind in ('receive', 'readiness') and return_ns is not null;
create view time_blocked as
  select process, channel, count(*) as waits, sum(waited_ns) as blocked_ns from waits group by process, channel;
create view last_sends as
  select process, max(event) as last_send from events where kind = 'send' group by process;
)sql";

struct Statement {
  sqlite3_stmt* s = nullptr;
  ~Statement() { sqlite3_finalize(s); }
};

class Builder {
 public:
  Builder(const Trace& t, const DatabaseOptions& options) : t_(t), options_(options) {}
  ~Builder() { sqlite3_close(db_); }

  bool run(const std::string& path, DatabaseCounts* counts, std::string* error) {
    // The two big tables first, into a new file; SQLite adds the rest.
    if (!bigTables(path, counts, error)) return false;
    // One thread writes: no locks around each call, no global count of
    // memory (a lock around every allocation).
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK)
      return fail(error, "SQLite");
    // A file made whole or thrown away: no journal, no waiting for the disk.
    if (!exec("pragma journal_mode = off; pragma synchronous = off; begin;", error) || !exec(kSchema, error))
      return false;
    for (Table table :
         {Table::Recording, Table::Processes, Table::Arguments, Table::Threads, Table::Channels, Table::Findings})
      if (!insertRows(table, error)) return false;
    if (options_.bytes && !bytes(error)) return false;
    return exec(kViews, error) && exec("commit;", error);
  }

 private:
  bool fail(std::string* error, const std::string& what) {
    *error = what + ": " + (db_ ? sqlite3_errmsg(db_) : "out of memory");
    return false;
  }
  bool exec(const char* sql, std::string* error) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return true;
    *error = std::string("SQLite: ") + (message ? message : "error");
    sqlite3_free(message);
    return false;
  }
  bool prepare(const char* sql, Statement* s, std::string* error) {
    return sqlite3_prepare_v2(db_, sql, -1, &s->s, nullptr) == SQLITE_OK || fail(error, "SQLite");
  }
  bool step(Statement& s, std::string* error) {
    const bool ok = sqlite3_step(s.s) == SQLITE_DONE;
    sqlite3_reset(s.s);
    return ok || fail(error, "SQLite");
  }
  static void bind(Statement& s, int at, const Value& v) {
    if (v.type == Value::Integer)
      sqlite3_bind_int64(s.s, at, v.integer);
    else if (v.type == Value::Text)
      sqlite3_bind_text(s.s, at, v.text.data(), static_cast<int>(v.text.size()), SQLITE_STATIC);
    else
      sqlite3_bind_null(s.s, at);
  }

  static std::string eventsTable() {
    std::string sql = "CREATE TABLE events (";
    for (int c = 0; c < kEventColumnCount; ++c)
      sql += std::string(c ? ", " : "") + eventColumn(c).name + " " + eventColumn(c).sql_type +
             (c == kColEvent ? " primary key" : "");
    return sql + ")";
  }

  // Every row of a table, into the SQLite table of the same columns.
  bool insertRows(Table table, std::string* error) {
    const TableSchema& schema = schemaOf(table);
    std::string sql = std::string("insert into ") + schema.name + " values (";
    for (size_t c = 0; c < schema.columns.size(); ++c) sql += c ? ", ?" : "?";
    Statement s;
    if (!prepare((sql + ")").c_str(), &s, error)) return false;
    return tableRows(t_, table, options_.radar_version, [&](const Value* row) {
      for (size_t c = 0; c < schema.columns.size(); ++c) bind(s, static_cast<int>(c + 1), row[c]);
      return step(s, error);
    });
  }

  // events and messages, each filled on a thread of its own.
  bool bigTables(const std::string& path, DatabaseCounts* counts, std::string* error) {
    bulk::File file;
    if (!file.create(path, 65536, error)) return false;
    bulk::Table events(file), messages(file);
    std::atomic<bool> failed{false};
    std::string messages_error;
    std::thread other([&] {
      if (!fillMessages(messages, failed, counts, &messages_error)) failed = true;
    });
    const bool events_ok = fillEvents(events, failed, counts, error);
    if (!events_ok) failed = true;
    other.join();
    // The one that failed says why; the other only stopped when it saw it.
    if (failed) {
      if (events_ok || error->empty()) *error = messages_error;
      return false;
    }
    return file.finish({{"events", eventsTable(), events.root()}, {"messages", kMessagesTable, messages.root()}},
                       error);
  }

  bool fillEvents(bulk::Table& table, const std::atomic<bool>& failed, DatabaseCounts* counts, std::string* error) {
    EventRows rows(t_);
    EventRow row;
    Value v[kEventColumnCount];
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      if (failed.load(std::memory_order_relaxed)) return false;
      tellProgress(options_.progress, i, t_.events.size());
      rows.fill(i, &row);
      row.values(v);
      v[kColEvent] = {};  // the event is the rowid: stored as a null
      if (!table.add(row.integer[kColEvent], v, kEventColumnCount, error)) return false;
    }
    counts->events = table.rows();
    return table.finish(error);
  }

  bool fillMessages(bulk::Table& table, const std::atomic<bool>& failed, DatabaseCounts* counts, std::string* error) {
    int64_t rowid = 0;
    const bool filled = tableRows(t_, Table::Messages, "", [&](const Value* row) {
      return !failed.load(std::memory_order_relaxed) && table.add(++rowid, row, 5, error);
    });
    if (!filled) return false;
    counts->messages = table.rows();
    return table.finish(error);
  }

  bool bytes(std::string* error) {
    if (!exec("create table bytes (event integer primary key, data blob);", error)) return false;
    Statement s;
    if (!prepare("insert into bytes values (?, ?)", &s, error)) return false;
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      const trace::Event& e = t_.events[i];
      if (!log::isData(e.eventKind()) || (e.flags & trace::kEventFailed) || !e.value) continue;
      std::string_view data;
      if (!t_.payloadView(i, &data, error)) return false;
      sqlite3_bind_int64(s.s, 1, int64_t{i} + 1);
      sqlite3_bind_blob64(s.s, 2, data.data(), data.size(), SQLITE_STATIC);
      if (!step(s, error)) return false;
    }
    return true;
  }

  const Trace& t_;
  const DatabaseOptions& options_;
  sqlite3* db_ = nullptr;
};

// contents(event) and text(event), bound to one trace.
struct Functions {
  TraceSource source;
  const Trace* t = nullptr;
  std::unique_ptr<analysis::Narrator> narrator;

  bool ready(sqlite3_context* context) {
    if (t) return true;
    std::string error;
    t = source(&error);
    if (!t) {
      sqlite3_result_error(context, error.c_str(), -1);
      return false;
    }
    narrator = std::make_unique<analysis::Narrator>(*t);
    return true;
  }
};

bool eventArgument(sqlite3_context* context, sqlite3_value* v, Functions* f, uint32_t* position) {
  if (!f->ready(context)) return false;
  const Trace& t = *f->t;
  if (sqlite3_value_type(v) == SQLITE_NULL) {
    sqlite3_result_null(context);
    return false;
  }
  const sqlite3_int64 n = sqlite3_value_int64(v);
  if (n < 1 || static_cast<uint64_t>(n) > t.events.size()) {
    sqlite3_result_error(context, "no such event", -1);
    return false;
  }
  *position = static_cast<uint32_t>(n - 1);
  return true;
}

void contentsFunction(sqlite3_context* context, int, sqlite3_value** argv) {
  auto* f = static_cast<Functions*>(sqlite3_user_data(context));
  uint32_t i;
  if (!eventArgument(context, argv[0], f, &i)) return;
  const trace::Event& e = f->t->events[i];
  if (!log::isData(e.eventKind()) && e.eventKind() != log::Kind::User) {
    sqlite3_result_null(context);
    return;
  }
  std::string_view data;
  std::string error;
  if (!f->t->payloadView(i, &data, &error)) {
    sqlite3_result_error(context, error.c_str(), -1);
    return;
  }
  sqlite3_result_blob64(context, data.data(), data.size(), SQLITE_TRANSIENT);
}

void textFunction(sqlite3_context* context, int, sqlite3_value** argv) {
  auto* f = static_cast<Functions*>(sqlite3_user_data(context));
  uint32_t i;
  if (!eventArgument(context, argv[0], f, &i)) return;
  const std::string s = f->narrator->describe(i);
  sqlite3_result_text(context, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}

}  // namespace

bool writeDatabase(const Trace& t, const std::string& path, const DatabaseOptions& options, DatabaseCounts* counts,
                   std::string* error) {
  DatabaseCounts ignored;
  return Builder(t, options).run(path, counts ? counts : &ignored, error);
}

bool addFunctions(sqlite3* db, TraceSource trace, std::string* error) {
  auto* f = new Functions{std::move(trace)};
  auto destroy = [](void* p) { delete static_cast<Functions*>(p); };
  // The data are the logs': deterministic within one connection.
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  if (sqlite3_create_function_v2(db, "contents", 1, flags, f, contentsFunction, nullptr, nullptr, destroy) !=
          SQLITE_OK ||
      sqlite3_create_function_v2(db, "text", 1, flags, f, textFunction, nullptr, nullptr, nullptr) != SQLITE_OK) {
    *error = std::string("SQLite: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

}  // namespace radar::exporting
