// What a log holds, as read: a record (one counted event or annotation)
// with its fields and where its payload is, and the log's control block.
// Plain data for every stage that reads a merged trace; opening a log is
// LogReader's (log/reader.h), used only by the loader and radar dump.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "log/fields.h"
#include "log/format.h"
#include "log/kinds.h"

namespace radar::log {

// Memory of a megabyte or more, kept when given back and handed out again
// (sizes rounded up to a power of two, a bounded number kept): the kernel
// zeroes every fresh page, 60 to 80 ms per 100 MB, and one command reads
// the same big frames more than once (the load, then a message's
// contents). Thread-safe.
inline constexpr size_t kBigBuffer = size_t{1} << 20;
void* allocateBig(size_t bytes);
void freeBig(void* p, size_t bytes);

// Bytes that a read or zstd overwrites whole: resize() leaves them
// uninitialized (zero-filling each 256 KiB frame before zstd wrote it was
// the biggest single cost of opening a log).
template <class T>
struct UninitializedAllocator {
  using value_type = T;
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) {}
  T* allocate(size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n >= kBigBuffer / sizeof(T) && n <= std::numeric_limits<size_t>::max() / 2 / sizeof(T))
      return static_cast<T*>(allocateBig(n * sizeof(T)));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (n >= kBigBuffer / sizeof(T) && n <= std::numeric_limits<size_t>::max() / 2 / sizeof(T))
      return freeBig(p, n * sizeof(T));
    std::allocator<T>().deallocate(p, n);
  }
  template <class U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 1 && std::is_trivially_copyable_v<U> &&
                  (std::is_same_v<std::remove_cvref_t<Args>, U> && ...)) {
      // A plain copy of the bytes: GCC copies bit fields one by one, reading
      // the destination first, and a read of fresh memory costs a page fault
      // for the zero page, then another (and a TLB flush) to write it.
      std::memcpy(static_cast<void*>(p), static_cast<const void*>(std::addressof(args))..., sizeof(U));
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
  template <class U>
  bool operator==(const UninitializedAllocator<U>&) const {
    return true;
  }
};
using Bytes = std::vector<uint8_t, UninitializedAllocator<uint8_t>>;

struct LogError {
  std::string path;
  uint64_t offset = 0;  // byte offset in the file
  std::string message;
  // "path: offset N: message"
  std::string toString() const;
};

// Where a record's payload is: in the frame starting at `frame_offset`
// (for the tail: kTailFrame), at `offset` within the frame's content.
struct Location {
  static constexpr uint64_t kTailFrame = ~uint64_t{0};
  uint64_t frame_offset = 0;
  uint32_t offset = 0;
};

// One record, with every compactness rule applied: absolute counter, thread,
// times and offsets. Views point into the reader's buffers and stay valid
// until the next call to next().
struct Record {
  Kind kind = Kind::Unspecified;
  uint64_t counter = 0;  // 0 for annotations
  uint32_t tid = 0;
  int64_t entry_ns = 0;
  int64_t return_ns = 0;
  int32_t fd = 0;
  uint32_t channel = 0;
  bool has_offset = false;
  uint64_t offset = 0;
  uint64_t size = 0;
  int64_t result = 0;
  uint32_t error = 0;
  uint32_t flags = 0;        // the call's own (kFlagInMpiCall taken out: in_mpi_call)
  bool in_mpi_call = false;  // made inside an MPI call (log/fields.h)
  bool has_hash = false;
  uint32_t hash = 0;
  uint64_t payload_omitted = 0;
  std::string_view payload;
  Location payload_location;
  Location location;  // where the record itself starts (its varint length)
  int32_t peer_pid = 0;
  int32_t status = 0;
  int32_t signal = 0;
  std::string_view address;
  std::vector<int32_t> fds;
  std::vector<std::string_view> strings;
  std::vector<ReadyFd> ready;
  std::vector<uint64_t> lengths;
  std::string_view header_bytes;   // serialized radar.proto.Header
  std::string_view channel_bytes;  // serialized radar.proto.ChannelInfo
  bool has_timeout = false;
  int32_t timeout_ms = 0;
  uint64_t same_as = 0;  // a send of bytes received at this counter (fields.h)
  uint64_t same_from = 0;

  uint64_t bytesMoved() const { return log::bytesMoved(kind, result, flags, lengths.data(), lengths.size()); }
};

// Event times are CLOCK_MONOTONIC nanoseconds below this (146 years); a
// reader refuses a record past it as damaged.
inline constexpr int64_t kMaxTimeNs = int64_t{1} << 62;

// What the control block at the start of the file says.
struct ControlState {
  uint32_t format_major = 0, format_minor = 0;
  uint32_t tail_capacity = 0;
  bool closed = false;      // the writer closed the log cleanly
  bool incomplete = false;  // the writer lost events
  bool finalized = false;
  uint64_t lost_from_counter = 0;
  uint64_t lost_events = 0;
  int lost_errno = 0;
  uint64_t last_counter = 0;
  std::vector<ThreadSlot> threads;  // threads with a call in progress or known
};

}  // namespace radar::log
