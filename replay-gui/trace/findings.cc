#include "trace/findings.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "trace/trace.h"

namespace radar::trace {
namespace {

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The endpoint of process p defined with the log's channel index `local`.
uint32_t endpointOf(const Trace& t, uint32_t p, uint32_t local) {
  for (uint32_t i = 0; i < t.endpoints.size(); ++i)
    if (t.endpoints[i].process == p && t.endpoints[i].local_index == local) return i;
  return kNone;
}

// Where to look for what a process image last did: its last event; for an
// image with none of its own (blocked from its start, as a program that
// reads at once after exec), the event of its parent -- the image before
// the exec, or the process that forked it -- that started it.
uint32_t lastSeen(const Trace& t, uint32_t p) {
  const Process& proc = t.processes[p];
  if (proc.last_event != kNone) return proc.last_event;
  if (proc.parent == kNone) return kNone;
  return t.positionOfCounter(proc.parent, proc.parent_counter);
}

// Where the logs contradict each other (Trace::contradictions), one
// finding per pair of processes, naming the first such pair of events.
void findContradictions(Trace& t) {
  std::map<std::pair<uint32_t, uint32_t>, Finding> by_pair;
  for (const Trace::Contradiction& c : t.contradictions) {
    const uint32_t first = t.events[c.event].process, later = t.events[c.after].process;
    Finding& f = by_pair[{first, later}];
    if (f.events.empty()) {
      f.kind = Finding::Kind::Contradiction;
      f.processes = {first, later};
      f.by_message = c.why == Edge::Why::Message;
    }
    f.events.push_back(c.event);
    f.events.push_back(c.after);
  }
  for (auto& [pair, f] : by_pair) t.findings.push_back(std::move(f));
}

// A rank's part in the collectives on one communicator, in its order:
// those it left (their events), then the one it was in when the recording
// ended (no event: its thread's slot says which).
struct Joined {
  uint32_t event;  // kNone: the one it was still in
  uint32_t code;   // mpiCollectiveCode()
};

std::vector<std::vector<Joined>> collectivesByEndpoint(const Trace& t) {
  std::vector<std::vector<Joined>> by_endpoint;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (e.eventKind() != Kind::MpiCollective || e.endpoint == kNone || (e.flags & kEventFailed)) continue;
    if (by_endpoint.empty()) by_endpoint.resize(t.endpoints.size());
    by_endpoint[e.endpoint].push_back({i, e.value});
  }
  for (const Process& p : t.processes)
    for (const auto& slot : p.control.threads) {
      if (slot.kind != static_cast<uint16_t>(Kind::MpiCollective) || !slot.channel) continue;
      const uint32_t ep = endpointOf(t, p.index, slot.channel);
      if (ep == kNone) continue;
      if (by_endpoint.empty()) by_endpoint.resize(t.endpoints.size());
      by_endpoint[ep].push_back({kNone, static_cast<uint32_t>(slot.fd)});
    }
  return by_endpoint;
}

// MPI ranks that part in their collectives on a communicator: the first
// place where two call different ones, or where one stops while another
// goes on (the classic hang: one rank waits in a collective the others
// never call). One finding per communicator.
void findMpiMismatches(Trace& t, const std::vector<std::vector<Joined>>& by_endpoint) {
  for (const Channel& c : t.channels) {
    if (!log::isMpiType(c.type) || c.endpoints.size() < 2) continue;
    uint32_t longest = c.endpoints.front();
    for (uint32_t ep : c.endpoints)
      if (by_endpoint[ep].size() > by_endpoint[longest].size()) longest = ep;
    const std::vector<Joined>& reference = by_endpoint[longest];
    for (size_t n = 0; n < reference.size(); ++n) {
      uint32_t other = kNone;
      for (uint32_t ep : c.endpoints)
        if (n >= by_endpoint[ep].size() || by_endpoint[ep][n].code != reference[n].code) {
          other = ep;
          break;
        }
      if (other == kNone) continue;
      Finding f;
      f.kind = Finding::Kind::MpiMismatch;
      f.processes = {t.endpoints[longest].process, t.endpoints[other].process};
      f.channels = {c.index};
      if (reference[n].event != kNone) f.events.push_back(reference[n].event);
      if (n < by_endpoint[other].size() && by_endpoint[other][n].event != kNone)
        f.events.push_back(by_endpoint[other][n].event);
      f.nth = static_cast<uint32_t>(n + 1);
      f.value = reference[n].code;
      if (n < by_endpoint[other].size()) f.other_value = by_endpoint[other][n].code;
      t.findings.push_back(std::move(f));
      break;
    }
  }
}

// A rank still in a collective when the recording ended, which another
// rank of its communicator left, or had not come to (it was in no
// collective there): the first such other rank is named.
void findMpiStuck(Trace& t, const std::vector<std::vector<Joined>>& by_endpoint) {
  for (uint32_t ep = 0; ep < by_endpoint.size(); ++ep) {
    const std::vector<Joined>& mine = by_endpoint[ep];
    if (mine.empty() || mine.back().event != kNone) continue;
    const size_t n = mine.size() - 1;  // its place
    const Channel& c = t.channels[t.endpoints[ep].channel];
    uint32_t left = kNone, absent = kNone;
    for (uint32_t other : c.endpoints) {
      if (other == ep) continue;
      const std::vector<Joined>& theirs = by_endpoint[other];
      if (theirs.size() > n && theirs[n].event != kNone && left == kNone) left = other;
      // (One itself still in an earlier collective is in one there.)
      const bool waiting = !theirs.empty() && theirs.back().event == kNone;
      if (theirs.size() <= n && !waiting && absent == kNone) absent = other;
    }
    const uint32_t culprit = left != kNone ? left : absent;
    if (culprit == kNone) continue;  // all of them wait there
    Finding f;
    f.kind = Finding::Kind::MpiStuck;
    f.processes = {t.endpoints[ep].process, t.endpoints[culprit].process};
    f.channels = {c.index};
    if (const uint32_t seen = lastSeen(t, f.processes[0]); seen != kNone) f.events.push_back(seen);
    if (left != kNone) f.events.push_back(by_endpoint[left][n].event);
    f.nth = static_cast<uint32_t>(n + 1);
    f.value = mine[n].code;
    f.by_message = left != kNone;  // it left (else: it had not come)
    t.findings.push_back(std::move(f));
  }
}

// MPI receives from any source whose message another rank's could have
// been: that rank's send, of a tag the receive takes, was not got by an
// earlier receive and does not follow this one, so which came first was
// timing. One finding per receiving rank and communicator, with its first
// such receive.
void findWildcardRaces(Trace& t) {
  std::map<std::pair<uint32_t, uint32_t>, size_t> finding_of;  // (process, channel) -> its finding
  uint32_t counted = kNone;
  for (const Trace::MpiRace& race : t.mpi_races) {
    if (race.receive == counted || t.happensBefore(race.receive, race.other)) continue;
    counted = race.receive;  // its other candidates say no more
    const Event& receive = t.events[race.receive];
    const uint32_t channel = t.endpoints[receive.endpoint].channel;
    const auto [at, made] = finding_of.try_emplace({receive.process, channel}, t.findings.size());
    if (made) {
      Finding f;
      f.kind = Finding::Kind::WildcardRace;
      f.processes = {receive.process, t.events[race.got].process, t.events[race.other].process};
      f.channels = {channel};
      f.events = {race.receive, race.got, race.other};
      t.findings.push_back(std::move(f));
    }
    ++t.findings[at->second].nth;
  }
}

// Two threads that take two locks in opposite orders, each holding its
// first while it waits for its second, can deadlock, even where this run
// did not. Found from the locks each thread holds as it takes another; not
// where a third lock both held keeps them apart, nor for a try (it never
// waits), nor within one thread.
struct LockTaken {
  uint32_t held_at, taken_at;   // the events that took the held lock and the other
  std::vector<uint32_t> gates;  // the other locks held then
};

std::map<std::pair<uint32_t, uint32_t>, LockTaken> lockOrders(const Trace& t) {
  std::map<std::pair<uint32_t, uint32_t>, LockTaken> orders;  // (held, taken) -> the first time
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint32_t, uint32_t>>> held;  // by thread
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const Kind k = e.eventKind();
    const uint32_t object = syncObjectOf(e);
    if ((k != Kind::MutexLock && k != Kind::MutexUnlock) || !object || (e.flags & kEventFailed) || e.thread == 255)
      continue;
    auto& mine = held[{e.process, e.thread}];
    if (k == Kind::MutexUnlock) {
      auto it = std::find_if(mine.rbegin(), mine.rend(), [&](const auto& h) { return h.first == object; });
      if (it != mine.rend()) mine.erase(std::next(it).base());
      continue;
    }
    if (!(e.value & kSyncTried))
      for (const auto& [other, at] : mine) {
        if (other == object || orders.count({other, object})) continue;
        LockTaken& taken = orders[{other, object}];
        taken = {at, i, {}};
        for (const auto& gate : mine)
          if (gate.first != other && gate.first != object) taken.gates.push_back(gate.first);
      }
    mine.emplace_back(object, i);
  }
  return orders;
}

