// The replay core: loads the script at start, keeps each thread's place in
// it, and reports where the program leaves it. See rerun.h.
#include "rerun/rerun.h"
#include "rerun/script_check.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>

#include "inject/hook.h"
#include "inject/library.h"
#include "inject/text.h"
#include "log/fields.h"
#include "log/recorder_env.h"
#include "log/sys.h"
#include "rerun/replay_api.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

// Declared extern "C" in replay_api.h.
#define API __attribute__((visibility("default")))

// ---- the debugger's view (replay_api.h) ------------------------------------------

API volatile uint64_t radar_replay_last_number = 0;
API volatile uint64_t radar_replay_last_local = 0;
API const char* volatile radar_replay_last_text = nullptr;
API volatile uint64_t radar_replay_next_number = 0;
API volatile uint64_t radar_replay_next_local = 0;
API const char* volatile radar_replay_next_text = nullptr;
API volatile uint32_t radar_replay_consumed = 0;
API volatile uint32_t radar_replay_total = 0;
API volatile uint64_t radar_replay_stop_at_number = 0;
API volatile uint64_t radar_replay_stop_at_local = 0;
API volatile uint32_t radar_replay_stop_on_message = 0;
API const char* volatile radar_replay_message = nullptr;
API volatile uint32_t radar_replay_outcome = 0;

// Breakpoint targets: they must exist as calls, not be folded away.
API __attribute__((noinline)) void radar_replay_stop(const char* why) { asm volatile("" ::"r"(why) : "memory"); }
API __attribute__((noinline)) void radar_replay_diverged(const char* report) {
  asm volatile("" ::"r"(report) : "memory");
}
API __attribute__((noinline)) void radar_replay_ended(const char* report) { asm volatile("" ::"r"(report) : "memory"); }

namespace radar::rerun {

using driver::kNoEvent;
using driver::ReplayOutcome;
using driver::ScriptEnd;
using driver::ScriptFd;
using driver::ScriptHeader;
using driver::ScriptStatus;
using driver::ScriptThread;
using driver::StandIn;

namespace {

constexpr uint32_t kMaxThreads = 4096;
constexpr int kIdleWaitMs = 200;  // a call waits for other threads' events while they progress ...
constexpr int kIdleHoldMs = 20;   // ... and code between calls a little
constexpr int kIdleEndMs = 2000;  // the end of the recording waits for the last events
// A synchronization waits for its object's previous operation longer: the
// thread that holds a lock may compute a while with no call to replay.
constexpr int kIdleSyncMs = 2000;
// How long a wait goes on while another thread runs without a recorded
// call: it computes (CPython between two calls) or spins on memory.
constexpr int kRunningPatienceMs = 2000;
constexpr int kMaxFd = 1 << 16;

bool detach();

struct State {
  bool started = false;
  std::atomic<bool> detached{false};
  bool exit_at_end = false;
  bool sandboxed = false;        // radar debug's sandbox: effects on files stay inside
  bool sigstop_at_stop = false;  // no debugger: stop the process for one to attach
  // The environment's LD_PRELOAD entry: the one that loaded this library,
  // and the recorded one the program is shown in its place while it
  // replays (driver::kShownPreloadEnv). Both null when not shown.
  char* real_preload = nullptr;
  char* shown_preload = nullptr;
  const uint8_t* base = nullptr;
  size_t size = 0;
  const ScriptHeader* header = nullptr;
  const ScriptEvent* events = nullptr;
  const ScriptThread* threads = nullptr;
  const ScriptFd* inherited = nullptr;
  const driver::ScriptOutput* outputs = nullptr;
  const uint8_t* data = nullptr;
  ScriptStatus* status = nullptr;
  std::atomic<uint32_t> segment{0};
  uint32_t last_segment = 0;
  bool exit_noted = false;
  int exit_status = 0;
};
State g;

// Per script thread: the real thread that plays it (0: nobody yet) and
// its next event.
std::atomic<uint32_t> g_player[kMaxThreads];
uint32_t g_cursor[kMaxThreads];
std::atomic<uint64_t> g_channel_bits[kMaxFd / 64];
std::atomic<const driver::SocketNames*> g_socket_names[kMaxFd];
sys::FutexLock g_lock;
// Events whose call a thread has reached (a bit each), and how many: see
// ScriptEvent::after_arrival.
uint64_t* g_arrived = nullptr;
uint64_t* g_replayed = nullptr;  // events replayed (a bit each)
uint32_t g_prefix = 0;           // events [0, g_prefix) all replayed
uint32_t g_progress = 0;         // bumped at every arrival and replay: what waits sleep on
uint32_t g_waiters = 0;          // threads sleeping on it
// Per script thread: a word its thread sleeps on while it waits for its
// turn, bumped once every event before that turn is replayed, and the
// event it waits before (+1; 0: none). One thread is woken per turn: a
// thousand threads that wait are not all woken at every event.
uint32_t g_turn_word[kMaxThreads];
uint32_t g_turn_waiting[kMaxThreads];
// Per script thread, its last synchronization replayed and when (in the
// order of all of them): what a divergence names as the probable race.
uint32_t g_last_sync[kMaxThreads];
uint32_t g_last_sync_order[kMaxThreads];
uint32_t g_sync_order = 0;

struct ThreadPlace {
  int32_t index;     // into the script's threads, -1 unknown
  uint32_t segment;  // the segment it was claimed in
};
__thread ThreadPlace t_place __attribute__((tls_model("initial-exec"))) = {-1, 0};
// A thread of a parent image that the debugged child does not have.
__thread bool t_outside __attribute__((tls_model("initial-exec"))) = false;
// Up to inject::kThreadLocalBytes, as the recorder's (with t_delivering in
// hooks.cc, these take 24 with their alignment).
alignas(16) __thread char t_layout_pad[inject::kThreadLocalBytes - 24] __attribute__((used, tls_model("initial-exec")));

class Lock {
 public:
  Lock() { g_lock.lock(); }
  ~Lock() { g_lock.unlock(); }
};

uint32_t tid() { return static_cast<uint32_t>(sys::gettid()); }

int64_t monotonicNs() {
  struct timespec ts {};
  sys::raw(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&ts));
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// Calls one of the functions a debugger breaks on, with the message where
// the debugger can read it (the text lives on our stack until it returns).
void announce(void (*breakpoint)(const char*), const char* message) {
  radar_replay_message = message;
  breakpoint(message);
  radar_replay_message = nullptr;
}

[[noreturn]] void exitNow(int status) {
  sys::raw(SYS_exit_group, status);
  __builtin_unreachable();
}

void copyReport(const char* report, ReplayOutcome outcome) {
  radar_replay_outcome = static_cast<uint32_t>(outcome);
  if (g.status) {
    const size_t n = std::strlen(report);
    const size_t room = sizeof(g.status->report) - 1;
    std::memcpy(g.status->report, report, n < room ? n : room);
    g.status->report[n < room ? n : room] = 0;
    __atomic_store_n(&g.status->outcome, static_cast<uint32_t>(outcome), __ATOMIC_RELEASE);
  } else {
    sys::write(2, report, std::strlen(report));
    sys::write(2, "\n", 1);
  }
}

const char* label() { return g.header ? static_cast<const char*>(blob(g.header->label)) : "the process"; }

bool isMessage(uint16_t kind) {
  const log::Category c = log::categoryOf(static_cast<Kind>(kind));
  return c == log::Category::Send || c == log::Category::Receive;
}

// What the debugger shows as "next" for the calling thread.
void publishNext(int32_t index) {
  const uint32_t i = index >= 0 ? g_cursor[index] : kNoEvent;
  if (i == kNoEvent) {
    radar_replay_next_number = 0;
    radar_replay_next_local = 0;
    radar_replay_next_text = nullptr;
    return;
  }
  const ScriptEvent& e = g.events[i];
  radar_replay_next_number = e.number;
  radar_replay_next_local = e.counter;
  radar_replay_next_text = text(&e);
}

// The script thread played by the calling thread, claiming one when it
// has none: the first unclaimed thread of the current segment whose next
// event is this call.
int32_t placeOfThisThread(Kind kind, int fd) {
  const uint32_t segment = g.segment.load(std::memory_order_acquire);
  if (t_place.index >= 0 && t_place.segment == segment) return t_place.index;
  if (t_place.index >= 0 || t_outside) {
    // A thread of a parent image: fork() did not copy it into the recorded
    // child, which the replay now is. It stops here, for good.
    for (;;) sys::raw(SYS_pause);
  }
  Lock lock;
  const uint32_t me = tid();
  int32_t fallback = -1;
  for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
    const ScriptThread& t = g.threads[i];
    if (t.segment != segment || g_player[i].load(std::memory_order_relaxed)) continue;
    uint32_t next = g_cursor[i];
    while (next != kNoEvent && g.events[next].kind == static_cast<uint16_t>(Kind::Signal))
      next = g.events[next].next_in_thread;
    if (next == kNoEvent) continue;
    const ScriptEvent& e = g.events[next];
    if (e.kind == static_cast<uint16_t>(Kind::ThreadStart)) continue;  // claimed by its creation order
    if (e.kind == static_cast<uint16_t>(kind) && e.fd == fd) {
      fallback = static_cast<int32_t>(i);
      break;
    }
  }
  if (fallback < 0) return -1;
  g_player[fallback].store(me, std::memory_order_relaxed);
  t_place = {fallback, segment};
  return fallback;
}

bool recordingStoppedHere() {
  const ScriptEnd end = g.header->end;
  return end == ScriptEnd::Blocked || end == ScriptEnd::Signaled || end == ScriptEnd::Unknown;
}

// ---- the threads' order ---------------------------------------------------
//
// Each thread replays its own events strictly in order. Between threads,
// the recorded order (the image's counter order: the order calls returned)
// is followed as far as the program lets it: a thread waits before a call
// until every earlier event has been replayed (waitTurn), waits for the
// thread whose write its read got when that write was counted later
// (arrive), and, between two calls, runs once the others' earlier events
// are done (holdUntilNext). The program may hold a lock the awaited thread
// needs -- nothing in the recording says so -- so every wait ends when no
// thread has made progress for a while: the order is kept where the
// program allows it, and the program never hangs for it. Time stopped in a
// debugger does not count: waits are counted in short sleeps.

// ---- threads that run without a recorded call ------------------------------
//
// A wait that gives up because nobody made progress, while another thread
// of the program was running all along, most likely waited behind a thread
// that waits on memory (spins on a flag another thread sets, with no call
// between): the order cannot hold it, and the re-run says so once.

char g_stall_note[768];
std::atomic<bool> g_stall_noted{false};

// Whether thread `tid` of this process is running (state R), from /proc.
bool runs(uint32_t tid) {
  char path[64];
  size_t at = inject::appendStr(path, 0, sizeof(path), "/proc/self/task/");
  at = inject::appendDec(path, at, sizeof(path), tid);
  inject::appendStr(path, at, sizeof(path), "/stat");
  const long fd = sys::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  char stat[256];
  const long n = sys::read(static_cast<int>(fd), stat, sizeof(stat) - 1);
  sys::close(static_cast<int>(fd));
  if (n <= 0) return false;
  stat[n] = 0;
  const char* end = nullptr;  // the state follows the name's last ')'
  for (const char* c = stat; *c; ++c)
    if (*c == ')') end = c;
  return end && end[1] == ' ' && end[2] == 'R';
}

bool stallNoted() { return g_stall_noted.load(std::memory_order_acquire) && g_stall_note[0]; }

// The note, on a line of its own, where there is one.
void appendStallNote(Report& r) {
  if (stallNoted()) r << "\n  note: " << g_stall_note;
}

// Another thread of the re-run that is running now (its script index), or -1.
int32_t otherThreadRuns() {
  const uint32_t me = tid();
  for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
    const uint32_t player = g_player[i].load(std::memory_order_relaxed);
    if (player && player != me && runs(player)) return static_cast<int32_t>(i);
  }
  return -1;
}

