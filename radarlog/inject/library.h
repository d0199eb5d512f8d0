// What each injected library (the recorder, radarlog/preload, and the
// re-run's, single-process-driver/rerun) defines for the hooks the
// scaffold shares (shared_hooks.cc, signals.cc): the hook is written once,
// what it does for the library is here. Declared here, defined once in each
// library, resolved when the library is linked.
#pragma once

#include <signal.h>
#include <stdint.h>

#include "log/kinds.h"
#include "log/unseen.h"

namespace radar::inject {

// Both libraries' thread-local storage takes this many bytes, exactly
// (tests/driver/injected_layout.sh): glibc puts the main thread's static
// TLS among the program's first mappings, so a difference would move
// everything the program maps after it, and the re-run would not see the
// recorded addresses. Each library pads its own up to it.
inline constexpr unsigned kThreadLocalBytes = 512;

// ---- signals (signals.cc) ------------------------------------------------------
// Whether the program's handlers are wrapped (the recorder: when it
// records). A handler installed while not is the program's own to the end.
bool wrapsSignals();
// A signal arrived for a wrapped handler, before the program's handler
// runs: the recorder records it; false drops it (the re-run runs a handler
// only where the recording says it ran).
bool signalArrives(int sig, const siginfo_t* info);
// The program's handler has returned; `context` is the kernel's ucontext.
void signalHandled(int sig, void* context);

// ---- threads (shared_hooks.cc) -------------------------------------------------
// Whether pthread_create() tells a new thread its creation order.
bool announcesThreads();
// The next thread's creation order (1, 2, 3 ...), and giving it back when
// the thread could not be created.
uint32_t takeThreadOrdinal();
void returnThreadOrdinal();
// First thing in a new thread, with its creation order.
void threadStarts(uint32_t ordinal);
// pthread_create() has started one (a re-run holds the creator to the
// recorded order: the new thread's first steps may come before its next).
void threadCreated(uint32_t ordinal);

// ---- what radar does not record (unseen_hooks.cc) -------------------------------
// The program used `what` (`detail` names it: a path, a queue, a call; `fd`
// the descriptor a raw data call moved bytes on, else -1). The recorder says
// so in the log; the re-run stops where it could not feed the program.
void unseenUsed(log::Unseen what, const char* detail, int fd);
// Whether `fd` is a channel the library knows already (a raw close, read or
// write on it goes through the library's hook; on anything else, made by
// raw calls too, it stays raw and unseen).
bool isKnownChannel(int fd);

// ---- synchronization (sync_hooks.cc) -------------------------------------------
// One operation on a lock, semaphore, condition variable or barrier.
struct SyncOp {
  log::Kind kind = log::Kind::Unspecified;
  const void* object = nullptr;
  bool shared = false;   // process-shared: one object for every process that maps it
  uint32_t flags = 0;    // MUTEX_LOCK's (proto/radarlog.proto)
  int64_t entry = 0;     // syncClock() when the call began
  int64_t returned = 0;  // and when it returned (a call that cannot block: the same)
  uint64_t since = 0;    // a wait's: the object's number when it began
  uint32_t parties = 0;  // a barrier's count
};
// What the library does with synchronization: nothing (a hook costs one
// test), record it (radar record --sync), or hold it to its recorded order
// (the re-run of such a recording).
enum class SyncMode { Off, Record, Replay };
SyncMode syncMode();
int64_t syncClock();
// The object's next number, taken (1, 2 ...; 0 when it has none); the
// number it has now, not taken.
uint64_t syncTake(const void* object, bool shared);
uint64_t syncNow(const void* object, bool shared);
// A thread is about to wait in the operation (a lock, a wait): it is said
// to be in it until syncWaited(), so that a process killed in a deadlock
// shows what each thread waited for.
void syncWaits(const SyncOp& op);
void syncWaited();
// The operation is done: `number` what it took (0: none, as a failed try),
// `result` the call's (an error number, or 0).
void syncDone(const SyncOp& op, uint64_t number, int result);

// The re-run: the operation's turn in the recorded order, the recorded
// event it plays, and whether the hook makes the real call or answers it
// from the recording (a failed try, a timed-out wait, a condition wait, an
// object shared with processes that do not run in the re-run).
struct SyncTurn {
  const void* event = nullptr;  // the library's own
  bool real = false;            // make the real call; else return `result`
  int result = 0;               // as recorded: 0 or an error number
  uint32_t flags = 0;           // as recorded (a barrier's serial thread)
};
// Waits for `op`'s turn; false when the re-run no longer follows the
// recording (the hook then makes the real call, on its own).
bool syncTurn(const SyncOp& op, SyncTurn* turn);
// The call made in its turn returned `result` (0 or an error number).
void syncTurnDone(const SyncTurn& turn, int result);

// ---- the program's end (shared_hooks.cc) ---------------------------------------
// main() returned `status`, or the program called exit(status): the C
// library's exit handlers run next, the library's own last of them.
void exitStatusKnown(int status);
// _exit(status) or _Exit(status): the process ends now, no handler runs.
void exitsNow(int status);

}  // namespace radar::inject
