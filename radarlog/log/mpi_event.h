// What libradar-mpi.so hands libradar-preload.so for one MPI call: the two
// injected libraries meet only here, through two functions the interposer
// exports (looked up with dlsym, so that the MPI library loads without it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace radar::log {

// MPI's wildcards as the log has them (the source and tag a receive or a
// probe asked for, fds[0] and fds[1]).
inline constexpr int32_t kMpiAnySource = -1;
inline constexpr int32_t kMpiAnyTag = -1;

// An MPI_SEND's flags: its mode, and whether it was nonblocking.
enum MpiSendMode : uint32_t {
  kMpiStandard = 0,
  kMpiSynchronous = 1,
  kMpiBuffered = 2,
  kMpiReady = 3,
  kMpiNonblocking = 8
};

// MPI's collectives by a small code (1, 2, ...; 0: one radar does not
// know): a thread slot's fd while a rank is in one (ThreadSlot, kind
// MPI_COLLECTIVE, channel its communicator), and the replay's code of an
// MPI_COLLECTIVE event's operation.
inline constexpr const char* kMpiCollectives[] = {"MPI_Barrier",   "MPI_Bcast",    "MPI_Reduce",   "MPI_Allreduce",
                                                  "MPI_Gather",    "MPI_Gatherv",  "MPI_Scatter",  "MPI_Scatterv",
                                                  "MPI_Allgather", "MPI_Alltoall", "MPI_Alltoallv"};
inline uint32_t mpiCollectiveCode(std::string_view operation) {
  for (uint32_t i = 0; i < std::size(kMpiCollectives); ++i)
    if (operation == kMpiCollectives[i]) return i + 1;
  return 0;
}

// MPI_Comm_create's group, recorded in its MPI_COMM event where other
// calls have a key (ints[2]): its members as ranks of the parent
// communicator, in their new order, folded (FNV-1a) one by one. Never 0,
// which a recording made before it was kept has there.
inline constexpr uint32_t kMpiMembersSeed = 2166136261u;
inline uint32_t mpiMembersStep(uint32_t h, int32_t parent_rank) {
  auto v = static_cast<uint32_t>(parent_rank);
  for (int i = 0; i < 4; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 16777619u;
  return h;
}
inline int32_t mpiMembersChecksum(uint32_t h) { return static_cast<int32_t>(h | 1u); }

struct MpiEvent {
  uint16_t kind = 0;     // log::Kind, one of the Mpi* kinds
  int64_t entry_ns = 0;  // CLOCK_MONOTONIC when the call began
  uint32_t channel = 0;  // the communicator's channel (radar_mpi_communicator)
  int32_t peer = 0;      // peer_pid: a rank, or -1
  int32_t tag = 0;       // status
  uint64_t size = 0;     // bytes asked or room
  int64_t result = 0;    // bytes moved, or minus the MPI error code
  uint32_t flags = 0;
  const int32_t* ints = nullptr;  // fds: the call's integer arguments
  size_t int_count = 0;
  const char* const* strings = nullptr;
  size_t string_count = 0;
  const void* bytes = nullptr;  // the bytes moved (result of them)
  bool keep_bytes = false;      // a send's (or a collective's): kept, up to the payload limit;
                                // otherwise only their checksum
  // A collective's: what the rank got (kept after its contribution, the
  // payload limit applying to both), so that a rank re-runs alone.
  const void* result_bytes = nullptr;
  uint64_t result_size = 0;
};

}  // namespace radar::log

// The interposer's exports (C linkage, so that dlsym finds them by name).
extern "C" {
// A communicator's channel in this process's log: defined on the first call
// with an identity, its index returned (0 when not recording).
typedef uint32_t (*radar_mpi_communicator_fn)(const char* identity, int32_t rank, int32_t size);
// Records one MPI event; returns 0 when not recording.
typedef int (*radar_mpi_record_fn)(const radar::log::MpiEvent* event);
// The calling thread is in an MPI call (kind, `what` for the thread slot's
// fd, its communicator's channel, the clock at its entry) until
// radar_mpi_leave: a reader tells a rank killed there as waiting in it.
// Returns 0 when not recording (then no leave is due).
typedef int (*radar_mpi_enter_fn)(uint16_t kind, int32_t what, uint32_t channel, int64_t entry_ns);
typedef void (*radar_mpi_leave_fn)();
// The calling thread enters (+1) or leaves (-1) an MPI call: the events
// recorded meanwhile are the MPI library's (log::kFlagInMpiCall).
typedef void (*radar_mpi_inside_fn)(int delta);
}