// `running_seen`: another thread ran through the whole wait; else none
// moved at all (each waits outside any recorded call).
void noteStall(int idle_ms, bool running_seen) {
  if (g_stall_noted.load(std::memory_order_relaxed) || t_place.index < 0) return;
  const int32_t running = running_seen ? otherThreadRuns() : -1;
  if (g_stall_noted.exchange(true)) return;
  const uint32_t waiting = g_cursor[t_place.index];
  const bool sync = g.header->flags & driver::kScriptRecordedSync;
  Report r;
  // Recorded without --sync, the other thread may also wait for a lock
  // the held one has taken (CPython's interpreter lock, polled).
  r << "while replaying, a thread waited " << idle_ms << " ms for its turn ";
  if (running_seen)
    r << "behind a thread that ran all along without a recorded call (it probably waited on memory another thread "
         "sets, a spin"
      << (sync ? ""
               : ", or for a lock the held thread had taken: recorded without --sync, which records the order "
                 "threads take their locks in");
  else
    r << "while no other thread moved (they waited outside any recorded call"
      << (sync ? ""
               : ", probably for a lock the held thread had taken: recorded without --sync, which records the "
                 "order threads take their locks in");
  r << "); the re-run let it go on out of its recorded order";
  if (waiting != kNoEvent) r << ". Its next event: " << text(&g.events[waiting]);
  const uint32_t next = running >= 0 ? g_cursor[running] : kNoEvent;
  if (next != kNoEvent) r << " The running thread's next event: " << text(&g.events[next]);
  std::memcpy(g_stall_note, r.str(), std::min(std::strlen(r.str()), sizeof(g_stall_note) - 1));
}

// A wait's patience, counted in the short sleeps it made while nobody
// moved (so that time stopped in a debugger does not count).
bool anotherWaitsBefore(uint32_t at);

struct Patience {
  int idle_limit;
  bool before_call = true;   // false: a hold between calls, where code runs on, no call
  uint32_t turn = kNoEvent;  // a wait for this event's turn: the first in line goes on first
  int idle = 0, running_waited = 0;

  // After a sleep of `ms` that saw progress or not: whether the wait ends
  // here, out of the recorded order (noted).
  bool exhausted(bool progressed, int ms) {
    idle = progressed ? 0 : idle + ms;
    if (idle < idle_limit) return false;
    if (turn != kNoEvent && anotherWaitsBefore(turn)) {
      idle = 0;
      return false;
    }
    // A thread that runs between two calls (computes, or spins) moves on
    // its own: waited for a while longer, not for ever.
    if (running_waited < kRunningPatienceMs && otherThreadRuns() >= 0) {
      running_waited += idle;
      idle = 0;
      return false;
    }
    // Nobody moves: go on out of order, and say so where that lets a call
    // go before its turn, or where another thread ran all along (spins).
    if (before_call || running_waited >= kRunningPatienceMs) noteStall(idle_limit + running_waited, running_waited > 0);
    return true;
  }
};

void sleepOn(uint32_t* word, uint32_t value, int ms) {
  struct timespec wait = {0, ms * 1000L * 1000L};
  sys::raw(SYS_futex, reinterpret_cast<long>(word), FUTEX_WAIT_PRIVATE, value, reinterpret_cast<long>(&wait));
}

// Called with `done` reading the condition; waits while it is false and
// the other threads make progress. False when the replay left the
// recording meanwhile.
template <class Done>
bool waitFor(Done&& done, int idle_limit, bool before_call = true) {
  Patience patience{idle_limit, before_call};
  while (!done()) {
    if (!replaying()) return false;
    __atomic_add_fetch(&g_waiters, 1, __ATOMIC_SEQ_CST);
    const uint32_t seen = __atomic_load_n(&g_progress, __ATOMIC_SEQ_CST);
    if (!done()) sleepOn(&g_progress, seen, 1);
    __atomic_sub_fetch(&g_waiters, 1, __ATOMIC_SEQ_CST);
    if (patience.exhausted(__atomic_load_n(&g_progress, __ATOMIC_ACQUIRE) != seen, 1)) break;
  }
  return true;
}

void progress() {
  __atomic_add_fetch(&g_progress, 1, __ATOMIC_SEQ_CST);
  // A system call only when a thread waits (single-threaded programs: never).
  if (__atomic_load_n(&g_waiters, __ATOMIC_SEQ_CST))
    sys::raw(SYS_futex, reinterpret_cast<long>(&g_progress), FUTEX_WAKE_PRIVATE, INT_MAX);
}

bool isSet(const uint64_t* bits, uint32_t i) {
  return __atomic_load_n(&bits[i / 64], __ATOMIC_ACQUIRE) >> (i % 64) & 1;
}

// Every event before `i` has been replayed.
bool replayedBefore(uint32_t i) { return __atomic_load_n(&g_prefix, __ATOMIC_ACQUIRE) >= i; }

// A synchronization waits for its object's previous operation only
// (ScriptEvent::after_sync), not for the prefix: the recorder counts a
// release once it let go, so a lock it let go on can be counted first, and
// held to the counted order too, the two would wait for each other. Every
// other call waits for the prefix, synchronizations included: each event
// is counted once it happened, so what it waits for happened before it,
// and a thread's calls stay where they were among the others' locks (a
// thread that ran ahead past them would show the others state -- a clock,
// a flag -- from later than the recording did).
bool isSyncEvent(uint32_t i) { return log::isSyncKind(static_cast<Kind>(g.events[i].kind)); }

// The thread whose turn event `p` is, if it sleeps waiting for it.
void wakeTurn(uint32_t p) {
  if (p >= g.header->event_count) return;
  const uint32_t owner = g.events[p].thread;
  if (owner >= kMaxThreads || __atomic_load_n(&g_turn_waiting[owner], __ATOMIC_SEQ_CST) != p + 1) return;
  __atomic_add_fetch(&g_turn_word[owner], 1, __ATOMIC_SEQ_CST);
  sys::raw(SYS_futex, reinterpret_cast<long>(&g_turn_word[owner]), FUTEX_WAKE_PRIVATE, 1);
}

void advancePrefix() {
  for (uint32_t p = __atomic_load_n(&g_prefix, __ATOMIC_ACQUIRE); p < g.header->event_count && isSet(g_replayed, p);) {
    if (__atomic_compare_exchange_n(&g_prefix, &p, p + 1, false, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
      ++p;
      wakeTurn(p);
    }
  }
}

// Whether a thread waits for its turn at an event before `at`: when nobody
// moves, that one goes on first (it is next in the recorded order; a thread
// far behind that went on would run ahead of everyone between).
bool anotherWaitsBefore(uint32_t at) {
  for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
    const uint32_t other = __atomic_load_n(&g_turn_waiting[i], __ATOMIC_ACQUIRE);
    if (other && other - 1 < at) return true;
  }
  return false;
}

// The calling thread has reached event `e`'s call.
bool arrive(const ScriptEvent* e) {
  const auto mine = static_cast<uint32_t>(e - g.events);
  __atomic_fetch_or(&g_arrived[mine / 64], uint64_t{1} << (mine % 64), __ATOMIC_ACQ_REL);
  progress();
  const uint32_t other = e->after_arrival;
  if (other == kNoEvent || other >= g.header->event_count) return true;
  return waitFor([&] { return isSet(g_arrived, other); }, kIdleWaitMs);
}

