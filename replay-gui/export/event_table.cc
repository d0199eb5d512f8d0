#include "export/event_table.h"

#include <cinttypes>

namespace radar::exporting {

namespace {

const Column kColumns[kEventColumnCount] = {
    {"event", "INTEGER", "the event's place in the story: the number radar replay --at-event takes"},
    {"number", "INTEGER", "RADAR's global event number: a Lamport clock, consistent with the causal order"},
    {"process", "INTEGER", "the process image (processes.process)"},
    {"thread", "INTEGER", "the thread: 0 the main thread, then others in order of appearance (threads.thread)"},
    {"kind", "TEXT", "send, receive, channel, readiness, process, user or nondeterminism"},
    {"call", "TEXT", "the call: write, read, fork, connect ..."},
    {"channel", "INTEGER", "the channel it used (channels.channel), or null"},
    {"entry_ns", "INTEGER", "when the call began: wall clock of its host, ns since 1970"},
    {"return_ns", "INTEGER", "when it returned; null for a call that never did"},
    {"result", "INTEGER", "what it returned; exit, wait: the status; kill, signal: the signal"},
    {"failed", "INTEGER", "1 when the call failed"},
    {"errno", "INTEGER", "a failed call's errno, when known, else null"},
    {"bytes", "INTEGER", "sends and receives: the bytes moved; user events: their data's size"},
    {"peer_pid", "INTEGER", "process events: the other process's pid; kill, signal: the other pid"},
    {"external", "INTEGER", "1 when it sent to or received from outside the recording"},
    {"peek", "INTEGER", "1 for a receive that looked at bytes (MSG_PEEK) and took none"},
};

bool isText(int column) { return column == kColKind || column == kColCall; }

}  // namespace

const Column& eventColumn(int column) { return kColumns[column]; }

std::string csvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void EventRows::fill(uint32_t i, EventRow* row) {
  const trace::Event& e = t_.events[i];
  const trace::Process& p = t_.processes[e.process];
  const log::Kind k = e.eventKind();
  const log::Category category = log::categoryOf(k);
  for (bool& n : row->null) n = false;
  int64_t* v = row->integer;
  v[kColEvent] = i + 1;
  v[kColNumber] = e.number;
  v[kColProcess] = e.process + 1;
  v[kColThread] = e.thread;
  row->text[kColKind] = log::categoryName(category);
  row->text[kColCall] = trace::isConnectOutcome(e) ? "getsockopt" : log::kindName(k);
  const uint32_t channel = t_.channelOf(i);
  v[kColChannel] = channel + 1;
  row->null[kColChannel] = channel == trace::kNone;
  v[kColEntryNs] = e.entry_ns + p.realtime_offset;
  v[kColReturnNs] = v[kColEntryNs] + e.durationNs();
  v[kColResult] = e.result;
  const bool never_returned = e.result == trace::kResultNeverReturned;
  row->null[kColReturnNs] = row->null[kColResult] = never_returned;
  row->null[kColErrno] = !(e.flags & trace::kEventFailed) || never_returned;
  if (!row->null[kColErrno]) {
    if (trace::isConnectOutcome(e) || ((k == log::Kind::Connect || k == log::Kind::ExecFailed) && e.value)) {
      v[kColErrno] = e.value;
    } else {
      std::string error;
      v[kColErrno] = t_.record(i, &record_, &payload_, &strings_, &error) ? record_.error : 0;
      row->null[kColErrno] = v[kColErrno] == 0;
    }
  }
  v[kColBytes] = e.value;
  row->null[kColBytes] = !(log::isData(k) || k == log::Kind::User);
  // A failed exec's value is its errno; the other process events' the pid.
  v[kColPeerPid] = static_cast<int32_t>(e.value);
  row->null[kColPeerPid] = category != log::Category::Process || k == log::Kind::ExecFailed || !e.value;
  v[kColExternal] = (e.flags & trace::kEventExternal) ? 1 : 0;
  v[kColFailed] = (e.flags & trace::kEventFailed) ? 1 : 0;
  v[kColPeek] = (e.flags & trace::kEventPeek) ? 1 : 0;
}

void EventRow::values(Value* out) const {
  for (int c = 0; c < kEventColumnCount; ++c)
    out[c] = null[c] ? Value{} : isText(c) ? Value::of(text[c]) : Value::of(integer[c]);
}

void writeCsvHeader(std::FILE* out) {
  for (int c = 0; c < kEventColumnCount; ++c) std::fprintf(out, "%s%s", c ? "," : "", kColumns[c].name);
  std::fputs("\r\n", out);
}

void writeCsvRow(std::FILE* out, const EventRow& row) {
  for (int c = 0; c < kEventColumnCount; ++c) {
    if (c) std::fputc(',', out);
    if (row.null[c]) continue;
    if (isText(c) && row.text[c].find_first_of(",\"\r\n") == std::string_view::npos)
      std::fwrite(row.text[c].data(), 1, row.text[c].size(), out);  // call names: no copy a row
    else if (isText(c))
      std::fputs(csvField(row.text[c]).c_str(), out);
    else
      std::fprintf(out, "%" PRId64, row.integer[c]);
  }
  std::fputs("\r\n", out);
}

void writeJsonRow(std::FILE* out, const EventRow& row) {
  std::fputc('{', out);
  for (int c = 0; c < kEventColumnCount; ++c) {
    std::fprintf(out, "%s\"%s\":", c ? "," : "", kColumns[c].name);
    if (row.null[c])
      std::fputs("null", out);
    else if (isText(c))
      std::fprintf(out, "\"%.*s\"", static_cast<int>(row.text[c].size()), row.text[c].data());  // names of calls
    else
      std::fprintf(out, "%" PRId64, row.integer[c]);
  }
  std::fputs("}\n", out);
}

}  // namespace radar::exporting
