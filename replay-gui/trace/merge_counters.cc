// The merge's counters: every eventfd read matched to the writes it took.
#include <deque>

#include "trace/merger.h"

namespace radar::trace::merging {

// An eventfd's id is the kernel's, unique among live eventfds and reused
// once one is freed: ends with one id are one eventfd from the creation at
// or before the moment each end appears (an inherited end: its image's
// first event; any other, its first use) on. Returns each endpoint's
// generation (0 for other channels) and notes when each end appeared.
std::vector<uint32_t> Merger::eventFdGenerations() {
  const auto& eps = raw_.endpoints;
  std::vector<uint32_t> generation(eps.size(), 0);
  bool any = false;
  for (const Endpoint& e : eps) any |= isCounterType(e.type);
  if (!any) return generation;
  counter_since_.assign(eps.size(), std::numeric_limits<int64_t>::max());
  for (const Event& ev : raw_.events)
    if (ev.endpoint != kNone && isCounterType(eps[ev.endpoint].type))
      counter_since_[ev.endpoint] = std::min(counter_since_[ev.endpoint], ev.entry_ns);
  for (uint32_t k = 0; k < eps.size(); ++k) {
    const auto [b, e] = raw_.ranges[eps[k].process];
    if (isCounterType(eps[k].type) && eps[k].inherited && b < e) counter_since_[k] = raw_.events[b].entry_ns;
  }
  // The creations of each id, by time (one host's monotonic clock).
  std::map<std::pair<uint64_t, uint64_t>, std::vector<int64_t>> creations;
  auto idOf = [&](const Endpoint& e) { return std::make_pair(uint64_t{raw_.processes[e.process].boot}, e.ino); };
  for (uint32_t k = 0; k < eps.size(); ++k)
    if (isCounterType(eps[k].type) && eps[k].created) creations[idOf(eps[k])].push_back(counter_since_[k]);
  for (auto& [id, times] : creations) std::sort(times.begin(), times.end());
  for (uint32_t k = 0; k < eps.size(); ++k) {
    if (!isCounterType(eps[k].type)) continue;
    const auto it = creations.find(idOf(eps[k]));
    if (it != creations.end())
      generation[k] = static_cast<uint32_t>(std::upper_bound(it->second.begin(), it->second.end(), counter_since_[k]) -
                                            it->second.begin());
  }
  return generation;
}

// Counters: a write adds its count, a read takes the whole count (one, in
// semaphore mode), in the order the kernel did them: reads by their
// return, writes by their start (a read that waited got the write made
// meanwhile). A read's edges come from the writes whose counts it took,
// oldest first; the count the eventfd was made with is nobody's.
void Merger::matchCounters() {
  const auto& eps = raw_.endpoints;
  std::vector<std::vector<uint32_t>> writes(t_.channels.size()), reads(t_.channels.size());
  bool any = false;
  for (uint32_t k = 0; k < eps.size(); ++k)
    any |= isCounterType(eps[k].type) && (raw_.data_sends[k] || raw_.data_receives[k]);
  if (!any) return;
  for (uint32_t i = 0; i < raw_.events.size(); ++i) {
    const Event& ev = raw_.events[i];
    if (ev.endpoint == kNone || !isCounterType(eps[ev.endpoint].type) || !log::isData(ev.eventKind()) ||
        (ev.flags & kEventFailed))
      continue;
    const bool send = log::categoryOf(ev.eventKind()) == Category::Send;
    (send ? writes : reads)[eps[ev.endpoint].channel].push_back(i);
  }
  for (size_t c = 0; c < t_.channels.size(); ++c)
    if (!writes[c].empty() || !reads[c].empty()) matchCounter(t_.channels[c], writes[c], reads[c]);
}

void Merger::matchCounter(const Channel& c, std::vector<uint32_t>& writes, std::vector<uint32_t>& reads) {
  std::stable_sort(writes.begin(), writes.end(),
                   [&](uint32_t a, uint32_t b) { return wallOf(a, false) < wallOf(b, false); });
  std::stable_sort(reads.begin(), reads.end(),
                   [&](uint32_t a, uint32_t b) { return wallOf(a, true) < wallOf(b, true); });
  auto countOf = [&](uint32_t i) {
    auto it = raw_.counts.find(i);
    return it == raw_.counts.end() ? uint64_t{0} : it->second;
  };
  struct Pending {
    uint32_t write;  // kNone: the count it was made with
    uint64_t left;
  };
  std::deque<Pending> pending;
  // The count before any write: what its earliest end saw when defined.
  uint32_t first = kNone;
  for (uint32_t ep : c.endpoints)
    if (first == kNone || counter_since_[ep] < counter_since_[first]) first = ep;
  if (first != kNone && raw_.endpoints[first].count) pending.push_back({kNone, raw_.endpoints[first].count});
  for (uint32_t w : writes) {
    t_.bytes_sent += raw_.events[w].value;
    if (!countOf(w)) raw_.events[w].flags |= kEventReceivedWhole;  // added nothing: nothing to take
  }
  size_t next_write = 0;
  for (uint32_t r : reads) {
    Event& read = raw_.events[r];
    t_.bytes_received += read.value;
    for (; next_write < writes.size() && wallOf(writes[next_write], false) <= wallOf(r, true); ++next_write)
      if (const uint64_t n = countOf(writes[next_write])) pending.push_back({writes[next_write], n});
    uint64_t need = countOf(r);
    const bool known = raw_.counts.count(r) != 0;
    while (need && !pending.empty()) {
      Pending& p = pending.front();
      const uint64_t take = std::min(need, p.left);
      if (p.write != kNone) {
        edges_.push_back(makeEdge(p.write, Edge::Why::Message, r, read.value));
        raw_.events[p.write].flags |= kEventReceivedWhole;  // (some of its count: see the docs)
      }
      p.left -= take;
      need -= take;
      if (!p.left) pending.pop_front();
    }
    if (known && !need) {
      t_.bytes_matched += read.value;
    } else if (known) {
      // A count no recorded write added: from outside, or a raw call.
      read.flags |= c.external ? kEventExternal : kEventUnmatched;
      if (c.external) t_.bytes_external += read.value;
    }
  }
}

}  // namespace radar::trace::merging
