// The merge's linearization: a deterministic causal order, RADAR's numbers.
#include "trace/merger.h"

#include <optional>

namespace radar::trace::merging {

// A deterministic topological order: processes' events in counter order
// (but for their threads' messages, below), an event only after everything
// it depends on, ties broken by the wall time each call returned (then log
// id and counter, so that the order is the same everywhere). A call's
// effect is known when it returns (a receive has its bytes, a wait its
// child's end), which is also the order of a process's log; and a call in
// progress cannot take a place before what has returned already, so the
// story of a recording still being made is a prefix of its final story.
// RADAR's number: one more than the largest number of what it depends on.
//
// Events of a process are contiguous and edges are sorted by target, so a
// cursor per process finds each event's incoming edges. A process whose next
// event waits for an event not yet placed is parked on that event's process
// until it gets there.
//
// A process's log has its calls in the order they were logged, after they
// returned: between threads that is not a causal order. When an event needs
// one of its process's later events first (the bytes a thread read were
// written by another thread whose call returned later), the writing
// thread's calls up to that one are pulled ahead of it. They all returned
// before the reading call did (the bytes were written while they ran), so
// the story stays in real time too.
class Linearizer {
 public:
  explicit Linearizer(Merger& m)
      : m_(m),
        raw_(m.raw_),
        t_(m.t_),
        events_(m.raw_.events),
        edges_(m.edges_),
        n_(static_cast<uint32_t>(m.raw_.events.size())),
        processes_(static_cast<uint32_t>(m.raw_.processes.size())) {
    // Events in processes' ranges (a log read twice leaves a hole behind).
    for (const auto& [b, e] : raw_.ranges) total_ += e - b;
  }

  void run() {
    sortEdgesByTarget();
    prepareHeads();
    prepareOutput();
    if (Tournament<uint64_t>::fits(processes_, raw_.wall_range.first, raw_.wall_range.second)) {
      Tournament<uint64_t> ready(processes_, raw_.wall_range.first);
      order(ready);
    } else {
      Tournament<unsigned __int128> ready(processes_, 0);
      order(ready);
    }
    finish();
  }

 private:
  // By target; for one target, in the order the matcher found the pieces
  // (stream order: what Trace::payload() puts together). A counting sort:
  // stable, and linear in events + edges. The sort's table of where each
  // target's edges go becomes, once done with, the position of each event:
  // its pages are faulted in once.
  void sortEdgesByTarget() {
    position_ = BigArray<uint32_t>(n_ + 1);
    faultIn(position_.data(), position_.size() * sizeof(uint32_t));  // all written now: one call, not a fault per page
    BigArray<uint32_t>& first = position_;
    std::fill(first.begin(), first.end(), 0);
    auto& stream_edges = m_.stream_edges_;
    stream_edges.push_back(std::move(edges_));
    size_t count = 0;
    for (const auto& part : stream_edges) {
      for (const Edge& e : part) ++first[e.to + 1];
      count += part.size();
    }
    std::partial_sum(first.begin(), first.end(), first.begin());
    BigArray<Edge> sorted(count);
    for (auto& part : stream_edges) {
      ReadArray done(part.data());
      for (size_t k = 0; k < part.size(); ++k) {
        sorted[first[part[k].to]++] = part[k];
        if (k % 65536 == 0) done.release(part.data() + k);
      }
      BigArray<Edge>().swap(part);
    }
    stream_edges.clear();
    edges_.swap(sorted);
  }

  // next[p]: process p's first event (in the logs' order) not placed yet;
  // cursor[p]: its first edge. Ties in time go by log id, through each
  // process's rank in that order (a process has one head at a time, so the
  // rank decides between heads).
  void prepareHeads() {
    next_.resize(processes_);
    cursor_.resize(processes_);
    for (uint32_t p = 0; p < processes_; ++p) {
      next_[p] = raw_.ranges[p].first;
      cursor_[p] = lowerEdge(next_[p]);
    }
    position_.resize(n_);
    std::fill(position_.begin(), position_.end(), kNone);
    std::vector<uint32_t> by_log(processes_);
    std::iota(by_log.begin(), by_log.end(), 0u);
    std::sort(by_log.begin(), by_log.end(), [&](uint32_t a, uint32_t b) {
      return raw_.processes[a].log_id != raw_.processes[b].log_id ? raw_.processes[a].log_id < raw_.processes[b].log_id
                                                                  : a < b;
    });
    rank_.resize(processes_);
    for (uint32_t r = 0; r < processes_; ++r) rank_[by_log[r]] = r;
    // The ready heads, one leaf per process in rank order: the first in
    // time wins, ties go to the lower rank.
    by_rank_.resize(processes_);
    for (uint32_t p = 0; p < processes_; ++p) by_rank_[rank_[p]] = p;
    pulled_.resize(processes_);
    pulls_.assign(processes_, 0);
    ahead_.assign(processes_, 0);
    parked_.resize(processes_);
    forced_.assign(processes_, 0);
  }

