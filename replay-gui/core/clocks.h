// "Does a happen before b?" for any two events of a trace.
//
// Every process is a chain (its events in counter order), so a vector
// clock (for each process, the highest counter known) answers the
// question. Storing one per event would take events x processes words;
// instead a clock is kept every K events of each process (K grows with the
// number of processes so that this stays within a few bytes per event),
// and a query replays the few events since the checkpoint, following the
// messages they received (memoized).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace radar::replay {

class Trace;

class Clocks {
 public:
  explicit Clocks(const Trace& trace);

  // The highest counter of process `process` that happens before `position`
  // or is it (0: none).
  uint32_t knows(uint32_t position, uint32_t process) const;
  bool happensBefore(uint32_t a, uint32_t b) const;
  uint32_t checkpointInterval() const { return k_; }
  size_t memoryBytes() const { return checkpoints_.size() * sizeof(uint32_t); }

 private:
  uint32_t knowsMemo(uint32_t position, uint32_t process,
                     std::unordered_map<uint64_t, uint32_t>& memo) const;

  const Trace& t_;
  uint32_t processes_ = 0;
  uint32_t k_ = 1;
  // Per process: offset into checkpoints_ of its first checkpoint; each
  // checkpoint holds `processes_` counters.
  std::vector<uint64_t> first_checkpoint_;
  std::vector<uint32_t> checkpoints_;
};

}  // namespace radar::replay
