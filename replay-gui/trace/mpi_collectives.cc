#include "trace/mpi_collectives.h"

#include <algorithm>

namespace radar::trace {

std::vector<CollectiveInstance> mpiCollectives(const Trace& t) {
  std::vector<CollectiveInstance> found;
  if (std::none_of(t.channels.begin(), t.channels.end(), [](const Channel& c) { return log::isMpiType(c.type); }))
    return found;
  std::vector<std::vector<uint32_t>> by_endpoint(t.endpoints.size());  // each rank's collectives, in order
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (e.eventKind() == log::Kind::MpiCollective && e.endpoint < by_endpoint.size())
      by_endpoint[e.endpoint].push_back(i);
  }
  for (uint32_t c = 0; c < t.channels.size(); ++c) {
    if (!log::isMpiType(t.channels[c].type)) continue;
    for (size_t n = 0;; ++n) {
      CollectiveInstance one{c, kNone, static_cast<uint32_t>(n + 1), {}};
      bool same = true;
      for (uint32_t ep : t.channels[c].endpoints) {
        if (ep >= by_endpoint.size() || n >= by_endpoint[ep].size()) continue;
        const uint32_t mine = t.events[by_endpoint[ep][n]].value;
        same &= one.operation == kNone || one.operation == mine;
        one.operation = mine;
        one.members.push_back(by_endpoint[ep][n]);
      }
      if (!same || one.members.empty()) break;
      if (one.members.size() < 2) continue;
      std::sort(one.members.begin(), one.members.end());
      found.push_back(std::move(one));
    }
  }
  return found;
}

}  // namespace radar::trace
