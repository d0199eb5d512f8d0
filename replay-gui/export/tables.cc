#include "export/tables.h"

#include "trace/findings.h"

namespace radar::exporting {

using trace::kNone;
using trace::Trace;

namespace {

const TableSchema kSchemas[] = {
    {"recording", {{"key", true}, {"value", true}}},
    {"processes",
     {{"process", false},
      {"pid", false},
      {"generation", false},
      {"name", true},
      {"executable", true},
      {"parent", false},
      {"host", true},
      {"first_event", false},
      {"last_event", false},
      {"events", false},
      {"end", true},
      {"end_code", false},
      {"next_image", false},
      {"external", false}}},
    {"arguments", {{"process", false}, {"position", false}, {"argument", true}}},
    {"threads", {{"process", false}, {"thread", false}, {"tid", false}}},
    {"channels", {{"channel", false}, {"name", true}, {"type", true}, {"external", false}, {"external_peer", true}}},
    {"findings",
     {{"finding", false},
      {"kind", true},
      {"severity", true},
      {"text", true},
      {"cause", false},
      {"event", false},
      {"bytes", false},
      {"processes", true},
      {"channels", true}}},
    {"messages", {{"send", false}, {"receive", false}, {"channel", false}, {"bytes", false}, {"latency_ns", false}}},
};

// An index as an id (1, 2 ...), kNone as null.
Value id(uint32_t index) { return index == kNone ? Value{} : Value::of(int64_t{index} + 1); }
Value integer(int64_t v) { return Value::of(v); }

bool recordingRows(const Trace& t, const std::string& radar_version, const RowSink& sink) {
  auto put = [&](std::string_view key, const std::string& value) {
    const Value row[] = {Value::of(key), Value::of(value)};
    return sink(row);
  };
  std::string dirs;
  for (const auto& d : t.directories) dirs += (dirs.empty() ? "" : "\n") + d;
  return put("schema_version", std::to_string(kDatabaseVersion)) && put("radar_version", radar_version) &&
         put("directories", dirs) && put("events", std::to_string(t.events.size())) &&
         put("bytes_sent", std::to_string(t.bytes_sent)) && put("bytes_received", std::to_string(t.bytes_received));
}

bool processRows(const Trace& t, const RowSink& sink) {
  static const char* const kEnds[] = {"unknown", "exited", "signaled", "execed"};
  for (const auto& p : t.processes) {
    const std::string name = t.processName(p.index);
    const Value row[] = {id(p.index),
                         integer(p.pid),
                         integer(p.generation),
                         Value::of(name),
                         Value::of(p.executable),
                         id(p.parent),
                         Value::of(p.host),
                         id(p.first_event),
                         id(p.last_event),
                         integer(p.event_count),
                         Value::of(kEnds[static_cast<int>(p.end)]),
                         integer(p.end_code),
                         id(p.next_image),
                         integer(p.external)};
    if (!sink(row)) return false;
  }
  return true;
}

bool argumentRows(const Trace& t, const RowSink& sink) {
  for (const auto& p : t.processes)
    for (size_t k = 0; k < p.argv.size(); ++k) {
      const Value row[] = {id(p.index), integer(static_cast<int64_t>(k)), Value::of(p.argv[k])};
      if (!sink(row)) return false;
    }
  return true;
}

bool threadRows(const Trace& t, const RowSink& sink) {
  for (const auto& p : t.processes)
    for (size_t k = 0; k < p.threads.size(); ++k) {
      const Value row[] = {id(p.index), integer(static_cast<int64_t>(k)), integer(p.threads[k])};
      if (!sink(row)) return false;
    }
  return true;
}

bool channelRows(const Trace& t, const RowSink& sink) {
  for (const auto& c : t.channels) {
    const std::string name = t.channelName(c.index);
    const Value row[] = {id(c.index), Value::of(name), Value::of(log::channelTypeName(c.type)), integer(c.external),
                         Value::of(c.external_peer)};
    if (!sink(row)) return false;
  }
  return true;
}

std::string ids(const std::vector<uint32_t>& v) {
  std::string out;
  for (uint32_t x : v) out += (out.empty() ? "" : ",") + std::to_string(x + 1);
  return out;
}

bool findingRows(const Trace& t, const RowSink& sink) {
  for (size_t k = 0; k < t.findings.size(); ++k) {
    const trace::Finding& f = t.findings[k];
    const std::string said = trace::describe(t, f), processes = ids(f.processes), channels = ids(f.channels);
    const Value row[] = {integer(static_cast<int64_t>(k + 1)),
                         Value::of(trace::findingKindName(f.kind)),
                         Value::of(trace::severityName(f.severity)),
                         Value::of(said),
                         id(f.cause),
                         id(f.events.empty() ? kNone : f.events.front()),
                         integer(static_cast<int64_t>(f.bytes)),
                         Value::of(processes),
                         Value::of(channels)};
    if (!sink(row)) return false;
  }
  return true;
}

bool messageRows(const Trace& t, const RowSink& sink) {
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (!messageRowsOf(t, i, sink)) return false;
  return true;
}

}  // namespace

const TableSchema& schemaOf(Table table) { return kSchemas[static_cast<int>(table)]; }

bool tableRows(const Trace& t, Table table, const std::string& radar_version, const RowSink& sink) {
  switch (table) {
    case Table::Recording:
      return recordingRows(t, radar_version, sink);
    case Table::Processes:
      return processRows(t, sink);
    case Table::Arguments:
      return argumentRows(t, sink);
    case Table::Threads:
      return threadRows(t, sink);
    case Table::Channels:
      return channelRows(t, sink);
    case Table::Findings:
      return findingRows(t, sink);
    case Table::Messages:
      return messageRows(t, sink);
  }
  return true;
}

bool messageRowsOf(const Trace& t, uint32_t i, const RowSink& sink) {
  const trace::Event& e = t.events[i];
  if (log::categoryOf(e.eventKind()) != log::Category::Send || (e.flags & trace::kEventFailed) || !e.value) return true;
  const uint32_t channel = t.channelOf(i);
  const int64_t sent = t.wallTime(i);
  uint64_t received = 0;
  for (uint32_t k : t.messagesFrom(i)) {
    const trace::Edge& edge = t.edges[k];
    if (t.events[edge.to].flags & trace::kEventPeek) continue;
    received += edge.bytes;
    const Value row[] = {id(i), id(edge.to), id(channel), integer(static_cast<int64_t>(edge.bytes)),
                         integer(t.wallReturnTime(edge.to) - sent)};
    if (!sink(row)) return false;
  }
  if (received >= e.value) return true;
  const Value row[] = {id(i), Value{}, id(channel), integer(static_cast<int64_t>(e.value - received)), Value{}};
  return sink(row);
}

}  // namespace radar::exporting
