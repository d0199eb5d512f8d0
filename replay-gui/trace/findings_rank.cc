// Findings ranked: by severity (errors, warnings, notes), then by what to
// look at first within it (a deadlock's cycle before the ends it caused),
// with the cause the story holds for those it explains: a process killed
// by another's recorded kill(), messages whose receivers ended on one.
#include <fcntl.h>

#include <csignal>

#include <algorithm>
#include <set>

#include "log/kinds.h"
#include "trace/findings.h"
#include "trace/trace.h"

namespace radar::trace {
namespace {

using Severity = Finding::Severity;

// Within a severity, the order of kinds: causes before their effects.
int kindOrder(Finding::Kind k) {
  static const Finding::Kind order[] = {
      Finding::Kind::Deadlock,      Finding::Kind::LockDeadlock,  Finding::Kind::MpiStuck,   Finding::Kind::MpiMismatch,
      Finding::Kind::Abnormal,      Finding::Kind::Contradiction, Finding::Kind::Damaged,    Finding::Kind::LostEvents,
      Finding::Kind::NeverReceived, Finding::Kind::NoSender,      Finding::Kind::NeverEnded, Finding::Kind::LockOrder,
      Finding::Kind::WildcardRace,  Finding::Kind::Unrecorded};
  const auto* at = std::find(std::begin(order), std::end(order), k);
  return static_cast<int>(at - std::begin(order));
}

// What the ranking reads of the events, in one pass over them: the
// successful kill() calls, the endpoints their process closed, and each
// process's last signal taken (kNone: none).
struct Notable {
  std::vector<uint32_t> kills;
  std::vector<uint8_t> closed;        // per endpoint
  std::vector<uint32_t> last_signal;  // per process
};

Notable notableEvents(const Trace& t) {
  Notable n;
  n.closed.assign(t.endpoints.size(), 0);
  n.last_signal.assign(t.processes.size(), kNone);
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const log::Kind k = e.eventKind();
    if (k == log::Kind::Kill && !(e.flags & kEventFailed)) n.kills.push_back(i);
    if (k == log::Kind::Close && e.endpoint != kNone) n.closed[e.endpoint] = 1;
    if (k == log::Kind::Signal || k == log::Kind::SignalWait) n.last_signal[e.process] = i;
  }
  return n;
}

// The recorded kill() that sent the signal which killed process p: the
// latest that succeeded, of that signal, aimed at its pid (or at the
// process group it leads), on its machine. kNone: no recorded process
// sent it (a terminal, an unrecorded process, the kernel).
uint32_t killerOf(const Trace& t, const std::vector<uint32_t>& kills, const Process& p) {
  uint32_t best = kNone;
  for (uint32_t k : kills) {
    const Event& e = t.events[k];
    const int32_t to = static_cast<int32_t>(e.value);
    if (t.processes[e.process].boot != p.boot || e.result != p.end_code || (to != p.pid && to != -p.pid)) continue;
    best = std::max(best == kNone ? 0 : best, k);
  }
  return best;
}

// The recorded kill() behind process p's end: the one that killed it, or
// for a process that exited after it took a request to end (SIGTERM,
// SIGINT, SIGQUIT, SIGHUP) as the last signal it took, the kill() that
// sent that one. kNone when its end has no such cause (a signal it took
// and went on from says nothing of why it ended).
uint32_t endCause(const Trace& t, const Notable& n, uint32_t p) {
  const Process& proc = t.processes[p];
  if (proc.end == Process::End::Signaled) return killerOf(t, n.kills, proc);
  if (proc.end != Process::End::Exited) return kNone;
  const uint32_t last_signal = n.last_signal[p];
  if (last_signal == kNone) return kNone;
  const int sig = t.events[last_signal].result;
  if (sig != SIGTERM && sig != SIGINT && sig != SIGQUIT && sig != SIGHUP) return kNone;
  uint32_t cause = kNone;
  const auto [begin, end] = t.incoming(last_signal);
  for (const Edge* e = begin; e != end; ++e)
    if (e->why == Edge::Why::Signal) cause = e->from;
  return cause;
}

// Whether endpoint `id` was a side that could receive what was sent from
// endpoint `from`, held by its process to its end: not a pipe's writing
// end, not the sending socket itself (another copy of it), never closed.
// (A process that closed its copy gave it up; the order of that close and
// a send is often only the scheduler's, so it is not asked.)
bool heldToTheEnd(const Trace& t, const Notable& n, uint32_t id, uint32_t from) {
  const Endpoint& ep = t.endpoints[id];
  if (ep.external) return false;
  const bool pipe = ep.type == log::ChannelType::Pipe || ep.type == log::ChannelType::Fifo;
  if (pipe && (ep.access & O_ACCMODE) == O_WRONLY) return false;
  if (!pipe && from != kNone && ep.ino && ep.ino == t.endpoints[from].ino) return false;
  return !n.closed[id];
}

// Why receiver r never read bytes sent from `first_send` on, where the
// story holds it: it had exited before they were sent (its exit happens
// before the send), or it ended on a recorded signal (that kill()).
// kNone otherwise. (A process killed has no exit event: its last event
// says nothing of when it ended.)
uint32_t whyUnread(const Trace& t, const Notable& n, uint32_t r, uint32_t first_send) {
  const EventList& mine = t.process_events[r];
  if (mine.size()) {
    const uint32_t last = mine.begin()[mine.size() - 1];
    if (t.events[last].eventKind() == log::Kind::Exit && t.happensBefore(last, first_send)) return last;
  }
  return endCause(t, n, r);
}

// Bytes never received whose would-be receivers (the other processes that
// held the channel's receiving side to their end) each had ended before
// they were sent, or ended on a recorded signal: the first's cause. kNone
// when there were none, or one has no such cause.
uint32_t receiversEndCause(const Trace& t, const Notable& n, const Finding& f) {
  if (f.channels.empty() || f.processes.empty() || f.events.empty()) return kNone;
  std::set<uint32_t> receivers;
  const uint32_t from = t.events[f.events.front()].endpoint;
  for (uint32_t id : t.channels[f.channels[0]].endpoints)
    if (t.endpoints[id].process != f.processes[0] && heldToTheEnd(t, n, id, from))
      receivers.insert(t.endpoints[id].process);
  uint32_t first = kNone;
  for (uint32_t r : receivers) {
    const uint32_t cause = whyUnread(t, n, r, f.events.front());
    if (cause == kNone) return kNone;
    if (first == kNone) first = cause;
  }
  return first;
}

void judge(const Trace& t, const Notable& n, Finding& f) {
  switch (f.kind) {
    case Finding::Kind::Deadlock:
    case Finding::Kind::LockDeadlock:
    case Finding::Kind::MpiStuck:
    case Finding::Kind::MpiMismatch:
    case Finding::Kind::Contradiction:
    case Finding::Kind::Damaged:
    case Finding::Kind::LostEvents:
      f.severity = Severity::Error;
      return;
    case Finding::Kind::Abnormal: {
      const Process& p = t.processes[f.processes[0]];
      f.cause = killerOf(t, n.kills, p);
      f.severity = f.cause != kNone ? Severity::Note : isCrashSignal(p.end_code) ? Severity::Error : Severity::Warning;
      return;
    }
    case Finding::Kind::NeverReceived:
      f.cause = receiversEndCause(t, n, f);
      f.severity = f.cause != kNone ? Severity::Note : Severity::Warning;
      return;
    case Finding::Kind::NoSender: {
      const bool explained = std::all_of(f.events.begin(), f.events.end(), [&](uint32_t receive) {
        return unfinishedSendInto(t, receive).process != kNone;
      });
      f.severity = explained && !f.events.empty() ? Severity::Note : Severity::Warning;
      return;
    }
    default:
      f.severity = Severity::Warning;
  }
}

// A send its process's log ended in, for a note: the cause has no event
// of its own.
std::string unfinishedSendCause(const Trace& t, const Finding& f) {
  if (f.severity != Severity::Note || f.events.empty()) return "";
  const UnfinishedSend send = unfinishedSendInto(t, f.events.front());
  if (send.process == kNone) return "";
  return ": " + t.label(send.process) + " was in " + log::kindName(static_cast<log::Kind>(send.kind)) +
         "() on it when its log ended, after the kernel may have moved them";
}

}  // namespace

void rankFindings(Trace& t) {
  if (t.findings.empty()) return;
  const Notable n = notableEvents(t);
  for (Finding& f : t.findings) judge(t, n, f);
  std::stable_sort(t.findings.begin(), t.findings.end(), [](const Finding& a, const Finding& b) {
    return std::pair(a.severity, kindOrder(a.kind)) < std::pair(b.severity, kindOrder(b.kind));
  });
}

std::string causeOf(const Trace& t, const Finding& f) {
  if (f.kind == Finding::Kind::NoSender) return unfinishedSendCause(t, f);
  if (f.cause == kNone) return "";
  const std::string who = t.label(t.events[f.cause].process);
  const std::string at = " (kill() at event " + std::to_string(f.cause + 1) + ")";
  if (f.kind == Finding::Kind::Abnormal) return ", which " + who + " sent" + at;
  if (f.kind != Finding::Kind::NeverReceived) return "";
  if (t.events[f.cause].eventKind() == log::Kind::Kill)
    return ": its receivers ended on a signal " + who + " sent" + at;
  return ": " + who + ", which could have received it, had ended before it was sent (event " +
         std::to_string(f.cause + 1) + ")";
}

}  // namespace radar::trace
