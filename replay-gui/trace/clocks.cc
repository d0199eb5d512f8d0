#include "trace/clocks.h"

#include <algorithm>
#include <unordered_map>

#include "trace/trace.h"

namespace radar::trace {

Clocks::Clocks(const Trace& trace) : t_(trace) {
  processes_ = static_cast<uint32_t>(t_.processes.size());
  const uint64_t events = t_.events.size();
  // About 2 bytes per event for the checkpoints.
  const uint64_t budget_words = std::max<uint64_t>(events / 2, 4096);
  k_ = 1;
  while (uint64_t{processes_} * (events / k_ + 2 * processes_) > budget_words && k_ < (1u << 20)) k_ *= 2;

  first_checkpoint_.resize(processes_ + 1);
  uint64_t at = 0;
  for (uint32_t p = 0; p < processes_; ++p) {
    first_checkpoint_[p] = at;
    at += ((t_.process_events[p].size() + k_ - 1) / k_ + 1) * uint64_t{processes_};
  }
  first_checkpoint_[processes_] = at;
  checkpoints_.assign(at, 0);

  // One sweep in linear order. `current` is each process's clock now; a
  // send's clock is kept only until every receive of it is processed.
  std::vector<uint32_t> current(uint64_t{processes_} * processes_, 0);
  std::vector<uint32_t> outgoing(t_.events.size(), 0);
  for (const Edge& e : t_.edges)
    if (t_.events[e.from].process != t_.events[e.to].process) ++outgoing[e.from];
  std::unordered_map<uint32_t, std::vector<uint32_t>> in_flight;
  auto edge = t_.edges.begin();
  for (uint32_t i = 0; i < t_.events.size(); ++i) {
    const Event& ev = t_.events[i];
    uint32_t* mine = &current[uint64_t{ev.process} * processes_];
    const uint32_t local = t_.indexInProcess(i);
    mine[ev.process] = local + 1;
    for (; edge != t_.edges.end() && edge->to < i; ++edge) {
    }
    for (; edge != t_.edges.end() && edge->to == i; ++edge) {
      if (t_.events[edge->from].process == ev.process) continue;
      auto it = in_flight.find(edge->from);
      if (it == in_flight.end()) continue;  // a source after this event (a broken cycle)
      for (uint32_t q = 0; q < processes_; ++q) mine[q] = std::max(mine[q], it->second[q]);
      if (--outgoing[edge->from] == 0) in_flight.erase(it);
    }
    if (outgoing[i]) in_flight[i].assign(mine, mine + processes_);
    if (local % k_ == 0) std::copy(mine, mine + processes_, const_cast<uint32_t*>(lowerBound(ev.process, local)));
  }
  for (uint32_t p = 0; p < processes_; ++p) {
    const uint32_t* final_clock = &current[uint64_t{p} * processes_];
    std::copy(final_clock, final_clock + processes_, &checkpoints_[first_checkpoint_[p + 1] - processes_]);
  }
}

const uint32_t* Clocks::lowerBound(uint32_t process, uint32_t local) const {
  return &checkpoints_[first_checkpoint_[process] + uint64_t{local / k_} * processes_];
}

const uint32_t* Clocks::upperBound(uint32_t process, uint32_t local) const {
  const uint64_t next = first_checkpoint_[process] + uint64_t{local / k_ + 1} * processes_;
  // Past the last checkpoint of the process: its final clock.
  return &checkpoints_[std::min(next, first_checkpoint_[process + 1] - processes_)];
}

bool Clocks::knowsAtLeast(uint32_t position, uint32_t process, uint32_t count) const {
  // Depth-first search backwards over received messages, pruned by the
  // checkpoint bounds. `expanded` remembers, per checkpoint block, up to
  // which event the receives have been followed already.
  std::unordered_map<uint64_t, uint32_t> expanded;
  std::vector<uint32_t> stack{position};
  while (!stack.empty()) {
    const uint32_t x = stack.back();
    stack.pop_back();
    const Event& ev = t_.events[x];
    const uint32_t local = t_.indexInProcess(x);
    if (ev.process == process) {
      if (local + 1 >= count) return true;
      continue;
    }
    if (lowerBound(ev.process, local)[process] >= count) return true;
    if (upperBound(ev.process, local)[process] < count) continue;
    // Open: what it knows beyond the checkpoint came through the messages
    // received since.
    const uint32_t base = local / k_ * k_;
    auto [done, fresh] = expanded.try_emplace(uint64_t{ev.process} << 32 | base / k_, base);
    if (done->second >= local && !fresh) continue;
    const uint32_t from = fresh ? base + 1 : done->second + 1;
    done->second = local;
    const auto& mine = t_.process_events[ev.process];
    for (uint32_t l = from; l <= local; ++l) {
      const uint32_t y = mine[l];
      auto [b, e] = t_.incoming(y);
      for (; b != e; ++b)
        if (t_.events[b->from].process != ev.process && b->from < y) stack.push_back(b->from);
    }
  }
  return false;
}

bool Clocks::happensBefore(uint32_t a, uint32_t b) const {
  if (a == b) return false;
  const Event& ea = t_.events[a];
  const Event& eb = t_.events[b];
  if (ea.number >= eb.number) return false;    // Lamport numbers grow along every path
  if (ea.process == eb.process) return a < b;  // the story's order of the process
  return knowsAtLeast(b, ea.process, t_.indexInProcess(a) + 1);
}

}  // namespace radar::trace
