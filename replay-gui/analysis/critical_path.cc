#include "analysis/critical_path.h"

#include <algorithm>

#include "trace/findings.h"

namespace radar::analysis {

const char* pathSegmentName(PathSegment::Kind k) {
  switch (k) {
    case PathSegment::Kind::Running:
      return "running";
    case PathSegment::Kind::Blocked:
      return "blocked";
    case PathSegment::Kind::Transit:
      return "transit";
    case PathSegment::Kind::Queued:
      return "queued";
  }
  return "?";
}

uint32_t lastEventOfRoot(const Trace& t) {
  uint32_t root = kNone;
  for (const Process& p : t.processes)
    if (p.origin == log::Origin::Root && !p.external) {
      root = p.index;
      break;
    }
  if (root == kNone && !t.processes.empty()) root = 0;
  if (root == kNone) return kNone;
  // Its last image with events.
  uint32_t last = kNone;
  for (uint32_t p = root; p != kNone; p = t.processes[p].next_image)
    if (t.processes[p].last_event != kNone) last = t.processes[p].last_event;
  return last;
}

namespace {

// A call that waits for something: its time inside is blocked unless an
// edge into it explains the wait (for a lock, the holder's unlock).
bool waits(Kind k) {
  const log::Category c = log::categoryOf(k);
  return c == log::Category::Receive || c == log::Category::Readiness || k == Kind::Accept || k == Kind::Wait ||
         k == Kind::Connect || (log::isSyncKind(k) && !log::isSyncRelease(k));
}

class Walker {
 public:
  Walker(const Trace& t, uint32_t from) : t_(t), from_(from) {}

  int64_t entryOf(uint32_t i) const { return t_.wallTime(i); }
  int64_t returnOf(uint32_t i) const { return t_.wallReturnTime(i); }

  // Reachable from the start: the start itself, or after it.
  bool allowed(uint32_t i) const { return from_ == kNone || i == from_ || t_.happensBefore(from_, i); }

  // The previous event of the same thread, else of the process; kNone.
  uint32_t threadPredecessor(uint32_t i) const {
    const Event& e = t_.events[i];
    const EventList& mine = t_.process_events[e.process];
    const uint32_t k = t_.indexInProcess(i);
    for (uint32_t j = k; j-- > 0;)
      if (t_.events[mine[j]].thread == e.thread) return mine[j];
    return kNone;
  }