// Waits until every event before `e` is replayed, asleep on its own word
// (wakeTurn): near its turn in short sleeps, which count the patience, far
// from it in long ones.
bool waitTurn(const ScriptEvent* e) {
  const auto mine = static_cast<uint32_t>(e - g.events);
  const int32_t me = t_place.index;
  if (replayedBefore(mine)) return true;
  if (me < 0 || me >= static_cast<int32_t>(kMaxThreads))
    return waitFor([&] { return replayedBefore(mine); }, kIdleWaitMs);
  constexpr uint32_t kNearTurn = 64;  // events
  Patience patience{kIdleWaitMs, true, mine};
  __atomic_store_n(&g_turn_waiting[me], mine + 1, __ATOMIC_SEQ_CST);
  bool replayed = true;
  for (;;) {
    const uint32_t word = __atomic_load_n(&g_turn_word[me], __ATOMIC_SEQ_CST);
    const uint32_t seen = __atomic_load_n(&g_progress, __ATOMIC_SEQ_CST);
    const uint32_t prefix = __atomic_load_n(&g_prefix, __ATOMIC_SEQ_CST);
    if (prefix >= mine) break;
    if (!replaying()) {
      replayed = false;
      break;
    }
    const int ms = mine - prefix <= kNearTurn ? 1 : 50;
    sleepOn(&g_turn_word[me], word, ms);
    if (patience.exhausted(__atomic_load_n(&g_progress, __ATOMIC_ACQUIRE) != seen, ms)) break;
  }
  __atomic_store_n(&g_turn_waiting[me], 0, __ATOMIC_RELEASE);
  return replayed;
}

// Per script thread: a close let go before its turn (releaseLateClose).
uint32_t g_early_close[kMaxThreads];

// Whether a thread may be held, between calls, until the others' events
// before its next one are replayed. Before any call but a synchronization,
// and before a lock taken exclusively: a thread that ran ahead to it would
// read memory the others had not written yet (CPython's request to hand
// over its interpreter lock, set under the lock by a waiting thread). Not
// before a release (the recorder may count it after the acquisition it let
// through), a semaphore wait or a read lock (a post or another reader can
// be counted before it and still wait for it in the object's order), a
// condition wait (counted after its wake-up) or a barrier (it ends only
// when every party arrives): holding those would stall both sides.
bool heldBefore(uint32_t next) {
  const ScriptEvent& e = g.events[next];
  if (!isSyncEvent(next)) return true;
  return e.kind == static_cast<uint16_t>(Kind::MutexLock) && !(e.call_flags & log::kSyncRead);
}

void holdUntilNext(int32_t index) {
  const uint32_t next = g_cursor[index];
  if (next == kNoEvent || !heldBefore(next)) return;
  waitFor([&] { return replayedBefore(next) || __atomic_load_n(&g_early_close[index], __ATOMIC_ACQUIRE) == next + 1; },
          kIdleHoldMs, false);
}

// Whether `t` recorded the exit that ended the process: its last event.
bool endedTheProcess(const ScriptThread& t) {
  uint32_t last = kNoEvent;
  uint32_t steps = 0;  // bounded: the script's links are only checked to stay inside it
  for (uint32_t i = t.first_event; i != kNoEvent && i < g.header->event_count && steps++ < g.header->event_count;
       i = g.events[i].next_in_thread)
    last = i;
  return last != kNoEvent && g.events[last].kind == static_cast<uint16_t>(Kind::Exit);
}

// The calling thread has replayed all it recorded and calls again.
void endOfThread(int32_t index, Kind kind, int fd, const char* what) {
  const ScriptThread& t = g.threads[index];
  const bool last_segment = t.segment == g.last_segment;
  if (!last_segment) {
    // A thread of an image that forks the one being debugged: all it did
    // before the fork is replayed, and fork() does not copy it into the
    // child. It waits for good.
    for (;;) sys::raw(SYS_pause);
  }
  const bool in_call = t.end_kind == static_cast<uint16_t>(kind) && t.end_fd == fd;
  if (g.header->end == ScriptEnd::Exited && !endedTheProcess(t)) {
    // Another thread ended the process (exit, exit_group) while this one
    // was in this call, or before it called again: nothing of this thread
    // comes after its last event. It waits here for that exit, as long as
    // the other threads go on.
    waitFor([] { return false; }, kIdleEndMs);
    if (!replaying()) return;
    Report r;
    r << "the program calls " << what << " after this thread's last recorded event; the recorded process exited "
      << (in_call ? "while this thread was in this call" : "before this thread called again")
      << ", and the re-run's other threads do not exit";
    diverge(nullptr, r.str());
    return;
  }
  if (!recordingStoppedHere()) {
    Report r;
    r << "the program calls " << what << " after this thread's last recorded event";
    diverge(nullptr, r.str());
    return;
  }
  // The recording stopped with this thread here (killed, or still in this
  // call): so does the re-run, once the other threads have replayed all
  // they recorded too.
  if (!waitFor([] { return __atomic_load_n(&radar_replay_consumed, __ATOMIC_ACQUIRE) >= g.header->event_count; },
               kIdleEndMs))
    return;
  const uint32_t seen = __atomic_load_n(&radar_replay_consumed, __ATOMIC_ACQUIRE);
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true)) {
    Report r;
    r << "radar: replayed " << static_cast<uint64_t>(seen) << " of " << static_cast<uint64_t>(g.header->event_count)
      << " events; ";
    if (g.header->end == ScriptEnd::Signaled)
      r << label() << " was killed by signal " << static_cast<int64_t>(g.header->end_code)
        << (in_call ? " in " : " before its next call, ") << what;
    else if (in_call)
      r << "the recording stopped while " << label() << " was in " << what << ": the re-run stops there";
    else
      r << "the recording stopped before " << label() << "'s next call, " << what << ": the re-run stops there";
    const bool same = outputsAgree(r);
    if (same) r << ", as recorded";
    copyReport(r.str(), same ? ReplayOutcome::Blocked : ReplayOutcome::Diverged);
    detach();
    announce(radar_replay_ended, r.str());
    if (g.exit_at_end) {
      const int sig = g.header->end_code;
      if (g.header->end == ScriptEnd::Signaled && sig > 0 && sig < _NSIG && sig != SIGSTOP) {
        // Die as the recorded process died.
        struct kernel_sigaction {
          void* handler;
          unsigned long flags;
          void* restorer;
          uint64_t mask;
        } dfl{};
        sys::raw(SYS_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, 8);
        uint64_t only = uint64_t{1} << (sig - 1);
        sys::raw(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&only), 0, 8);
        sys::raw(SYS_tgkill, sys::getpid(), sys::gettid(), sig);
      }
      exitNow(driver::kBlockedExitStatus);
    }
  }
  for (;;) sys::raw(SYS_pause);  // as it was: stopped for ever
}

bool deliverRecordedSignals(int32_t index, bool unblocked_only = false);
bool waitTurn(const ScriptEvent* e);
bool arrive(const ScriptEvent* e);
void holdUntilNext(int32_t index);
bool isSet(const uint64_t* bits, uint32_t i);

}  // namespace

int32_t recordedPid() { return g.header ? g.header->recorded_pid : 0; }

const driver::ScriptOutput* scriptOutputs(uint32_t* count) {
  *count = g.header ? g.header->output_count : 0;
  return g.outputs;
}

driver::ScriptStatus* replayStatus() { return g.status; }

bool outputsRecorded() { return g.header && (g.header->flags & driver::kScriptOutputs); }
bool queuesRecorded() { return g.header && (g.header->flags & driver::kScriptQueues); }
bool eventFdsRecorded() { return g.header && (g.header->flags & driver::kScriptEventFds); }

namespace {
std::atomic<int32_t> g_believed_pid{0};
}  // namespace

int32_t believedPid() {
  const int32_t pid = g_believed_pid.load(std::memory_order_relaxed);
  return pid ? pid : recordedPid();
}
void noteBelievedPid(int32_t pid) { g_believed_pid.store(pid, std::memory_order_relaxed); }

int32_t imagePid() {
  const uint32_t segment = g.segment.load(std::memory_order_acquire);
  for (uint32_t i = 0; g.header && i < g.header->thread_count && i < kMaxThreads; ++i)
    if (g.threads[i].segment == segment && g.threads[i].main) return static_cast<int32_t>(g.threads[i].tid);
  return recordedPid();
}

// ---- blobs and reports ------------------------------------------------------------

const void* blob(const driver::Blob& b) {
  static const char empty[1] = {0};
  return b.size ? static_cast<const void*>(g.data + b.offset) : empty;
}

const char* text(const ScriptEvent* e) {
  return e && e->text.size ? static_cast<const char*>(blob(e->text)) : "(an event without narrative)";
}

Report& Report::operator<<(const char* s) {
  for (; s && *s && len_ + 1 < sizeof(buf_); ++s) buf_[len_++] = *s;
  buf_[len_] = 0;
  return *this;
}

Report& Report::operator<<(uint64_t v) {
  len_ += sys::formatDecimal(buf_ + len_, sizeof(buf_) - len_, v);
  return *this;
}

Report& Report::operator<<(int64_t v) {
  if (v < 0) {
    *this << "-";
    return *this << static_cast<uint64_t>(-(v + 1)) + 1;
  }
  return *this << static_cast<uint64_t>(v);
}

Report& Report::bytes(const void* data, size_t n, size_t max) {
  static const char hex[] = "0123456789abcdef";
  if (!n) return *this << "(nothing)";
  const auto* p = static_cast<const uint8_t*>(data);
  const size_t shown = n < max ? n : max;
  for (size_t i = 0; i < shown && len_ + 4 < sizeof(buf_); ++i) {
    buf_[len_++] = hex[p[i] >> 4];
    buf_[len_++] = hex[p[i] & 15];
    if (i + 1 < shown) buf_[len_++] = ' ';
  }
  buf_[len_] = 0;
  *this << (n > shown ? " ... \"" : "  \"");
  for (size_t i = 0; i < shown && len_ + 2 < sizeof(buf_); ++i)
    buf_[len_++] = p[i] >= 32 && p[i] < 127 ? static_cast<char>(p[i]) : '.';
  buf_[len_] = 0;
  return *this << "\"";
}

