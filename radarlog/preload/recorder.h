// The recording core of the interposer: what hooks.cc calls after (or
// around) each real libc call. Unit tests call it directly.
//
// Rules (see hooks.cc for the full list): no malloc, no stdio, no
// exceptions; raw system calls only; errno is the program's and is restored
// by every entry point that might touch it.
#pragma once

#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "log/fields.h"
#include "log/kinds.h"
#include "log/unseen.h"

namespace radar::preload {

using log::Iov;
using log::Kind;

// True when this process is being recorded (and is not a vfork child that
// has not yet exec'd). Cheap: called by every hook first.
bool active();
// radar record --dormant: true while this image waits for radar attach. It
// records nothing, and a child it forks waits too; the first call after
// radar attach opens its log (log::Origin::Attached).
bool dormant();

// CLOCK_MONOTONIC in nanoseconds, through the real clock_gettime.
int64_t now();

// Whether `fd` is a channel worth recording (classifying it on first use).
bool isChannel(int fd);
// Whether `fd` is a regular file or a device other than a terminal,
// /dev/null or /dev/zero: its writes are recorded as OUTPUT (length and
// checksum, not the bytes), which a re-run compares with its own.
bool isOutputFile(int fd);
// The OUTPUT record of a write to such a descriptor: `result` bytes (> 0)
// of `size` asked, from `iov`. Leaves errno as it was.
void recordOutput(int fd, const Iov* iov, size_t iov_count, uint64_t size, long result);
// The same with its checksum known (a copy made inside the kernel); with
// `bytes`, the record keeps them too (radar record --keep-writes).
void recordOutputChecksum(int fd, uint64_t size, long result, uint32_t crc, const Iov* bytes = nullptr,
                          size_t iov_count = 0);
// A write that was no channel's, made: `r` returned, recorded as OUTPUT
// when `fd` is a file or device; a shared eventfd's is said (unseen).
ssize_t outputWritten(int fd, const Iov* iov, size_t count, uint64_t size, ssize_t r);
// Whether reads of `fd` are reads of /dev/urandom or /dev/random.
bool isRandomDevice(int fd);
// Whether `fd` is a signalfd: its reads take signals (SIGNAL_WAIT).
bool isSignalFd(int fd);
// A read or write of `fd`, not a channel: an eventfd this image got from
// another process is said (sayUnseen), once.
void noteIfSharedEventFd(int fd);
// The program uses something radar does not record (log/unseen.h): a NOTE
// in the log, once per image and mechanism, where it began.
void sayUnseen(log::Unseen what, const char* detail);
// The process is about to install a seccomp filter: its log is closed now,
// while radar's calls are still allowed, and nothing more is recorded of
// it, its children or the programs it executes (which run without the
// recorder: they would start it under the filter).
void stopRecordingBeforeSeccomp();
// Whether stopRecordingBeforeSeccomp() was called in this process (or the
// one it was forked from).
bool underSeccomp();
// Whether a signal with this si_code was sent by a process (kill, sigqueue,
// tgkill, or a message it queued that a notification asked for), whose pid
// is then the sender's.
inline bool sentByAProcess(int si_code) {
  return si_code == SI_USER || si_code == SI_QUEUE || si_code == SI_TKILL || si_code == SI_MESGQ;
}

// One intercepted call: marks the calling thread as "in" it (so a reader
// can tell what every thread was blocked in when the process was killed),
// and records it when finished. errno is saved at finish() and restored
// when the Call ends, so the program sees the real call's errno.
class Call {
 public:
  Call(Kind kind, int fd);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Captures the result and errno of the real call (call right after it).
  void finish(long result);
  // For calls that return an error number instead of setting errno.
  void finish(long result, int error);
  // In a forked child: the slot belongs to the parent's log.
  void forgetSlot() { slot_ = -1; }
  // The next record() is of the call's other side (splice between two
  // channels is a receive and a send).
  // A receive keeps the bytes it got, whatever its descriptor (a queue
  // anyone may use by its id).
  void keepReceived() { keep_received_ = true; }
  void retarget(Kind kind, int fd) {
    kind_ = kind;
    fd_ = fd;
  }

  // Data transfer: `iov` describes the program's buffers; `moved` is how
  // many bytes the call transferred (result for most calls).
  void send(const Iov* iov, size_t iov_count, uint64_t size, uint64_t moved, int flags = 0,
            const struct sockaddr* to = nullptr, socklen_t to_len = 0);
  void receive(const Iov* iov, size_t iov_count, uint64_t size, uint64_t moved, int flags = 0,
               const struct sockaddr* from = nullptr, socklen_t from_len = 0);
  // sendmmsg/recvmmsg: one event, per-message lengths.
  void multi(const struct mmsghdr* msgs, unsigned count, int flags);
  // Everything else: the event is `extra` plus kind, fd, times, result
  // and errno, which are set here.
  void record();

  // Extra fields (fds, strings, address ...) merged into the event.
  log::EventFields extra;

  long result() const { return result_; }
  int error() const { return errno_; }
  int64_t entry() const { return entry_; }

 private:
  void fill(log::EventFields& e) const;