  // Each event's number goes into its slot of the input; a Placer copies
  // the events to their positions behind the ordering. Pages of the edges
  // that a process has moved past are given back at once.
  void prepareOutput() {
    out_.resize(total_);  // not touched: the Placer faults it in window by window
    edges_out_.reserve(edges_.size());
    for (uint32_t p = 0; p < processes_; ++p) edges_done_.emplace_back(edges_.data() + cursor_[p]);
    placed_count_.assign(processes_, 0);
    last_number_.assign(processes_, 0);
    edge_pages_.emplace(edges_out_.data(), edges_.size() * sizeof(Edge));
    placer_.emplace(events_, out_.data(), position_.data(), raw_.ranges, total_);
    if (raw_.keep_hashes) t_.hashes.resize(total_);
    window_end_ = std::min(total_, placer_->window());
  }

  uint32_t lowerEdge(uint32_t i) const {
    return static_cast<uint32_t>(
        std::lower_bound(edges_.begin(), edges_.end(), i, [](const Edge& e, uint32_t v) { return e.to < v; }) -
        edges_.begin());
  }

  // pulled[p]: events to place before next[p], the next one last.
  uint32_t head(uint32_t p) {
    auto& list = pulled_[p];
    while (!list.empty() && position_[list.back()] != kNone) list.pop_back();
    return list.empty() ? next_[p] : list.back();
  }

  uint32_t firstEdge(uint32_t p, uint32_t i) const { return i == next_[p] ? cursor_[p] : lowerEdge(i); }

  // Pulls the events of `source`'s thread up to it ahead of p's head.
  bool pull(uint32_t p, uint32_t source, uint32_t i) {
    constexpr uint32_t kMaxPullSpan = 1u << 16;  // farther: the logs' order stands (placed by time)
    const uint8_t thread = events_[source].thread;
    if (thread == events_[i].thread || thread == 255 || source - next_[p] > kMaxPullSpan || ++pulls_[p] > 64)
      return false;
    auto& list = pulled_[p];
    for (uint32_t j = source + 1; j-- > next_[p];)
      if (position_[j] == kNone && events_[j].thread == thread) list.push_back(j);
    return true;
  }

  // Whether process p's head can be placed now; if not, p waits. The
  // general case: p has events pulled ahead, or its head needs one.
  __attribute__((noinline)) bool isReadyPulling(uint32_t p) {
    for (;;) {
      const uint32_t i = head(p);
      if (i >= raw_.ranges[p].second) return false;
      if (forced_[p]) return true;
      bool again = false;
      for (uint32_t k = firstEdge(p, i); k < edges_.size() && edges_[k].to == i; ++k) {
        const uint32_t from = edges_[k].from;
        if (position_[from] != kNone) continue;
        const uint32_t q = m_.owner(from);
        if (q != p) {
          parked_[q].push_back({from, p});
          return false;
        }
        if (pull(p, from, i)) {
          again = true;
          break;
        }
      }
      if (!again) return true;
    }
  }

  bool isReady(uint32_t p) {
    if (!pulled_[p].empty()) return isReadyPulling(p);
    const uint32_t i = next_[p];
    if (i >= raw_.ranges[p].second) return false;
    if (forced_[p]) return true;
    for (uint32_t k = cursor_[p]; k < edges_.size() && edges_[k].to == i; ++k) {
      const uint32_t from = edges_[k].from;
      if (position_[from] != kNone) continue;
      const uint32_t q = m_.owner(from);
      if (q != p) {
        parked_[q].push_back({from, p});
        return false;
      }
      return isReadyPulling(p);  // one of its own later events first
    }
    return true;
  }

  // Follows what each process waits for from process `start`.
  bool cycleHasThreads(uint32_t start) {
    uint32_t q = start;
    for (uint32_t steps = 0; steps <= processes_; ++steps) {
      if (raw_.processes[q].threads.size() > 1) return true;
      const uint32_t i = head(q);
      uint32_t waits_for = kNone;
      for (uint32_t k = firstEdge(q, i); k < edges_.size() && edges_[k].to == i; ++k)
        if (position_[edges_[k].from] == kNone && m_.owner(edges_[k].from) != q) {
          waits_for = m_.owner(edges_[k].from);
          break;
        }
      if (waits_for == kNone || waits_for == start) return false;
      q = waits_for;
    }
    return false;
  }

  // p's leaf: its head's time if it can be placed now.
  template <class Ready>
  void offer(Ready& ready, uint32_t p) {
    ready.set(rank_[p], isReady(p) ? m_.wallOf(pulled_[p].empty() ? next_[p] : pulled_[p].back(), true) : ready.kNever);
  }