void findLockOrder(Trace& t) {
  const auto orders = lockOrders(t);
  for (const auto& [pair, one] : orders) {
    if (pair.first > pair.second) continue;
    const auto other = orders.find({pair.second, pair.first});
    if (other == orders.end()) continue;
    // Told in the story's order.
    const LockTaken& first = one.taken_at < other->second.taken_at ? one : other->second;
    const LockTaken& second = &first == &one ? other->second : one;
    const Event &a = t.events[first.taken_at], &b = t.events[second.taken_at];
    if (a.process == b.process && a.thread == b.thread) continue;
    const bool gated = std::any_of(first.gates.begin(), first.gates.end(), [&](uint32_t g) {
      return std::find(second.gates.begin(), second.gates.end(), g) != second.gates.end();
    });
    if (gated) continue;
    Finding f;
    f.kind = Finding::Kind::LockOrder;
    f.processes = {a.process, b.process};
    f.events = {first.held_at, first.taken_at, second.held_at, second.taken_at};
    t.findings.push_back(std::move(f));
  }
}

// Threads left waiting for a lock another of them holds, round a cycle: a
// deadlock through locks. What each holds: the locks it took and had not
// given back, from the events. What each waits for: its slot in the log's
// control block (the object's address in its process), named by the
// process's own events on that address.
struct LockHeld {
  uint32_t process, thread, event;
};
using ThreadKey = std::pair<uint32_t, uint32_t>;  // (process, thread)

std::map<uint32_t, LockHeld> locksHeldAtEnd(const Trace& t) {
  std::map<uint32_t, LockHeld> held;  // object -> who took it last, if not given back
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const Kind k = e.eventKind();
    const uint32_t object = syncObjectOf(e);
    if ((k != Kind::MutexLock && k != Kind::MutexUnlock) || !object || (e.flags & kEventFailed)) continue;
    if (k == Kind::MutexLock)
      held[object] = {e.process, e.thread, i};
    else
      held.erase(object);
  }
  return held;
}

