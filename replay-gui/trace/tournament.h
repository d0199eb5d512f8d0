// The linearization's choice of the next process to place an event of.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace radar::trace {

// The smallest of a few hundred keys that change one at a time: a winner
// tree over leaves 0..n-1, each node holding the (key, leaf) that wins below
// it. Changing a key replays one path, comparing with the siblings: their
// loads do not wait on each other, and (key, leaf) as one number makes each
// step one comparison and a conditional move, with ties going to the lower
// leaf (a binary heap pops and pushes, with unpredictable branches, for
// every event). kNever keeps a leaf out.
//
// Packed is uint64_t when every key fits in the bits above the leaf's,
// counted from `base` (fits(): a recording's times span days, in ns), and
// unsigned __int128 for any key.
template <class Packed>
class Tournament {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  static constexpr bool kWide = sizeof(Packed) > sizeof(uint64_t);
  // Whether keys from `first` to `last` fit, with this many leaves.
  static bool fits(uint32_t leaves, int64_t first, int64_t last) {
    if (kWide) return true;
    if (first > last) return false;
    const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
    return span < (~uint64_t{0} >> leafBits(leaves)) - 1;
  }
  Tournament(uint32_t leaves, int64_t base)
      : shift_(kWide ? 32 : leafBits(leaves)),
        base_(kWide ? std::numeric_limits<int64_t>::min() : base),
        never_(Packed{~uint64_t{0} >> (kWide ? 0 : shift_)} << shift_) {
    while (size_ < leaves) size_ *= 2;
    node_.resize(2 * size_);
    for (uint32_t k = 0; k < size_; ++k) node_[size_ + k] = never_ | k;
    for (uint32_t k = size_ - 1; k >= 1; --k) node_[k] = std::min(node_[2 * k], node_[2 * k + 1]);
  }
  // The leaf with the smallest key.
  uint32_t top() const { return static_cast<uint32_t>(node_[1] & ((Packed{1} << shift_) - 1)); }
  bool empty() const { return node_[1] >= never_; }
  void set(uint32_t leaf, int64_t key) {
    // An event's time is never kNever (and, with 64 bits, within fits()).
    Packed cur = (key == kNever ? never_ : pack(std::min(key, kNever - 1))) | leaf;
    uint32_t k = size_ + leaf;
    node_[k] = cur;
    for (; k > 1; k /= 2) {
      const Packed sibling = node_[k ^ 1];
      cur = sibling < cur ? sibling : cur;
      node_[k / 2] = cur;
    }
  }

 private:
  static int leafBits(uint32_t leaves) {
    int bits = 1;
    while ((uint64_t{1} << bits) < leaves) ++bits;
    return bits;
  }
  // The key's order as an unsigned number, above the leaf.
  Packed pack(int64_t key) const { return Packed{static_cast<uint64_t>(key) - static_cast<uint64_t>(base_)} << shift_; }
  const int shift_;
  const int64_t base_;
  const Packed never_;
  uint32_t size_ = 1;
  std::vector<Packed> node_;  // node_[1] the root, leaves at size_ + leaf
};

}  // namespace radar::trace
