// The linearization's copier, alone: given each window's progress per
// process, every event lands at its position, whatever the window size,
// and the copy finishes when every window has been handed over.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "trace/placer.h"

namespace radar::trace {
namespace {

TEST(Placer, EveryEventLandsAtItsPosition) {
  for (uint32_t processes : {1u, 3u, 40u})
    for (uint32_t per_process : {1u, 1000u, 40000u}) {
      SCOPED_TRACE(testing::Message() << processes << " processes x " << per_process);
      const uint32_t total = processes * per_process;
      BigArray<Event> events(total);
      std::vector<std::pair<uint32_t, uint32_t>> ranges;
      for (uint32_t p = 0; p < processes; ++p) ranges.push_back({p * per_process, (p + 1) * per_process});
      for (uint32_t i = 0; i < total; ++i) {
        std::memset(&events[i], 0, sizeof(Event));
        events[i].counter = i;
      }
      // A random interleaving of the processes, each in its own order.
      std::mt19937 rng(processes * 7 + per_process);
      std::vector<uint32_t> next(processes), position(total);
      for (uint32_t p = 0; p < processes; ++p) next[p] = ranges[p].first;
      BigArray<Event> out(total);
      Placer placer(events, out.data(), position.data(), ranges, total);
      uint32_t published = 0;
      for (uint32_t here = 0; here < total; ++here) {
        uint32_t p = rng() % processes;
        while (next[p] == ranges[p].second) p = (p + 1) % processes;
        position[next[p]++] = here;
        if ((here + 1) % placer.window() == 0 || here + 1 == total) {
          placer.ordered(next);
          ++published;
        }
      }
      for (; published < placer.windows(); ++published) placer.ordered(next);
      placer.join();
      for (uint32_t i = 0; i < total; ++i) ASSERT_EQ(out[position[i]].counter, i) << "event " << i;
    }
}

}  // namespace
}  // namespace radar::trace