// The objects at `addresses` in process p, by p's latest event on each:
// one pass forward (a log is read forward; read backwards, every record
// would decode its frame again from its start).
std::map<uint64_t, uint32_t> syncObjectsAt(const Trace& t, uint32_t p, const std::set<uint64_t>& addresses) {
  std::map<uint64_t, uint32_t> objects;
  for (uint32_t position : t.process_events[p]) {
    const Event& e = t.events[position];
    if (!log::isSyncKind(e.eventKind()) || !syncObjectOf(e)) continue;
    log::Record r;
    if (!t.record(position, &r, nullptr, nullptr, nullptr) || r.address.size() < sizeof(uint64_t)) continue;
    uint64_t at;  // the address: the record's last word
    std::memcpy(&at, r.address.data() + r.address.size() - sizeof(at), sizeof(at));
    if (addresses.count(at)) objects[at] = syncObjectOf(e);
  }
  return objects;
}

// The semaphores and condition variables one thread alone posted or
// signalled in the recording -> that thread and its last such event. A
// thread that waits on one waits for that thread: nobody else ever let it go.
std::map<uint32_t, LockHeld> soleReleasers(const Trace& t) {
  std::map<uint32_t, LockHeld> sole;
  std::set<uint32_t> several;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    const Kind k = e.eventKind();
    const uint32_t object = syncObjectOf(e);
    if ((k != Kind::SemPost && k != Kind::CondSignal) || !object || (e.flags & kEventFailed)) continue;
    const auto [it, fresh] = sole.try_emplace(object, LockHeld{e.process, e.thread, i});
    if (fresh) continue;
    if (it->second.process != e.process || it->second.thread != e.thread) several.insert(object);
    it->second.event = i;
  }
  for (uint32_t object : several) sole.erase(object);
  return sole;
}

bool waitsForOthers(uint16_t kind) {
  return kind == static_cast<uint16_t>(Kind::MutexLock) || kind == static_cast<uint16_t>(Kind::SemWait) ||
         kind == static_cast<uint16_t>(Kind::CondWait);
}

void findLockDeadlocks(Trace& t) {
  std::map<ThreadKey, uint32_t> waits;  // a thread killed waiting for a lock or a post -> the object
  for (const Process& p : t.processes) {
    auto waitedAt = [](const auto& slot) { return uint64_t{slot.channel} << 32 | static_cast<uint32_t>(slot.fd); };
    std::set<uint64_t> addresses;
    for (const auto& slot : p.control.threads)
      if (waitsForOthers(slot.kind) && slot.tid) addresses.insert(waitedAt(slot));
    if (addresses.empty()) continue;
    const std::map<uint64_t, uint32_t> objects = syncObjectsAt(t, p.index, addresses);
    for (const auto& slot : p.control.threads) {
      const auto object = objects.find(waitedAt(slot));
      if (waitsForOthers(slot.kind) && slot.tid && object != objects.end())
        waits[{p.index, p.threadIndex(slot.tid)}] = object->second;
    }
  }
  if (waits.empty()) return;
  // Who the waited-for object waits for: a lock's holder; a semaphore's or
  // condition's only poster or signaller.
  std::map<uint32_t, LockHeld> held = locksHeldAtEnd(t);
  held.merge(soleReleasers(t));
  std::set<ThreadKey> told;
  for (const auto& [start, unused] : waits) {
    // Each waits for one lock, held by one thread: follow the holders.
    std::vector<uint32_t> events;  // the events that took the locks waited for, in the cycle's order
    std::vector<ThreadKey> path{start};
    for (;;) {
      const auto w = waits.find(path.back());
      const auto h = w == waits.end() ? held.end() : held.find(w->second);
      if (h == held.end()) break;
      const ThreadKey holder{h->second.process, h->second.thread};
      events.push_back(h->second.event);
      if (holder == start) {
        if (told.insert(start).second) {
          for (const ThreadKey& k : path) told.insert(k);
          Finding f;
          f.kind = Finding::Kind::LockDeadlock;
          for (const ThreadKey& k : path) f.processes.push_back(k.first);
          f.events = events;
          t.findings.push_back(std::move(f));
        }
        break;
      }
      if (std::find(path.begin(), path.end(), holder) != path.end() || path.size() > waits.size()) break;
      path.push_back(holder);
    }
  }
}

// Whether process p forks after its event `counter`.
bool forksAfter(const Trace& t, uint32_t p, uint64_t counter) {
  const EventList& mine = t.counter_events[p];
  for (size_t k = counter; k < mine.size(); ++k)
    if (t.events[mine[k]].eventKind() == Kind::Fork) return true;
  return false;
}

}  // namespace

// A channel one of whose ends is held by a process other than `p` whose
// log lost its last events (a full disk), or that moved bytes where radar
// does not see them (io_uring, raw system calls): what those events would
// have said -- sends, receives -- is unknown, so bytes that seem missing on
// it are no finding of their own (the lost-events finding, or the unseen
// line, says why).
bool channelGapExplained(const Trace& t, uint32_t channel, uint32_t p) {
  for (uint32_t e : t.channels[channel].endpoints) {
    if (t.beganBeforeAttach(e) || t.beganBeforeWindow(e)) return true;
    const uint32_t q = t.endpoints[e].process;
    if (q == p) continue;
    if (t.processes[q].control.incomplete) return true;
    for (const Process::UnseenUse& u : t.processes[q].unseen)
      if (log::unseenMovesChannelBytes(u.what)) return true;
  }
  return false;
}

UnfinishedSend unfinishedSendInto(const Trace& t, uint32_t receive) {
  const uint32_t into = t.events[receive].endpoint;
  if (into == kNone) return {};
  const Endpoint& mine = t.endpoints[into];
  const bool pipe = mine.type == log::ChannelType::Pipe || mine.type == log::ChannelType::Fifo;
  for (uint32_t e : t.channels[mine.channel].endpoints) {
    const Endpoint& end = t.endpoints[e];
    if (e == into || (!pipe && end.ino && end.ino == mine.ino)) continue;  // the receiving side
    for (const auto& slot : t.processes[end.process].control.threads) {
      if (!slot.kind || !slot.channel || slot.channel != end.local_index ||
          log::categoryOf(static_cast<Kind>(slot.kind)) != log::Category::Send)
        continue;
      const uint32_t last = slot.last_counter ? t.positionOfCounter(end.process, slot.last_counter) : kNone;
      if (last == kNone || !t.happensBefore(receive, last)) return {end.process, slot.kind};
    }
  }
  return {};
}

