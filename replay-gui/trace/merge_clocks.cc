// The merge's host clocks: each machine's wall clock lined up with the
// first machine's by the causal edges between them.
#include <deque>
#include <map>

#include "trace/merger.h"

namespace radar::trace::merging {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

// a + b, held inside ±(kUnbounded - 1): crafted logs' times may be
// anything, and ±kUnbounded means no bound.
int64_t sum(__int128 a, __int128 b) {
  return static_cast<int64_t>(std::clamp<__int128>(a + b, -kUnbounded + 1, kUnbounded - 1));
}

// What the edges between clocks a and b (a < b) say of b's shift against
// a's: an edge from a to b ended in b after it began in a (bounds it from
// below), one from b to a from above.
struct Bounds {
  int64_t low = -kUnbounded, high = kUnbounded;
  uint64_t edges = 0;
  Bounds reversed() const {
    return {high == kUnbounded ? -kUnbounded : -high, low == -kUnbounded ? kUnbounded : -low, edges};
  }
};
using BoundsByPair = std::map<std::pair<uint32_t, uint32_t>, Bounds>;

// The clocks as read when every edge allows it (machines kept in time by
// NTP); otherwise the middle of what the edges allow (NTP's estimate:
// delays alike both ways), or the nearest shift one-way edges allow.
int64_t chosenShift(const Bounds& b) {
  if (b.low <= 0 && 0 <= b.high) return 0;
  if (b.low != -kUnbounded && b.high != kUnbounded) return sum(b.low, (__int128{b.high} - b.low) / 2);
  return b.low > 0 ? b.low : b.high;
}

int64_t plus(int64_t shift, int64_t bound) {
  return bound == kUnbounded || bound == -kUnbounded ? bound : sum(shift, bound);
}

// Machines aligned one after another from `first`, each with one already
// aligned (breadth first: the fewest steps from the first).
void alignFrom(uint32_t first, const BoundsByPair& between, std::vector<Trace::HostClock>& out) {
  out[first].aligned = true;
  std::deque<uint32_t> next{first};
  while (!next.empty()) {
    const uint32_t a = next.front();
    next.pop_front();
    for (const auto& [pair, bounds] : between) {
      if (pair.first != a && pair.second != a) continue;
      const uint32_t c = pair.first == a ? pair.second : pair.first;
      if (out[c].aligned) continue;
      const Bounds relative = c > a ? bounds : bounds.reversed();  // c's shift against a's
      Trace::HostClock& clock = out[c];
      clock.shift_ns = sum(out[a].shift_ns, chosenShift(relative));
      clock.low_ns = plus(out[a].shift_ns, relative.low);
      clock.high_ns = plus(out[a].shift_ns, relative.high);
      clock.edges = relative.edges;
      clock.against = a;
      clock.aligned = true;
      next.push_back(c);
    }
  }
}

}  // namespace

// Only between machines: processes of one boot read one CLOCK_REALTIME
// (time namespaces move the monotonic clock only), already exact.
void Merger::alignHostClocks() {
  const uint32_t clocks = static_cast<uint32_t>(raw_.boots.size());
  if (clocks < 2 || raw_.processes.empty()) return;
  BoundsByPair between;
  auto note = [&](const Edge& e) {
    const uint32_t from = raw_.processes[owner(e.from)].boot, to = raw_.processes[owner(e.to)].boot;
    if (from == to || raw_.boots[from].empty() || raw_.boots[to].empty()) return;
    // shift(to) - shift(from) >= gap: the edge ended after it began.
    const int64_t gap = sum(wallOf(e.from, false), -__int128{wallOf(e.to, true)});
    Bounds& b = between[{std::min(from, to), std::max(from, to)}];
    if (from < to)
      b.low = std::max(b.low, gap);
    else
      b.high = std::min(b.high, -gap);
    ++b.edges;
  };
  for (const auto& part : stream_edges_)
    for (const Edge& e : part) note(e);
  for (const Edge& e : edges_) note(e);

  auto& out = t_.host_clocks;
  out.assign(clocks, {});
  for (const Process& p : raw_.processes)
    if (out[p.boot].host.empty()) out[p.boot].host = p.host;
  const uint32_t first = raw_.processes.front().boot;
  if (!raw_.boots[first].empty()) alignFrom(first, between, out);
  for (uint32_t c = 0; c < clocks; ++c)
    if (!out[c].aligned && !out[c].host.empty()) t_.warnings.push_back(t_.describeHostClock(c));
  shiftClocks();
}

// Every process's wall clock moved by its machine's shift.
void Merger::shiftClocks() {
  int64_t least = 0, most = 0;
  for (const Trace::HostClock& c : t_.host_clocks) {
    least = std::min(least, c.shift_ns);
    most = std::max(most, c.shift_ns);
  }
  for (Process& p : raw_.processes) {
    p.realtime_offset = sum(p.realtime_offset, t_.host_clocks[p.boot].shift_ns);
    realtime_offset_[p.index] = p.realtime_offset;
  }
  if (raw_.wall_range.first <= raw_.wall_range.second)
    raw_.wall_range = {sum(raw_.wall_range.first, least), sum(raw_.wall_range.second, most)};
}

}  // namespace radar::trace::merging
