#include "trace/display.h"

#include <algorithm>

namespace radar::trace {
namespace {

template <class T>
void insertSorted(std::vector<T>& v, const T& x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) v.insert(it, x);
}

template <class T>
void eraseSorted(std::vector<T>& v, const T& x) {
  auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it != v.end() && *it == x) v.erase(it);
}

}  // namespace

DisplayModel::DisplayModel(const Trace& trace, uint32_t every, bool background) : t_(trace), every_(every) {
  const uint32_t n = static_cast<uint32_t>(t_.events.size());

  // Ends each process image inherited, open from its start.
  inherited_begin_.assign(t_.processes.size() + 1, 0);
  for (const Endpoint& ep : t_.endpoints)
    if (ep.inherited && ep.process < t_.processes.size()) ++inherited_begin_[ep.process + 1];
  for (size_t p = 0; p < t_.processes.size(); ++p) inherited_begin_[p + 1] += inherited_begin_[p];
  inherited_.resize(inherited_begin_.back());
  std::vector<uint32_t> next(inherited_begin_.begin(), inherited_begin_.end() - 1);
  for (uint32_t k = 0; k < t_.endpoints.size(); ++k)
    if (t_.endpoints[k].inherited && t_.endpoints[k].process < t_.processes.size())
      inherited_[next[t_.endpoints[k].process]++] = k;

  // A child comes on stage with the event that created it, before its own
  // first event (it exists from the fork: messages can be sent to it), or
  // without one (blocked at once, then killed).
  for (const Process& p : t_.processes) {
    const uint32_t created = t_.createdAt(p.index);
    if (created != kNone && (p.first_event == kNone || created < p.first_event))
      created_.emplace_back(created, p.index);
  }
  std::sort(created_.begin(), created_.end());

  if (!every_) every_ = n < 100'000 ? 1024 : 4096;
  checkpoints_.emplace_back();  // the start
  if (background)
    maker_ = std::thread([this] { makeCheckpoints(); });
  else
    makeCheckpoints();
}

DisplayModel::~DisplayModel() {
  stop_.store(true, std::memory_order_relaxed);
  if (maker_.joinable()) maker_.join();
}

// Checkpoints by replaying once; a state that grows large (many messages
// in flight) makes checkpoints rarer, to bound memory.
void DisplayModel::makeCheckpoints() {
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
  const uint64_t budget = std::max<uint64_t>(uint64_t{n} * 4, 4ull << 20);
  auto bytes = [](const DisplayState& st) {
    return sizeof(st) + st.alive.size() * 4 + st.open.size() * 4 + st.queued.size() * sizeof(QueuedMessage);
  };
  uint64_t used = 0;
  uint32_t every = every_;  // only this thread changes it
  DisplayState s;
  for (uint32_t i = 0; i < n && !stop_.load(std::memory_order_relaxed); ++i) {
    apply(s);
    if ((i + 1) % every != 0) continue;
    settle(s);
    used += bytes(s);
    std::lock_guard<std::mutex> lock(mutex_);
    checkpoints_.push_back(s);
    if (used > budget) {
      // Keep every other checkpoint: twice the interval, half the memory.
      std::vector<DisplayState> kept;
      used = 0;
      for (size_t k = 0; k < checkpoints_.size(); k += 2) {
        used += bytes(checkpoints_[k]);
        kept.push_back(std::move(checkpoints_[k]));
      }
      checkpoints_ = std::move(kept);
      every_ = every *= 2;
    }
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    made_.store(true, std::memory_order_release);
  }
  made_signal_.notify_all();
}

void DisplayModel::waitForCheckpoints() const {
  std::unique_lock<std::mutex> lock(mutex_);
  made_signal_.wait(lock, [this] { return made_.load(std::memory_order_acquire); });
}

uint32_t DisplayModel::checkpointInterval() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return every_;
}

size_t DisplayModel::checkpointCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return checkpoints_.size();
}

uint32_t DisplayModel::firstReceiver(uint32_t send) const {
  for (uint32_t k : t_.messagesFrom(send)) {
    const Edge& e = t_.edges[k];
    if (!(t_.events[e.to].flags & kEventPeek)) return t_.events[e.to].process;
  }
  return kNone;
}

void DisplayModel::appear(DisplayState& s, uint32_t process) const {
  insertSorted(s.alive, process);
  for (uint32_t k = inherited_begin_[process]; k < inherited_begin_[process + 1]; ++k)
    insertSorted(s.open, inherited_[k]);
}

