// The merge's synchronization (radar record --sync): each acquisition tied
// to the release that let it go on, by the numbers every operation on one
// object took in the order it happened.
#include <array>
#include <deque>

#include "trace/merger.h"

namespace radar::trace::merging {

namespace {

// One object: an address in one process image, or a place in a shared
// file (the same object in every process of one machine that maps it).
using ObjectKey = std::array<uint64_t, 4>;

ObjectKey objectKey(const SyncCall& call, uint32_t process, uint32_t boot) {
  if (call.shared) return {uint64_t{boot} + 1, call.object[0], call.object[1], call.object[2]};
  return {0, process, call.object[0], 0};
}

}  // namespace

// Per object, in the order of its numbers:
//   * a lock follows the last unlock before it (a mutex, a read-write or
//     spin lock: the holder released it, then this thread took it);
//   * a semaphore's waits take the posts' counts in order, oldest first (a
//     post is numbered as it begins, a wait once it returned: the k-th wait
//     has at least k posts, or counts the semaphore began with, before it;
//     a wait with no post left took one of those, and follows nobody);
//   * a condition wait follows the last signal or broadcast numbered while
//     it waited (none: it timed out, or woke spuriously);
//   * a barrier's thread leaves only once every party of its round has
//     come: an edge from each other party's event before the barrier.
// An edge within one thread says nothing its order does not: none is made.
void Merger::matchSync() {
  if (raw_.sync_calls.empty()) return;
  std::map<ObjectKey, std::vector<SyncNumbered>> objects;
  for (const auto& [i, call] : raw_.sync_calls) {
    const uint32_t p = raw_.events[i].process;
    if (call.number) objects[objectKey(call, p, raw_.processes[p].boot)].push_back({call.number, i, &call});
  }
  uint32_t object = 0;
  for (auto& [key, ops] : objects) {
    std::sort(ops.begin(), ops.end(), [](const SyncNumbered& a, const SyncNumbered& b) { return a.number < b.number; });
    ++object;
    for (const SyncNumbered& op : ops) raw_.events[op.position].value |= object;
    matchSyncObject(ops.front().position, ops);
  }
  std::vector<std::pair<uint32_t, SyncCall>>().swap(raw_.sync_calls);
}

void Merger::matchSyncObject(uint32_t first, const std::vector<SyncNumbered>& ops) {
  const Kind kind = raw_.events[first].eventKind();
  if (kind == Kind::BarrierWait) return matchBarrier(ops);
  auto edge = [&](uint32_t from, uint32_t to) {
    const Event& a = raw_.events[from];
    const Event& b = raw_.events[to];
    if (a.process != b.process || a.thread != b.thread) edges_.push_back(makeEdge(from, Edge::Why::Sync, to, 0));
  };
  uint32_t last_unlock = kNone;
  const SyncNumbered* last_signal = nullptr;
  std::deque<uint32_t> posts;
  for (const SyncNumbered& op : ops) {
    switch (raw_.events[op.position].eventKind()) {
      case Kind::MutexUnlock:
        last_unlock = op.position;
        break;
      case Kind::MutexLock:
        if (last_unlock != kNone) edge(last_unlock, op.position);
        break;
      case Kind::SemPost:
        posts.push_back(op.position);
        break;
      case Kind::SemWait:
        if (!posts.empty()) {
          edge(posts.front(), op.position);
          posts.pop_front();
        }
        break;
      case Kind::CondSignal:
        last_signal = &op;
        break;
      case Kind::CondWait:
        if (last_signal && last_signal->number > op.call->since) edge(last_signal->position, op.position);
        break;
      default:
        break;
    }
  }
}

// A barrier's rounds: its arrivals in their order, `parties` to a round.
void Merger::matchBarrier(const std::vector<SyncNumbered>& ops) {
  std::vector<const SyncNumbered*> by_arrival;
  for (const SyncNumbered& op : ops) by_arrival.push_back(&op);
  std::sort(by_arrival.begin(), by_arrival.end(),
            [](const SyncNumbered* a, const SyncNumbered* b) { return a->call->since < b->call->since; });
  const size_t parties = by_arrival.front()->call->parties;
  if (parties < 2) return;
  for (size_t round = 0; round + parties <= by_arrival.size(); round += parties)
    for (size_t to = round; to < round + parties; ++to)
      for (size_t from = round; from < round + parties; ++from) {
        if (from == to) continue;
        const uint32_t arrival = arrivalAt(by_arrival[from]->position);
        if (arrival != kNone) edges_.push_back(makeEdge(arrival, Edge::Why::Sync, by_arrival[to]->position, 0));
      }
}

}  // namespace radar::trace::merging
