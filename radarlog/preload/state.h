// State shared by the interposer's core files (recorder.cc, channels.cc,
// stdio_signals.cc). Everything lives in static storage or in memory mapped with
// raw system calls; nothing here is allocated with malloc.
#pragma once

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "log/fields.h"
#include "log/stop_at.h"
#include "log/writer.h"

namespace radar::preload {

// What `radar record` told us through the environment.
struct Config {
  bool enabled = false;
  char dir[PATH_MAX] = {};
  uint8_t recording_id[16] = {};
  bool has_payload_limit = false;  // else payloads are kept whole
  uint64_t payload_limit = 0;
  bool nondet = false;
  bool sync = false;         // locks, semaphores, condition variables, barriers
  bool keep_writes = false;  // OUTPUT records keep the bytes written, not only their checksum
  bool dormant = false;      // radar record --dormant: no log until radar attach
  bool flight = false;       // radar record --flight: logs keep the slot its trimming needs
  // A send of bytes the thread received just before refers to that receive
  // instead of keeping a copy (same_bytes.cc). Off with radar record
  // --copies, and where the referred bytes may be gone or must be seen in
  // the send itself: --flight (old frames are dropped), --on ... --do stop
  // (its content terms look at the send's bytes), --payload-limit (the
  // receive's bytes may be past what its sender kept), --dormant (a
  // channel open before radar attach is not matched).
  bool same_bytes = true;
  uint32_t tail_capacity = 0;
  struct External {
    uint64_t dev, ino;
  } external[32] = {};
  int external_count = 0;
  char self_path[PATH_MAX] = {};  // this library, for LD_PRELOAD at exec
  char boot_id[64] = {};          // from radar record, to save every process a read
  char host[128] = {};
  char redact[1024] = {};                      // patterns of variables whose values logs leave out
  char stop_at[log::stop_at::kMostSpec] = {};  // radar record --on ... --do stop: log/stop_at.h
  // Our variables as they were at start, re-injected into scrubbed
  // environments at exec.
  static constexpr int kMaxVars = 16;
  char vars[kMaxVars][PATH_MAX + 32] = {};
  int var_count = 0;
};

// Per-channel state, indexed by the channel index of the current log.
struct ChannelState {
  uint8_t type;
  uint8_t flags;          // kChannel* below
  uint8_t refresh_tries;  // attempts to learn a socket's peer
  uint64_t moved[2];      // bytes sent [0] and received [1] by this image
};
inline constexpr uint8_t kChannelStoreReceived = 1;  // receives keep their payload
inline constexpr uint8_t kChannelPeerUnknown = 2;    // a socket not connected when defined
inline constexpr uint8_t kChannelExternal = 4;

struct Process {
  log::LogWriter writer;
  int32_t pid = 0;
  uint64_t log_id = 0;
  uint32_t generation = 0;
  uint32_t log_gen = 1;                   // bumps with every log this address space opens
  std::atomic<uint32_t> lock_owner{0};    // tid holding the writer, 0 free
  std::atomic<uint32_t> lock_waiters{0};  // threads asleep on lock_owner
  std::atomic<uint32_t> channels{0};      // channel indices handed out in this log
  std::atomic<uint64_t> deferred_lost{0};
  ChannelState* channel_table = nullptr;
  size_t channel_capacity = 0;
  int netlink_fd = -1;  // for Unix socket peers (sock_diag), opened lazily
  int exit_status = 0;
  bool exit_status_known = false;
  bool closed = false;                       // EXIT recorded: nothing more is written
  bool under_seccomp = false;                // closed before a seccomp filter: none of radar's calls after
  char** argv = nullptr;                     // as given to the constructor
  int fd_floor = 0;                          // our descriptors live at or above this
  std::atomic<uint32_t> threads_created{0};  // pthread_create calls of this image
  std::atomic<uint32_t> unseen_said{0};      // log::Unseen bits said in this log
  uint64_t arguments_hash = 0;               // of the argv the header has (argumentsHash)
  // Where a process writes its title over its arguments (as ps shows it):
  // the arguments' bytes as the kernel laid them out, then the
  // environment's, which a long title runs on into.
  const char* args_begin = nullptr;
  size_t args_size = 0, env_size = 0;
  uint64_t arguments_title_hash = 0;  // of the title the header's argv make, joined by spaces
  char title_prefix[64] = {};         // the area's first bytes when last looked at
  uint64_t title_noted = 0;           // hash of the title last noted (0: none)
  uint8_t title_notes = 0;            // notes of this image (a few at most)
};

// One deferred record: a signal handler recorded something while its
// thread held the writer. Its payload and variable-length fields are copied
// into the entry (a few entries a page: a storm of handlers does not fault
// in a page each) or, when larger, into a mapping of their own, given back
// when the entry is drained.
struct Deferred {
  static constexpr size_t kInline = 256;
  static constexpr size_t kMaxPayload = size_t{64} << 20;  // beyond: counted as omitted
  log::EventFields e;                                      // its pointers point into `buffer`
  log::ChannelFields channel;                              // e.channel_info, when it has one
  uint8_t* buffer;                                         // inline_buffer, or mapped_len bytes mapped for it
  size_t mapped_len;
  const uint8_t* payload;
  size_t payload_len;
  uint8_t ready;  // filled in whole (a handler left by siglongjmp may not be)
  alignas(8) uint8_t inline_buffer[kInline];
};

// The records a thread's signal handlers made while the thread held the
// writer, in the order they were made. Written only by handlers (which may
// nest), drained only by the thread while it holds the writer, so that:
//   * an entry never moves once handed out: the queue is a list of
//     segments, each twice the size of the one before, mapped on demand;
//   * an entry is handed out by one atomic read-modify-write on `reserved`,
//     which a nested handler cannot split;
//   * the drain starts again at entry 0 only by a compare-and-swap of
//     `reserved` from what it drained, so an entry reserved in between is
//     never dropped.
struct DeferredQueue {
  static constexpr uint32_t kFirstSegment = 16;  // entries in segment 0
  static constexpr int kSegments = 16;           // 16 * (2^16 - 1) entries at most
  Deferred* segments[kSegments];
  uint32_t reserved;  // entries handed out
  uint32_t drained;   // entries the drain has taken
};

// One of a thread's latest receives (same_bytes.cc).
struct RecentReceive {
  uint64_t counter;  // 0: none
  uint32_t len;
  uint32_t crc;
};
// Three: a proxy's two directions and one more. The thread's state fits in
// inject::kThreadLocalBytes.
inline constexpr int kRecentReceives = 3;

// Laid out to fill inject::kThreadLocalBytes exactly as the re-run's
// library does (recorder.cc): the small fields sit in what would be
// padding.
struct ThreadState {
  uint32_t tid;
  uint32_t slot_gen;   // log_gen the slot belongs to
  int slot;            // thread slot in the log's control block, -1 none
  bool vfork_pending;  // vfork() called; the child may run on this TLS
  bool in_fork;        // inside our fork hook (atfork handlers run)
  // Its latest receives (`recent` below) are in order from here, and are
  // changing while `recent_version` is odd: a signal handler's receive may
  // come between a send's look at them and its use.
  uint8_t recent_next;
  uint8_t recent_version;
  uint64_t vfork_counter;
  // Left by the vfork child (it runs on this thread's memory) for the
  // parent to record when it resumes: who it was and what it exec'd.
  int32_t vfork_child_pid;
  int vfork_exec_error;
  bool vfork_exited;  // it called _exit() without an exec
  char vfork_exec_path[256];
  DeferredQueue deferred;
  // Signals held back while this thread holds the writer, and the mask the
  // thread had before, given back by unlockWriter().
  bool signals_held;
  uint8_t in_mpi_call;      // MPI calls the thread is inside (radar_mpi_inside): log::kFlagInMpiCall
  uint8_t in_handler;       // signal handlers it runs (that interrupted them)
  uint32_t recent_log_gen;  // the log the counters of `recent` are of (a forked child has a new one)
  uint64_t resume_mask;
  // Its latest receives, for sends that pass their bytes on.
  RecentReceive recent[kRecentReceives];
};

extern Config g_config;
extern Process g_process;
extern __thread ThreadState t_thread __attribute__((tls_model("initial-exec")));

// The page that tells a forked child it was forked: MADV_WIPEONFORK zeroes
// it in every child, including those created by a raw clone or fork that no
// hook saw.
struct OwnerPage {
  int32_t pid;
};
extern OwnerPage* g_owner;

// Serialised appends. Returns false if this thread already holds the writer
// (a signal handler interrupted it): the caller defers its record.
bool lockWriter();
// Records a signal handler deferred while its thread held the writer
// (writer_lock.cc): any left, written now, and their memory given back.
bool deferredPending();
void drainDeferred();
void releaseDeferred(bool unmap);
void unlockWriter();  // also gives back a mask holdSignals*() changed
// Whether the calling thread holds the writer (a handler asks: it then
// interrupted the holder).
bool holdsWriter();
// The thread holds the writer: signals are held back until it releases it.
// From a signal handler, through the mask the interrupted code resumes with.
void holdSignalsUntilUnlock(sigset_t* resume_mask);
void holdSignalsUntilUnlock();
// Appends under the lock, assigning channel offsets; defers if reentered.
void commit(log::EventFields& e);
uint32_t currentTid();
ChannelState* channelState(uint32_t index);  // under the lock

// Raw helpers.
int64_t monotonicNow();
void resetChannelsForNewLog();
bool openLog(log::Origin origin, uint64_t parent_log_id, uint64_t parent_counter, uint32_t generation, char** envp);
void adoptFork(log::Origin origin);
// FNV-1a of arguments as /proc/self/cmdline gives them (each followed by a
// NUL): a title written over them at exit differs (processes.cc).
uint64_t argumentsHash(const char* bytes, size_t n);
uint64_t argumentsHash(char** argv);
// Where the process's title lives (the constructor's argv and environment).
void rememberArgumentArea(char** argv, char** envp);
// At a log's start: the title it starts with is no change.
void lookAtTitleAtLogStart();
// Under the writer's lock, before an event: true, with the title, when the
// process gave itself a new one since (nginx's "worker process" after its
// fork), for a NOTE, so that the story names it as it worked, not only as
// it ended. A look at a few bytes when nothing changed.
bool titleChanged(char* title, size_t size);

}  // namespace radar::preload