  bool run(uint32_t to, CriticalPath* out, std::string* error) {
    if (!allowed(to)) {
      *error = "event " + std::to_string(to + 1) + " does not follow from event " + std::to_string(from_ + 1) +
               ": no chain of events and messages leads from one to the other";
      return false;
    }
    std::vector<PathSegment> backwards;
    int64_t time = returnOf(to);
    out->end_ns = time;
    uint32_t e = to;
    out->events.push_back(e);
    auto segment = [&](PathSegment::Kind kind, int64_t begin, int64_t end, uint32_t process, uint32_t channel,
                       uint32_t event) {
      if (end > begin) backwards.push_back({kind, begin, end, process, channel, event, kNone});
    };
    while (e != from_) {
      const Event& ev = t_.events[e];
      const int64_t entry = std::min(entryOf(e), time);
      // The candidates: the thread's previous call, and every edge in.
      // The thread's own past brought it to the call at its entry; an edge
      // decides only if the call waited for it (ready after the entry).
      std::vector<Candidate>& candidates = candidates_;
      candidates.clear();
      if (const uint32_t p = threadPredecessor(e); p != kNone && allowed(p))
        candidates.push_back({p, entry, false, Edge::Why::Message});
      for (auto [b, end] = t_.incoming(e); b != end; ++b)
        if (allowed(b->from)) candidates.push_back({b->from, std::min(returnOf(b->from), time), true, b->why});
      if (candidates.empty() && from_ != kNone) {
        // The thread's previous call does not follow from the start, but
        // another thread's does (the process's order links them).
        if (const uint32_t p = t_.localPredecessor(e); p != kNone && allowed(p))
          candidates.push_back({p, entry, false, Edge::Why::Message});
      }
      if (candidates.empty()) {
        // The path's first event: its own call.
        segment(waits(ev.eventKind()) ? PathSegment::Kind::Blocked : PathSegment::Kind::Running, entry, time,
                ev.process, kNone, e);
        time = std::min(time, entry);
        break;
      }
      // The one ready last decided; ties go to the thread's own call.
      size_t pick = 0;
      for (size_t k = 1; k < candidates.size(); ++k)
        if (candidates[k].ready > candidates[pick].ready) pick = k;
      const Candidate& c = candidates[pick];
      for (size_t k = 0; k < candidates.size(); ++k)
        if (k != pick) out->branches.push_back({candidates[k].event, e, c.ready - candidates[k].ready});
      const uint32_t channel = t_.channelOf(e);
      if (c.edge) {
        const int64_t ready = std::min(c.ready, time);
        if (ready > entry) {
          // It was waiting for this: from there to its return, in transit.
          segment(PathSegment::Kind::Transit, ready, time, ev.process, channel, e);
          if (c.why == Edge::Why::Sync && !backwards.empty() && backwards.back().event == e)
            backwards.back().woken_by = c.event;
        } else {
          // It was there before the call (reached this way because the
          // thread's own past is not the start's): the call, then before
          // it the message waiting in its channel (a child starting, a
          // parent getting to its wait: running).
          segment(PathSegment::Kind::Running, entry, time, ev.process, kNone, e);
          if (c.why == Edge::Why::Message || c.why == Edge::Why::Eof)
            segment(PathSegment::Kind::Queued, ready, entry, ev.process, channel, e);
          else
            segment(PathSegment::Kind::Running, ready, entry, ev.process, kNone, e);
        }
        time = ready;
      } else {
        // The call itself: waiting for the unknown, unless what it got (a
        // message, an exit ...) was there already.
        const auto [first_in, end_in] = t_.incoming(e);
        const bool blocked = waits(ev.eventKind()) && first_in == end_in;
        segment(blocked ? PathSegment::Kind::Blocked : PathSegment::Kind::Running, entry, time, ev.process, kNone, e);
        // Between the two calls, the thread ran (a previous call that
        // returned later ran inside this one: a signal handler's).
        const int64_t ready = std::min(returnOf(c.event), entry);
        segment(PathSegment::Kind::Running, ready, entry, ev.process, kNone, e);
        time = ready;
      }
      e = c.event;
      out->events.push_back(e);
    }
    if (e == from_) {
      // The start's own call, from its entry.
      const Event& ev = t_.events[e];
      const int64_t entry = std::min(entryOf(e), time);
      segment(waits(ev.eventKind()) ? PathSegment::Kind::Blocked : PathSegment::Kind::Running, entry, time, ev.process,
              kNone, e);
      time = entry;
    }
    out->begin_ns = time;
    std::reverse(out->events.begin(), out->events.end());
    out->segments.assign(backwards.rbegin(), backwards.rend());
    std::sort(out->branches.begin(), out->branches.end(),
              [](const Branch& a, const Branch& b) { return a.slack_ns < b.slack_ns; });
    return true;
  }

 private:
  struct Candidate {
    uint32_t event;
    int64_t ready;  // when what it gave the event was there
    bool edge;
    Edge::Why why;
  };
  const Trace& t_;
  uint32_t from_;
  std::vector<Candidate> candidates_;
};

}  // namespace

bool criticalPath(const Trace& t, uint32_t from, uint32_t to, CriticalPath* out, std::string* error) {
  *out = {};
  if (to >= t.events.size() || (from != kNone && from >= t.events.size())) {
    *error = "no such event";
    return false;
  }
  return Walker(t, from).run(to, out, error);
}

std::string segmentOwner(const Trace& t, const PathSegment& s) {
  std::string w = s.process == kNone ? std::string("?") : threadOf(t, s.event);
  if (s.channel != kNone) w += " on " + t.channelName(s.channel);
  if (s.woken_by != kNone) w += ", woken by " + threadOf(t, s.woken_by) + " (" + syncObjectName(t, s.woken_by) + ")";
  return w;
}

}  // namespace radar::analysis
