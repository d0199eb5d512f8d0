#include "trace/mpi_library.h"

#include <algorithm>
#include <array>
#include <utility>

namespace radar::trace {
namespace {

constexpr int64_t kNoSpan = std::numeric_limits<int64_t>::max();

// One rank: its events inside its threads' MPI calls, walking back from
// each call (recorded when it returns) over the events its thread recorded
// since the call's entry.
void markInsideCalls(Trace& t, const EventList& mine) {
  std::array<int64_t, 256> open{};  // per thread: entry of the MPI call being walked back through
  open.fill(kNoSpan);
  for (size_t k = mine.size(); k-- > 0;) {
    const Event& e = t.events[mine[k]];
    int64_t& entry = open[e.thread];
    if (log::isMpiKind(e.eventKind())) {
      entry = e.entry_ns;
    } else if (entry != kNoSpan && e.entry_ns >= entry) {
      t.mpi_library[mine[k]] = true;
    } else {
      entry = kNoSpan;
    }
  }
}

// One rank: every event of a thread that made no MPI call and began inside
// another thread's MPI call (MPI_Init's progress threads).
void markLibraryThreads(Trace& t, const EventList& mine) {
  std::vector<std::pair<int64_t, int64_t>> calls;  // [entry, return] of the MPI calls
  std::array<bool, 256> calls_mpi{}, seen{}, library{};
  for (const uint32_t pos : mine) {
    const Event& e = t.events[pos];
    if (log::isMpiKind(e.eventKind())) {
      calls.push_back({e.entry_ns, e.returnNs()});
      calls_mpi[e.thread] = true;
    }
  }
  std::sort(calls.begin(), calls.end());
  const auto insideACall = [&](int64_t ns) {
    auto it = std::upper_bound(calls.begin(), calls.end(), std::make_pair(ns, kNoSpan));
    return std::any_of(calls.begin(), it, [&](const auto& c) { return c.second >= ns; });
  };
  for (const uint32_t pos : mine) {
    const Event& e = t.events[pos];
    if (!seen[e.thread]) {
      seen[e.thread] = true;
      library[e.thread] = e.thread != 0 && !calls_mpi[e.thread] && insideACall(e.entry_ns);
    }
    if (library[e.thread]) t.mpi_library[pos] = true;
  }
}

}  // namespace

void markMpiLibrary(Trace& t) {
  t.mpi_library.clear();
  for (const Process& p : t.processes) {
    if (p.mpi_rank < 0 || p.index >= t.process_events.size()) continue;
    if (t.mpi_library.empty()) t.mpi_library.assign(t.events.size(), false);
    markInsideCalls(t, t.process_events[p.index]);
    markLibraryThreads(t, t.process_events[p.index]);
    for (const uint32_t counter : p.in_mpi_calls)  // as the recorder saw them
      if (const uint32_t at = t.positionOfCounter(p.index, counter); at != kNone) t.mpi_library[at] = true;
  }
}

}  // namespace radar::trace
