// The merge's linearization: a deterministic causal order, RADAR's numbers.
#include "trace/merger.h"

namespace radar::trace::merging {

// A deterministic topological order: processes' events in counter order
// (but for their threads' messages, below), an event only after everything
// it depends on, ties broken by wall time
// (then log id and counter, so that the order is the same everywhere).
// RADAR's number: one more than the largest number of what it depends on.
//
// Events of a process are contiguous and edges are sorted by target, so a
// cursor per process finds each event's incoming edges. A process whose next
// event waits for an event not yet placed is parked on that event's process
// until it gets there.
void Merger::linearize() {
  // Events in processes' ranges (a log read twice leaves a hole behind).
  uint32_t total = 0;
  for (const auto& [b, e] : raw_.ranges) total += e - b;
  const uint32_t n = static_cast<uint32_t>(raw_.events.size());
  auto& events = raw_.events;
  // By target; for one target, in the order the matcher found the pieces
  // (stream order: what Trace::payload() puts together).
  // A counting sort: stable, and linear in events + edges.
  // The sort's table of where each target's edges go becomes, once done
  // with, the position of each event: its pages are faulted in once.
  BigArray<uint32_t> position(n + 1);
  faultIn(position.data(), position.size() * sizeof(uint32_t));  // all written now: one call, not a fault per page
  {
    BigArray<uint32_t>& first = position;
    std::fill(first.begin(), first.end(), 0);
    stream_edges_.push_back(std::move(edges_));
    size_t count = 0;
    for (const auto& part : stream_edges_) {
      for (const Edge& e : part) ++first[e.to + 1];
      count += part.size();
    }
    std::partial_sum(first.begin(), first.end(), first.begin());
    BigArray<Edge> sorted(count);
    for (auto& part : stream_edges_) {
      ReadArray done(part.data());
      for (size_t k = 0; k < part.size(); ++k) {
        sorted[first[part[k].to]++] = part[k];
        if (k % 65536 == 0) done.release(part.data() + k);
      }
      BigArray<Edge>().swap(part);
    }
    stream_edges_.clear();
    edges_.swap(sorted);
  }

  const uint32_t processes = static_cast<uint32_t>(raw_.processes.size());
  // next[p]: process p's first event (in the logs' order) not placed yet;
  // cursor[p]: its first edge.
  std::vector<uint32_t> next(processes), cursor(processes);
  for (uint32_t p = 0; p < processes; ++p) {
    next[p] = raw_.ranges[p].first;
    cursor[p] = static_cast<uint32_t>(
        std::lower_bound(edges_.begin(), edges_.end(), next[p], [](const Edge& e, uint32_t v) { return e.to < v; }) -
        edges_.begin());
  }
  position.resize(n);
  std::fill(position.begin(), position.end(), kNone);
  // Ties in time go by log id, through each process's rank in that order
  // (a process has one head at a time, so the rank decides between heads).
  std::vector<uint32_t> rank(processes);
  {
    std::vector<uint32_t> by_log(processes);
    std::iota(by_log.begin(), by_log.end(), 0u);
    std::sort(by_log.begin(), by_log.end(), [&](uint32_t a, uint32_t b) {
      return raw_.processes[a].log_id != raw_.processes[b].log_id ? raw_.processes[a].log_id < raw_.processes[b].log_id
                                                                  : a < b;
    });
    for (uint32_t r = 0; r < processes; ++r) rank[by_log[r]] = r;
  }
  // A process's log has its calls in the order they were logged, after
  // they returned: between threads that is not a causal order. When an
  // event needs one of its process's later events first (the bytes a
  // thread read were written by another thread whose call returned later),
  // the writing thread's calls up to that one are pulled ahead of it. They
  // all returned before the reading call did (the bytes were written while
  // they ran), so the story stays in real time too. pulled[p]: events to
  // place before next[p], the next one last.
  std::vector<std::vector<uint32_t>> pulled(processes);
  std::vector<uint32_t> pulls(processes, 0);  // since p last placed an event: a bound against cycles
  std::vector<uint32_t> ahead(processes, 0);  // events placed past next[p]
  bool reordered = false;                     // some event was placed before an earlier one of its process
  auto head = [&](uint32_t p) {
    auto& list = pulled[p];
    while (!list.empty() && position[list.back()] != kNone) list.pop_back();
    return list.empty() ? next[p] : list.back();
  };
  auto firstEdge = [&](uint32_t p, uint32_t i) {
    if (i == next[p]) return cursor[p];
    return static_cast<uint32_t>(
        std::lower_bound(edges_.begin(), edges_.end(), i, [](const Edge& e, uint32_t v) { return e.to < v; }) -
        edges_.begin());
  };
  // Pulls the events of `source`'s thread up to it ahead of p's head.
  auto pull = [&](uint32_t p, uint32_t source, uint32_t i) {
    constexpr uint32_t kMaxPullSpan = 1u << 16;  // farther: the logs' order stands (placed by time)
    const uint8_t thread = events[source].thread;
    if (thread == events[i].thread || thread == 255 || source - next[p] > kMaxPullSpan || ++pulls[p] > 64) return false;
    auto& list = pulled[p];
    for (uint32_t j = source + 1; j-- > next[p];)
      if (position[j] == kNone && events[j].thread == thread) list.push_back(j);
    return true;
  };
  // The ready heads, one leaf per process in rank order: the first in
  // time wins, ties go to the lower rank.
  std::vector<uint32_t> by_rank(processes);
  for (uint32_t p = 0; p < processes; ++p) by_rank[rank[p]] = p;
  // parked[q]: processes waiting for q to place the event they name.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> parked(processes);
  std::vector<uint8_t> forced(processes, 0);  // released by the cycle breaker
  // Whether process p's head can be placed now; if not, p waits.
  // The general case: p has events pulled ahead, or its head needs one.
  auto isReadyPulling = [&](uint32_t p) __attribute__((noinline)) {
    for (;;) {
      const uint32_t i = head(p);
      if (i >= raw_.ranges[p].second) return false;
      if (forced[p]) return true;
      bool again = false;
      for (uint32_t k = firstEdge(p, i); k < edges_.size() && edges_[k].to == i; ++k) {
        const uint32_t from = edges_[k].from;
        if (position[from] != kNone) continue;
        const uint32_t q = owner(from);
        if (q != p) {
          parked[q].push_back({from, p});
          return false;
        }
        if (pull(p, from, i)) {
          again = true;
          break;
        }
      }
      if (!again) return true;
    }
  };
  auto isReady = [&](uint32_t p) {
    if (!pulled[p].empty()) return isReadyPulling(p);
    const uint32_t i = next[p];
    if (i >= raw_.ranges[p].second) return false;
    if (forced[p]) return true;
    for (uint32_t k = cursor[p]; k < edges_.size() && edges_[k].to == i; ++k) {
      const uint32_t from = edges_[k].from;
      if (position[from] != kNone) continue;
      const uint32_t q = owner(from);
      if (q != p) {
        parked[q].push_back({from, p});
        return false;
      }
      return isReadyPulling(p);  // one of its own later events first
    }
    return true;
  };
  // Follows what each process waits for from process `start`.
  auto cycleHasThreads = [&](uint32_t start) {
    uint32_t q = start;
    for (uint32_t steps = 0; steps <= processes; ++steps) {
      if (raw_.processes[q].threads.size() > 1) return true;
      const uint32_t i = head(q);
      uint32_t waits_for = kNone;
      for (uint32_t k = firstEdge(q, i); k < edges_.size() && edges_[k].to == i; ++k)
        if (position[edges_[k].from] == kNone && owner(edges_[k].from) != q) {
          waits_for = owner(edges_[k].from);
          break;
        }
      if (waits_for == kNone || waits_for == start) return false;
      q = waits_for;
    }
    return false;
  };
  // Each event's number goes into its slot of the input; a Placer copies
  // the events to their positions behind the ordering. Pages of the edges
  // that a process has moved past are given back at once.
  BigArray<Event> out;
  out.resize(total);  // not touched: the Placer faults it in window by window
  BigArray<Edge> edges_out;
  edges_out.reserve(edges_.size());
  std::vector<uint32_t> late;  // edges from events placed after their target (broken cycles)
  std::vector<ReadArray> edges_done;
  for (uint32_t p = 0; p < processes; ++p) edges_done.emplace_back(edges_.data() + cursor[p]);
  std::vector<uint32_t> placed_count(processes, 0), last_number(processes, 0);
  std::vector<std::pair<uint32_t, size_t>> sources;  // the event's edges so far: raw source, index in edges_out
  FaultAhead edge_pages(edges_out.data(), edges_.size() * sizeof(Edge));
  Placer placer(events, out.data(), position.data(), raw_.ranges, total);
  if (raw_.keep_hashes) t_.hashes.resize(total);
  // Positions before `in_output` are in `out`, and their input may be gone.
  uint32_t in_output = 0;
  uint32_t window_end = std::min(total, placer.window());  // where the Placer's next window ends
  uint32_t published = 0;                                  // windows handed to the Placer
  uint32_t broken = 0;
  std::vector<uint32_t> contradicted;  // heads released by the cycle breaker where no thread explains the cycle
  auto order = [&](auto& ready) {
    // p's leaf: its head's time if it can be placed now.
    auto offer = [&](uint32_t p) {
      ready.set(rank[p], isReady(p) ? wallOf(pulled[p].empty() ? next[p] : pulled[p].back(), false) : ready.kNever);
    };
    for (uint32_t p = 0; p < processes; ++p) offer(p);
    for (uint32_t here = 0; here < total; ++here) {
      // A cycle through a process with threads whose head waits while
      // another process waits for a later event of another of its threads:
      // that thread's calls go first.
      for (uint32_t q = 0; q < processes && ready.empty(); ++q) {
        if (raw_.processes[q].threads.size() < 2) continue;
        const uint32_t h = head(q);
        if (h >= raw_.ranges[q].second) continue;
        uint32_t wanted = kNone;
        for (const auto& w : parked[q])
          if (position[w.first] == kNone && events[w.first].thread != events[h].thread) wanted = w.first;
        if (wanted != kNone && pull(q, wanted, h)) offer(q);
      }
      if (ready.empty()) {
        // A cycle in what the logs say (for instance bytes received before
        // the call that sent them returned, seen from another thread):
        // release the waiting head that comes first in time.
        uint32_t pick = kNone;
        for (uint32_t p = 0; p < processes; ++p) {
          const uint32_t i = head(p);
          if (i >= raw_.ranges[p].second) continue;
          if (pick == kNone || wallOf(i, false) < wallOf(pick, false)) pick = i;
        }
        const uint32_t p = processOf(pick);
        // Threads: a process's events are in the order its calls returned,
        // which is not a causal order between its threads. A cycle through a
        // multi-threaded process that pulling could not resolve is that, not
        // a contradiction.
        if (cycleHasThreads(p)) {
          ++t_.placed_by_time;
        } else {
          ++broken;
          contradicted.push_back(pick);
        }
        for (auto& list : parked)
          list.erase(std::remove_if(list.begin(), list.end(), [&](const auto& w) { return w.second == p; }),
                     list.end());
        forced[p] = 1;
        offer(p);
        forced[p] = 0;
      }
      const uint32_t p = by_rank[ready.top()];
      const uint32_t i = pulled[p].empty() ? next[p] : head(p);
      const bool in_order = i == next[p];
      const auto range = raw_.ranges[p];
      position[i] = here;
      Event& placed = events[i];
      uint32_t number = last_number[p];
      // One edge per (from, why), bytes summed. Within a process, only the
      // messages: its own order covers the rest.
      sources.clear();
      uint32_t k = in_order ? cursor[p] : firstEdge(p, i);
      for (; k < edges_.size() && edges_[k].to == i; ++k) {
        Edge e = edges_[k];
        const bool own = e.from >= range.first && e.from < range.second;  // owner(e.from) == p
        if (own && e.why != Edge::Why::Message) continue;
        const auto same = std::find_if(sources.begin(), sources.end(), [&](const auto& s) {
          return s.first == e.from && edges_out[s.second].why == e.why;
        });
        if (same != sources.end()) {
          edges_out[same->second].bytes += e.bytes;
          continue;
        }
        sources.emplace_back(static_cast<uint32_t>(e.from), edges_out.size());
        e.to = here;
        if (position[e.from] != kNone) {
          if (!own) {
            const uint32_t at = position[e.from];
            number = std::max(number, at < in_output ? out[at].number : events[e.from].number);
          }
          e.from = position[e.from];
        } else {
          if (own) ++t_.placed_by_time;  // a thread's message that pulling could not put first
          late.push_back(static_cast<uint32_t>(edges_out.size()));  // its source comes later
        }
        edges_out.push_back(e);
      }
      if (raw_.keep_hashes) t_.hashes[here] = placed.hash;  // the checksum, until numbered
      placed.number = last_number[p] = number + 1;
      if (placed.eventKind() == Kind::Exit || placed.eventKind() == Kind::Wait) exits_and_waits_.push_back(here);
      if (in_order) {
        cursor[p] = k;
        ++next[p];
        if (ahead[p]) {  // past those placed ahead already
          for (; next[p] < range.second && position[next[p]] != kNone; ++next[p]) --ahead[p];
          while (cursor[p] < edges_.size() && edges_[cursor[p]].to < next[p]) ++cursor[p];
        }
      } else {
        ++ahead[p];
        reordered = true;
      }
      if (pulls[p]) pulls[p] = 0;
      // The process's events are read in order, but 100s of processes make
      // too many streams for the hardware prefetcher.
      __builtin_prefetch(&events[std::min(next[p] + 4, n - 1)]);
      __builtin_prefetch(&position[std::min(next[p] + 16, n - 1)], 1);
      if (!edges_.empty()) __builtin_prefetch(&edges_[std::min<size_t>(cursor[p] + 8, edges_.size() - 1)]);
      if (++placed_count[p] % 1024 == 0) edges_done[p].release(edges_.data() + cursor[p]);
      if (here % 16384 == 0) edge_pages.at(edges_out.data() + edges_out.size());
      // The Placer copies each process's events up to next[]: once one was
      // placed ahead of that, the rest is copied at the end.
      if (here + 1 == window_end && !reordered) {
        window_end = std::min(total, window_end + placer.window());
        placer.ordered(next);
        ++published;
        in_output = placer.placed();
        placer.readBefore(in_output);
      }
      // Wake those that waited for this event.
      auto& waiting = parked[p];
      for (size_t w = 0; w < waiting.size();) {
        if (waiting[w].first < next[p] || position[waiting[w].first] != kNone) {
          const uint32_t q = waiting[w].second;
          waiting[w] = waiting.back();
          waiting.pop_back();
          offer(q);
        } else {
          ++w;
        }
      }
      offer(p);
    }
  };
  if (Tournament<uint64_t>::fits(processes, raw_.wall_range.first, raw_.wall_range.second)) {
    Tournament<uint64_t> ready(processes, raw_.wall_range.first);
    order(ready);
  } else {
    Tournament<unsigned __int128> ready(processes, 0);
    order(ready);
  }
  // Every event placed, each once: a process's placements are as many as
  // its events, and none of its events is left unplaced.
  for (uint32_t p = 0; p < processes; ++p)
    RADAR_CHECK(next[p] == raw_.ranges[p].second && placed_count[p] == raw_.ranges[p].second - raw_.ranges[p].first);
  for (; published < placer.windows(); ++published) placer.ordered(next);
  placer.join();
  for (uint32_t k : late) edges_out[k].from = position[edges_out[k].from];
  noteContradictions(contradicted, position, edges_out, late);
  decltype(raw_.events)().swap(events);
  BigArray<Edge>().swap(edges_);
  t_.events = std::move(out);
  t_.edges = std::move(edges_out);
  // A process's events are contiguous in the logs' order and in counter
  // order there: its slice of `position` lists their positions.
  t_.process_event_positions = std::move(position);
}

// Each event the cycle breaker placed before an event of another process
// it follows: the logs contradict each other there (a send seen received
// before it returned). They are told as findings, naming both events.
void Merger::noteContradictions(const std::vector<uint32_t>& contradicted, const BigArray<uint32_t>& position,
                                const BigArray<Edge>& edges, const std::vector<uint32_t>& late) {
  if (contradicted.empty()) return;
  std::unordered_set<uint32_t> released;
  for (uint32_t raw : contradicted) released.insert(position[raw]);
  for (uint32_t k : late) {
    const Edge& e = edges[k];
    if (released.count(e.to) && e.from > e.to)
      t_.contradictions.push_back({e.to, static_cast<uint32_t>(e.from), e.why});
  }
}

}  // namespace radar::trace::merging