Report& Report::text(const void* data, size_t n, size_t max) {
  static const char hex[] = "0123456789abcdef";
  const auto* p = static_cast<const uint8_t*>(data);
  const size_t shown = n < max ? n : max;
  *this << "\"";
  for (size_t i = 0; i < shown && len_ + 6 < sizeof(buf_); ++i) {
    const uint8_t c = p[i];
    if (c == '\n' || c == '"' || c == '\\') {
      buf_[len_++] = '\\';
      buf_[len_++] = c == '\n' ? 'n' : static_cast<char>(c);
    } else if (c >= 32 && c < 127) {
      buf_[len_++] = static_cast<char>(c);
    } else {
      buf_[len_++] = '\\';
      buf_[len_++] = 'x';
      buf_[len_++] = hex[c >> 4];
      buf_[len_++] = hex[c & 15];
    }
  }
  buf_[len_] = 0;
  return *this << (n > shown ? "\"..." : "\"");
}

// ---- the replay --------------------------------------------------------------------

bool sandboxed() { return g.sandboxed; }

bool replaying() { return g.started && !g.detached.load(std::memory_order_relaxed); }

namespace {

// The program leaves the recording (a divergence, or its end): from now on
// it runs on its own, and what it starts must not be recorded into the
// user's recording. So LD_PRELOAD names this library again (inert in a
// child, which has no script): what system() and popen() start, from the
// environment, loads it and not the recorder. The exec and spawn hooks
// also leave the recording's variables out (childEnvironmentEntry). One
// store, no lock: this may run in a signal handler that interrupted
// setenv().
bool detach() {
  if (g.detached.exchange(true)) return true;
  if (!g.started || !g.shown_preload) return false;
  for (char** e = environ; e && *e; ++e)
    if (*e == g.shown_preload) {
      *e = g.real_preload;
      break;
    }
  return false;
}

}  // namespace

const char* childEnvironmentEntry(const char* entry) {
  if (log::isRecorderVariable(entry)) return nullptr;
  if (g.shown_preload && std::strcmp(entry, g.shown_preload) == 0) return g.real_preload;
  return entry;
}

bool isChannelFd(int fd) {
  if (fd < 0 || fd >= kMaxFd) return false;
  return g_channel_bits[fd / 64].load(std::memory_order_relaxed) >> (fd % 64) & 1;
}

void setChannelFd(int fd, bool channel) {
  if (fd < 0 || fd >= kMaxFd) return;
  const uint64_t bit = uint64_t{1} << (fd % 64);
  if (channel) {
    g_channel_bits[fd / 64].fetch_or(bit, std::memory_order_relaxed);
  } else {
    g_channel_bits[fd / 64].fetch_and(~bit, std::memory_order_relaxed);
    g_socket_names[fd].store(nullptr, std::memory_order_relaxed);
  }
}

void setSocketNames(int fd, const driver::SocketNames* names) {
  if (fd >= 0 && fd < kMaxFd && names && (names->local.size || names->peer.size))
    g_socket_names[fd].store(names, std::memory_order_relaxed);
}

const driver::SocketNames* socketNames(int fd) {
  return fd >= 0 && fd < kMaxFd ? g_socket_names[fd].load(std::memory_order_relaxed) : nullptr;
}

namespace {

// Whether the script has an event of this number (a signal it delivers
// has one, though no call stops before it).
bool scriptHas(uint64_t number) {
  for (uint32_t i = 0; i < g.header->event_count; ++i)
    if (g.events[i].number == number) return true;
  return false;
}

void checkStops(const ScriptEvent& e) {
  const char* why = nullptr;
  const uint64_t at_number = radar_replay_stop_at_number;
  const uint64_t at_local = radar_replay_stop_at_local;
  uint64_t passed = 0;  // the event asked for, when it was another process's
  if (at_number && e.number >= at_number) {
    radar_replay_stop_at_number = 0;
    why = "the event asked for";
    if (e.number > at_number) {
      why = "its first event after the one asked for";
      if (!scriptHas(at_number)) passed = at_number;
    }
  } else if (at_local && e.segment == g.last_segment && e.counter >= at_local) {
    radar_replay_stop_at_local = 0;
    why = "the local event asked for";
  } else if (radar_replay_stop_on_message && isMessage(e.kind)) {
    radar_replay_stop_on_message = 0;
    why = "the next message";
  }
  if (!why) return;
  Report r;
  r << "radar: stopped before " << why;
  if (passed) r << " (event " << passed << " is not this process's)";
  r << ", event " << e.number << " (local " << e.counter << "): " << text(&e);
  copyReport(r.str(), ReplayOutcome::Running);
  announce(radar_replay_stop, r.str());
  if (g.sigstop_at_stop) sys::raw(SYS_tgkill, sys::getpid(), sys::gettid(), SIGSTOP);
}

const ScriptEvent* nextOf(int32_t index) {
  const uint32_t i = g_cursor[index];
  return i == kNoEvent ? nullptr : &g.events[i];
}

// The thread's next call, past the signals delivered before it.
const ScriptEvent* nextCallOf(int32_t index) {
  uint32_t i = g_cursor[index];
  while (i != kNoEvent && g.events[i].kind == static_cast<uint16_t>(Kind::Signal)) i = g.events[i].next_in_thread;
  return i == kNoEvent ? nullptr : &g.events[i];
}

}  // namespace

const ScriptEvent* expect(Kind kind, int fd, const char* what) {
  if (!replaying()) return nullptr;
  const int32_t index = placeOfThisThread(kind, fd);
  if (index < 0) {
    Report r;
    r << "a thread calls " << what << ", which no recorded thread of " << label() << " does next";
    diverge(nullptr, r.str());
    return nullptr;
  }
  if (!deliverRecordedSignals(index)) return nullptr;
  const ScriptEvent* e = nextOf(index);
  if (!e) {
    endOfThread(index, kind, fd, what);
    return nullptr;
  }
  if (e->kind != static_cast<uint16_t>(kind) || e->fd != fd) {
    Report r;
    r << "the program calls " << what << " where the recording has: " << text(e);
    diverge(e, r.str());
    return nullptr;
  }
  if (!arrive(e) || !waitTurn(e)) return nullptr;
  publishNext(index);
  checkStops(*e);
  if (e->flags & driver::kNeverReturns) {
    // The recorded thread was cancelled in this call: the re-run's waits
    // here, at a cancellation point, until it is cancelled too.
    consume(e);
    for (;;) {
      pthread_testcancel();
      const struct timespec tick = {0, 10'000'000};
      sys::raw(SYS_nanosleep, reinterpret_cast<long>(&tick), 0);
    }
  }
  return e;
}

bool nextIs(Kind kind, int fd) {
  if (!replaying()) return false;
  const int32_t index = placeOfThisThread(kind, fd);
  if (index < 0) return false;
  const ScriptEvent* e = nextCallOf(index);
  return e && e->kind == static_cast<uint16_t>(kind) && e->fd == fd;
}

const ScriptEvent* peekNext(Kind kind, int fd) {
  if (!replaying()) return nullptr;
  const int32_t index = placeOfThisThread(kind, fd);
  if (index < 0) return nullptr;
  const ScriptEvent* e = nextCallOf(index);
  return e && e->kind == static_cast<uint16_t>(kind) && e->fd == fd ? e : nullptr;
}

bool nextIsConnectOutcome(int fd) {
  if (!replaying()) return false;
  const int32_t index = placeOfThisThread(Kind::Connect, fd);
  if (index < 0) return false;
  const ScriptEvent* e = nextCallOf(index);
  return e && e->kind == static_cast<uint16_t>(Kind::Connect) && e->fd == fd &&
         (e->call_flags & log::kFlagConnectOutcome);
}

const ScriptEvent* nextForkOfThisThread(Kind kind) {
  if (!replaying()) return nullptr;
  const int32_t index = placeOfThisThread(kind, -1);
  if (index < 0) return nullptr;
  for (uint32_t i = g_cursor[index]; i != kNoEvent; i = g.events[i].next_in_thread)
    if (g.events[i].kind == static_cast<uint16_t>(kind)) return &g.events[i];
  return nullptr;
}

bool skipToFork(const ScriptEvent* fork) {
  const int32_t index = placeOfThisThread(static_cast<Kind>(fork->kind), -1);
  if (index < 0) return false;
  for (const ScriptEvent* e; replaying() && (e = nextOf(index)) && e != fork;) {
    if (!arrive(e) || !waitTurn(e)) return false;
    consume(e);
  }
  return replaying();
}

const ScriptEvent* expectIf(Kind kind, int fd) {
  if (!replaying()) return nullptr;
  const int32_t index = placeOfThisThread(kind, fd);
  if (index < 0) return nullptr;
  const ScriptEvent* e = nextCallOf(index);
  if (!e || e->kind != static_cast<uint16_t>(kind) || e->fd != fd) return nullptr;
  if (!deliverRecordedSignals(index)) return nullptr;
  if (!arrive(e) || !waitTurn(e)) return nullptr;
  publishNext(index);
  checkStops(*e);
  return e;
}

bool ordersSync() { return replaying() && (g.header->flags & driver::kScriptSync); }

namespace {

// The call a synchronization stands for, in a report.
const char* syncCallName(Kind kind, uint32_t flags) {
  const bool rwlock = flags & log::kSyncRwlock, spin = flags & log::kSyncSpin;
  switch (kind) {
    case Kind::MutexLock:
      return rwlock ? "pthread_rwlock_lock" : spin ? "pthread_spin_lock" : "pthread_mutex_lock";
    case Kind::MutexUnlock:
      return rwlock ? "pthread_rwlock_unlock" : spin ? "pthread_spin_unlock" : "pthread_mutex_unlock";
    case Kind::SemWait:
      return "sem_wait";
    case Kind::SemPost:
      return "sem_post";
    case Kind::CondWait:
      return "pthread_cond_wait";
    case Kind::CondSignal:
      return "pthread_cond_signal";
    default:
      return "pthread_barrier_wait";
  }
}

}  // namespace

