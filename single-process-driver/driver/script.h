// The replay script: everything the replay library (libradar-rerun.so)
// needs to re-run one recorded process image, prepared by `radar debug`
// from the merged recording and mapped read-only by the re-run program.
//
// It is flat on purpose: the library runs inside the program, like the
// recorder, and must not decode protobuf or zstd, allocate, or look
// anything up on the way. Every receive's bytes are already resolved here
// (from the matched sends when only the sender's log holds them).
//
// Layout: ScriptHeader at offset 0, then the data area and the arrays at
// the offsets the header gives (each 8-byte aligned; the builder writes the
// data area first). Blobs point into the data area.
//
// Chains: an image created by fork() starts inside its parent. Its script
// is the parent's events up to the FORK that created it (flagged
// kBranchToChild: there fork() returns 0 and the replay goes on with the
// child's events), then the child's. `segment` numbers these images; the
// last segment is the image being debugged. An image created by exec, or
// the first image, has one segment.
#pragma once

#include <cstdint>

namespace radar::driver {

inline constexpr char kScriptMagic[8] = {'R', 'A', 'D', 'A', 'R', 'R', 'P', 'L'};
inline constexpr uint32_t kScriptVersion = 8;
inline constexpr uint32_t kNoEvent = ~0u;

struct Blob {
  uint64_t offset;  // into the data area
  uint32_t size;
  uint32_t reserved;
};

// What the thread or the process was doing when the recording stopped.
enum class ScriptEnd : uint32_t {
  Exited = 1,    // EXIT recorded: end_code is the status
  Signaled = 2,  // killed by signal end_code
  Execed = 3,    // exec'd into the next image
  Blocked = 4,   // still in a call when the recording stopped (ScriptThread says which)
  Unknown = 5,
};

struct ScriptHeader {
  char magic[8];
  uint32_t version;
  uint32_t flags;  // kScript* below
  uint32_t event_count;
  uint32_t thread_count;
  uint32_t inherited_count;
  uint32_t segment_count;
  uint64_t events_offset;     // ScriptEvent[event_count], in replay order
  uint64_t threads_offset;    // ScriptThread[thread_count]
  uint64_t inherited_offset;  // ScriptFd[inherited_count]
  uint64_t data_offset;
  uint64_t data_size;
  uint64_t file_size;
  int32_t recorded_pid;          // of the image being debugged
  ScriptEnd end;                 // how that image ended
  int32_t end_code;              // exit status or signal number
  uint32_t recorded_generation;  // of the image being debugged (execs before it)
  uint32_t closed_at_start;      // bit n: descriptor n (0 to 2) was not open when the first image started
  uint32_t reserved;
  Blob label;                   // "parser[4123]", NUL-terminated
  int64_t started_realtime_ns;  // when the first image of the chain started (CLOCK_REALTIME)
  uint64_t outputs_offset;      // ScriptOutput[output_count]
  uint32_t output_count;
  uint32_t reserved2;
};
inline constexpr uint32_t kScriptNondet = 1;  // clock, random and pid reads were recorded
// Made from logs of format 1.5 or later, which have OUTPUT and INTERFACE
// records: only then are writes to files compared and interface ioctls
// expected (an older log has neither, and is re-run as before).
inline constexpr uint32_t kScriptOutputs = 2;
// Made from logs of format 1.6 or later, which record every call on a
// message queue (POSIX and System V): only then are they answered from the
// recording (an older log's are made for real, in the sandbox's own IPC
// namespace).
inline constexpr uint32_t kScriptQueues = 4;
// Made from logs of format 1.7 or later, which record every eventfd()
// (an OPEN): only then does a re-run make its eventfds as recorded.
inline constexpr uint32_t kScriptEventFds = 8;
// Made from a recording with synchronization (radar record --sync): the
// re-run holds it to its recorded order.
inline constexpr uint32_t kScriptSync = 16;
// Recorded with radar record --sync, whether or not it took a lock: a
// thread that waited outside every recorded call did not wait for a lock.
inline constexpr uint32_t kScriptRecordedSync = 32;
// Writes on descriptors from this number on are not compared.
inline constexpr int kComparedOutputFds = 4096;

struct ScriptThread {
  uint32_t segment;
  uint32_t tid;          // recorded thread id
  uint32_t first_event;  // kNoEvent when it recorded nothing
  uint16_t end_kind;     // log::Kind of the call it was in at the end, 0 none
  uint16_t reserved;
  int32_t end_fd;
  uint32_t main;  // 1 for the segment's main thread
};

// A socket's names as the recording knew them: what getsockname() and
// getpeername() return for the stand-in (struct sockaddr bytes).
struct SocketNames {
  Blob local;
  Blob peer;
};

// A descriptor the debugged image (segment 0) inherited: the library puts
// a stand-in there at start when nothing is open on it.
// Placeholder: a descriptor that was open but not a channel (a file, an
// epoll instance): /dev/null holds its number, so that the program's own
// descriptors get the numbers they had. Its `path` is set when it was a
// regular file (written to: its writes are compared, see ScriptOutput).
// At 0 to 2, one without a path (a device: /dev/null) replaces what radar
// debug left there: programs ask what their standard descriptors are.
// File: the regular file it was open on (a redirected input), reopened for
// reading at `offset`; /dev/null where that fails or it was not readable.
enum class StandIn : uint32_t {
  PipeRead = 1,
  PipeWrite = 2,
  Socket = 3,
  Null = 4,
  Placeholder = 5,
  File = 6,
  EventFd = 7,
  // A terminal: kept where one is open there (radar debug's), else
  // /dev/null; standard output is line-buffered as a terminal's, so that
  // what the program prints leaves when it did.
  Terminal = 8
};
struct ScriptFd {
  int32_t fd;
  StandIn stand_in;
  int32_t domain, type, protocol;  // sockets
  uint32_t access;                 // O_RDONLY / O_WRONLY / O_RDWR
  SocketNames names;
  Blob path;  // File: its path, NUL-terminated
  uint64_t offset;
};

// A write the recorded image (or, in a chain, its ancestor before the
// fork) made to a file or device that was no channel: compared with the
// re-run's own, in order per descriptor number. The bytes are not kept.
struct ScriptOutput {
  int32_t fd;
  uint32_t hash;          // CRC-32C of the bytes written
  int64_t result;         // what write() returned
  uint64_t size;          // bytes asked
  uint32_t next_same_fd;  // the next output on the same descriptor, kNoEvent
  uint32_t after_number;  // the number of the last event before it (0: none)
  Blob data;              // the bytes, when recorded with --keep-writes
};

struct ScriptReady {  // one element of ScriptEvent::ready
  int32_t fd;
  uint32_t events;  // revents, EPOLL* bits, or 1 read / 2 write / 4 except (select)
  uint64_t data;    // epoll user data
};

struct ScriptEvent {
  uint16_t kind;            // log::Kind
  uint16_t flags;           // kEvent* below
  uint32_t thread;          // index into the thread array
  uint32_t next_in_thread;  // the same thread's next event, kNoEvent
  uint32_t segment;
  uint64_t counter;  // the local counter in its own log
  uint64_t number;   // its number in the replay ("Event N" of radar events and the window)
  int64_t result;
  int32_t error;  // errno, 0 on success
  int32_t fd;
  uint64_t size;        // bytes the program asked to move
  uint32_t call_flags;  // MSG_*, clock id, shutdown how, epoll_ctl events ...
  int32_t peer_pid;
  int32_t status;
  int32_t signal;
  uint32_t hash;           // CRC-32C of the bytes moved (receives; sends cut short)
  uint32_t after_arrival;  // an event of another thread whose call must have begun
                           // before this one returns (kNoEvent: none), see below
  uint32_t after_sync;     // a synchronization's: the one before it on its object, in
                           // the recorded order (kNoEvent: none here), see below
  uint32_t channel;        // the log's channel: MPI calls' communicator
  uint64_t omitted;        // bytes of a send the recording did not keep
  Blob data;               // receives: the bytes to deliver; sends: the bytes expected;
                           // CLOCK/RANDOM: the value; USER: the user data
  Blob address;            // struct sockaddr (accept, recvfrom, connect, bind, sendto)
  Blob fds;                // int32_t[]: pipe/socketpair pair, SCM_RIGHTS, epoll_ctl [epfd, op, fd],
                           // an MPI call's integers (MPI_COMM: then the rank and size in it)
  Blob ready;              // ScriptReady[]: poll/select/epoll results
  Blob lengths;            // uint64_t[]: sendmmsg/recvmmsg per-message lengths
  Blob strings;            // NUL-separated: exec path and argv, user event name ...
  Blob text;               // the narrative line, NUL-terminated
  SocketNames names;       // socket, bind, listen, connect, accept: the socket's names after it
};
// after_arrival: a thread's receive (or poll that found it readable) got
// bytes another thread of the process wrote in a call that returned later:
// counted later, yet begun before. The reading call waits until the writing
// thread reaches that call, so that what the writer did before it (a flag
// set, then a wake-up written) is done in the re-run too.
// after_sync: synchronizations are replayed in their order on each object
// (the per-object numbers the recorder took), not in the process's counter
// order, which can put a lock counted first before the unlock it waited for.
// An object shared with other processes is one the re-run answers from the
// recording (kSyncShared): they do not run in it.
inline constexpr uint16_t kBranchToChild = 1;  // FORK/VFORK where the replay becomes the child
inline constexpr uint16_t kHashKnown = 2;      // `hash` is meaningful
inline constexpr uint16_t kPassThrough = 4;    // also write the bytes to the real descriptor (terminals)
inline constexpr uint16_t kNeverReturns = 8;   // the thread ended in this call (cancelled): it waits there
inline constexpr uint16_t kOnChannel = 16;     // an OPEN that made a channel (the recorder's calls on it follow)
inline constexpr uint16_t kSyncShared = 32;    // a synchronization on a process-shared object

static_assert(sizeof(Blob) == 16);
static_assert(sizeof(ScriptEvent) % 8 == 0);

// Shared between the library and `radar debug --no-gdb`, in a file the
// driver creates (RADAR_REPLAY_STATUS) and the library maps: how far the
// replay went, readable even if the program crashed.
struct ScriptStatus {
  uint32_t consumed;       // events of the script replayed so far
  uint32_t outcome;        // ReplayOutcome
  uint64_t last_number;    // number ("Event N") of the last event replayed
  int64_t started_ns;      // CLOCK_MONOTONIC: the library started in the program
  int64_t first_event_ns;  // ... the first event was replayed
  int64_t last_event_ns;   // ... the last one so far
  char report[8192];       // what happened, for people (NUL-terminated)
  // Writes to files and devices (ScriptOutput): how many of the recorded
  // ones the re-run made, how many of its writes differed (or had no
  // recorded counterpart), and the first difference, for people.
  uint32_t outputs_checked;
  uint32_t outputs_differing;
  char first_output_difference[512];
};
enum class ReplayOutcome : uint32_t {
  Running = 0,
  Complete = 1,  // every event replayed and the program ended as recorded
  Blocked = 2,   // every event replayed; the program is now in the call it was in when the recording stopped
  Diverged = 3,  // the program did something the recording does not have
  Failed = 4,    // the library could not start (bad script ...)
};

// Exit status of the program when the library ends it after a divergence
// (`radar debug --no-gdb`), or when it reaches the end of a recording that
// stopped while it was blocked.
inline constexpr int kDivergedExitStatus = 86;
inline constexpr int kBlockedExitStatus = 87;

// Environment the driver sets for the library.
inline constexpr char kScriptEnv[] = "RADAR_REPLAY_SCRIPT";
// The recorded LD_PRELOAD entry, which the program is shown in its place.
inline constexpr char kShownPreloadEnv[] = "RADAR_REPLAY_PRELOAD";
inline constexpr char kStatusEnv[] = "RADAR_REPLAY_STATUS";
// "1": end the program at a divergence or at the recording's end (no gdb).
inline constexpr char kExitAtEndEnv[] = "RADAR_REPLAY_EXIT_AT_END";
// "1": the re-run is in radar debug's sandbox (sandbox.h).
inline constexpr char kSandboxedEnv[] = "RADAR_REPLAY_SANDBOXED";

}  // namespace radar::driver