// Whether what process p began using after its event `after_counter`
// began inside its MPI_Init: the MPI library's own (its shared-memory
// transport), whose messages radar records as MPI calls.
bool inMpiInit(const Trace& t, const Process& p, uint64_t after_counter) {
  if (p.mpi_rank < 0 || after_counter == 0) return false;
  for (uint32_t e : t.counter_events[p.index]) {
    const Event& init = t.events[e];
    if (init.eventKind() != Kind::MpiInit) continue;
    const uint32_t before = t.positionOfCounter(p.index, after_counter);
    return init.counter > after_counter && before != kNone && t.events[before].entry_ns >= init.entry_ns;
  }
  return false;
}

std::vector<UnseenLine> unseenLines(const Trace& t) {
  std::vector<UnseenLine> out;
  for (const Process& p : t.processes)
    for (const Process::UnseenUse& u : p.unseen) {
      if (u.what == log::Unseen::SharedMemory && u.detail.starts_with("anonymous") &&
          !forksAfter(t, p.index, u.after_counter))
        continue;
      UnseenLine line;
      line.process = p.index;
      line.event = u.after_counter ? t.positionOfCounter(p.index, u.after_counter) : kNone;
      line.name = log::unseenName(u.what);
      line.text = t.label(p.index) + " " + log::unseenDoes(u.what) + (u.detail.empty() ? "" : " (" + u.detail + ")") +
                  ": " + log::unseenConsequence(u.what);
      if (log::unseenMovesChannelBytes(u.what)) line.text += "; bytes missing on its channels are no finding";
      if (u.what == log::Unseen::SharedMemory && inMpiInit(t, p, u.after_counter))
        line.text += "; mapped in MPI_Init: the MPI library's transport, whose messages are recorded as MPI calls";
      out.push_back(std::move(line));
    }
  return out;
}

std::string syncObjectName(const Trace& t, uint32_t position) {
  const Kind k = t.events[position].eventKind();
  log::Record r;
  if (!t.record(position, &r, nullptr, nullptr, nullptr)) return "an object";
  const bool rwlock = r.flags & log::kSyncRwlock, spin = r.flags & log::kSyncSpin;
  const char* what = k == Kind::SemWait || k == Kind::SemPost       ? "semaphore"
                     : k == Kind::CondWait || k == Kind::CondSignal ? "condition"
                     : k == Kind::BarrierWait                       ? "barrier"
                     : rwlock                                       ? "read-write lock"
                     : spin                                         ? "spin lock"
                                                                    : "mutex";
  uint64_t id[4] = {};
  if (!r.address.empty()) std::memcpy(id, r.address.data(), std::min(r.address.size(), sizeof(id)));
  char buf[96];
  if (r.address.size() == sizeof(id))
    std::snprintf(buf, sizeof(buf), "shared %s at inode %llu + %llu", what, static_cast<unsigned long long>(id[1]),
                  static_cast<unsigned long long>(id[2]));
  else
    std::snprintf(buf, sizeof(buf), "%s 0x%llx", what, static_cast<unsigned long long>(id[0]));
  return buf;
}

std::string blockedCallName(unsigned kind) { return log::kindName(static_cast<log::Kind>(kind)); }

