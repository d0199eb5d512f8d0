// The fixed byte layout of a radar log file (docs/log-format.md).
//
//   offset 0      zstd skippable frame: magic 0x184D2A5A, u32 size
//   offset 8      FileControl (below): magic, version, tail state, thread slots
//   offset 4096   the tail: records not compressed yet, then zero bytes
//   4096 + cap    zstd frames, each holding whole records
//
// Everything here is little-endian. The first 4096 + tail capacity bytes are
// mapped into the recording process (MAP_SHARED), so what it stores there is
// in the page cache the moment the store retires and survives SIGKILL.
#pragma once

#include <cstddef>
#include <cstdint>

namespace radar::log {

inline constexpr uint32_t kFormatMajor = 1;
inline constexpr uint32_t kFormatMinor = 15;  // 1.1: Header.open_fds; 1.2: Header.redacted_environment;
                                              // 1.3: Header.start_files; 1.4: EXIT's title, unseen NOTEs;
                                              // 1.5: OUTPUT, INTERFACE; 1.6: POSIX message queues;
                                              // 1.7: eventfds; 1.8: MPI; 1.9: synchronization;
                                              // 1.10: synchronization events without their fd;
                                              // 1.11: FileControl.tail_frame_at; 1.12: title NOTEs;
                                              // 1.13: the ATTACHED origin; 1.14: flight logs;
                                              // 1.15: sends kept once (Event.same_as)

inline constexpr uint32_t kZstdMagic = 0xFD2FB528u;
inline constexpr uint32_t kSkippableMagicMask = 0xFFFFFFF0u;
inline constexpr uint32_t kSkippableMagicBase = 0x184D2A50u;
inline constexpr uint32_t kFileMagicFrame = 0x184D2A5Au;  // a skippable frame: zstd -d ignores it
// radar record --flight: the skippable frame right after the tail. Its size
// says where reading goes on: at first past a reserved, empty slot; once
// old frames are dropped, to the records carried over from them
// (record/flight.h).
inline constexpr uint32_t kFlightMagicFrame = 0x184D2A5Bu;
inline constexpr uint32_t kFlightSlot = 1024 * 1024;  // sparse: no disk blocks
inline constexpr char kFileMagic[8] = {'R', 'A', 'D', 'A', 'R', 'L', 'O', 'G'};
inline constexpr const char* kHeaderMagic = "radarlog";

inline constexpr uint32_t kControlSize = 4096;  // file offset of the tail records
inline constexpr uint32_t kDefaultTailCapacity = 256 * 1024;
inline constexpr uint32_t kMinTailCapacity = 4096;
inline constexpr uint32_t kMaxTailCapacity = 64 * 1024 * 1024;

// Control state bits.
inline constexpr uint32_t kStateClosed = 1u << 0;      // closed cleanly: tail flushed
inline constexpr uint32_t kStateIncomplete = 1u << 1;  // events were lost: see lost_*
inline constexpr uint32_t kStateFinalized = 1u << 2;   // `radar record` compacted it afterwards

// What one thread is doing, kept current by the recorder so that a reader
// can tell what every thread was blocked in when the process was killed.
struct ThreadSlot {
  uint32_t tid;   // 0: free slot
  uint16_t kind;  // Kind of the call in progress, 0 if none
  uint16_t reserved;
  int32_t fd;
  uint32_t channel;
  int64_t entry_ns;       // CLOCK_MONOTONIC at entry
  uint64_t last_counter;  // the thread's last recorded event
};
static_assert(sizeof(ThreadSlot) == 32);

struct FileControl {
  char magic[8];  // "RADARLOG"
  uint16_t format_major;
  uint16_t format_minor;
  uint32_t tail_capacity;       // bytes of the tail region after kControlSize
  uint64_t tail_first_counter;  // counter the tail's records start at; 0: tail empty
  uint32_t state;               // kState* bits
  uint32_t lost_errno;
  uint64_t lost_from_counter;  // first counter not recorded (0: none lost)
  uint64_t lost_events;
  uint64_t last_counter;  // highest counter stored so far
  uint32_t thread_slot_count;
  uint32_t reserved0;
  // While the tail is being written as a frame: the file offset that frame
  // starts at (0: none). A reader that finds the frame whole knows the tail
  // holds nothing more, even when none of its records is counted.
  uint64_t tail_frame_at;
  uint32_t reserved[2];
  ThreadSlot threads[124];
};
static_assert(offsetof(FileControl, tail_frame_at) == 64 && offsetof(FileControl, threads) == 80);
static_assert(sizeof(FileControl) + 8 <= kControlSize);
inline constexpr uint32_t kThreadSlots = sizeof(FileControl::threads) / sizeof(ThreadSlot);

}  // namespace radar::log
