// The --sync recorder's cache of where shared objects lie, read and filled
// by every thread without a lock: a place found is always the place kept
// for that address, however often other threads write the same entry.
#include "preload/place_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace radar::preload {
namespace {

constexpr size_t kEntries = 64;

// Two addresses that share an entry.
std::pair<uint64_t, uint64_t> sharingAnEntry() {
  const uint64_t first = 0x7f0000001000;
  for (uint64_t other = first + 32;; other += 32)
    if (PlaceCache<kEntries>::entryOf(other) == PlaceCache<kEntries>::entryOf(first)) return {first, other};
}

Place placeFor(uint64_t address) { return {address ^ 1, address ^ 2, address ^ 3}; }

TEST(PlaceCache, APlaceFoundIsTheOneKeptForItsAddress) {
  PlaceCache<kEntries> cache;
  Place place;
  EXPECT_FALSE(cache.find(0x1000, &place));
  cache.keep(0x1000, placeFor(0x1000));
  ASSERT_TRUE(cache.find(0x1000, &place));
  EXPECT_EQ(place, placeFor(0x1000));
  const auto [a, b] = sharingAnEntry();
  cache.keep(a, placeFor(a));
  cache.keep(b, placeFor(b));
  EXPECT_FALSE(cache.find(a, &place)) << "b took the entry";
  ASSERT_TRUE(cache.find(b, &place));
  EXPECT_EQ(place, placeFor(b));
}

// Two writers keep two addresses of one entry in turn while two readers
// look both up: every hit must be whole, never one address's check with
// the other's place.
TEST(PlaceCache, ReadersNeverTakeAPlaceWrittenOverThem) {
  PlaceCache<kEntries> cache;
  const auto [a, b] = sharingAnEntry();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hits{0}, torn{0};
  std::vector<std::thread> threads;
  for (const uint64_t address : {a, b})
    threads.emplace_back([&, address] {
      while (!stop.load(std::memory_order_relaxed)) cache.keep(address, placeFor(address));
    });
  for (int reader = 0; reader < 2; ++reader)
    threads.emplace_back([&] {
      uint64_t mine = 0, wrong = 0;
      // Until enough hits, or for 2 s on a machine too busy to give them.
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (mine < 200'000 && std::chrono::steady_clock::now() < until)
        for (const uint64_t address : {a, b}) {
          Place place;
          if (!cache.find(address, &place)) continue;
          ++mine;
          wrong += !(place == placeFor(address));
        }
      hits += mine;
      torn += wrong;
    });
  threads[2].join();
  threads[3].join();
  stop = true;
  threads[0].join();
  threads[1].join();
  EXPECT_EQ(torn.load(), 0u) << "of " << hits.load() << " hits";
  EXPECT_GT(hits.load(), 1000u) << "the readers found the entry often enough to mean something";
}

}  // namespace
}  // namespace radar::preload
