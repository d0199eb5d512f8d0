#include "trace/mpi_library.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace radar::trace {
namespace {

constexpr int64_t kNoSpan = std::numeric_limits<int64_t>::max();

// One rank's threads: whether each made an MPI call, when each began, and
// the MPI call each is inside as the events are walked back.
struct Rank {
  std::array<bool, 256> seen{}, calls_mpi{}, library{};
  std::array<int64_t, 256> first_entry{};
  std::array<int64_t, 256> open{};        // per thread: entry of the MPI call being walked back through
  std::array<uint8_t, 255> candidates{};  // the threads but the first that made no MPI call
  size_t candidate_count = 0;
};

// The ranks, and for each process its rank's slot there (-1: not a rank).
struct Ranks {
  std::vector<Rank> ranks;
  std::vector<int32_t> slot_of;
  Rank* of(const Event& e) { return slot_of[e.process] < 0 ? nullptr : &ranks[size_t(slot_of[e.process])]; }
};

// Forward: each rank's threads.
void findThreads(const Trace& t, Ranks& all) {
  for (const Event& e : t.events) {
    Rank* rank = all.of(e);
    if (!rank) continue;
    Rank& r = *rank;
    if (!r.seen[e.thread]) {
      r.seen[e.thread] = true;
      r.first_entry[e.thread] = e.entry_ns;
    }
    r.calls_mpi[e.thread] |= log::isMpiKind(e.eventKind());
  }
  for (Rank& r : all.ranks) {
    r.open.fill(kNoSpan);
    for (size_t k = 1; k < r.seen.size(); ++k)
      if (r.seen[k] && !r.calls_mpi[k]) r.candidates[r.candidate_count++] = static_cast<uint8_t>(k);
  }
}

// Backward: the events inside their threads' MPI calls (each recorded when
// it returns, after the events its thread recorded since the call's
// entry), and the threads that made no MPI call and began inside another
// thread's (MPI_Init's progress threads).
void markInsideCalls(Trace& t, Ranks& all) {
  for (size_t pos = t.events.size(); pos-- > 0;) {
    const Event& e = t.events[pos];
    Rank* rank = all.of(e);
    if (!rank) continue;
    Rank& r = *rank;
    int64_t& entry = r.open[e.thread];
    if (log::isMpiKind(e.eventKind())) {
      entry = e.entry_ns;
      for (size_t c = 0; c < r.candidate_count;) {  // a thread found the library's is looked for no more
        const uint8_t u = r.candidates[c];
        r.library[u] = r.first_entry[u] >= e.entry_ns && r.first_entry[u] <= e.returnNs();
        if (r.library[u])
          r.candidates[c] = r.candidates[--r.candidate_count];
        else
          ++c;
      }
    } else if (entry != kNoSpan && e.entry_ns >= entry) {
      t.mpi_library[pos] = true;
    } else {
      entry = kNoSpan;
    }
  }
}

void markLibraryThreads(Trace& t, Ranks& all) {
  const auto any = [](const Rank& r) { return std::find(r.library.begin(), r.library.end(), true) != r.library.end(); };
  if (std::none_of(all.ranks.begin(), all.ranks.end(), any)) return;
  for (size_t pos = 0; pos < t.events.size(); ++pos)
    if (const Rank* r = all.of(t.events[pos]); r && r->library[t.events[pos].thread]) t.mpi_library[pos] = true;
}

}  // namespace

// Each pass walks all events in their order: a rank's events are spread
// over the whole story, and reading them rank by rank would read every
// cache line once per rank.
void markMpiLibrary(Trace& t) {
  t.mpi_library.clear();
  Ranks all;
  all.slot_of.assign(t.processes.size(), -1);
  for (const Process& p : t.processes) {
    if (p.mpi_rank < 0) continue;
    all.slot_of[p.index] = static_cast<int32_t>(all.ranks.size());
    all.ranks.emplace_back();
  }
  if (all.ranks.empty()) return;
  t.mpi_library.assign(t.events.size(), false);
  findThreads(t, all);
  markInsideCalls(t, all);
  markLibraryThreads(t, all);
  for (const Process& p : t.processes) {
    if (p.mpi_rank < 0) continue;
    for (const uint32_t counter : p.in_mpi_calls)  // as the recorder saw them
      if (const uint32_t at = t.positionOfCounter(p.index, counter); at != kNone) t.mpi_library[at] = true;
  }
}

}  // namespace radar::trace
