// What the replay shows at any point of a trace: processes alive, channel
// ends open, messages sent and not yet (fully) received with where they are
// queued, and the calls threads are blocked in. The state before event N
// is found from the nearest checkpoint, so skipping to the end costs no
// more than skipping to the start.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "trace/trace.h"

namespace radar::trace {

struct QueuedMessage {
  uint32_t send;        // position of the send event
  uint32_t bytes_left;  // not yet received
  uint32_t to_process;  // who receives (first of them), kNone: nobody recorded
  bool operator==(const QueuedMessage&) const = default;
};

struct BlockedThread {
  uint32_t process;
  uint8_t thread;
  uint32_t event;  // the call it is in (not yet returned at that point)
  bool operator==(const BlockedThread&) const = default;
};

// The state after applying events [0, position).
struct DisplayState {
  uint32_t position = 0;
  std::vector<uint32_t> alive;         // processes, sorted
  std::vector<uint32_t> open;          // endpoints, sorted
  std::vector<QueuedMessage> queued;   // sorted by send position
  std::vector<BlockedThread> blocked;  // sorted by (process, thread)
  bool operator==(const DisplayState&) const = default;
};

class DisplayModel {
 public:
  // `every`: events between checkpoints (0: chosen from the trace's size).
  // `background`: the checkpoints are made on a thread of their own, so
  // that the model is ready at once (a window's first frame does not wait
  // for a pass over every event); a state past those made so far is
  // found from the last one. The trace must not change meanwhile.
  explicit DisplayModel(const Trace& trace, uint32_t every = 0, bool background = false);
  ~DisplayModel();
  DisplayModel(const DisplayModel&) = delete;
  DisplayModel& operator=(const DisplayModel&) = delete;
  // Until every checkpoint is made (at once when not in the background).
  void waitForCheckpoints() const;
  bool checkpointsMade() const { return made_.load(std::memory_order_acquire); }

  // The state before event `position` (position == events: the end).
  DisplayState stateAt(uint32_t position) const;
  // The same, computed from the start (slow; for tests).
  DisplayState replayFromStart(uint32_t position) const;
  // The state after one more event; messages received whole stay queued,
  // with no bytes left, until settle() takes them out.
  void apply(DisplayState& state) const;
  static void settle(DisplayState& state);

  // Who receives a send first (kNone: nobody recorded).
  uint32_t firstReceiver(uint32_t send) const;
  uint32_t checkpointInterval() const;
  size_t checkpointCount() const;

 private:
  void blockedAt(DisplayState& state) const;
  // A process image comes on stage: alive, with the ends it inherited open.
  void appear(DisplayState& state, uint32_t process) const;

  const Trace& t_;
  uint32_t every_;
  std::vector<uint32_t> inherited_begin_, inherited_;   // inherited ends by process: CSR
  std::vector<std::pair<uint32_t, uint32_t>> created_;  // (creating event, child), sorted
  void makeCheckpoints();

  // The checkpoints, and their interval, change while they are made (in
  // the background, under the lock): a checkpoint each `every_` events.
  mutable std::mutex mutex_;
  mutable std::condition_variable made_signal_;
  std::vector<DisplayState> checkpoints_;
  std::atomic<bool> made_{false}, stop_{false};
  std::thread maker_;
  // The last states asked for: playing asks for the state at the next event
  // and the one before it, a step or two from these, where the nearest
  // checkpoint can be thousands of events back.
  mutable std::mutex recent_mutex_;
  mutable DisplayState recent_[2];
  mutable uint32_t recent_next_ = 0;  // the slot to replace
};

}  // namespace radar::trace