  Kind kind_;
  int fd_;
  int64_t entry_;
  int64_t return_ = 0;
  long result_ = 0;
  int errno_ = 0;       // errno right after the real call: what the program sees
  int call_error_ = 0;  // the call's error, recorded in the event
  int saved_errno_;
  int slot_ = -1;
  bool finished_ = false;
  bool keep_received_ = false;
  // What the thread slot said before: the call a signal handler interrupted.
  uint16_t outer_kind_ = 0;
  int32_t outer_fd_ = 0;
  uint32_t outer_channel_ = 0;
  int64_t outer_entry_ = 0;
};

// A call made above the C library (an MPI collective), which no Call
// wraps: the thread's slot says it is in it (`what` in the slot's fd)
// until leaveCall(). False when the thread has no slot.
bool enterCall(Kind kind, int32_t what, uint32_t channel, int64_t entry);
void leaveCall();

// Descriptor bookkeeping after calls that create, copy or close them.
void onCreated(int fd, log::ChannelOrigin origin);  // socket, accept, open of a FIFO ...
void onPair(Kind kind, const int fds[2]);           // pipe, socketpair: before the event
void onDup(int oldfd, int newfd);
void onClose(int fd);  // forget; the caller records CLOSE
void forget(int fd);   // an fd we know nothing about now
// What we know of `fd` (opaque), and forget() unless it changed since: once
// close() has returned, another thread may already have been given the
// same number for something new.
uint64_t descriptorEntry(int fd);
void forgetIfStill(int fd, uint64_t entry);
void refreshSocket(int fd);  // after bind/connect: new addresses
uint32_t channelOf(int fd);  // 0 when not a channel
// The channel of System V message queue `id` in this image (defined on
// first use); 0 when it cannot be recorded.
uint32_t sysvQueueChannel(int id);
bool storesReceived(int fd);  // a channel whose senders are not recorded: receives keep their bytes
// Defines the channels of every descriptor open now: a log lists each
// channel end its process holds, used or not (a writer that holds a pipe
// and never writes is what a deadlock is made of). `listed`: the
// descriptors listOpenDescriptors() found just before (none opened or
// closed since), or null to list them now.
void classifyOpenDescriptors(const int32_t* listed = nullptr, size_t count = 0);
// The program's open descriptors (not radar's), for the log's header.
// Returns how many there are; only the first `capacity` are stored.
size_t listOpenDescriptors(int32_t* out, size_t capacity);
// classifyOpenDescriptors() of what openLog() listed for this image's
// header, or of a new listing when that list was cut.
void classifyDescriptorsAtOpen();

// Descriptors of our own the program must not see or clobber.
bool isOwnFd(int fd);
// Our descriptors in ascending order; returns how many (at most 2).
int ownFds(int out[2]);
// After close_range(): records CLOSE for the channels in [first, last]
// and forgets every descriptor there.
void onRangeClosed(unsigned first, unsigned last);
// Moves our descriptor out of the way before the program dup2()s onto it.
void evictOwnFd(int fd);

// Appends an event that is not tied to one Call (e.g. the CLOSE that a
// dup2() implies).
void commitEvent(log::EventFields& e);

// Bytes kept once (same_bytes.cc): a receive, once it has its counter, is
// remembered by its thread; a send of the same bytes becomes a reference to
// it (fills `e` and returns true).
void rememberReceive(const log::EventFields& e, uint64_t counter);
bool referToReceive(log::EventFields& e, const Iov* iov, size_t iov_count, uint64_t moved);
// Under the writer lock: a reference made for another log becomes a copy.
void dropStaleReference(log::EventFields& e);
// A reference made into a copy (a signal handler's send, deferred: it may
// be appended to another log).
void keepACopyInstead(log::EventFields& e);

// Processes.
void beforeFork();
void afterForkInChild();
void afterForkParent();
uint64_t vforkCounter();   // the VFORK event's counter, read in the vfork child
void afterVforkPrepare();  // in the vfork hook, before the real vfork
uint64_t lastCounter();
uint64_t logId();
uint32_t generation();
// Asks radar record's fallback recorder to trace this thread through the
// exec it is about to make (log::TraceRequest, `op` Exec), or the process it
// is about to spawn (Spawn; Done once spawned), the new image linked to
// `counter` of log `log_id`, as `origin` says. True when radar record did.
bool askToBeTraced(uint32_t op, log::Origin origin, uint64_t log_id, uint64_t counter, uint32_t generation);

// Exec: the environment for the new image, preload/environment.h.
bool inVforkChild();
// In the vfork child, just before its exec: what the parent should know.
void noteVforkExec(const char* path);
void noteVforkExecFailed(int error);
// In the vfork child, in _exit(): it ends without an exec (if it tried
// none), which the parent records when it resumes.
void noteVforkExit();

// Exit: records EXIT and closes the log (from exit hooks and the destructor).
void recordExit(int status, bool flush_stdio);
void noteExitStatus(int status);  // exit() and main's return: recorded at the end

// stdio: redirects the C library's FILE write/read/close slots through the
// recorder (they call write()/read() internally, where no hook sees them).
void patchStdioTable(void* vtable);

// Synchronization (radar record --sync, sync.cc).
bool recordingSync();

// Nondeterminism (radar record --nondet).
bool recordingNondet();

}  // namespace radar::preload
