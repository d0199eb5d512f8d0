// Where process-shared objects lie (device, inode, offset of the file their
// mapping maps), cached by address for the recorder's --sync.
//
// Every thread of the program reads and fills the cache without a lock, and
// two addresses may share an entry: an entry is a sequence lock. A reader
// takes an entry's place only if its version was even and unchanged around
// the copy; a writer that finds another writing leaves the entry to it.
// Without that, a thread could take the address of one object with the
// place of another written over it meanwhile, and number the wrong object.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace radar::preload {

struct Place {
  uint64_t dev = 0, ino = 0, offset = 0;
  bool operator==(const Place&) const = default;
};

// A 64-bit mix (MurmurHash3's finalizer): spreads addresses and keys that
// differ in a few low bits over a table.
inline uint64_t mixBits(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

static_assert(std::atomic<uint64_t>::is_always_lock_free, "read in signal handlers");

template <size_t kEntries>
class PlaceCache {
  static_assert((kEntries & (kEntries - 1)) == 0, "a power of two");

 public:
  static size_t entryOf(uint64_t address) { return mixBits(address) & (kEntries - 1); }

  // The place cached for `address`, read whole; false when it is not there.
  bool find(uint64_t address, Place* place) const {
    const Entry& e = entries_[entryOf(address)];
    const uint64_t version = e.version.load(std::memory_order_acquire);
    if (version & 1) return false;
    const uint64_t cached = e.address.load(std::memory_order_relaxed);
    const Place copy{e.dev.load(std::memory_order_relaxed), e.ino.load(std::memory_order_relaxed),
                     e.offset.load(std::memory_order_relaxed)};
    std::atomic_thread_fence(std::memory_order_acquire);
    if (e.version.load(std::memory_order_relaxed) != version || cached != address || address == 0) return false;
    *place = copy;
    return true;
  }

  // Caches `address`'s place, unless another thread is writing its entry.
  void keep(uint64_t address, const Place& place) {
    Entry& e = entries_[entryOf(address)];
    uint64_t version = e.version.load(std::memory_order_relaxed);
    // Acquire: this writer's stores come after the last writer's.
    if ((version & 1) ||
        !e.version.compare_exchange_strong(version, version + 1, std::memory_order_acquire, std::memory_order_relaxed))
      return;
    std::atomic_thread_fence(std::memory_order_release);
    e.address.store(address, std::memory_order_relaxed);
    e.dev.store(place.dev, std::memory_order_relaxed);
    e.ino.store(place.ino, std::memory_order_relaxed);
    e.offset.store(place.offset, std::memory_order_relaxed);
    e.version.store(version + 2, std::memory_order_release);
  }

 private:
  struct Entry {
    std::atomic<uint64_t> version{0};  // odd while written
    std::atomic<uint64_t> address{0}, dev{0}, ino{0}, offset{0};
  };
  Entry entries_[kEntries];
};

}  // namespace radar::preload