bool syncTurn(const inject::SyncOp& op, inject::SyncTurn* turn) {
  if (!replaying()) return false;
  const char* what = syncCallName(op.kind, op.flags);
  const int32_t index = placeOfThisThread(op.kind, -1);
  if (index < 0) {
    Report r;
    r << "a thread calls " << what << ", which no recorded thread of " << label() << " does next";
    diverge(nullptr, r.str());
    return false;
  }
  if (!deliverRecordedSignals(index)) return false;
  const ScriptEvent* e = nextOf(index);
  // A release past the thread's last event: the process ended (another
  // thread's exit) while it was in it, after it let go, before its event
  // was written. The others went on behind it: it lets go for real.
  if (!e && log::isSyncRelease(op.kind)) return false;
  if (!e) {
    endOfThread(index, op.kind, -1, what);
    return false;
  }
  // The same operation: a read lock is no write lock, a try no wait.
  constexpr uint32_t kShape = log::kSyncTry | log::kSyncRead | log::kSyncSpin | log::kSyncRwlock | log::kSyncBroadcast;
  if (e->kind != static_cast<uint16_t>(op.kind) || (e->call_flags & kShape) != (op.flags & kShape)) {
    Report r;
    r << "the program calls " << what << " where the recording has: " << text(e);
    diverge(e, r.str());
    return false;
  }
  const uint32_t before = e->after_sync;
  if (before < g.header->event_count && !waitFor([&] { return isSet(g_replayed, before); }, kIdleSyncMs)) return false;
  publishNext(index);
  checkStops(*e);
  turn->event = e;
  turn->result = static_cast<int>(e->result);
  turn->flags = e->call_flags;
  // Made for real where the re-run can make it as recorded: not a wait
  // whose end is its turn, nor a call that failed, nor one on an object
  // other processes share (they do not run here) -- but a post, which
  // never waits, and a semaphore's wait made as a try: the value the
  // program reads back (sem_getvalue: CPython's multiprocessing.Lock
  // checks it before a release) is then what this process did to it.
  const bool shared = e->flags & driver::kSyncShared;
  const auto kind = static_cast<Kind>(e->kind);
  turn->real = e->result == 0 && kind != Kind::CondWait && (!shared || kind == Kind::SemPost);
  if (shared && kind == Kind::SemWait && e->result == 0) {
    REAL(sem_trywait);
    real_sem_trywait(static_cast<sem_t*>(const_cast<void*>(op.object)));
  }
  return true;
}

void syncTurnDone(const inject::SyncTurn& turn, int result) {
  const auto* e = static_cast<const ScriptEvent*>(turn.event);
  if (!replaying() || !e) return;
  if (turn.real && result != e->result) {
    // Another thread holds the object outside the recorded order.
    Report r;
    r << "the program's " << syncCallName(static_cast<Kind>(e->kind), e->call_flags) << " returned " << result
      << " where the recording has: " << text(e);
    diverge(e, r.str());
    return;
  }
  consume(e);
}

bool waitForRecordedSignal(const char* what) {
  if (!replaying()) return false;
  const uint32_t segment = g.segment.load(std::memory_order_acquire);
  if (t_place.index < 0 || t_place.segment != segment) return false;  // a thread with no recorded call yet
  const int32_t index = t_place.index;
  const ScriptEvent* next = nextOf(index);
  if (!next) {
    // The thread's recording ended in this wait (or after it): the re-run
    // ends as recorded, or reports that the program went further.
    endOfThread(index, Kind::Signal, -1, what);
    return false;
  }
  // The signals recorded next are the ones that ended the wait.
  if (next->kind == static_cast<uint16_t>(Kind::Signal)) {
    deliverRecordedSignals(index);
    return replaying();
  }
  // Only a handler ends such a wait, and the recording has none run here:
  // the program waits where it did not (an endless wait, else).
  Report r;
  r << "the program waits for a signal in " << what << ", but the recording has no signal for it here; its next "
    << "event is: " << text(next);
  diverge(next, r.str());
  return false;
}

void deliverDueSignals() {
  if (!replaying()) return;
  const uint32_t segment = g.segment.load(std::memory_order_acquire);
  if (t_place.index < 0 || t_place.segment != segment) return;
  deliverRecordedSignals(t_place.index, true);
}

namespace {
std::atomic<bool> g_forked{false};  // a fork replayed: anonymous shared memory may be shared
}  // namespace

