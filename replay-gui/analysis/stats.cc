#include "analysis/stats.h"

#include <limits>

#include <algorithm>

namespace radar::analysis {

Statistics computeStatistics(const Trace& t) {
  Statistics s;
  s.processes.resize(t.processes.size());
  s.channels.resize(t.channels.size());
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    ProcessStats& p = s.processes[e.process];
    ++p.events;
    const log::Category cat = log::categoryOf(e.eventKind());
    const bool ok = !(e.flags & kEventFailed);
    if (cat == log::Category::Send) {
      p.send_ns += e.durationNs();
      if (ok) {
        ++p.sends;
        p.bytes_sent += e.value;
        if (e.endpoint != kNone) {
          ChannelStats& c = s.channels[t.endpoints[e.endpoint].channel];
          ++c.messages;
          c.bytes += e.value;
        }
      }
    } else if (cat == log::Category::Receive) {
      p.receive_ns += e.durationNs();
      if (ok && e.value && !(e.flags & kEventPeek)) {  // a peek's bytes are counted when received
        ++p.receives;
        p.bytes_received += e.value;
      }
    } else if (cat == log::Category::Readiness) {
      p.wait_ns += e.durationNs();
    }
  }
  // Time in the channel: from the send's return to the receive's return.
  uint32_t last_to = kNone;
  for (const Edge& e : t.edges) {
    if (e.why != Edge::Why::Message) continue;
    const Event& from = t.events[e.from];
    const Event& to = t.events[e.to];
    if (from.endpoint == kNone || (to.flags & kEventPeek)) continue;
    ChannelStats& c = s.channels[t.endpoints[from.endpoint].channel];
    if (e.to != last_to) ++c.matched;
    last_to = e.to;
    if (t.processes[from.process].boot != t.processes[to.process].boot) continue;
    const int64_t q = std::max<int64_t>(0, to.returnNs() - from.returnNs());
    c.queued_ns = q > std::numeric_limits<int64_t>::max() - c.queued_ns ? std::numeric_limits<int64_t>::max()
                                                                        : c.queued_ns + q;  // damaged times
    c.max_queued_ns = std::max(c.max_queued_ns, q);
  }
  return s;
}

}  // namespace radar::analysis
