#include "export/database.h"

#include <sqlite3.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "analysis/narrative.h"
#include "export/event_table.h"
#include "export/sqlite_bulk.h"
#include "trace/findings.h"

namespace radar::exporting {

using trace::kNone;
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
create table findings (finding integer primary key, kind text, text text, event integer, bytes integer,
                       processes text, channels text);
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
    if (!recording(error) || !processes(error) || !channels(error) || !findings(error) ||
        (options_.bytes && !bytes(error)))
      return false;
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
  void text(Statement& s, int at, std::string_view v) {
    sqlite3_bind_text(s.s, at, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void integer(Statement& s, int at, int64_t v) { sqlite3_bind_int64(s.s, at, v); }
  void maybe(Statement& s, int at, uint32_t index) {  // an index as an id, kNone as null
    if (index == kNone)
      sqlite3_bind_null(s.s, at);
    else
      sqlite3_bind_int64(s.s, at, index + 1);
  }

  static std::string eventsTable() {
    std::string sql = "CREATE TABLE events (";
    for (int c = 0; c < kEventColumnCount; ++c)
      sql += std::string(c ? ", " : "") + eventColumn(c).name + " " + eventColumn(c).sql_type +
             (c == kColEvent ? " primary key" : "");
    return sql + ")";
  }

  bool recording(std::string* error) {
    Statement s;
    if (!prepare("insert into recording values (?, ?)", &s, error)) return false;
    auto put = [&](const std::string& key, const std::string& value) {
      text(s, 1, key);
      text(s, 2, value);
      return step(s, error);
    };
    std::string dirs;
    for (const auto& d : t_.directories) dirs += (dirs.empty() ? "" : "\n") + d;
    return put("schema_version", std::to_string(kDatabaseVersion)) && put("radar_version", options_.radar_version) &&
           put("directories", dirs) && put("events", std::to_string(t_.events.size())) &&
           put("bytes_sent", std::to_string(t_.bytes_sent)) && put("bytes_received", std::to_string(t_.bytes_received));
  }

  bool processes(std::string* error) {
    Statement p, a, th;
    if (!prepare("insert into processes values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &p, error) ||
        !prepare("insert into arguments values (?, ?, ?)", &a, error) ||
        !prepare("insert into threads values (?, ?, ?)", &th, error))
      return false;
    static const char* const kEnds[] = {"unknown", "exited", "signaled", "execed"};
    for (const auto& pr : t_.processes) {
      integer(p, 1, pr.index + 1);
      integer(p, 2, pr.pid);
      integer(p, 3, pr.generation);
      text(p, 4, t_.processName(pr.index));
      text(p, 5, pr.executable);
      maybe(p, 6, pr.parent);
      text(p, 7, pr.host);
      maybe(p, 8, pr.first_event);
      maybe(p, 9, pr.last_event);
      integer(p, 10, pr.event_count);
      text(p, 11, kEnds[static_cast<int>(pr.end)]);
      integer(p, 12, pr.end_code);
      maybe(p, 13, pr.next_image);
      integer(p, 14, pr.external);
      if (!step(p, error)) return false;
      for (size_t k = 0; k < pr.argv.size(); ++k) {
        integer(a, 1, pr.index + 1);
        integer(a, 2, static_cast<int64_t>(k));
        text(a, 3, pr.argv[k]);
        if (!step(a, error)) return false;
      }
      for (size_t k = 0; k < pr.threads.size(); ++k) {
        integer(th, 1, pr.index + 1);
        integer(th, 2, static_cast<int64_t>(k));
        integer(th, 3, pr.threads[k]);
        if (!step(th, error)) return false;
      }
    }
    return true;
  }

  bool channels(std::string* error) {
    Statement s;
    if (!prepare("insert into channels values (?, ?, ?, ?, ?)", &s, error)) return false;
    for (const auto& c : t_.channels) {
      integer(s, 1, c.index + 1);
      text(s, 2, t_.channelName(c.index));
      text(s, 3, log::channelTypeName(c.type));
      integer(s, 4, c.external);
      text(s, 5, c.external_peer);
      if (!step(s, error)) return false;
    }
    return true;
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
    bulk::Value v[kEventColumnCount];
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      if (failed.load(std::memory_order_relaxed)) return false;
      rows.fill(i, &row);
      for (int c = 0; c < kEventColumnCount; ++c) {
        if (row.null[c] || c == kColEvent)  // the event is the rowid: stored as a null
          v[c] = {};
        else if (c == kColKind || c == kColCall)
          v[c] = bulk::Value::of(row.text[c]);
        else
          v[c] = bulk::Value::of(row.integer[c]);
      }
      if (!table.add(row.integer[kColEvent], v, kEventColumnCount, error)) return false;
    }
    counts->events = table.rows();
    return table.finish(error);
  }

  // A row per send and receive that took some of its bytes (peeks aside);
  // a send's bytes nobody received (or that went outside the recording):
  // a row without a receive.
  bool fillMessages(bulk::Table& table, const std::atomic<bool>& failed, DatabaseCounts* counts, std::string* error) {
    using V = bulk::Value;
    int64_t rowid = 0;
    auto add = [&](uint32_t send, uint32_t receive, uint32_t channel, int64_t bytes, int64_t latency) {
      const V v[] = {V::of(int64_t{send} + 1), receive == kNone ? V{} : V::of(int64_t{receive} + 1),
                     channel == kNone ? V{} : V::of(int64_t{channel} + 1), V::of(bytes),
                     receive == kNone ? V{} : V::of(latency)};
      return table.add(++rowid, v, 5, error);
    };
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      const trace::Event& e = t_.events[i];
      if (log::categoryOf(e.eventKind()) != log::Category::Send || (e.flags & trace::kEventFailed) || !e.value)
        continue;
      if (failed.load(std::memory_order_relaxed)) return false;
      const uint32_t channel = t_.channelOf(i);
      const int64_t sent = t_.wallTime(i);
      uint64_t received = 0;
      for (uint32_t k : t_.messagesFrom(i)) {
        const trace::Edge& edge = t_.edges[k];
        if (t_.events[edge.to].flags & trace::kEventPeek) continue;
        received += edge.bytes;
        if (!add(i, edge.to, channel, static_cast<int64_t>(edge.bytes), t_.wallReturnTime(edge.to) - sent))
          return false;
      }
      if (received < e.value && !add(i, kNone, channel, static_cast<int64_t>(e.value - received), 0)) return false;
    }
    counts->messages = table.rows();
    return table.finish(error);
  }

  bool findings(std::string* error) {
    Statement s;
    if (!prepare("insert into findings values (?, ?, ?, ?, ?, ?, ?)", &s, error)) return false;
    auto ids = [](const std::vector<uint32_t>& v) {
      std::string out;
      for (uint32_t x : v) out += (out.empty() ? "" : ",") + std::to_string(x + 1);
      return out;
    };
    for (size_t k = 0; k < t_.findings.size(); ++k) {
      const trace::Finding& f = t_.findings[k];
      integer(s, 1, static_cast<int64_t>(k + 1));
      text(s, 2, trace::findingKindName(f.kind));
      const std::string said = trace::describe(t_, f);  // bound without a copy: lives until the step
      text(s, 3, said);
      maybe(s, 4, f.events.empty() ? kNone : f.events.front());
      integer(s, 5, static_cast<int64_t>(f.bytes));
      const std::string processes = ids(f.processes), channels = ids(f.channels);
      sqlite3_bind_text(s.s, 6, processes.data(), static_cast<int>(processes.size()), SQLITE_TRANSIENT);
      sqlite3_bind_text(s.s, 7, channels.data(), static_cast<int>(channels.size()), SQLITE_TRANSIENT);
      if (!step(s, error)) return false;
    }
    return true;
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
      integer(s, 1, i + 1);
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
