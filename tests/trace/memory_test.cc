// The merge's memory helpers alone (replay-gui/trace/memory.h): what is
// given back is only what was read, and faulting ahead stays ahead of the
// writer by a bounded lead without touching what it writes.
#include "trace/memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace radar::trace {
namespace {

constexpr size_t kPage = 4096;

struct Mapping {
  explicit Mapping(size_t bytes) : size(bytes) {
    void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(m, MAP_FAILED);
    base = static_cast<uint8_t*>(m);
  }
  ~Mapping() { ::munmap(base, size); }
  // Pages of [from, to) resident now.
  size_t resident(size_t from, size_t to) const {
    std::vector<unsigned char> in((to - from) / kPage);
    EXPECT_EQ(::mincore(base + from, to - from, in.data()), 0);
    size_t n = 0;
    for (unsigned char c : in) n += c & 1;
    return n;
  }
  uint8_t* base;
  size_t size;
};

TEST(ReadArray, GivesBackWholePagesAlreadyReadAndNothingElse) {
  Mapping m(256 * kPage);
  std::memset(m.base, 0xab, m.size);
  ReadArray read(m.base);
  // Less than 16 pages read: kept (a madvise for every few records would cost more than it saves).
  read.release(m.base + 10 * kPage);
  EXPECT_EQ(m.resident(0, 10 * kPage), 10u);
  EXPECT_EQ(m.base[0], 0xab);
  // Read up to the middle of page 100: pages 0 to 99 go back (they read as
  // zeros again), page 100 and on are untouched.
  read.release(m.base + 100 * kPage + 123);
  EXPECT_EQ(m.resident(0, 100 * kPage), 0u);
  EXPECT_EQ(m.base[0], 0);
  EXPECT_EQ(m.base[100 * kPage - 1], 0);
  EXPECT_EQ(m.base[100 * kPage], 0xab);
  EXPECT_EQ(m.resident(100 * kPage, m.size), 156u);
  // A front that is not page-aligned: its first, partly read page stays.
  Mapping n(64 * kPage);
  std::memset(n.base, 0xcd, n.size);
  ReadArray from_inside(n.base + 100);
  from_inside.release(n.base + 40 * kPage);
  EXPECT_EQ(n.base[0], 0xcd);
  EXPECT_EQ(n.base[kPage], 0);
  EXPECT_EQ(n.base[40 * kPage], 0xcd);
}

TEST(FaultAhead, FaultsInAheadOfTheWriterAndLeavesWhatItWroteAlone) {
  const size_t bytes = size_t{64} << 20;
  Mapping m(bytes);
  {
    FaultAhead ahead(m.base, bytes);
    // Nothing written yet: it goes a bounded way ahead of the writer (4 MiB
    // and the 2 MiB step it is in), not over the whole array.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const size_t before = m.resident(0, bytes);
    if (before == 0) GTEST_SKIP() << "MADV_POPULATE_WRITE not supported by this kernel (before 5.14)";
    EXPECT_LE(before * kPage, size_t{6} << 20);
    // The writer goes through the array; what it wrote is what stays.
    for (size_t at = 0; at < bytes; at += kPage) {
      std::memset(m.base + at, static_cast<int>(at / kPage % 251), kPage);
      if (at % (size_t{1} << 20) == 0) ahead.at(m.base + at);
    }
    ahead.at(m.base + bytes);
  }
  for (size_t at = 0; at < bytes; at += kPage)
    ASSERT_EQ(m.base[at + kPage / 2], static_cast<uint8_t>(at / kPage % 251)) << "page " << at / kPage;
}

}  // namespace
}  // namespace radar::trace