void consume(const ScriptEvent* e) {
  const int32_t index = static_cast<int32_t>(e->thread);
  g_cursor[index] = e->next_in_thread;
  radar_replay_last_number = e->number;
  radar_replay_last_local = e->counter;
  radar_replay_last_text = text(e);
  const auto me = static_cast<uint32_t>(e - g.events);
  if (e->kind == static_cast<uint16_t>(Kind::Fork) || e->kind == static_cast<uint16_t>(Kind::Vfork))
    g_forked.store(true, std::memory_order_relaxed);
  __atomic_fetch_or(&g_replayed[me / 64], uint64_t{1} << (me % 64), __ATOMIC_ACQ_REL);
  advancePrefix();
  if (isSyncEvent(me) && index < static_cast<int32_t>(kMaxThreads)) {
    __atomic_store_n(&g_last_sync[index], me + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&g_last_sync_order[index], __atomic_add_fetch(&g_sync_order, 1, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
  }
  const uint32_t consumed = __atomic_add_fetch(&radar_replay_consumed, 1, __ATOMIC_ACQ_REL);
  if (g.status) {
    __atomic_store_n(&g.status->consumed, consumed, __ATOMIC_RELAXED);
    __atomic_store_n(&g.status->last_number, e->number, __ATOMIC_RELAXED);
    const int64_t now = monotonicNs();
    if (consumed == 1) __atomic_store_n(&g.status->first_event_ns, now, __ATOMIC_RELAXED);
    __atomic_store_n(&g.status->last_event_ns, now, __ATOMIC_RELAXED);
  }
  publishNext(index);
  progress();
  holdUntilNext(index);
}

namespace {

bool isBlocked(int sig) {
  sigset_t now;
  sys::raw(SYS_rt_sigprocmask, SIG_BLOCK, 0, reinterpret_cast<long>(&now), _NSIG / 8);
  return sigismember(&now, sig) == 1;
}

// Signals whose handlers ran before the thread's next call returned: most
// often they interrupted it (EINTR follows), or arrived while the program
// held them blocked and ran when it unblocked them. They run again at the
// entry of that call or when the program unblocks them, whichever comes
// first (`unblocked_only`: only those it does not block now). False when
// the replay left the recording meanwhile.
bool deliverRecordedSignals(int32_t index, bool unblocked_only) {
  while (const ScriptEvent* next = nextOf(index)) {
    if (next->kind != static_cast<uint16_t>(Kind::Signal)) return true;
    const int sig = next->signal;
    if (unblocked_only && (!hasHandler(sig) || isBlocked(sig))) return true;
    if (!waitTurn(next)) return false;
    if (!hasHandler(sig)) {
      Report r;
      r << "the recording has the program's handler for signal " << sig << " run here, but the re-run has "
        << "no handler for it: " << text(next);
      diverge(next, r.str());
      return false;
    }
    consume(next);
    deliverSignal(sig);
    if (!replaying()) return false;
  }
  return true;
}

}  // namespace

// ---- what the recording does not have -------------------------------------------------------
//
// After a divergence: the inputs this process had that radar does not
// record, named as the probable cause. Memory shared with processes that
// do not run in the re-run comes first (a PostgreSQL backend reads what
// the others wrote there), then files looked for that are not there now,
// then clocks and random numbers read live when the recording was made
// without --nondet, then files read as they are now (those changed since
// the recorded process started).

namespace {

char g_scratch[65536];  // /proc/self/maps; used once, after a divergence
std::atomic<uint32_t> g_live_values{0};

// The path of a /proc/self/maps line, from its permissions on.
const char* path_of(const char* p, const char* end) {
  for (int field = 0; field < 4 && p < end; ++field) {
    while (p < end && *p != ' ') ++p;
    while (p < end && *p == ' ') ++p;
  }
  return p;
}

void sharedMemory(Report& r, bool* any) {
  const long fd = sys::openat(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return;
  size_t n = 0;
  for (long got; n < sizeof(g_scratch) - 1 &&
                 (got = sys::read(static_cast<int>(fd), g_scratch + n, sizeof(g_scratch) - 1 - n)) > 0;)
    n += static_cast<size_t>(got);
  sys::close(static_cast<int>(fd));
  g_scratch[n] = 0;
  uint64_t total = 0;
  int named = 0;
  Report names;
  for (const char* line = g_scratch; *line;) {
    const char* end = std::strchr(line, '\n');
    if (!end) break;
    const char* p = line;
    const uint64_t start = sys::parseHex(p);
    ++p;
    const uint64_t stop = sys::parseHex(p);
    ++p;
    const bool shared_writable = p[1] == 'w' && p[3] == 's';
    const bool ours =
        g.status && reinterpret_cast<uint64_t>(g.status) >= start && reinterpret_cast<uint64_t>(g.status) < stop;
    // Memory without a name is shared only through fork: with a parent
    // (this image was forked) or with children it made before.
    const bool anonymous = path_of(p, end)[0] != '/' || std::strncmp(path_of(p, end), "/dev/zero", 9) == 0;
    if (shared_writable && !ours &&
        (!anonymous || g.header->segment_count > 1 || g_forked.load(std::memory_order_relaxed))) {
      total += stop - start;
      const char* path = path_of(p, end);
      char name[160] = {};
      std::memcpy(name, path, std::min<size_t>(static_cast<size_t>(end - path), sizeof(name) - 1));
      const char* what = name;
      if (std::strncmp(name, "/dev/zero", 9) == 0 || name[0] == 0)
        what = "anonymous";
      else if (std::strncmp(name, "/SYSV", 5) == 0)
        what = "a SysV segment";
      if (named < 3) {
        names << (named ? ", " : "") << what << " (" << (stop - start) / 1024 << " KiB)";
        ++named;
      } else if (named == 3) {
        names << ", …";
        ++named;
      }
    }
    line = end + 1;
  }
  if (total == 0) return;
  r << "\n  probable cause, an input radar does not record: memory this process shares with others (" << names.str()
    << "): what they wrote there is not in the recording, and they do not run in the re-run";
  *any = true;
}

// The last files opened for reading, and the last looked for in vain.
struct NotedFiles {
  static constexpr int kSlots = 4;
  char path[kSlots][128];
  std::atomic<uint32_t> next{0};
};
NotedFiles g_read_files, g_missing_files;

void note(NotedFiles& list, const char* path) {
  for (int i = 0; i < NotedFiles::kSlots; ++i)
    if (std::strncmp(list.path[i], path, sizeof(list.path[i]) - 1) == 0) return;
  char* slot = list.path[list.next.fetch_add(1, std::memory_order_relaxed) % NotedFiles::kSlots];
  std::strncpy(slot, path, sizeof(list.path[0]) - 1);
}

// A file last changed before the recorded process started reads now as it
// read then: not a cause.
bool changedSinceRecorded(const struct stat& st) {
  const int64_t mtime = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  return !g.header->started_realtime_ns || mtime >= g.header->started_realtime_ns;
}

// A file missing now may have been there when recorded only if the
// directory that would hold it changed since (removing a name changes its
// directory); where that directory is missing too, the nearest one that is
// there says the same. A file missing then too (an optional ~/.digrc) is no
// cause.
bool mayHaveBeenThereWhenRecorded(const char* path) {
  char dir[sizeof(NotedFiles::path[0])];
  std::strncpy(dir, path, sizeof(dir) - 1);
  dir[sizeof(dir) - 1] = 0;
  for (;;) {
    char* slash = std::strrchr(dir, '/');
    if (!slash) {
      std::strcpy(dir, ".");  // relative to the working directory
    } else if (slash == dir) {
      dir[1] = 0;  // the root
    } else {
      *slash = 0;
    }
    struct stat st {};
    if (sys::stat(dir, &st) == 0) return changedSinceRecorded(st);
    if (!slash || slash == dir) return true;  // nothing there to tell
  }
}

void missingFiles(Report& r, bool* any) {
  Report names;
  int listed = 0;
  for (int i = 0; i < NotedFiles::kSlots; ++i) {
    const char* p = g_missing_files.path[i];
    if (!p[0] || !mayHaveBeenThereWhenRecorded(p)) continue;
    names << (listed++ ? ", " : "") << p;
  }
  if (!listed) return;
  r << "\n  " << (*any ? "also" : "probable cause") << ", files it looked for are not there now (" << names.str()
    << ")";
  *any = true;
}

// The directory it ran in, changed since it started: a name made or
// removed there since (a destination git clone finds already there) is
// seen as it is now.
void workingDirectory(Report& r, bool* any) {
  struct stat st {};
  char cwd[256] = {};
  const long n = sys::readlink("/proc/self/cwd", cwd, sizeof(cwd) - 1);
  if (n <= 0 || sys::stat(".", &st) != 0 || !changedSinceRecorded(st)) return;
  r << "\n  " << (*any ? "also" : "probable cause") << ", its working directory (" << cwd
    << ") changed since it was recorded: names made or removed there since are seen as they are now";
  *any = true;
}

void openFiles(Report& r, bool* any) {
  int listed = 0;
  Report names;
  for (int fd = 0; fd < 1024 && listed < 4; ++fd) {
    char link[32], path[256] = {};
    Report l;
    l << "/proc/self/fd/" << fd;
    std::strncpy(link, l.str(), sizeof(link) - 1);
    link[sizeof(link) - 1] = 0;
    const long n = sys::readlink(link, path, sizeof(path) - 1);
    if (n <= 0 || path[0] != '/' || std::strncmp(path, "/dev/", 5) == 0 || std::strncmp(path, "/proc/", 6) == 0)
      continue;
    struct stat st {};
    if (sys::fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || isChannelFd(fd) || !changedSinceRecorded(st)) continue;
    // Files it may read: not write-only ones, and a standard descriptor
    // (a harness's redirection) only once it was read from.
    const long flags = sys::raw(SYS_fcntl, fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY) continue;
    if (fd <= 2 && sys::raw(SYS_lseek, fd, 0, SEEK_CUR) <= 0) continue;
    names << (listed ? ", " : "") << path;
    ++listed;
  }
  // And those it opened and closed again.
  for (int i = 0; i < NotedFiles::kSlots; ++i) {
    const char* p = g_read_files.path[i];
    if (!p[0] || std::strstr(names.str(), p)) continue;
    struct stat st {};
    if (sys::stat(p, &st) == 0 && !changedSinceRecorded(st)) continue;
    names << (listed ? ", " : "") << p;
    ++listed;
  }
  if (!listed) return;
  r << "\n  " << (*any ? "also" : "probable cause") << ", files it read (" << names.str()
    << ") are read as they are now, not as they were";
  *any = true;
}

}  // namespace

void noteLiveValue() { g_live_values.fetch_add(1, std::memory_order_relaxed); }

void noteFileOpened(const char* path, int error) {
  if (!path || !path[0] || std::strncmp(path, "/proc/", 6) == 0 || std::strncmp(path, "/dev/", 5) == 0 ||
      std::strncmp(path, "/sys/", 5) == 0)
    return;
  const size_t n = std::strlen(path);
  // Libraries and locale data say nothing about what it received.
  if ((n > 3 && std::strcmp(path + n - 3, ".so") == 0) || std::strstr(path, ".so.") ||
      std::strncmp(path, "/usr/", 5) == 0 || std::strncmp(path, "/etc/ld.so", 10) == 0)
    return;
  if (error == 0)
    note(g_read_files, path);
  else if (error == ENOENT)
    note(g_missing_files, path);
}

void nameUnrecordedInputs(Report& r, bool any) {
  sharedMemory(r, &any);
  // A file it looked for in vain (its pid file, a lock) comes next; then
  // clocks and random numbers read live where the recording could have had
  // them (a random key, a timeout computed from the time); then files read
  // that changed since.
  missingFiles(r, &any);
  workingDirectory(r, &any);
  const uint32_t live = g_live_values.load(std::memory_order_relaxed);
  const bool nondet = g.header->flags & driver::kScriptNondet;
  if (live && !nondet) {
    r << "\n  " << (any ? "also" : "probable cause") << ", it read the clock, random numbers or its parent's pid "
      << live << " time" << (live > 1 ? "s" : "") << " live (recorded without --nondet, which records them)";
    any = true;
  }
  openFiles(r, &any);
  if (live && nondet)
    r << "\n  " << (any ? "also" : "possible cause") << ", it read the clock, random numbers or its parent's pid "
      << live << " time" << (live > 1 ? "s" : "") << " live, beyond what the recording has";
}

namespace {

// Where threads held to their recorded synchronization still went another
// way, the likely cause is memory one wrote and another read with no
// synchronization between (a flag, an atomic variable): named by the
// diverging thread's last synchronization and that of the other thread
// that synchronized last.
void nameUnsynchronizedAccess(Report& r, bool* any) {
  if (!(g.header->flags & driver::kScriptSync) || !threadsWereStarted()) return;
  const int32_t mine = t_place.index >= 0 && t_place.index < static_cast<int32_t>(kMaxThreads) ? t_place.index : -1;
  int32_t other = -1;
  uint32_t latest = 0;
  for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
    const uint32_t order = __atomic_load_n(&g_last_sync_order[i], __ATOMIC_RELAXED);
    if (static_cast<int32_t>(i) != mine && order > latest) latest = order, other = static_cast<int32_t>(i);
  }
  if (other < 0) return;
  r << "\n  " << (*any ? "also" : "probable cause")
    << ", memory one thread wrote and another read with no synchronization radar records between them (a flag, an "
       "atomic variable): ";
  *any = true;
  const uint32_t own = mine >= 0 ? __atomic_load_n(&g_last_sync[mine], __ATOMIC_RELAXED) : 0;
  if (own) r << "this thread last synchronized at: " << text(&g.events[own - 1]) << "; ";
  r << "the other thread to synchronize last, at: "
    << text(&g.events[__atomic_load_n(&g_last_sync[other], __ATOMIC_RELAXED) - 1]);
}

}  // namespace

namespace {
std::atomic<bool> g_diverging{false};

// A second thread that leaves the recording while the first tells why
// waits until the program runs on its own (a moment: never for ever).
void waitForDetach() {
  for (int ms = 0; ms < 2000 && !g.detached.load(std::memory_order_acquire); ++ms) {
    struct timespec pause = {0, 1000 * 1000};
    sys::raw(SYS_nanosleep, reinterpret_cast<long>(&pause), 0);
  }
}
}  // namespace

// The report is made before the program runs on its own: once detached,
// another thread could end the process before it is told.
void diverge(const ScriptEvent* e, const char* message) {
  if (g.detached.load(std::memory_order_acquire)) return;
  if (g_diverging.exchange(true)) return waitForDetach();
  Report r;
  r << "radar: the re-run of " << label() << " left the recording";
  if (e) r << " at event " << e->number << " (local " << e->counter << ")";
  r << ":\n  " << message;
  // A thread the re-run had to let out of its recorded order took another
  // schedule than the recording's: the likeliest cause of all.
  bool any = stallNoted();
  if (any) r << "\n  probable cause, another order of threads: " << g_stall_note;
  nameUnsynchronizedAccess(r, &any);
  nameUnrecordedInputs(r, any);
  copyReport(r.str(), ReplayOutcome::Diverged);
  detach();
  announce(radar_replay_diverged, r.str());
  if (g.exit_at_end) exitNow(driver::kDivergedExitStatus);
}

namespace {
std::atomic<uint32_t> g_threads_created{0};  // of the current segment's image
}  // namespace

uint32_t nextThreadOrdinal() { return g_threads_created.fetch_add(1, std::memory_order_relaxed) + 1; }
bool threadsWereStarted() { return g_threads_created.load(std::memory_order_relaxed) > 0; }
void returnThreadOrdinal() { g_threads_created.fetch_sub(1, std::memory_order_relaxed); }

void threadStarts(uint32_t ordinal) {
  if (!replaying()) return;
  const uint32_t segment = g.segment.load(std::memory_order_acquire);
  int32_t found = -1;
  {
    Lock lock;
    for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
      const uint32_t next = g_cursor[i];
      if (g.threads[i].segment != segment || g_player[i].load(std::memory_order_relaxed) || next == kNoEvent) continue;
      const ScriptEvent& e = g.events[next];
      if (e.kind == static_cast<uint16_t>(Kind::ThreadStart) && e.size == ordinal) {
        found = static_cast<int32_t>(i);
        g_player[i].store(tid(), std::memory_order_relaxed);
        t_place = {found, segment};
        break;
      }
    }
  }
  if (found < 0) {
    // Recorded as started after the fork this replay follows into the
    // child: not in the child. It waits for good at its first call.
    if (segment != g.last_segment) t_outside = true;
    return;  // else not recorded as such: its first call claims a thread
  }
  const ScriptEvent* e = nextOf(found);
  if (!arrive(e) || !waitTurn(e)) return;
  publishNext(found);
  checkStops(*e);
  consume(e);
}

namespace {
// The script thread a new thread of creation order `ordinal` will play, or -1.
int32_t recordedThread(uint32_t ordinal, uint32_t segment) {
  for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
    const ScriptThread& t = g.threads[i];
    if (t.segment != segment || t.first_event >= g.header->event_count) continue;
    const ScriptEvent& first = g.events[t.first_event];
    if (first.kind == static_cast<uint16_t>(Kind::ThreadStart) && first.size == ordinal) return static_cast<int32_t>(i);
  }
  return -1;
}

// Whether the next event to replay is a thread's that no thread plays yet,
// other than `newborn`: one the creator has still to start, going on.
bool nextIsUnborn(int32_t newborn) {
  const uint32_t p = __atomic_load_n(&g_prefix, __ATOMIC_ACQUIRE);
  if (p >= g.header->event_count) return false;
  const uint32_t owner = g.events[p].thread;
  return owner < kMaxThreads && static_cast<int32_t>(owner) != newborn &&
         !g_player[owner].load(std::memory_order_relaxed);
}
}  // namespace