namespace {

struct Blocked {
  uint32_t process, endpoint;
  unsigned kind;
  int32_t fd;
};

// The second half's findings into the first's, by key: its events come
// after the first's.
template <class Map>
void join(Map& into_map, Map& from_map) {
  for (auto& [key, f] : from_map) {
    Finding& into = into_map[key];
    into.kind = f.kind;
    into.events.insert(into.events.end(), f.events.begin(), f.events.end());
    into.bytes += f.bytes;
    for (uint32_t p : f.processes)
      if (std::find(into.processes.begin(), into.processes.end(), p) == into.processes.end())
        into.processes.push_back(p);
  }
}

// Sends never received whole, by (channel, sending process): a finding
// but where another holder of the channel moved bytes radar did not see.
void findNeverReceived(Trace& t, std::map<std::pair<uint32_t, uint32_t>, Finding>& lost) {
  if (t.frozen_at_ns) return;  // a freeze: its receivers ran on, and may yet receive
  for (auto& [key, f] : lost) {
    if (channelGapExplained(t, key.first, key.second)) continue;
    f.processes = {key.second};
    f.channels = {key.first};
    t.findings.push_back(std::move(f));
  }
}

// Received with no recorded sender, by channel.
void findNoSender(Trace& t, std::map<uint32_t, Finding>& orphan) {
  for (auto& [ch, f] : orphan) {
    const uint32_t channel = ch;
    if (std::all_of(f.processes.begin(), f.processes.end(),
                    [&](uint32_t p) { return channelGapExplained(t, channel, p); }))
      continue;
    f.channels = {ch};
    t.findings.push_back(std::move(f));
  }
}

// Processes the recording has no log of: created by a recorded one, or
// exec'd into by one, and never heard from (radar record says why when it
// knows: statically linked, set-user-ID ...).
void findUnrecorded(Trace& t, const std::vector<uint32_t>& created) {
  auto& out = t.findings;
  std::set<std::pair<uint32_t, int32_t>> children;  // (parent image, pid) of every image with a log
  for (const Process& q : t.processes)
    if (q.parent != kNone) children.insert({q.parent, q.pid});
  for (uint32_t i : created) {
    const Event& ev = t.events[i];
    const auto pid = static_cast<int32_t>(ev.value);
    if (children.count({ev.process, pid})) continue;
    Finding f;
    f.kind = Finding::Kind::Unrecorded;
    f.processes = {ev.process};
    f.events = {i};
    f.pid = pid;
    out.push_back(std::move(f));
  }
  for (const Process& p : t.processes)
    if (p.ended_unseen) {
      Finding f;
      f.kind = Finding::Kind::Unrecorded;
      f.processes = {p.index};
      if (const uint32_t seen = lastSeen(t, p.index); seen != kNone) f.events = {seen};
      out.push_back(std::move(f));
    }
  for (const Process& p : t.processes)
    if (!p.external && p.end == Process::End::Execed &&
        (p.next_image == kNone || !t.processes[p.next_image].not_recorded.empty())) {
      Finding f;
      f.kind = Finding::Kind::Unrecorded;
      f.processes = {p.index};
      if (const uint32_t seen = lastSeen(t, p.index); seen != kNone) f.events = {seen};
      out.push_back(std::move(f));
    }
  // A log that could not be read at all is part of the story too.
  for (uint32_t k = 0; k < t.problems.size(); ++k) {
    bool read_in_part = false;
    for (const Process& p : t.processes) read_in_part |= p.log_path == t.problems[k].path;
    if (read_in_part) continue;  // said above as damage
    Finding f;
    f.kind = Finding::Kind::Damaged;
    f.problem = k;
    out.push_back(std::move(f));
  }
}

// Whether none of the process's threads can go on by itself, in a freeze
// taken while it ran (a look at a recording being made): each thread it is
// known to have is in a send or receive on a channel that has lasted, or
// has been quiet for kQuietNs — in one call (a join, a lock, a poll), or
// in none since its last event. A thread that works, or wakes on a timer,
// makes calls, and may yet send what another process waits for: its
// process then waits for nobody. (After the end, a blocked call counts as
// it did: what the other threads were doing is not known.)
constexpr int64_t kQuietNs = 2'000'000'000;
template <class Lasted>
bool everyThreadWaits(const Trace& t, const Process& p, const Lasted& lasted) {
  if (!t.frozen_at_ns) return true;
  const auto quietSince = [&](__int128 monotonic_ns) {  // (in 128 bits: a damaged log's times are anything)
    return monotonic_ns + p.realtime_offset + kQuietNs <= t.frozen_at_ns;
  };
  for (const auto& slot : p.control.threads) {
    if (!slot.tid) continue;
    const auto kind = static_cast<Kind>(slot.kind);
    const log::Category cat = log::categoryOf(kind);
    if (slot.kind && (cat == log::Category::Send || cat == log::Category::Receive) && slot.channel && lasted(slot))
      continue;
    if (slot.kind && quietSince(slot.entry_ns)) continue;
    // (The control block's counters count as the kept events do: load.cc.)
    const uint32_t last = slot.last_counter ? t.positionOfCounter(p.index, slot.last_counter) : kNone;
    if (!slot.kind && last != kNone && quietSince(__int128{t.events[last].entry_ns} + t.events[last].durationNs()))
      continue;
    return false;
  }
  return true;
}

// How processes ended, and what the unfinished ones were blocked in.
std::vector<Blocked> findEndings(Trace& t) {
  auto& out = t.findings;
  std::vector<Blocked> blocked;
  // A freeze caught its processes running: a call counts as blocked once
  // it had waited half a second, and none had ended.
  constexpr int64_t kLastingNs = 500'000'000;
  for (const Process& p : t.processes) {
    if (p.external) continue;
    const auto lasted = [&](const log::ThreadSlot& slot) {
      return !t.frozen_at_ns ||  // (in 128 bits: a damaged log's times are anything)
             __int128{slot.entry_ns} + p.realtime_offset + kLastingNs <= t.frozen_at_ns;
    };
    if (everyThreadWaits(t, p, lasted))
      for (const auto& slot : p.control.threads)
        if (slot.tid && slot.kind && !log::isSyncKind(static_cast<Kind>(slot.kind)) &&  // a lock's: findLockDeadlocks
            lasted(slot))
          blocked.push_back({p.index, slot.channel ? endpointOf(t, p.index, slot.channel) : kNone, slot.kind, slot.fd});
    if (p.end == Process::End::Signaled) {
      Finding f;
      f.kind = Finding::Kind::Abnormal;
      f.processes = {p.index};
      if (const uint32_t seen = lastSeen(t, p.index); seen != kNone) f.events = {seen};
      out.push_back(std::move(f));
    } else if (p.end == Process::End::Unknown && !p.control.incomplete &&  // an end lost is said below
               !t.frozen_at_ns) {                                          // a freeze: it ran on
      Finding f;
      f.kind = Finding::Kind::NeverEnded;
      f.processes = {p.index};
      if (const uint32_t seen = lastSeen(t, p.index); seen != kNone) f.events = {seen};
      out.push_back(std::move(f));
    }
    if (p.control.incomplete) {
      Finding f;
      f.kind = Finding::Kind::LostEvents;
      f.processes = {p.index};
      out.push_back(std::move(f));
    }
    if (!p.damage.empty()) {
      Finding f;
      f.kind = Finding::Kind::Damaged;
      f.processes = {p.index};
      out.push_back(std::move(f));
    }
  }
  return blocked;
}

// Deadlocks: processes blocked at the end waiting for each other. A
// reader waits for whoever still holds the other end of its channel open
// (a writer that closed it, or ended, would have given it end of file);
// a writer blocked on a full channel waits for the readers.
void findDeadlocks(Trace& t, const std::vector<Blocked>& blocked,
                   const std::set<std::pair<uint32_t, uint32_t>>& in_flight, const std::vector<uint8_t>& closed) {
  auto& out = t.findings;
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> waits(t.processes.size());  // (process, channel)
  for (const Blocked& b : blocked) {
    if (b.endpoint == kNone) continue;
    const log::Category cat = log::categoryOf(static_cast<log::Kind>(b.kind));
    if (cat != log::Category::Send && cat != log::Category::Receive) continue;
    const Endpoint& mine = t.endpoints[b.endpoint];
    const Channel& ch = t.channels[mine.channel];
    // Killed while bytes for it were in the channel: its read was about to
    // return them (a whole process group killed at once stops readers
    // between the send and the wake-up), so it waited for nobody.
    if (cat == log::Category::Receive) {
      bool pending = false;
      for (const auto& [channel, sender] : in_flight) pending |= channel == mine.channel && sender != b.process;
      if (pending) continue;
    }
    for (uint32_t other : ch.endpoints) {
      const Endpoint& e = t.endpoints[other];
      if (e.process == b.process || closed[other]) continue;
      const Process& holder = t.processes[e.process];
      if (holder.end == Process::End::Exited || holder.end == Process::End::Execed) continue;
      const bool pipe = log::isOneSided(ch.type);
      const bool other_side =
          pipe ? (cat == log::Category::Receive ? e.access != 0 : e.access != 1) : e.ino != mine.ino;
      if (other_side) waits[b.process].insert({e.process, mine.channel});
    }
  }
  // Cycles: Tarjan's strongly connected components.
  const uint32_t n = static_cast<uint32_t>(t.processes.size());
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> on(n, false);
  std::vector<uint32_t> stack;
  int counter = 0;
  std::function<void(uint32_t)> visit = [&](uint32_t v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on[v] = true;
    for (const auto& [w, ch] : waits[v]) {
      if (index[w] < 0) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on[w]) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] != index[v]) return;
    std::vector<uint32_t> scc;
    uint32_t w;
    do {
      w = stack.back();
      stack.pop_back();
      on[w] = false;
      scc.push_back(w);
    } while (w != v);
    const bool self = waits[v].count({v, 0}) != 0;
    if (scc.size() < 2 && !self) return;
    Finding f;
    f.kind = Finding::Kind::Deadlock;
    std::reverse(scc.begin(), scc.end());
    f.processes = scc;
    for (uint32_t p : scc) {
      for (const auto& [q, ch] : waits[p]) {
        if (std::find(scc.begin(), scc.end(), q) == scc.end()) continue;
        f.waits_for.push_back({p, q, ch});
        if (std::find(f.channels.begin(), f.channels.end(), ch) == f.channels.end()) f.channels.push_back(ch);
        break;
      }
      if (const uint32_t seen = lastSeen(t, p); seen != kNone) f.events.push_back(seen);
    }
    out.push_back(std::move(f));
  };
  for (uint32_t v = 0; v < n; ++v)
    if (index[v] < 0 && !waits[v].empty()) visit(v);
}

}  // namespace

