// "Does a happen before b?" for any two events of a trace.
//
// Every process is a chain (its events in the story's order), so a vector
// clock (for each process, how many of its events are known) answers the
// question. Storing one per event would take events x processes words;
// instead a clock is kept every K events of each process (K grows with the
// number of processes so that this stays within a few bytes per event),
// plus each process's final clock. Clocks only grow along a process, so
// the checkpoints before and after an event bound what it knows; a query
// searches backwards through received messages only where those bounds
// leave the answer open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace radar::trace {

class Trace;

class Clocks {
 public:
  explicit Clocks(const Trace& trace);

  // Whether event `position` knows the first `count` events of `process`
  // (Trace::process_events): the last of them happens before `position`
  // (or is it).
  bool knowsAtLeast(uint32_t position, uint32_t process, uint32_t count) const;
  bool happensBefore(uint32_t a, uint32_t b) const;
  uint32_t checkpointInterval() const { return k_; }
  size_t memoryBytes() const { return checkpoints_.size() * sizeof(uint32_t); }

 private:
  // The clocks at the checkpoints at or before / after an event.
  const uint32_t* lowerBound(uint32_t process, uint32_t local) const;
  const uint32_t* upperBound(uint32_t process, uint32_t local) const;

  const Trace& t_;
  uint32_t processes_ = 0;
  uint32_t k_ = 1;
  // Per process: offset into checkpoints_ of its first checkpoint; each
  // checkpoint holds `processes_` counters, and the last one of a process
  // is its final clock.
  std::vector<uint64_t> first_checkpoint_;
  std::vector<uint32_t> checkpoints_;
};

}  // namespace radar::trace