// The creator waits, as between two calls, for the events recorded before
// its next one, the new thread's first steps among them -- unless those
// wait for a thread it has yet to create. A new thread takes a while to
// begin: its start is waited for as long as a call waits for its turn; what
// it does next, as briefly as any hold between two calls (it may wait for
// the creator's next step, made with no call).
void threadCreated(uint32_t ordinal) {
  if (!replaying()) return;
  const uint32_t segment = g.segment.load(std::memory_order_acquire);
  if (t_place.index < 0 || t_place.segment != segment) return;
  const uint32_t next = g_cursor[t_place.index];
  if (next == kNoEvent || !heldBefore(next)) return;
  const int32_t newborn = recordedThread(ordinal, segment);
  auto done = [&] { return replayedBefore(next) || nextIsUnborn(newborn); };
  if (newborn >= 0)
    waitFor([&] { return done() || isSet(g_replayed, g.threads[newborn].first_event); }, kIdleWaitMs, false);
  waitFor(done, kIdleHoldMs, false);
}

void branchToChild(const ScriptEvent* e) {
  Lock lock;
  g_threads_created.store(0, std::memory_order_relaxed);
  const uint32_t segment = e->segment + 1;
  g.segment.store(segment, std::memory_order_release);
  for (uint32_t i = 0; i < g.header->thread_count && i < kMaxThreads; ++i) {
    if (g.threads[i].segment == segment && g.threads[i].main) {
      g_player[i].store(tid(), std::memory_order_relaxed);
      t_place = {static_cast<int32_t>(i), segment};
      publishNext(static_cast<int32_t>(i));
      return;
    }
  }
}

namespace {

// The process ends: first every event before its end is replayed, its
// threads' last synchronizations too.
void waitForAllBefore(const ScriptEvent* e) {
  const auto mine = static_cast<uint32_t>(e - g.events);
  waitFor([&] { return __atomic_load_n(&radar_replay_consumed, __ATOMIC_ACQUIRE) >= mine; }, kIdleEndMs);
}

}  // namespace

void programExits(int status) {
  if (!replaying()) return;
  Report what;
  what << "exit(" << status << ")";
  const ScriptEvent* e = expect(Kind::Exit, -1, what.str());
  if (!e) return;
  waitForAllBefore(e);
  if (e->status != status) {
    Report r;
    r << "the program exits with status " << status << "; the recording has " << text(e);
    diverge(e, r.str());
    return;
  }
  consume(e);
  Report r;
  r << "radar: replayed " << static_cast<uint64_t>(radar_replay_consumed) << " of "
    << static_cast<uint64_t>(radar_replay_total) << " events; " << label() << " exits with status " << status;
  // Another thread's recorded events that the re-run never reached.
  const uint32_t consumed = __atomic_load_n(&radar_replay_consumed, __ATOMIC_ACQUIRE);
  const bool all = consumed >= radar_replay_total;
  if (!all)
    r << "; but " << static_cast<uint64_t>(radar_replay_total - consumed) << " recorded events were not replayed";
  const bool same = outputsAgree(r) && all;
  if (same) r << ", as recorded";
  appendStallNote(r);
  copyReport(r.str(), same ? ReplayOutcome::Complete : ReplayOutcome::Diverged);
  detach();
  announce(radar_replay_ended, r.str());
}

void imageExecs(const ScriptEvent* e) {
  Report r;
  r << "radar: replayed " << static_cast<uint64_t>(radar_replay_consumed) << " of "
    << static_cast<uint64_t>(radar_replay_total) << " events; " << label() << " execs here: " << text(e)
    << " (debug the new image as " << static_cast<int64_t>(g.header->recorded_pid) << "."
    << static_cast<uint64_t>(g.header->recorded_generation + 1) << ")";
  const bool same = outputsAgree(r);
  copyReport(r.str(), same ? ReplayOutcome::Complete : ReplayOutcome::Diverged);
  detach();
  announce(radar_replay_ended, r.str());
  exitNow(0);
}

namespace {

// `fd` copied to `want` only when `want` is free: the lowest free number
// from `want` on is `want` itself then, and no other thread's descriptor
// there can be replaced meanwhile (as a check and a dup3 would).
bool copyToFreeNumber(int fd, int want, bool cloexec) {
  const long r = sys::fcntl(fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, want);
  if (r == want) return true;
  if (r >= 0) sys::close(static_cast<int>(r));
  return false;
}

}  // namespace

// The holder is the thread whose next event closes the number (the number
// may have been made and closed again by others before its close returned),
// however far behind in the log: a thread that waited for a CPU between its
// close and the close's record, on a loaded machine, is counted many
// thousands of events late.
void releaseLateClose(const ScriptEvent* e, int fd) {
  const auto from = static_cast<uint32_t>(e - g.events);
  for (uint32_t t = 0; t < g.header->thread_count && t < kMaxThreads; ++t) {
    const uint32_t i = __atomic_load_n(&g_cursor[t], __ATOMIC_ACQUIRE);
    if (t == e->thread || i == kNoEvent || i <= from || i >= g.header->event_count) continue;
    const ScriptEvent& later = g.events[i];
    if (later.segment != e->segment || later.fd != fd || later.kind != static_cast<uint16_t>(Kind::Close)) continue;
    // Progress only when newly let go: two threads placing numbers, each
    // letting go every millisecond, would keep each other waiting.
    if (__atomic_exchange_n(&g_early_close[t], i + 1, __ATOMIC_ACQ_REL) != i + 1) progress();
    return;
  }
}

bool placeAt(int fd, int want, bool cloexec, const ScriptEvent* made_by) {
  if (fd == want) {
    if (cloexec) sys::fcntl(fd, F_SETFD, FD_CLOEXEC);
    return true;
  }
  bool placed = want >= 0 && copyToFreeNumber(fd, want, cloexec);
  // Another thread may hold the number for a moment: a file it reads
  // between two recorded calls, opened live, which in the recording it
  // opened and closed again before (or after) this call; or a close of it
  // the thread comes to only now, or a number another thread's call made
  // for a moment while it places its own. Waited for as long as the other
  // threads move (a loaded machine runs a thousand threads slowly), in
  // short sleeps, so that time stopped in a debugger does not count.
  Patience patience{kIdleWaitMs, /*before_call=*/false};
  while (!placed && want >= 0 && threadsWereStarted() && replaying()) {
    if (made_by) releaseLateClose(made_by, want);
    const uint32_t seen = __atomic_load_n(&g_progress, __ATOMIC_ACQUIRE);
    struct timespec pause = {0, 1000 * 1000};
    sys::raw(SYS_nanosleep, reinterpret_cast<long>(&pause), 0);
    placed = copyToFreeNumber(fd, want, cloexec);
    if (!placed && patience.exhausted(__atomic_load_n(&g_progress, __ATOMIC_ACQUIRE) != seen, 1)) break;
  }
  sys::close(fd);
  return placed;
}

// ---- start -----------------------------------------------------------------------

