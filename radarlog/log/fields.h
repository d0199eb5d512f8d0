// What a writer is given for one record: plain structs of borrowed pointers,
// so that the recorder fills them on its stack without allocating.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "log/kinds.h"

namespace radar::log {

// Field numbers of radarlog.proto's messages.
namespace field {
enum EventField : uint32_t {
  kKind = 1,
  kCounter = 2,
  kTid = 3,
  kEntryDelta = 4,
  kDuration = 5,
  kFd = 6,
  kChannel = 7,
  kOffset = 8,
  kSize = 9,
  kResult = 10,
  kError = 11,
  kFlags = 12,
  kHash = 13,
  kPayloadOmitted = 14,
  kPayload = 15,
  kPeerPid = 16,
  kStatus = 17,
  kSignal = 18,
  kAddress = 19,
  kFds = 20,
  kStrings = 21,
  kReady = 22,
  kHeader = 23,
  kChannelInfo = 24,
  kTimeout = 25,
  kLengths = 26,
  kSameAs = 27,
  kSameFrom = 28,
};
enum HeaderField : uint32_t {
  kMagic = 1,
  kFormatMajor = 2,
  kFormatMinor = 3,
  kRecordingId = 4,
  kLogId = 5,
  kHostName = 6,
  kBootId = 7,
  kPid = 8,
  kPpid = 9,
  kOrigin = 10,
  kParentLogId = 11,
  kParentCounter = 12,
  kGeneration = 13,
  kExecutable = 14,
  kExecutableSize = 15,
  kExecutableMtime = 16,
  kArgv = 17,
  kCwd = 18,
  kEnvironment = 19,
  kRealtime = 20,
  kMonotonic = 21,
  kPayloadLimit = 22,
  kNondet = 23,
  kRecorderVersion = 25,
  kUid = 26,
  kGid = 27,
  kOpenFds = 28,
  kRedactedEnvironment = 29,
  kNofileSoft = 30,
  kNofileHard = 31,
  kStartFiles = 32,
};
enum ChannelField : uint32_t {
  kIndex = 1,
  kType = 2,
  kChannelOrigin = 3,
  kChannelFd = 4,
  kDev = 5,
  kIno = 6,
  kPeerIno = 7,
  kLocalAddress = 8,
  kPeerAddress = 9,
  kPath = 10,
  kAccess = 11,
  kExternal = 12,
  kDomain = 13,
  kSocketType = 14,
  kProtocol = 15,
  kRdev = 16,
  kCount = 17,
  kSemaphore = 18,
  kMpiRank = 19,
  kMpiSize = 20,
};
enum ReadyField : uint32_t { kReadyFd = 1, kReadyEvents = 2, kReadyData = 3 };
}  // namespace field

struct Iov {
  const void* base;
  size_t len;
};
// The program's struct iovec seen as Iov, which is laid out alike.
static_assert(sizeof(Iov) == sizeof(struct iovec) && offsetof(Iov, len) == offsetof(struct iovec, iov_len));
inline const Iov* asIov(const struct iovec* v) { return reinterpret_cast<const Iov*>(v); }

// The CRC-32C (log/crc32c.h) of the first `n` bytes of scattered buffers.
uint32_t crc32cOfFirst(const Iov* pieces, size_t count, uint64_t n);

struct ReadyFd {
  int32_t fd;
  uint32_t events;
  uint64_t data;
};

struct StartFileFields {  // Header.start_files
  int32_t fd = -1;
  const char* path = nullptr;
  uint64_t offset = 0;
  uint32_t flags = 0;
};

struct HeaderFields {
  const uint8_t* recording_id = nullptr;  // 16 bytes
  uint64_t log_id = 0;
  const char* host_name = nullptr;
  const char* boot_id = nullptr;
  int32_t pid = 0;
  int32_t ppid = 0;
  Origin origin = Origin::Unspecified;
  uint64_t parent_log_id = 0;
  uint64_t parent_counter = 0;
  uint32_t generation = 0;
  const char* executable = nullptr;
  uint64_t executable_size = 0;
  int64_t executable_mtime_ns = 0;
  const char* const* argv = nullptr;  // null-terminated, like main's argv
  const char* cwd = nullptr;
  const char* const* environment = nullptr;  // null-terminated
  // Name patterns (recorder_env.h) of variables whose values are left out.
  const char* redact = nullptr;
  // Whether each environment entry matched them, when the caller knows
  // already (null: matched while encoding).
  const bool* redacted = nullptr;
  int64_t realtime_ns = 0;
  int64_t monotonic_ns = 0;
  bool has_payload_limit = false;
  uint64_t payload_limit = 0;
  bool nondet = false;
  const char* recorder_version = nullptr;
  int32_t uid = 0;
  int32_t gid = 0;
  const int32_t* open_fds = nullptr;
  size_t open_fd_count = 0;
  bool has_nofile = false;  // RLIMIT_NOFILE at start
  uint64_t nofile_soft = 0, nofile_hard = 0;
  const StartFileFields* start_files = nullptr;
  size_t start_file_count = 0;
};

struct ChannelFields {
  uint32_t index = 0;
  ChannelType type = ChannelType::Unspecified;
  ChannelOrigin origin = ChannelOrigin::Unspecified;
  int32_t fd = -1;
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint64_t peer_ino = 0;
  const void* local_address = nullptr;
  size_t local_address_len = 0;
  const void* peer_address = nullptr;
  size_t peer_address_len = 0;
  const char* path = nullptr;
  uint32_t access = 0;
  bool external = false;
  int32_t domain = 0;
  int32_t socket_type = 0;
  int32_t protocol = 0;
  uint64_t rdev = 0;
  uint64_t count = 0;  // an eventfd's
  bool semaphore = false;
  int32_t mpi_rank = 0;  // an MPI communicator's
  int32_t mpi_size = 0;
};

struct EventFields {
  Kind kind = Kind::Unspecified;
  uint32_t tid = 0;  // 0: the main thread
  int64_t entry_ns = 0;
  int64_t return_ns = 0;
  int32_t fd = 0;
  uint32_t channel = 0;
  bool has_offset = false;  // data events on a channel
  uint64_t offset = 0;
  uint64_t size = 0;
  int64_t result = 0;
  uint32_t error = 0;
  uint32_t flags = 0;
  bool has_hash = false;
  uint32_t hash = 0;
  // The stored payload is the first payload_len bytes of the iovecs.
  const Iov* payload = nullptr;
  size_t payload_iov_count = 0;
  size_t payload_len = 0;
  uint64_t payload_omitted = 0;
  int32_t peer_pid = 0;
  int32_t status = 0;
  int32_t signal = 0;
  const void* address = nullptr;
  size_t address_len = 0;
  const int32_t* fds = nullptr;
  size_t fd_count = 0;
  const char* const* strings = nullptr;
  size_t string_count = 0;
  const ReadyFd* ready = nullptr;
  size_t ready_count = 0;
  const uint64_t* lengths = nullptr;  // sendmmsg/recvmmsg: bytes of each message
  size_t length_count = 0;
  const HeaderFields* header = nullptr;
  const ChannelFields* channel_info = nullptr;
  bool has_timeout = false;
  int32_t timeout_ms = 0;
  // A send whose bytes are those of this process's receive with counter
  // `same_as` (0: none), from its byte `same_from` (format 1.15).
  uint64_t same_as = 0;
  uint64_t same_from = 0;
};

// In a data event's flags, beside the call's own (MSG_*): the bytes went
// between two descriptors inside the kernel (splice, tee) and never reached
// the program's memory, so a re-run needs none of them.
inline constexpr uint32_t kFlagPassThrough = 0x40000000;
// In any event's flags: the call never returned, its thread ended in it
// (pthread_cancel, or pthread_exit from a signal handler). Recorded when the
// thread ends; result -1, error ECANCELED.
inline constexpr uint32_t kFlagNeverReturned = 0x20000000;
// In a CONNECT event's flags: not connect() but getsockopt(SO_ERROR), the
// kernel telling the program how a connect in progress ended; size is the
// error it gave (0: connected), result getsockopt's own.
inline constexpr uint32_t kFlagConnectOutcome = 0x10000000;
// In any event's flags but an MPI call's: made inside an MPI call (by the
// MPI library, its transport and progress), as libradar-mpi.so says. Not
// in a CLOCK's: a CPU-time clock's id is negative, its high bits set.
inline constexpr uint32_t kFlagInMpiCall = 0x08000000;
inline bool canMarkInMpiCall(Kind kind, uint32_t flags) {
  return !isMpiKind(kind) && !(kind == Kind::Clock && (flags & 0x80000000u));
}

// Bytes a data event moved on its channel: the implied offset of the next
// event in the same direction advances by this much.
inline uint64_t bytesMoved(Kind kind, int64_t result, uint32_t flags, const uint64_t* lengths, size_t length_count) {
  constexpr uint32_t kMsgPeek = 0x2;
  if (categoryOf(kind) == Category::Receive && (flags & kMsgPeek)) return 0;
  if (isMultiMessage(kind)) {
    uint64_t sum = 0;
    for (size_t i = 0; i < length_count; ++i) sum += lengths[i];
    return sum;
  }
  return result > 0 ? static_cast<uint64_t>(result) : 0;
}

}  // namespace radar::log
