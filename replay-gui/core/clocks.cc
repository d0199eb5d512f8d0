#include "clocks.h"

#include <algorithm>
#include <unordered_map>

#include "trace.h"

namespace radar::replay {

Clocks::Clocks(const Trace& trace) : t_(trace) {
  processes_ = static_cast<uint32_t>(t_.processes.size());
  const uint64_t events = t_.events.size();
  // About 2 bytes per event for the checkpoints.
  const uint64_t budget_words = std::max<uint64_t>(events / 2, 4096);
  k_ = 1;
  while (uint64_t{processes_} * (events / k_ + processes_) > budget_words && k_ < (1u << 20)) k_ *= 2;

  first_checkpoint_.resize(processes_ + 1);
  uint64_t at = 0;
  for (uint32_t p = 0; p < processes_; ++p) {
    first_checkpoint_[p] = at;
    at += (t_.process_events[p].size() + k_ - 1) / k_ * uint64_t{processes_};
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
    mine[ev.process] = ev.counter;
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
    const uint32_t local = ev.counter - 1;
    if (local % k_ == 0) {
      uint32_t* ck = &checkpoints_[first_checkpoint_[ev.process] + uint64_t{local / k_} * processes_];
      std::copy(mine, mine + processes_, ck);
    }
  }
}

uint32_t Clocks::knows(uint32_t position, uint32_t process) const {
  std::unordered_map<uint64_t, uint32_t> memo;
  return knowsMemo(position, process, memo);
}

uint32_t Clocks::knowsMemo(uint32_t position, uint32_t process,
                           std::unordered_map<uint64_t, uint32_t>& memo) const {
  const Event& ev = t_.events[position];
  if (ev.process == process) return ev.counter;
  const uint64_t key = uint64_t{position} << 32 | process;
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  const uint32_t local = ev.counter - 1;
  const uint32_t base = local / k_ * k_;
  uint32_t v = checkpoints_[first_checkpoint_[ev.process] + uint64_t{base / k_} * processes_ + process];
  const auto& mine = t_.process_events[ev.process];
  for (uint32_t l = base + 1; l <= local; ++l) {
    const uint32_t x = mine[l];
    auto [b, e] = t_.incoming(x);
    for (; b != e; ++b)
      if (t_.events[b->from].process != ev.process && b->from < x)
        v = std::max(v, knowsMemo(b->from, process, memo));
  }
  memo.emplace(key, v);
  return v;
}

bool Clocks::happensBefore(uint32_t a, uint32_t b) const {
  if (a == b) return false;
  const Event& ea = t_.events[a];
  const Event& eb = t_.events[b];
  if (ea.number >= eb.number) return false;  // Lamport numbers grow along every path
  if (ea.process == eb.process) return ea.counter < eb.counter;
  return knows(b, ea.process) >= ea.counter;
}

}  // namespace radar::replay