  // Nothing is ready. A cycle through a process with threads whose head
  // waits while another process waits for a later event of another of its
  // threads: that thread's calls go first.
  template <class Ready>
  void pullForOthers(Ready& ready) {
    for (uint32_t q = 0; q < processes_ && ready.empty(); ++q) {
      if (raw_.processes[q].threads.size() < 2) continue;
      const uint32_t h = head(q);
      if (h >= raw_.ranges[q].second) continue;
      uint32_t wanted = kNone;
      for (const auto& w : parked_[q])
        if (position_[w.first] == kNone && events_[w.first].thread != events_[h].thread) wanted = w.first;
      if (wanted != kNone && pull(q, wanted, h)) offer(ready, q);
    }
  }

  // Still nothing: a cycle in what the logs say (for instance bytes
  // received before the call that sent them returned, seen from another
  // thread). The waiting head that comes first in time is released.
  template <class Ready>
  void breakCycle(Ready& ready) {
    uint32_t pick = kNone;
    for (uint32_t p = 0; p < processes_; ++p) {
      const uint32_t i = head(p);
      if (i >= raw_.ranges[p].second) continue;
      if (pick == kNone || m_.wallOf(i, true) < m_.wallOf(pick, true)) pick = i;
    }
    const uint32_t p = m_.processOf(pick);
    // Threads: a process's events are in the order its calls returned,
    // which is not a causal order between its threads. A cycle through a
    // multi-threaded process that pulling could not resolve is that, not
    // a contradiction.
    if (cycleHasThreads(p)) {
      ++t_.placed_by_time;
    } else {
      contradicted_.push_back(pick);
    }
    for (auto& list : parked_)
      list.erase(std::remove_if(list.begin(), list.end(), [&](const auto& w) { return w.second == p; }), list.end());
    forced_[p] = 1;
    offer(ready, p);
    forced_[p] = 0;
  }

  template <class Ready>
  void order(Ready& ready) {
    for (uint32_t p = 0; p < processes_; ++p) offer(ready, p);
    for (uint32_t here = 0; here < total_; ++here) {
      if (ready.empty()) pullForOthers(ready);
      if (ready.empty()) breakCycle(ready);
      const uint32_t p = by_rank_[ready.top()];
      place(p, here);
      // Wake those that waited for this event.
      auto& waiting = parked_[p];
      for (size_t w = 0; w < waiting.size();) {
        if (waiting[w].first < next_[p] || position_[waiting[w].first] != kNone) {
          const uint32_t q = waiting[w].second;
          waiting[w] = waiting.back();
          waiting.pop_back();
          offer(ready, q);
        } else {
          ++w;
        }
      }
      offer(ready, p);
    }
  }

  // Places p's head at `here`: its edges, its number, and p's cursor.
  void place(uint32_t p, uint32_t here) {
    const uint32_t i = pulled_[p].empty() ? next_[p] : head(p);
    const bool in_order = i == next_[p];
    position_[i] = here;
    Event& placed = events_[i];
    const uint32_t k = placeEdges(p, i, in_order, here);
    if (raw_.keep_hashes) t_.hashes[here] = placed.hash;  // the checksum, until numbered
    placed.number = last_number_[p] = number_ + 1;
    if (placed.eventKind() == Kind::Exit || placed.eventKind() == Kind::Wait) m_.exits_and_waits_.push_back(here);
    const auto range = raw_.ranges[p];
    if (in_order) {
      cursor_[p] = k;
      ++next_[p];
      if (ahead_[p]) {  // past those placed ahead already
        for (; next_[p] < range.second && position_[next_[p]] != kNone; ++next_[p]) --ahead_[p];
        while (cursor_[p] < edges_.size() && edges_[cursor_[p]].to < next_[p]) ++cursor_[p];
      }
    } else {
      ++ahead_[p];
      reordered_ = true;  // some event was placed before an earlier one of its process
    }
    if (pulls_[p]) pulls_[p] = 0;
    // The process's events are read in order, but 100s of processes make
    // too many streams for the hardware prefetcher.
    __builtin_prefetch(&events_[std::min(next_[p] + 4, n_ - 1)]);
    __builtin_prefetch(&position_[std::min(next_[p] + 16, n_ - 1)], 1);
    if (!edges_.empty()) __builtin_prefetch(&edges_[std::min<size_t>(cursor_[p] + 8, edges_.size() - 1)]);
    if (++placed_count_[p] % 1024 == 0) edges_done_[p].release(edges_.data() + cursor_[p]);
    if (here % 16384 == 0) edge_pages_->at(edges_out_.data() + edges_out_.size());
    // The Placer copies each process's events up to next[]: once one was
    // placed ahead of that, the rest is copied at the end.
    if (here + 1 == window_end_ && !reordered_) {
      window_end_ = std::min(total_, window_end_ + placer_->window());
      placer_->ordered(next_);
      ++published_;
      in_output_ = placer_->placed();
      placer_->readBefore(in_output_);
    }
  }

