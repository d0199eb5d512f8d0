// The linearization's winner tree, alone: after any sequence of changes its
// top is the leaf with the smallest key, ties going to the lower leaf, and
// a tree with every key at kNever is empty.
#include <gtest/gtest.h>

#include <random>

#include "trace/tournament.h"

namespace radar::trace {
namespace {

template <class Packed>
void expectTopIsTheSmallest(uint32_t leaves, int64_t base, int64_t span, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << leaves << " leaves, seed " << seed);
  using T = Tournament<Packed>;
  T tree(leaves, base);
  std::vector<int64_t> keys(leaves, T::kNever);
  EXPECT_TRUE(tree.empty());
  std::mt19937_64 rng(seed);
  for (int step = 0; step < 2000; ++step) {
    const uint32_t leaf = static_cast<uint32_t>(rng() % leaves);
    // Ties are frequent: keys from a small range, and some leaves out.
    const int64_t key = rng() % 5 == 0 ? T::kNever : base + static_cast<int64_t>(rng() % (span + 1)) / 7 * 7;
    keys[leaf] = key;
    tree.set(leaf, key);
    uint32_t want = 0;
    for (uint32_t k = 1; k < leaves; ++k)
      if (keys[k] < keys[want]) want = k;
    if (keys[want] == T::kNever) {
      ASSERT_TRUE(tree.empty()) << "step " << step;
      continue;
    }
    ASSERT_FALSE(tree.empty()) << "step " << step;
    ASSERT_EQ(tree.top(), want) << "step " << step;
  }
}

TEST(Tournament, TopIsTheSmallestKeyTiesToTheLowerLeaf) {
  for (uint32_t leaves : {1u, 2u, 3u, 7u, 100u, 1000u})
    for (uint32_t seed : {1u, 2u, 3u}) {
      const int64_t base = 1'700'000'000'000'000'000;
      expectTopIsTheSmallest<uint64_t>(leaves, base, int64_t{1} << 40, seed);
      expectTopIsTheSmallest<unsigned __int128>(leaves, base, int64_t{1} << 40, seed);
    }
  // Keys anywhere, the wide form only.
  expectTopIsTheSmallest<unsigned __int128>(50, std::numeric_limits<int64_t>::min() / 2, int64_t{1} << 62, 4);
}

TEST(Tournament, NarrowKeysAreUsedOnlyWhereTheyFit) {
  EXPECT_TRUE(Tournament<uint64_t>::fits(100, 0, int64_t{1} << 50));
  EXPECT_FALSE(Tournament<uint64_t>::fits(100, 0, int64_t{1} << 60));  // 7 bits of leaves leave 57
  EXPECT_FALSE(Tournament<uint64_t>::fits(100, 10, 5));
  EXPECT_TRUE(Tournament<unsigned __int128>::fits(100, 0, std::numeric_limits<int64_t>::max() - 1));
}

}  // namespace
}  // namespace radar::trace