void findProblems(Trace& t) {
  // One pass over the events for what the findings below need: sends never
  // received whole (by channel and sending process; the matching marked
  // those received whole), receives with no recorded sender (by channel),
  // ends closed. Two threads share it, each with its own half and its own
  // tables, put together after.
  struct Half {
    std::map<std::pair<uint32_t, uint32_t>, Finding> lost;
    std::map<uint32_t, Finding> orphan;
    std::vector<uint8_t> closed;
    std::vector<uint32_t> created;  // fork, vfork and spawn events that made a process
    std::exception_ptr failed;
  };
  Half halves[2];
  auto onBothHalves = [&](auto&& pass) {
    auto run = [&](int h) {
      try {
        pass(h);
      } catch (...) {
        halves[h].failed = std::current_exception();
      }
    };
    std::thread other(run, 1);
    run(0);
    other.join();
    for (const Half& h : halves)
      if (h.failed) std::rethrow_exception(h.failed);
  };
  // Bytes of a send some receive consumed, when not all.
  auto consumed = [&](uint32_t send) -> uint64_t {
    auto it =
        std::lower_bound(t.received_in_part.begin(), t.received_in_part.end(), std::pair<uint32_t, uint64_t>{send, 0});
    return it != t.received_in_part.end() && it->first == send ? it->second : 0;
  };
  onBothHalves([&](int h) {
    const uint32_t n = static_cast<uint32_t>(t.events.size());
    const uint32_t from = h == 0 ? 0 : n / 2, to = h == 0 ? n / 2 : n;
    Half& mine = halves[h];
    mine.closed.assign(t.endpoints.size(), 0);
    for (uint32_t i = from; i < to; ++i) {
      const Event& ev = t.events[i];
      if (ev.endpoint == kNone) {
        const Kind k = ev.eventKind();
        // (A vfork child that ended without an exec never ran code of its
        // own: no log is missing.)
        if ((k == Kind::Fork || k == Kind::Vfork || k == Kind::Spawn) && ev.value && !(ev.flags & kEventFailed) &&
            !(k == Kind::Vfork && ev.result == 0))
          mine.created.push_back(i);
        continue;
      }
      if (ev.eventKind() == Kind::Close) mine.closed[ev.endpoint] = 1;
      if (ev.flags & kEventUnmatched) {
        Finding& f = mine.orphan[t.endpoints[ev.endpoint].channel];
        f.kind = Finding::Kind::NoSender;
        f.events.push_back(i);
        f.bytes += ev.value;
        if (std::find(f.processes.begin(), f.processes.end(), ev.process) == f.processes.end())
          f.processes.push_back(ev.process);
      }
      if (log::categoryOf(ev.eventKind()) != log::Category::Send || (ev.flags & (kEventFailed | kEventExternal)))
        continue;
      if (ev.value == 0 || (ev.flags & kEventReceivedWhole)) continue;
      Finding& f = mine.lost[{t.endpoints[ev.endpoint].channel, ev.process}];
      f.kind = Finding::Kind::NeverReceived;
      f.events.push_back(i);
      f.bytes += ev.value - consumed(i);
    }
  });
  auto& lost = halves[0].lost;
  join(lost, halves[1].lost);
  auto& orphan = halves[0].orphan;
  join(orphan, halves[1].orphan);
  std::vector<uint8_t>& closed = halves[0].closed;
  for (size_t k = 0; k < closed.size(); ++k) closed[k] |= halves[1].closed[k];
  // Channels with bytes in flight, and who sent them (the deadlock search
  // below: a reader with bytes waiting for it is not waiting for anyone).
  std::set<std::pair<uint32_t, uint32_t>> in_flight;  // (channel, sending process)
  for (const auto& [key, f] : lost) in_flight.insert(key);
  findNeverReceived(t, lost);

  std::vector<uint32_t> created = halves[0].created;
  created.insert(created.end(), halves[1].created.begin(), halves[1].created.end());
  findUnrecorded(t, created);

  findNoSender(t, orphan);

  const std::vector<Blocked> blocked = findEndings(t);

  findDeadlocks(t, blocked, in_flight, closed);
  findContradictions(t);
  const auto collectives = collectivesByEndpoint(t);
  if (!collectives.empty()) {
    findMpiMismatches(t, collectives);
    findMpiStuck(t, collectives);
  }
  findWildcardRaces(t);
  findLockOrder(t);
  findLockDeadlocks(t);
  rankFindings(t);
}