  // Event i's edges, placed: one per (from, why), bytes summed. Within a
  // process, only the messages and synchronizations between its threads:
  // its own order covers the rest. Sets
  // number_ to the largest number i follows; returns the edge after i's.
  uint32_t placeEdges(uint32_t p, uint32_t i, bool in_order, uint32_t here) {
    const auto range = raw_.ranges[p];
    number_ = last_number_[p];
    sources_.clear();
    uint32_t k = in_order ? cursor_[p] : firstEdge(p, i);
    for (; k < edges_.size() && edges_[k].to == i; ++k) {
      Edge e = edges_[k];
      const bool own = e.from >= range.first && e.from < range.second;  // owner(e.from) == p
      if (own && e.why != Edge::Why::Message && e.why != Edge::Why::Sync) continue;
      const auto same = std::find_if(sources_.begin(), sources_.end(), [&](const auto& s) {
        return s.first == e.from && edges_out_[s.second].why == e.why;
      });
      if (same != sources_.end()) {
        edges_out_[same->second].bytes += e.bytes;
        continue;
      }
      sources_.emplace_back(static_cast<uint32_t>(e.from), edges_out_.size());
      e.to = here;
      if (position_[e.from] != kNone) {
        if (!own) {
          const uint32_t at = position_[e.from];
          number_ = std::max(number_, at < in_output_ ? out_[at].number : events_[e.from].number);
        }
        e.from = position_[e.from];
      } else {
        if (own) ++t_.placed_by_time;  // a thread's message that pulling could not put first
        late_.push_back(static_cast<uint32_t>(edges_out_.size()));  // its source comes later
      }
      edges_out_.push_back(e);
    }
    return k;
  }

  void finish() {
    // Every event placed, each once: a process's placements are as many as
    // its events, and none of its events is left unplaced.
    for (uint32_t p = 0; p < processes_; ++p)
      RADAR_CHECK(next_[p] == raw_.ranges[p].second &&
                  placed_count_[p] == raw_.ranges[p].second - raw_.ranges[p].first);
    for (; published_ < placer_->windows(); ++published_) placer_->ordered(next_);
    placer_->join();
    for (uint32_t k : late_) edges_out_[k].from = position_[edges_out_[k].from];
    m_.noteContradictions(contradicted_, position_, edges_out_, late_);
    decltype(raw_.events)().swap(events_);
    BigArray<Edge>().swap(edges_);
    t_.events = std::move(out_);
    t_.edges = std::move(edges_out_);
    // A process's events are contiguous in the logs' order and in counter
    // order there: its slice of `position` lists their positions.
    t_.process_event_positions = std::move(position_);
  }

  Merger& m_;
  RawRecording& raw_;
  Trace& t_;
  decltype(RawRecording::events)& events_;
  BigArray<Edge>& edges_;  // in raw indices, sorted by target
  const uint32_t n_, processes_;
  uint32_t total_ = 0;
  BigArray<uint32_t> position_;
  std::vector<uint32_t> next_, cursor_, rank_, by_rank_;
  std::vector<std::vector<uint32_t>> pulled_;
  std::vector<uint32_t> pulls_;  // since p last placed an event: a bound against cycles
  std::vector<uint32_t> ahead_;  // events placed past next[p]
  bool reordered_ = false;
  // parked[q]: processes waiting for q to place the event they name.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> parked_;
  std::vector<uint8_t> forced_;  // released by the cycle breaker
  BigArray<Event> out_;
  BigArray<Edge> edges_out_;
  std::vector<uint32_t> late_;  // edges from events placed after their target (broken cycles)
  std::vector<ReadArray> edges_done_;
  std::vector<uint32_t> placed_count_, last_number_;
  std::vector<std::pair<uint32_t, size_t>> sources_;  // the event's edges so far: raw source, index in edges_out
  std::optional<FaultAhead> edge_pages_;
  std::optional<Placer> placer_;
  uint32_t number_ = 0;                 // of the event being placed: the largest it follows
  uint32_t in_output_ = 0;              // positions before it are in `out`, and their input may be gone
  uint32_t window_end_ = 0;             // where the Placer's next window ends
  uint32_t published_ = 0;              // windows handed to the Placer
  std::vector<uint32_t> contradicted_;  // heads released by the cycle breaker where no thread explains the cycle
};

void Merger::linearize() { Linearizer(*this).run(); }

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
