// The core of libradar-rerun.so: the script of one recorded process
// image (script.h), where each thread is in it, and what the program is
// told when it leaves it. hooks.cc calls this from each hook.
//
// The same rules as the recorder (radarlog/preload/hooks.cc): no malloc,
// no stdio, raw system calls only (the libc names are our own hooks), the
// program's errno restored by the hooks.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "driver/script.h"
#include "inject/library.h"
#include "log/kinds.h"

namespace radar::rerun {

using driver::ScriptEvent;
using log::Kind;

// True while the program is being fed from the script: false before the
// library started, without a script, and after a divergence (from then
// on, the program runs on its own).
bool replaying();
// Run in radar debug's sandbox, where effects on files stay inside it.
bool sandboxed();
// A clock or random number read live (not in the recording): a possible
// cause named with a divergence.
void noteLiveValue();
// A file the program opened for reading (error 0), or looked for and did
// not find: named with a divergence as an input radar does not record.
void noteFileOpened(const char* path, int error);

// Descriptors that were channels in the recording (their calls are in the
// script); everything else goes to the real system call.
bool isChannelFd(int fd);
void setChannelFd(int fd, bool channel);

// The calling thread's next recorded event, checked against the call the
// program makes now (`kind` on descriptor `fd`; `fd` is compared as the
// recorder stored it). Returns null when the program left the recording:
// the divergence has been reported, replaying() is now false and the hook
// should perform the real call. `what` names the call for the report, e.g.
// "read(fd 3, 100 bytes)".
const ScriptEvent* expect(Kind kind, int fd, const char* what);
// Like expect(), but returns null without reporting when the next event
// is not `kind` (calls that are recorded only sometimes).
const ScriptEvent* expectIf(Kind kind, int fd);
// The calling thread's next recorded call when it is `kind` on `fd`, else
// null: a look only, as nextIs().
const ScriptEvent* peekNext(Kind kind, int fd);
// The thread's next recorded call is getsockopt(SO_ERROR) on fd (a
// CONNECT event with kFlagConnectOutcome).
bool nextIsConnectOutcome(int fd);
// Whether the calling thread's next recorded call is `kind` on `fd`: a
// look only (nothing waited for, reported or delivered).
bool nextIs(Kind kind, int fd);
// A wait for a signal (sigsuspend, pause): the recorded signals that ended
// it are delivered now. True when the wait is over (the call returns -1,
// EINTR); false when the caller makes the real call (not replaying, or
// the recording ended in the wait and the re-run does not stop there).
bool waitForRecordedSignal(const char* what);
// Marks `e` replayed: advances the thread, updates what the debugger sees,
// and delivers the signals recorded right after it.
void consume(const ScriptEvent* e);

// Reports a divergence at `e` (the event the program failed to match):
// `fmt` is a message built with Report below.
void diverge(const ScriptEvent* e, const char* message);

// The blobs of an event.
const void* blob(const driver::Blob& b);
const char* text(const ScriptEvent* e);  // its narrative line, never null
int32_t recordedPid();                   // of the image being re-run
// The pid the program was last told it has (a --nondet recording's
// getpid(): in a forked image's ancestor, the ancestor's), else recordedPid().
int32_t believedPid();
void noteBelievedPid(int32_t pid);
// The recorded pid of the image the re-run is at now (an ancestor of the
// debugged image until the fork it follows): what getpid() gives where the
// recording has no GETPID event of its own (made without --nondet).
int32_t imagePid();

// The script's writes to files and devices, and the status file shared
// with radar debug (null without one).
const driver::ScriptOutput* scriptOutputs(uint32_t* count);
driver::ScriptStatus* replayStatus();
// Whether the recording kept writes to files and interface ioctls (format
// 1.5 on): only then are they compared and replayed.
bool outputsRecorded();
// Whether the recording has every call on a message queue (driver/script.h).
bool queuesRecorded();
// Whether the script's logs record every eventfd() (format 1.7 on).
bool eventFdsRecorded();

// A write the program made to a descriptor that is no channel (`result`
// returned, from `iov`): when it is a file or device, compared with the
// recording's next write there (outputs.cc). Leaves errno as it was.
void checkOutput(int fd, const struct iovec* iov, size_t count, long result);
// Descriptor `fd` holds, at the re-run's start, something that stands
// where the recorded process had no file (its /dev/null, a pipe radar
// did not record): writes to that file are not missing from the recording.
void noteForeignDescriptor(int fd);
// Descriptor `fd` holds, at the re-run's start, what stands for a file the
// recorded process wrote to (its writes are compared, whatever holds the
// number now: /dev/null, radar debug's terminal); until the program closes
// or replaces it.
void noteStandInForFile(int fd);
void forgetStandInForFile(int fd);
// The same for a copy the kernel made (copy_file_range, sendfile), whose
// checksum is `crc`.
void checkCopiedOutput(int fd, long result, uint32_t crc);

// Threads the program creates, numbered in order per image (1, 2, 3 ...),
// as the recorder numbered them; a new thread plays the recorded thread of
// the same number, whose first event is THREAD_START.
uint32_t nextThreadOrdinal();
void returnThreadOrdinal();  // the thread could not be created
void threadStarts(uint32_t ordinal);
// The calling thread has created one: it goes on once the events recorded
// before its next call, the new thread's first among them, are replayed
// (where that call is one a thread is held before between its calls, and
// unless those events wait for a thread it has yet to create).
void threadCreated(uint32_t ordinal);
// The program has started threads in this image.
bool threadsWereStarted();

// Synchronization recorded with radar record --sync: whether the re-run
// holds it to its recorded order, and each operation's turn in it
// (inject/library.h).
bool ordersSync();
bool syncTurn(const inject::SyncOp& op, inject::SyncTurn* turn);
void syncTurnDone(const inject::SyncTurn& turn, int result);

// The calling thread's next recorded fork (`kind` Fork or Vfork), however
// many events before it, or null: a look only.
const ScriptEvent* nextForkOfThisThread(Kind kind);
// Takes the calling thread's events before `fork` as replayed without
// their calls being made: a re-run that becomes the child skips the
// parent's side of a fork (its atfork parent handlers' calls). False when
// the re-run ended meanwhile.
bool skipToFork(const ScriptEvent* fork);
// A fork recorded with kBranchToChild: from now on the calling thread is
// the child's main thread.
void branchToChild(const ScriptEvent* e);
// The program ends (exit, _exit, return from main) with `status`.
void programExits(int status);
// The program execs: the image ends here.
void imageExecs(const ScriptEvent* e);

// Runs the program's handler for `sig` now, as the recording had it
// (hooks.cc): real deliveries of a handled signal are dropped while
// replaying, since the recording says when the handler ran.
// False when the program has no handler for it now.
bool deliverSignal(int sig);
bool hasHandler(int sig);

// The calling thread's recorded signals that are due now that the program
// changed its signal mask or handlers (see deliverRecordedSignals).
void deliverDueSignals();

// The names (getsockname, getpeername) of socket descriptor `fd` as the
// recording knew them, kept from the event that made or named it.
void setSocketNames(int fd, const driver::SocketNames* names);
const driver::SocketNames* socketNames(int fd);

// An entry of an environment the program passes to a real exec or spawn
// (it runs on its own by then): null for the recording's variables, this
// library's LD_PRELOAD for the recorded one it was shown, else `entry`.
const char* childEnvironmentEntry(const char* entry);

// exit() and return from main: the status replayed when the program ends.
void noteExitStatus(int status);
// Points stdio's reads and writes at the replay (hooks.cc).
void patchStdio();

// Puts descriptor `fd` at number `want` (the one the recording has),
// closing `fd` when it moves; O_CLOEXEC as given. False when `want` is
// taken (the caller reports it); where other threads run, once it stayed
// taken a while; meanwhile, for event `made_by`, the closes of other
// threads that freed `want` in the recording are let go (releaseLateClose)
// as each thread comes to them.
bool placeAt(int fd, int want, bool cloexec, const ScriptEvent* made_by = nullptr);

// Event `e` makes descriptor `fd` while the re-run still has that number
// open: in the recording another thread's close freed it and returned (was
// counted) only after `e`. That thread, held before its close until its
// turn, goes on to it now (the close hook closes before its turn).
void releaseLateClose(const ScriptEvent* e, int fd);

// A bounded text builder for reports (no allocation).
class Report {
 public:
  Report& operator<<(const char* s);
  Report& operator<<(int64_t v);
  Report& operator<<(uint64_t v);
  Report& operator<<(int v) { return *this << static_cast<int64_t>(v); }
  Report& operator<<(unsigned v) { return *this << static_cast<uint64_t>(v); }
  // Up to `max` bytes as hex, then as text where printable.
  Report& bytes(const void* data, size_t n, size_t max = 32);
  // Up to `max` bytes as a quoted string, C escapes for the rest.
  Report& text(const void* data, size_t n, size_t max = 64);
  const char* str() const { return buf_; }

 private:
  char buf_[2048] = {};
  size_t len_ = 0;
};

// Appends to a divergence's report the inputs radar does not record that
// the re-run had (shared memory, files, live clocks): its probable cause,
// or further causes ("also") where `any` was named before.
void nameUnrecordedInputs(Report& r, bool any = false);

// Whether every write to files and devices the recording has was made,
// and made the same (checkOutput); if not, appends what differs to `r`
// ("; but ...").
bool outputsAgree(Report& r);

}  // namespace radar::rerun
