// The merge's other edges: creation, signals, exits reaped, ends of file, accepts.
#include "trace/merger.h"

namespace radar::trace::merging {

// Whether kill(to, ...) reaches `target`: its pid, every process (-1), the
// sender's group (0), or a group given by its leader (-pgid). Groups are
// not recorded; a group led by the target or one of its ancestors (a
// server's master, a shell's job) is taken to hold it, as apache2's
// children are in their parent's.
bool Merger::killReaches(int32_t to, uint32_t target) const {
  if (to == raw_.processes[target].pid || to == 0 || to == -1) return true;
  if (to > -2) return false;
  const int64_t leader = -int64_t{to};  // to may be INT32_MIN: the log is input
  size_t steps = 0;
  for (uint32_t p = target; p != kNone && steps++ < raw_.processes.size(); p = raw_.processes[p].parent)
    if (raw_.processes[p].pid == leader) return true;
  return false;
}

// What sent signal event `i` among the events of `images` (the sender's):
// its latest kill() begun before the signal was taken, else its latest
// message queued (a notification, mq_notify). kNone: none.
uint32_t Merger::signalSource(uint32_t i, const std::vector<uint32_t>& images) const {
  const Event& ev = raw_.events[i];
  uint32_t kill = kNone, queued = kNone;
  auto later = [&](uint32_t have, uint32_t k) {
    return have == kNone || raw_.events[have].entry_ns < raw_.events[k].entry_ns;
  };
  for (uint32_t q : images) {
    const auto [qb, qe] = raw_.ranges[q];
    for (uint32_t k = qb; k < qe; ++k) {
      const Event& e = raw_.events[k];
      if (e.entry_ns > ev.returnNs()) continue;
      if (e.eventKind() == Kind::MqSend && !(e.flags & kEventFailed)) {
        if (later(queued, k)) queued = k;
        continue;
      }
      if (e.eventKind() != Kind::Kill || e.result != ev.result) continue;
      if (!killReaches(static_cast<int32_t>(e.value), ev.process)) continue;
      if (later(kill, k)) kill = k;
    }
  }
  return kill != kNone ? kill : queued;
}

// Process creation, signals, exits reaped by wait(), end of file.
// The few events the rules of otherEdges() look at (matchStreams() picked
// them out while it read every event).
struct Merger::Notable {
  std::vector<uint32_t> signals, waits, eofs, accepts;
  std::vector<std::vector<uint32_t>> closes, connects;  // by channel
};

Merger::Notable Merger::notableEvents() const {
  Notable n;
  n.closes.resize(t_.channels.size());
  n.connects.resize(t_.channels.size());
  for (uint32_t i : notable_) {
    const Event& ev = raw_.events[i];
    switch (ev.eventKind()) {
      case Kind::Signal:
      case Kind::SignalWait:
        if (ev.value) n.signals.push_back(i);
        break;
      case Kind::Wait:
        if (ev.value && !(ev.flags & kEventFailed)) n.waits.push_back(i);
        break;
      case Kind::Close:
        if (ev.endpoint != kNone) n.closes[raw_.endpoints[ev.endpoint].channel].push_back(i);
        break;
      case Kind::Shutdown:  // of its sending side (SHUT_WR, SHUT_RDWR): the peer reads end of file after it
        if (ev.endpoint != kNone && ev.value != SHUT_RD && !(ev.flags & kEventFailed))
          n.closes[raw_.endpoints[ev.endpoint].channel].push_back(i);
        break;
      case Kind::Connect:  // one that failed with EINPROGRESS goes on in the kernel; other failures do not
        if (ev.endpoint != kNone && !isConnectOutcome(ev) && (!(ev.flags & kEventFailed) || ev.value == EINPROGRESS))
          n.connects[raw_.endpoints[ev.endpoint].channel].push_back(i);
        break;
      case Kind::Accept:
        if (ev.endpoint != kNone && !(ev.flags & kEventFailed)) n.accepts.push_back(i);
        break;
      default:
        break;
    }
    if ((ev.flags & kEventEof) && ev.endpoint != kNone) n.eofs.push_back(i);
  }
  return n;
}

// A process's first event comes after the event that created it.
void Merger::creationEdges() {
  for (auto& p : raw_.processes) {
    const auto [b, e] = raw_.ranges[p.index];
    if (p.parent == kNone || b == e) continue;
    const auto [pb, pe] = raw_.ranges[p.parent];
    if (pb == pe) continue;
    // The parent's events are contiguous in its log's order (counters are dense).
    const uint32_t begin = pb;  // clang 14 cannot capture a structured binding
    const uint32_t k = creatingEvent(p.parent_counter, pe - pb, p.pid,
                                     [&](uint32_t i) -> const Event& { return raw_.events[begin + i]; });
    if (k == kNone) continue;
    edges_.push_back(makeEdge(pb + k, Edge::Why::Create, b, 0));
  }
}

void Merger::otherEdges() {
  std::unordered_map<int64_t, std::vector<uint32_t>> by_pid;  // boot << 32 | pid -> images
  for (auto& p : raw_.processes) by_pid[int64_t{p.boot} << 32 | static_cast<uint32_t>(p.pid)].push_back(p.index);
  creationEdges();
  const Notable n = notableEvents();
  signalEdges(n.signals, by_pid);
  waitEdges(n.waits, by_pid);
  connectEdges(n.accepts, n.connects);
  eofEdges(n.eofs, n.closes);
}

// A signal delivered to a handler, or taken by a wait for it, comes from
// the kill() that sent it, or from the message its sender queued that a
// notification (mq_notify) was asked for.
void Merger::signalEdges(const std::vector<uint32_t>& signals, const PidImages& by_pid) {
  auto& procs = raw_.processes;
  for (uint32_t i : signals) {
    const Event& ev = raw_.events[i];
    auto it = by_pid.find(int64_t{procs[ev.process].boot} << 32 | ev.value);
    if (it == by_pid.end()) continue;
    const uint32_t best = signalSource(i, it->second);
    if (best != kNone && best != i) edges_.push_back(makeEdge(best, Edge::Why::Signal, i, 0));
  }
}

// wait() returns after the child's last event.
void Merger::waitEdges(const std::vector<uint32_t>& waits, const PidImages& by_pid) {
  auto& procs = raw_.processes;
  for (uint32_t i : waits) {
    const Event& ev = raw_.events[i];
    auto it = by_pid.find(int64_t{procs[ev.process].boot} << 32 | ev.value);
    if (it == by_pid.end()) continue;
    uint32_t last = kNone;
    for (uint32_t q : it->second) {
      const auto [qb, qe] = raw_.ranges[q];
      if (qb == qe || raw_.events[qb].entry_ns > ev.returnNs()) continue;
      if (last == kNone || raw_.events[qe - 1].entry_ns > raw_.events[last].entry_ns) last = qe - 1;
    }
    if (last != kNone && processOf(last) != ev.process) edges_.push_back(makeEdge(last, Edge::Why::Exit, i, 0));
  }
}

// accept() returns the connection a connect() asked for: the connecting
// socket's end and the accepted one are the two sides of one channel.
void Merger::connectEdges(const std::vector<uint32_t>& accepts, const std::vector<std::vector<uint32_t>>& connects) {
  for (uint32_t a : accepts) {
    const Event& accept = raw_.events[a];
    const Endpoint& mine = raw_.endpoints[accept.endpoint];
    for (uint32_t k : connects[mine.channel]) {
      const Event& connect = raw_.events[k];
      if (connect.endpoint == accept.endpoint || raw_.endpoints[connect.endpoint].ino == mine.ino) continue;
      // On one machine: the connect began before the accept returned.
      if (beganAfterReturnOf(k, a)) continue;
      edges_.push_back(makeEdge(k, Edge::Why::Connect, a, 0));
    }
  }
}

// End of file on a pipe or stream socket comes after the writers closed
// their ends: by close() or shutdown() (which began before the end of file was read:
// the reader can wake before the close returns), or by ending while they
// held one.
void Merger::eofEdges(const std::vector<uint32_t>& eofs, const std::vector<std::vector<uint32_t>>& closes) {
  std::vector<uint8_t> closed_endpoint(raw_.endpoints.size(), 0);
  for (const auto& list : closes)
    for (uint32_t c : list) closed_endpoint[raw_.events[c].endpoint] = 1;
  for (uint32_t i : eofs) {
    const Event& ev = raw_.events[i];
    const Endpoint& reader = raw_.endpoints[ev.endpoint];
    auto writes = [&](const Endpoint& writer) {
      return isOneSided(writer.type) ? writer.access != 0 /* not O_RDONLY */ : writer.ino != reader.ino;
    };
    const uint32_t boot = raw_.processes[ev.process].boot;
    std::vector<uint32_t> elsewhere;  // the other side's ends let go, on another machine
    for (uint32_t c : closes[reader.channel]) {
      const Event& close = raw_.events[c];
      if (raw_.processes[close.process].boot != boot) {
        elsewhere.push_back(c);
        continue;
      }
      if (close.process == ev.process || !writes(raw_.endpoints[close.endpoint])) continue;
      if (!beganAfterReturnOf(c, i)) edges_.push_back(makeEdge(c, Edge::Why::Eof, i, 0));
    }
    bool all_let_go = true;  // by the other machine's processes
    for (uint32_t e : t_.channels[reader.channel].endpoints) {
      const Endpoint& writer = raw_.endpoints[e];
      if (writer.process == ev.process || closed_endpoint[e]) continue;
      const auto [b, end] = raw_.ranges[writer.process];
      const bool there = raw_.processes[writer.process].boot != boot;
      if (b == end || raw_.events[end - 1].eventKind() != Kind::Exit) {
        all_let_go &= !there;
        continue;
      }
      if (there)
        elsewhere.push_back(end - 1);
      else if (writes(writer) && !beganAfterReturnOf(end - 1, i))
        edges_.push_back(makeEdge(end - 1, Edge::Why::Eof, i, 0));
    }
    if (!elsewhere.empty()) eofFromAnotherMachine(i, elsewhere, all_let_go);
  }
}

// The other side of a connection is on another machine: no clock says
// which of its closes came before the end of file, but the end of file is
// the peer's FIN, sent by its first shutdown() of the sending side, or
// else when the last end was let go (closed, or held by a process that
// ended): every one of those came before it. (With an end still held
// there and no shutdown, what sent the FIN was not recorded: no edge.)
void Merger::eofFromAnotherMachine(uint32_t eof, const std::vector<uint32_t>& ends_let_go, bool all_let_go) {
  uint32_t first_shutdown = kNone;
  for (uint32_t c : ends_let_go)
    if (raw_.events[c].eventKind() == Kind::Shutdown &&
        (first_shutdown == kNone || wallOf(c, false) < wallOf(first_shutdown, false)))
      first_shutdown = c;
  if (first_shutdown != kNone) {
    edges_.push_back(makeEdge(first_shutdown, Edge::Why::Eof, eof, 0));
    return;
  }
  if (!all_let_go) return;
  for (uint32_t c : ends_let_go) edges_.push_back(makeEdge(c, Edge::Why::Eof, eof, 0));
}

}  // namespace radar::trace::merging