bool isCrashSignal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGFPE || sig == SIGILL || sig == SIGSYS ||
         sig == SIGTRAP;
}

// Telling a finding: one function a kind, by the names shown now.
namespace {

std::string unrecordedWhy(const Trace& t, int32_t pid) {
  for (const auto& n : t.unrecorded_notes)
    if (n.pid == pid) return (n.executable.empty() ? "" : n.executable + ": ") + n.what;
  return "its log is missing";
}

std::string tellUnrecorded(const Trace& t, const Finding& f) {
  const Process& p = t.processes[f.processes[0]];
  if (f.pid)
    return t.label(p.index) + " created process " + std::to_string(f.pid) + ", which the recording has no log of (" +
           unrecordedWhy(t, f.pid) + ")";
  if (p.ended_unseen)
    return t.label(p.index) + " exited with status " + std::to_string(p.end_code) +
           " without radar seeing it exit: it executed a program (or exited) through a raw system "
           "call, and what it did from then on was not recorded";
  return t.label(p.index) + " executed a program the recording has no log of (" + unrecordedWhy(t, p.pid) + ")";
}

std::string tellAbnormal(const Trace& t, const Finding& f) {
  const Process& p = t.processes[f.processes[0]];
  const bool crash = isCrashSignal(p.end_code);
  return t.label(p.index) + (crash ? " crashed: " : " was killed by signal ") +
         (crash ? std::string(strsignal(p.end_code))
                : std::to_string(p.end_code) + " (" + strsignal(p.end_code) + ")") +
         (p.core_dumped ? ", core dumped" : "");
}

// What its threads were in when the recording ended.
std::string tellNeverEnded(const Trace& t, const Finding& f) {
  const Process& p = t.processes[f.processes[0]];
  std::string text = t.label(p.index) + " did not end while it was recorded";
  for (const auto& slot : p.control.threads) {
    if (!slot.kind) continue;
    text += std::string(", blocked in ") + (slot.kind == static_cast<uint16_t>(Kind::MpiCollective)
                                                ? mpiCollectiveName(static_cast<uint32_t>(slot.fd))
                                                : blockedCallName(slot.kind));
    if (log::isSyncKind(static_cast<Kind>(slot.kind))) continue;  // its slot holds the object's address
    const uint32_t endpoint = slot.channel ? endpointOf(t, p.index, slot.channel) : kNone;
    if (endpoint != kNone)
      text += " on " + t.channelName(t.endpoints[endpoint].channel);
    else if (slot.fd >= 0 && !log::isMpiKind(static_cast<Kind>(slot.kind)))
      text += " on fd " + std::to_string(slot.fd);
  }
  return text;
}

std::string tellLostEvents(const Trace& t, const Finding& f) {
  const Process& p = t.processes[f.processes[0]];
  return t.label(p.index) + ": log incomplete from its event " + std::to_string(p.control.lost_from_counter) + " (" +
         plural(p.control.lost_events, "event", "events") +
         " lost: " + std::strerror(p.control.lost_errno ? p.control.lost_errno : EIO) +
         "); what it did from then on, how it ended included, is not in the story, and bytes it sent or "
         "received then are no finding";
}

std::string tellDamaged(const Trace& t, const Finding& f) {
  if (f.problem != kNone) return t.problems[f.problem].path + ": cannot be read: " + t.problems[f.problem].message;
  return t.label(f.processes[0]) + ": log damaged, read up to the damage: " + t.processes[f.processes[0]].damage;
}

std::string tellDeadlock(const Trace& t, const Finding& f) {
  std::string cycle;
  for (const Finding::Wait& w : f.waits_for)
    cycle += (cycle.empty() ? "" : ", ") + t.label(w.waiter) + " waits for " + t.label(w.holder) + " on " +
             t.channelName(w.channel);
  return cycle;
}

// The first pair of events the logs contradict each other on, and how many more.
std::string tellContradiction(const Trace& t, const Finding& f) {
  const uint32_t first = f.processes[0], later = f.processes[1];
  const std::string at = "event " + std::to_string(f.events[1] + 1);
  std::string text = t.label(first) + "'s event " + std::to_string(f.events[0] + 1) +
                     (f.by_message ? " receives bytes that " + t.label(later) + " sends at " + at +
                                         ", but their logs contradict each other (the send seen received "
                                         "before it returned): the receive is told first, by time"
                                   : " follows " + t.label(later) + "'s " + at +
                                         ", but their logs contradict each other: it is told first, by time");
  if (f.events.size() > 2) text += "; " + plural(f.events.size() / 2 - 1, "more such pair", "more such pairs");
  return text;
}

std::string ordinal(uint32_t n) {
  const char* suffix = n % 100 / 10 == 1 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

std::string tellMpiMismatch(const Trace& t, const Finding& f) {
  const std::string on = t.channelName(f.channels[0]);
  // (Where: the events, which the finding's readers show beside it.)
  const std::string first = t.label(f.processes[0]), other = t.label(f.processes[1]);
  if (f.other_value != kNone)
    return "the ranks call different collectives on " + on + ": as its " + ordinal(f.nth) + ", " + first + " calls " +
           mpiCollectiveName(f.value) + " where " + other + " calls " + mpiCollectiveName(f.other_value);
  return other + " calls " + std::to_string(f.nth - 1) + " collective" + (f.nth == 2 ? "" : "s") + " on " + on +
         " and no " + ordinal(f.nth) + ", where " + first + " calls " + mpiCollectiveName(f.value) +
         ": a rank waiting there waits for it";
}

std::string tellMpiStuck(const Trace& t, const Finding& f) {
  return t.label(f.processes[0]) + " was still in " + mpiCollectiveName(f.value) + ", its " + ordinal(f.nth) +
         " collective on " + t.channelName(f.channels[0]) + ", when the recording ended; " + t.label(f.processes[1]) +
         (f.by_message ? " had left it" : " had not come to it (it was in no collective there)");
}

std::string tellLockOrder(const Trace& t, const Finding& f) {
  const auto event = [](uint32_t position) { return std::to_string(position + 1); };
  const std::string first = syncObjectName(t, f.events[0]), second = syncObjectName(t, f.events[1]);
  return threadOf(t, f.events[1]) + " took " + second + " while holding " + first + " (events " + event(f.events[0]) +
         ", " + event(f.events[1]) + "), " + threadOf(t, f.events[3]) + " took " + first + " while holding " + second +
         " (events " + event(f.events[2]) + ", " + event(f.events[3]) +
         "): each holding one while it waits for the other, they can deadlock";
}

// "A (thread 2) waits for mutex M, held by B (thread 3) since event 7;
// B (thread 3) waits for semaphore S, posted only by A, last at event 4":
// each event took the lock, or was the last post or signal, that the
// thread before it in the cycle waits for.
std::string tellLockDeadlock(const Trace& t, const Finding& f) {
  std::string text;
  bool held_only = true;  // every link a lock held (else a post or signal nobody else ever made)
  for (size_t k = 0; k < f.events.size(); ++k) {
    const uint32_t waiter = f.events[(k + f.events.size() - 1) % f.events.size()], holder = f.events[k];
    const Kind released_by = t.events[holder].eventKind();
    held_only &= released_by == Kind::MutexLock;
    const std::string how = released_by == Kind::SemPost      ? ", posted only by "
                            : released_by == Kind::CondSignal ? ", signalled only by "
                                                              : ", held by ";
    const std::string when = released_by == Kind::MutexLock ? " since event " : ", last at event ";
    text += (k ? "; " : "") + threadOf(t, waiter) + " waits for " + syncObjectName(t, holder) + how +
            threadOf(t, holder) + when + std::to_string(holder + 1);
  }
  return text + (held_only ? ": none of them can go on"
                           : ": none of them can go on, unless a thread that never did so posts or signals");
}

std::string tellWildcardRace(const Trace& t, const Finding& f) {
  const std::string receiver = t.label(f.processes[0]);
  const std::string first = f.nth == 1 ? "it" : "the first";
  return plural(f.nth, "receive", "receives") + " from any source by " + receiver + " on " +
         t.channelName(f.channels[0]) + " could have got another rank's message: " + first + " got " +
         t.label(f.processes[1]) + "'s, and " + t.label(f.processes[2]) +
         "'s send could have come first; which one a receive gets depends on timing";
}

// A finding told by its kind, without its cause.
std::string tell(const Trace& t, const Finding& f) {
  switch (f.kind) {
    case Finding::Kind::NeverReceived:
      return plural(f.events.size(), "message", "messages") + " (" + plural(f.bytes, "byte", "bytes") + ") sent by " +
             t.label(f.processes[0]) + " on " + t.channelName(f.channels[0]) + " never received";
    case Finding::Kind::NoSender:
      return plural(f.events.size(), "receive", "receives") + " on " + t.channelName(f.channels[0]) +
             " got bytes no recorded process sent (" + plural(f.bytes, "byte", "bytes") + ")";
    case Finding::Kind::Abnormal:
      return tellAbnormal(t, f);
    case Finding::Kind::NeverEnded:
      return tellNeverEnded(t, f);
    case Finding::Kind::Deadlock:
      return tellDeadlock(t, f);
    case Finding::Kind::LostEvents:
      return tellLostEvents(t, f);
    case Finding::Kind::Damaged:
      return tellDamaged(t, f);
    case Finding::Kind::Unrecorded:
      return tellUnrecorded(t, f);
    case Finding::Kind::Contradiction:
      return tellContradiction(t, f);
    case Finding::Kind::MpiMismatch:
      return tellMpiMismatch(t, f);
    case Finding::Kind::WildcardRace:
      return tellWildcardRace(t, f);
    case Finding::Kind::LockOrder:
      return tellLockOrder(t, f);
    case Finding::Kind::LockDeadlock:
      return tellLockDeadlock(t, f);
    case Finding::Kind::MpiStuck:
      return tellMpiStuck(t, f);
  }
  return findingKindName(f.kind);
}

}  // namespace

std::string describe(const Trace& t, const Finding& f) { return tell(t, f) + causeOf(t, f); }

std::string threadOf(const Trace& t, uint32_t position) {
  const Event& e = t.events[position];
  return t.label(e.process) + (e.thread ? " (thread " + std::to_string(e.thread + 1) + ")" : "");
}

}  // namespace radar::trace