void DisplayModel::apply(DisplayState& s) const {
  const uint32_t i = s.position;
  if (i >= t_.events.size()) return;
  const Event& ev = t_.events[i];
  const Process& p = t_.processes[ev.process];
  if (i == p.first_event) appear(s, ev.process);
  for (auto it = std::lower_bound(created_.begin(), created_.end(), std::make_pair(i, 0u));
       it != created_.end() && it->first == i; ++it)
    appear(s, it->second);
  if (ev.endpoint != kNone) {
    if (ev.eventKind() == Kind::Close)
      eraseSorted(s.open, ev.endpoint);
    else
      insertSorted(s.open, ev.endpoint);
  }
  const log::Category cat = log::categoryOf(ev.eventKind());
  if (cat == log::Category::Send && !(ev.flags & kEventFailed) && ev.value) {
    // Bytes that go outside the recording are not shown queued anywhere;
    // bytes a thread of the same process got before this call returned
    // (shown earlier) are not queued either.
    uint64_t received = 0, taken = 0;
    for (uint32_t k : t_.messagesFrom(i)) {
      const Edge& e = t_.edges[k];
      if (t_.events[e.to].flags & kEventPeek) continue;
      received += e.bytes;
      if (e.to < i) taken += e.bytes;
    }
    const uint64_t sent = (ev.flags & kEventExternal) ? received : ev.value;
    const uint32_t left = static_cast<uint32_t>(sent > taken ? sent - taken : 0);
    if (left) s.queued.push_back({i, left, firstReceiver(i)});  // positions grow: stays sorted
  }
  if (cat == log::Category::Receive && !(ev.flags & kEventPeek)) {
    auto [b, e] = t_.incoming(i);
    for (; b != e; ++b) {
      if (b->why != Edge::Why::Message) continue;
      auto it = std::lower_bound(s.queued.begin(), s.queued.end(), b->from,
                                 [](const QueuedMessage& m, uint32_t v) { return m.send < v; });
      if (it == s.queued.end() || it->send != b->from) continue;
      // Received whole: left in place, at 0, until settle() (an erase here
      // would move every later message, at every receive).
      it->bytes_left = it->bytes_left > b->bytes ? it->bytes_left - b->bytes : 0;
    }
  }
  if (i == p.last_event && p.end != Process::End::Unknown) {
    eraseSorted(s.alive, ev.process);
    // After an exec the process lives on as its next image, which may do
    // nothing for a while (a server waiting for its first client), or
    // nothing recorded at all (blocked at once, then killed): such an image
    // is shown to the end, as nothing says when it died.
    if (p.end == Process::End::Execed && p.next_image != kNone) {
      const uint32_t first = t_.processes[p.next_image].first_event;
      if (first == kNone || first > i) appear(s, p.next_image);
    }
    // Its channel ends close with it.
    s.open.erase(std::remove_if(s.open.begin(), s.open.end(),
                                [&](uint32_t ep) { return t_.endpoints[ep].process == ev.process; }),
                 s.open.end());
  }
  s.position = i + 1;
}

void DisplayModel::settle(DisplayState& s) {
  std::erase_if(s.queued, [](const QueuedMessage& m) { return m.bytes_left == 0; });
}

// Threads in a call at that point: the next event of each thread of each
// process not ended yet, if it had already begun (its entry is before the
// return of the last event shown). A process whose first event is such a
// call is in it too, although nothing of it has been shown yet.
void DisplayModel::blockedAt(DisplayState& s) const {
  s.blocked.clear();
  if (s.position == 0 || s.position > t_.events.size()) return;
  const uint32_t last = s.position - 1;
  const Event& now = t_.events[last];
  const int64_t now_wall = now.returnNs() + t_.processes[now.process].realtime_offset;
  for (uint32_t p = 0; p < t_.processes.size(); ++p) {
    const Process& proc = t_.processes[p];
    // A process is looked at from before its first event (it may block in
    // it) until it is gone from the stage.
    const bool alive = std::binary_search(s.alive.begin(), s.alive.end(), p);
    if (!alive && (proc.first_event == kNone || (proc.last_event < s.position && proc.end != Process::End::Unknown)))
      continue;
    const auto& mine = t_.process_events[p];
    // The first of its events not yet applied.
    auto it = std::lower_bound(mine.begin(), mine.end(), s.position);
    std::vector<uint8_t> seen;
    for (; it != mine.end() && seen.size() < 8; ++it) {
      const Event& ev = t_.events[*it];
      if (std::find(seen.begin(), seen.end(), ev.thread) != seen.end()) continue;
      seen.push_back(ev.thread);
      const int64_t entry_wall = ev.entry_ns + proc.realtime_offset;
      if (entry_wall <= now_wall) s.blocked.push_back({p, ev.thread, *it});
      if (seen.size() >= proc.threads.size()) break;
    }
    // A thread with no event of its own left, in a call when the recording
    // ended (or the process was killed): blocked in it from its entry, even
    // when the process had no event at all (a child that reads at once).
    for (const auto& slot : proc.control.threads) {
      if (!slot.tid || !slot.kind) continue;
      const uint8_t thread = proc.threadIndex(slot.tid);
      if (std::find(seen.begin(), seen.end(), thread) != seen.end()) continue;
      if (slot.entry_ns + proc.realtime_offset <= now_wall) s.blocked.push_back({p, thread, kNone});
    }
  }
  std::sort(s.blocked.begin(), s.blocked.end(), [](const BlockedThread& a, const BlockedThread& b) {
    return a.process != b.process ? a.process < b.process : a.thread < b.thread;
  });
}

DisplayState DisplayModel::stateAt(uint32_t position) const {
  if (position > t_.events.size()) position = static_cast<uint32_t>(t_.events.size());
  DisplayState s;
  uint32_t from;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const DisplayState& checkpoint = checkpoints_[std::min<size_t>(position / every_, checkpoints_.size() - 1)];
    from = checkpoint.position;
    std::lock_guard<std::mutex> recent_lock(recent_mutex_);
    // A state asked for lately that is nearer than the checkpoint.
    const DisplayState* nearest = nullptr;
    for (const DisplayState& r : recent_)
      if (r.position <= position && r.position > from && (!nearest || r.position > nearest->position)) nearest = &r;
    s = nearest ? *nearest : checkpoint;
  }
  while (s.position < position) apply(s);
  settle(s);
  blockedAt(s);
  std::lock_guard<std::mutex> recent_lock(recent_mutex_);
  bool known = false;
  for (const DisplayState& r : recent_) known |= r.position == s.position;
  if (!known && s.position > from) {
    recent_[recent_next_] = s;
    recent_next_ ^= 1;
  }
  return s;
}

DisplayState DisplayModel::replayFromStart(uint32_t position) const {
  if (position > t_.events.size()) position = static_cast<uint32_t>(t_.events.size());
  DisplayState s;
  while (s.position < position) apply(s);
  settle(s);
  blockedAt(s);
  return s;
}

}  // namespace radar::trace