namespace {

const char* envValue(char** envp, const char* name) {
  const size_t n = std::strlen(name);
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return nullptr;
}

[[noreturn]] void failStart(const char* why) {
  Report r;
  r << "radar: cannot replay: " << why;
  copyReport(r.str(), ReplayOutcome::Failed);
  // Running the program unfed would let it reach the real network and its
  // real peers: stop instead.
  exitNow(127);
}

// Everything the hooks will trust, checked once (rerun/script_check.cc).
const char* validate() {
  ScriptTables t;
  if (const char* why = checkScript(g.base, g.size, kMaxThreads, &t)) return why;
  g.events = t.events;
  g.threads = t.threads;
  g.inherited = t.inherited;
  g.outputs = t.outputs;
  g.data = t.data;
  return nullptr;
}

// A descriptor the image inherited and that is not open now: something of
// the same kind stands in for it (the program may poll it or fcntl it;
// what it reads and writes comes from the script).
// Whether the stand-in goes over what radar debug left open there: a file
// the recorded process read from (`wc -l < file`), and a standard
// descriptor that was a device, not a file, terminal or channel
// (/dev/null): programs ask what their standard descriptors are -- CPython
// asks whether one is seekable, and seeks -- and take another path for
// another answer; what went there went nowhere to look at. A terminal,
// gdb's, or what stands for a file written to (its writes are compared,
// and shown) is kept otherwise.
bool replacesOpen(const ScriptFd& f) {
  return f.stand_in == StandIn::File || (f.stand_in == StandIn::Placeholder && !f.path.size && f.fd >= 0 && f.fd <= 2);
}

// Standard output that was a terminal is line-buffered, as stdio made it
// there, whatever holds descriptor 1 now (a pipe would be fully buffered:
// what the program prints would leave later than recorded).
void bufferedAsTerminal(const ScriptFd& f) {
  struct termios t;
  if (f.stand_in == StandIn::Terminal && f.fd == 1 && sys::raw(SYS_ioctl, 1, TCGETS, reinterpret_cast<long>(&t)) != 0)
    setvbuf(stdout, nullptr, _IOLBF, 0);
}

void standIn(const ScriptFd& f) {
  bufferedAsTerminal(f);
  if (!replacesOpen(f) && sys::fcntl(f.fd, F_GETFD) >= 0) return;
  long fd = -1;
  int pair[2];
  switch (f.stand_in) {
    case StandIn::PipeRead:
    case StandIn::PipeWrite:
      if (sys::raw(SYS_pipe2, reinterpret_cast<long>(pair), 0) == 0) {
        const bool read = f.stand_in == StandIn::PipeRead;
        sys::close(read ? pair[1] : pair[0]);
        fd = read ? pair[0] : pair[1];
      }
      break;
    case StandIn::Socket:
      fd = sys::raw(SYS_socket, f.domain, f.type, f.protocol);
      if (fd < 0 && sys::raw(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, reinterpret_cast<long>(pair)) == 0) {
        sys::close(pair[1]);
        fd = pair[0];
      }
      break;
    case StandIn::File:  // read as it is now, from where the recorded process stood
      fd = sys::openat(AT_FDCWD, static_cast<const char*>(blob(f.path)), O_RDONLY, 0);
      if (fd >= 0 && sys::raw(SYS_lseek, fd, static_cast<long>(f.offset), SEEK_SET) < 0) {
        sys::close(static_cast<int>(fd));
        fd = -1;
      }
      if (fd < 0) fd = sys::openat(AT_FDCWD, "/dev/null", O_RDONLY, 0);
      break;
    case StandIn::EventFd:  // never ready by itself: what is read comes from the recording
      fd = sys::raw(SYS_eventfd2, 0, 0);
      break;
    case StandIn::Placeholder:
    case StandIn::Null:
    case StandIn::Terminal:
      fd = sys::openat(AT_FDCWD, "/dev/null", static_cast<int>(f.access & O_ACCMODE), 0);
      break;
  }
  if (fd < 0) return;
  if (replacesOpen(f) && fd != f.fd) {  // over what is open there
    sys::raw(SYS_dup3, fd, f.fd, 0);
    sys::close(static_cast<int>(fd));
    return;
  }
  placeAt(static_cast<int>(fd), f.fd, false);
}

__attribute__((constructor(101))) void replayStart(int, char**, char** envp) {
  const char* script = envValue(envp, driver::kScriptEnv);
  if (!script) return;  // loaded without a script: nothing to do
  if (const char* status = envValue(envp, driver::kStatusEnv)) {
    const long fd = sys::openat(AT_FDCWD, status, O_RDWR | O_CLOEXEC, 0);
    if (fd >= 0) {
      const long m = sys::mmapAside(sizeof(ScriptStatus), PROT_READ | PROT_WRITE, MAP_SHARED, static_cast<int>(fd), 0);
      if (m >= 0 || m < -4095) {
        g.status = reinterpret_cast<ScriptStatus*>(m);
        g.status->started_ns = monotonicNs();
      }
      sys::close(static_cast<int>(fd));
    }
  }
  const char* exit_at_end = envValue(envp, driver::kExitAtEndEnv);
  g.exit_at_end = exit_at_end && exit_at_end[0] == '1';
  const char* sandboxed = envValue(envp, driver::kSandboxedEnv);
  g.sandboxed = sandboxed && sandboxed[0] == '1';
  const char* sigstop = envValue(envp, "RADAR_REPLAY_SIGSTOP");
  g.sigstop_at_stop = sigstop && sigstop[0] == '1';
  if (const char* stop = envValue(envp, "RADAR_REPLAY_STOP_AT")) {
    uint64_t n = 0;
    for (; *stop >= '0' && *stop <= '9'; ++stop) n = n * 10 + static_cast<uint64_t>(*stop - '0');
    radar_replay_stop_at_number = n;
  }

  const long fd = sys::openat(AT_FDCWD, script, O_RDONLY | O_CLOEXEC, 0);
  struct stat st {};
  if (fd < 0 || sys::fstat(static_cast<int>(fd), &st) < 0) failStart("the replay script cannot be opened");
  g.size = static_cast<size_t>(st.st_size);
  const long m =
      g.size ? sys::mmapAside(g.size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, static_cast<int>(fd), 0) : -EINVAL;
  sys::close(static_cast<int>(fd));
  if (m < 0 && m > -4096) failStart("the replay script cannot be mapped");
  g.base = reinterpret_cast<const uint8_t*>(m);
  g.header = reinterpret_cast<const ScriptHeader*>(g.base);
  if (const char* why = validate()) failStart(why);
  g.last_segment = g.header->segment_count - 1;
  radar_replay_total = g.header->event_count;
  {
    const size_t words = g.header->event_count / 64 + 1;
    const long a =
        sys::mmapAside(2 * words * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a < 0 && a > -4096) failStart("no memory for the replay's bookkeeping");
    g_arrived = reinterpret_cast<uint64_t*>(a);
    g_replayed = g_arrived + words;
    advancePrefix();  // past the synchronizations it starts with
  }

  // Standard descriptors the recorded program started without: closed, so
  // that the numbers it gets are the recorded ones (its reports then go to
  // the status file only, never into a file that took number 2).
  for (int standard = 0; standard < 3; ++standard)
    if (g.header->closed_at_start & (1u << standard)) sys::close(standard);
  for (uint32_t i = 0; i < g.header->inherited_count; ++i) {
    standIn(g.inherited[i]);
    // A redirected input is read as it is now: a cause, should it differ.
    if (g.inherited[i].stand_in == StandIn::File)
      noteFileOpened(static_cast<const char*>(blob(g.inherited[i].path)), 0);
    if (g.inherited[i].stand_in == StandIn::Placeholder && !g.inherited[i].path.size)
      noteForeignDescriptor(g.inherited[i].fd);
    if (g.inherited[i].stand_in == StandIn::Placeholder && g.inherited[i].path.size)
      noteStandInForFile(g.inherited[i].fd);
    if (g.inherited[i].stand_in == StandIn::Placeholder || g.inherited[i].stand_in == StandIn::File) continue;
    setChannelFd(g.inherited[i].fd, true);
    setSocketNames(g.inherited[i].fd, &g.inherited[i].names);
  }
  for (uint32_t i = 0; i < g.header->thread_count; ++i) {
    g_cursor[i] = g.threads[i].first_event;
    if (g.threads[i].segment == 0 && g.threads[i].main) {
      g_player[i].store(tid());
      t_place = {static_cast<int32_t>(i), 0};
    }
  }
  // The program is shown the LD_PRELOAD it was recorded with (a string
  // only: what was loaded is this library).
  if (const char* shown = envValue(envp, driver::kShownPreloadEnv);
      shown && std::strncmp(shown, "LD_PRELOAD=", 11) == 0)
    for (char** e = envp; *e; ++e)
      if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0) {
        g.real_preload = *e;
        g.shown_preload = const_cast<char*>(shown);
        *e = g.shown_preload;
        break;
      }
  // Our variables are not the program's.
  unsetenv(driver::kShownPreloadEnv);
  unsetenv(driver::kScriptEnv);
  unsetenv(driver::kStatusEnv);
  unsetenv(driver::kExitAtEndEnv);
  unsetenv(driver::kSandboxedEnv);
  unsetenv("RADAR_REPLAY_STOP_AT");
  unsetenv("RADAR_REPLAY_SIGSTOP");
  patchStdio();
  g.started = true;
  if (t_place.index >= 0) publishNext(t_place.index);
}

// Returning from main and exit() end here, after the program's atexit
// handlers; stdio is flushed first, as the recorder did, so that what it
// held is replayed before the exit.
__attribute__((destructor(101))) void replayEnd() {
  if (!replaying()) return;
  fflush(nullptr);
  programExits(g.exit_noted ? g.exit_status : 0);
}

}  // namespace

void noteExitStatus(int status) {
  g.exit_noted = true;
  g.exit_status = status;
}

}  // namespace radar::rerun
