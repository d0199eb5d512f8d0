// Hooks on synchronization through memory: locks, semaphores, condition
// variables, barriers. Each calls the real function unchanged (recorded, a
// lock or wait that may block is first tried with its non-blocking twin:
// TriesFirst); when the library records synchronization (radar record
// --sync) it numbers the operation on its object (inject/library.h,
// syncTake) at the moment that makes the numbers the order the operations
// happened in:
//   * an acquisition (a lock, a wait that returned) once it has returned:
//     nobody else can take the object's next number before it is done;
//   * a release (an unlock, a post, a signal or broadcast) as it begins:
//     what it lets go on -- a lock, a woken wait -- numbers itself after
//     it, even when it runs before the release has returned.
// The re-run of such a recording holds each operation to its turn in that
// order (inject/library.h, syncTurn) and answers from the recording what
// the re-run cannot do for real.
// The real functions are the next definitions (REAL): a sanitizer's
// runtime may stand before the C library's. Not glibc's other names for
// them (__pthread_mutex_lock ...): a sanitizer intercepts those too, with
// no real function behind its interceptor (they are versioned, and its
// dlsym finds none), and the program would call address 0.
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include <cstdint>
#include <cstring>

#include "inject/hook.h"
#include "inject/library.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

using radar::log::Kind;
namespace inject = radar::inject;

namespace {

using radar::log::kSyncBroadcast;
using radar::log::kSyncRead;
using radar::log::kSyncRwlock;
using radar::log::kSyncSerial;
using radar::log::kSyncSpin;
using radar::log::kSyncTimed;
using radar::log::kSyncTry;

// Whether an object is process-shared, from glibc's own fields (x86-64,
// glibc 2.26 on): its futex is then a shared one, and so is its number.
bool sharedMutex(const pthread_mutex_t* m) { return (m->__data.__kind & 128) != 0; }  // PTHREAD_MUTEX_PSHARED_BIT
bool sharedRwlock(const pthread_rwlock_t* l) { return l->__data.__shared != 0; }
bool sharedCond(const pthread_cond_t* c) { return (c->__data.__wrefs & 1) != 0; }
// glibc keeps a semaphore's and a barrier's sharing as the futex flag its
// waits use: FUTEX_PRIVATE (0) or FUTEX_SHARED (128).
bool sharedSem(const sem_t* s) {  // struct new_sem: uint64 data, int private
  int futex_flag;
  std::memcpy(&futex_flag, reinterpret_cast<const char*>(s) + 8, sizeof futex_flag);
  return futex_flag != 0;
}
bool sharedBarrier(const pthread_barrier_t* b) {  // struct pthread_barrier: in, round, count, shared
  int futex_flag;
  std::memcpy(&futex_flag, reinterpret_cast<const char*>(b) + 12, sizeof futex_flag);
  return futex_flag != 0;
}

inject::SyncOp op(Kind kind, const void* object, bool shared, uint32_t flags) {
  inject::SyncOp o;
  o.kind = kind;
  o.object = object;
  o.shared = shared;
  o.flags = flags;
  return o;
}

// A call that does not block is told at one instant: one clock read (the
// reads are most of what a recorded uncontended lock costs).
void stamp(inject::SyncOp& o) { o.entry = o.returned = inject::syncClock(); }

// Runs `real`, said to be waiting in `o` meanwhile.
template <typename Real>
int waiting(inject::SyncOp& o, Real real) {
  o.entry = inject::syncClock();
  inject::syncWaits(o);
  const int r = real();
  inject::syncWaited();
  o.returned = inject::syncClock();
  return r;
}

// An acquisition returned `r` (0: acquired, else an error number): numbered and told.
int acquired(const inject::SyncOp& o, int r) {
  inject::syncDone(o, r == 0 ? inject::syncTake(o.object, o.shared) : 0, r);
  return r;
}

// How each kind of call is recorded, given the operation and the real call.
struct Waits {  // an acquisition that may block
  template <typename Real>
  int operator()(inject::SyncOp o, Real real) const {
    return acquired(o, waiting(o, real));
  }
};
struct Tries {  // one that does not
  template <typename Real>
  int operator()(inject::SyncOp o, Real real) const {
    const int r = real();
    stamp(o);
    return acquired(o, r);
  }
};
// An acquisition that may block, tried first without blocking: the call
// that would not have blocked (most) is done by its non-blocking twin, which
// the C library makes the same way (its fast path), and is told at one
// instant; only one that finds the object taken waits for real.
template <typename Attempt>
struct TriesFirst {
  Attempt attempt;  // 0 or an error number, `busy` when the object is taken
  int busy;
  template <typename Real>
  int operator()(inject::SyncOp o, Real real) const {
    const int r = attempt();
    if (r == busy) return Waits{}(o, real);
    stamp(o);
    return acquired(o, r);
  }
};
template <typename Attempt>
TriesFirst<Attempt> triesFirst(Attempt attempt, int busy) {
  return {attempt, busy};
}
struct Releases {  // numbered as it begins
  template <typename Real>
  int operator()(inject::SyncOp o, Real real) const {
    stamp(o);
    const uint64_t number = inject::syncTake(o.object, o.shared);
    const int r = real();
    inject::syncDone(o, number, r);
    return r;
  }
};
template <typename Policy>
struct SemWaits {  // a semaphore's wait knows the number it began at
  Policy policy;
  template <typename Real>
  int operator()(inject::SyncOp o, Real real) const {
    o.since = inject::syncNow(o.object, o.shared);
    return policy(o, real);
  }
};
template <typename Policy>
SemWaits<Policy> semWaits(Policy policy) {
  return {policy};
}

// The re-run: the call made in its recorded turn, or answered from the
// recording.
template <typename Real>
int inTurn(const inject::SyncOp& o, Real real) {
  inject::SyncTurn t;
  if (!inject::syncTurn(o, &t)) return real();
  const int r = t.real ? real() : t.result;
  inject::syncTurnDone(t, r);
  return r;
}

// Every hook but a condition wait's and a barrier's: `real` returns 0 or
// an error number.
template <typename Real, typename Recorded>
int hooked(Kind kind, const void* object, bool shared, uint32_t flags, Real real, Recorded recorded) {
  switch (inject::syncMode()) {
    case inject::SyncMode::Off:
      return real();
    case inject::SyncMode::Replay:
      return inTurn(op(kind, object, shared, flags), real);
    case inject::SyncMode::Record:
      break;
  }
  return recorded(op(kind, object, shared, flags), real);
}

// sem_wait and friends return -1 and set errno: as an error number, and back.
template <typename Call>
auto errorNumber(Call call) {
  return [call] { return call() == 0 ? 0 : errno; };
}
int semResult(int error) {
  if (!error) return 0;
  errno = error;
  return -1;
}

// A condition wait: the mutex is released as the wait begins and taken
// again before it returns, inside the C library, where no hook sees it.
template <typename Real>
int condWaitRecorded(pthread_cond_t* c, pthread_mutex_t* m, uint32_t flags, Real real) {
  inject::SyncOp unlock = op(Kind::MutexUnlock, m, sharedMutex(m), 0);
  stamp(unlock);
  inject::syncDone(unlock, inject::syncTake(m, unlock.shared), 0);
  inject::SyncOp wait = op(Kind::CondWait, c, sharedCond(c), flags);
  wait.since = inject::syncNow(c, wait.shared);
  const int r = waiting(wait, real);
  inject::SyncOp lock = op(Kind::MutexLock, m, unlock.shared, 0);
  lock.entry = lock.returned = wait.returned;
  const uint64_t relocked = inject::syncTake(m, unlock.shared);
  inject::syncDone(wait, inject::syncTake(c, wait.shared), r);
  inject::syncDone(lock, relocked, 0);
  return r;
}

// The re-run of a condition wait: the mutex let go, the wait over at its
// recorded turn (after the signal that ended it), the mutex taken back; no
// real wait, which could miss a wake-up the order already gave. Where the
// re-run leaves the recording midway, the wait ends as a spurious wake-up.
template <typename Real>
int condWaitInTurn(pthread_cond_t* c, pthread_mutex_t* m, uint32_t flags, Real real) {
  REAL(pthread_mutex_unlock);
  REAL(pthread_mutex_lock);
  const bool shared = sharedMutex(m);
  inject::SyncTurn t;
  if (!inject::syncTurn(op(Kind::MutexUnlock, m, shared, 0), &t)) return real();
  inject::syncTurnDone(t, t.real ? real_pthread_mutex_unlock(m) : t.result);
  int r = 0;
  if (inject::syncTurn(op(Kind::CondWait, c, sharedCond(c), flags), &t)) {
    r = t.result;
    inject::syncTurnDone(t, r);
  }
  inTurn(op(Kind::MutexLock, m, shared, 0), [&] { return real_pthread_mutex_lock(m); });
  return r;
}

template <typename Real>
int condWait(pthread_cond_t* c, pthread_mutex_t* m, uint32_t flags, Real real) {
  switch (inject::syncMode()) {
    case inject::SyncMode::Off:
      return real();
    case inject::SyncMode::Replay:
      return condWaitInTurn(c, m, flags, real);
    case inject::SyncMode::Record:
      break;
  }
  return condWaitRecorded(c, m, flags, real);
}

// A barrier: every party waits for the others for real (a turn before it
// would keep the others out); which one is the serial thread is the
// recording's answer.
int barrierInTurn(pthread_barrier_t* b, int (*real)(pthread_barrier_t*)) {
  inject::SyncTurn t;
  if (!inject::syncTurn(op(Kind::BarrierWait, b, sharedBarrier(b), 0), &t)) return real(b);
  int r = t.real ? real(b) : t.result;
  if (r == PTHREAD_BARRIER_SERIAL_THREAD) r = 0;
  inject::syncTurnDone(t, r);
  return t.result == 0 && (t.flags & kSyncSerial) ? PTHREAD_BARRIER_SERIAL_THREAD : t.result;
}

int barrierRecorded(pthread_barrier_t* b, int (*real)(pthread_barrier_t*)) {
  inject::SyncOp o = op(Kind::BarrierWait, b, sharedBarrier(b), 0);
  std::memcpy(&o.parties, reinterpret_cast<const char*>(b) + 8, sizeof o.parties);  // its count
  o.since = inject::syncTake(b, o.shared);                                          // its arrival
  const int r = waiting(o, [&] { return real(b); });
  // The one thread told it is the serial one passed like the others.
  const bool serial = r == PTHREAD_BARRIER_SERIAL_THREAD;
  if (serial) o.flags |= kSyncSerial;
  inject::syncDone(o, r == 0 || serial ? inject::syncTake(b, o.shared) : 0, serial ? 0 : r);
  return r;
}

}  // namespace

// ==== mutexes and read-write locks ===============================================

HOOK int pthread_mutex_lock(pthread_mutex_t* m) {
  REAL(pthread_mutex_lock);
  REAL(pthread_mutex_trylock);
  return hooked(
      Kind::MutexLock, m, sharedMutex(m), 0, [&] { return real_pthread_mutex_lock(m); },
      triesFirst([&] { return real_pthread_mutex_trylock(m); }, EBUSY));
}

HOOK int pthread_mutex_trylock(pthread_mutex_t* m) {
  REAL(pthread_mutex_trylock);
  return hooked(
      Kind::MutexLock, m, sharedMutex(m), kSyncTry, [&] { return real_pthread_mutex_trylock(m); }, Tries{});
}

HOOK int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* until) {
  REAL(pthread_mutex_timedlock);
  return hooked(
      Kind::MutexLock, m, sharedMutex(m), kSyncTimed, [&] { return real_pthread_mutex_timedlock(m, until); }, Waits{});
}

HOOK int pthread_mutex_unlock(pthread_mutex_t* m) {
  REAL(pthread_mutex_unlock);
  return hooked(
      Kind::MutexUnlock, m, sharedMutex(m), 0, [&] { return real_pthread_mutex_unlock(m); }, Releases{});
}

HOOK int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_rdlock);
  REAL(pthread_rwlock_tryrdlock);
  return hooked(
      Kind::MutexLock, l, sharedRwlock(l), kSyncRwlock | kSyncRead, [&] { return real_pthread_rwlock_rdlock(l); },
      triesFirst([&] { return real_pthread_rwlock_tryrdlock(l); }, EBUSY));
}

HOOK int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_wrlock);
  REAL(pthread_rwlock_trywrlock);
  return hooked(
      Kind::MutexLock, l, sharedRwlock(l), kSyncRwlock, [&] { return real_pthread_rwlock_wrlock(l); },
      triesFirst([&] { return real_pthread_rwlock_trywrlock(l); }, EBUSY));
}

HOOK int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_tryrdlock);
  return hooked(
      Kind::MutexLock, l, sharedRwlock(l), kSyncRwlock | kSyncRead | kSyncTry,
      [&] { return real_pthread_rwlock_tryrdlock(l); }, Tries{});
}

HOOK int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_trywrlock);
  return hooked(
      Kind::MutexLock, l, sharedRwlock(l), kSyncRwlock | kSyncTry, [&] { return real_pthread_rwlock_trywrlock(l); },
      Tries{});
}

HOOK int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* until) {
  REAL(pthread_rwlock_timedrdlock);
  return hooked(
      Kind::MutexLock, l, sharedRwlock(l), kSyncRwlock | kSyncRead | kSyncTimed,
      [&] { return real_pthread_rwlock_timedrdlock(l, until); }, Waits{});
}

HOOK int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* until) {
  REAL(pthread_rwlock_timedwrlock);
  return hooked(
      Kind::MutexLock, l, sharedRwlock(l), kSyncRwlock | kSyncTimed,
      [&] { return real_pthread_rwlock_timedwrlock(l, until); }, Waits{});
}

HOOK int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_unlock);
  return hooked(
      Kind::MutexUnlock, l, sharedRwlock(l), kSyncRwlock, [&] { return real_pthread_rwlock_unlock(l); }, Releases{});
}

// ==== spin locks: the order only ===================================================

HOOK int pthread_spin_lock(pthread_spinlock_t* s) {
  REAL(pthread_spin_lock);
  REAL(pthread_spin_trylock);
  return hooked(
      Kind::MutexLock, const_cast<int*>(s), false, kSyncSpin, [&] { return real_pthread_spin_lock(s); },
      triesFirst([&] { return real_pthread_spin_trylock(s); }, EBUSY));
}

HOOK int pthread_spin_trylock(pthread_spinlock_t* s) {
  REAL(pthread_spin_trylock);
  return hooked(
      Kind::MutexLock, const_cast<int*>(s), false, kSyncSpin | kSyncTry, [&] { return real_pthread_spin_trylock(s); },
      Tries{});
}

HOOK int pthread_spin_unlock(pthread_spinlock_t* s) {
  REAL(pthread_spin_unlock);
  return hooked(
      Kind::MutexUnlock, const_cast<int*>(s), false, kSyncSpin, [&] { return real_pthread_spin_unlock(s); },
      Releases{});
}

// ==== semaphores ===================================================================

HOOK int sem_wait(sem_t* s) {
  REAL(sem_wait);
  REAL(sem_trywait);
  // sem_wait acts on a pending cancellation even when it would not block;
  // its non-blocking twin does not, and leaves errno set when it fails.
  auto attempt = [s] {
    pthread_testcancel();
    const int saved = errno;
    const int r = real_sem_trywait(s) == 0 ? 0 : errno;
    errno = saved;
    return r;
  };
  return semResult(hooked(Kind::SemWait, s, sharedSem(s), 0, errorNumber([s] { return real_sem_wait(s); }),
                          semWaits(triesFirst(attempt, EAGAIN))));
}

HOOK int sem_trywait(sem_t* s) {
  REAL(sem_trywait);
  return semResult(hooked(Kind::SemWait, s, sharedSem(s), kSyncTry, errorNumber([s] { return real_sem_trywait(s); }),
                          semWaits(Tries{})));
}

HOOK int sem_timedwait(sem_t* s, const struct timespec* until) {
  REAL(sem_timedwait);
  return semResult(hooked(Kind::SemWait, s, sharedSem(s), kSyncTimed,
                          errorNumber([s, until] { return real_sem_timedwait(s, until); }), semWaits(Waits{})));
}

HOOK int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* until) {
  REAL(sem_clockwait);
  return semResult(hooked(Kind::SemWait, s, sharedSem(s), kSyncTimed,
                          errorNumber([s, clock, until] { return real_sem_clockwait(s, clock, until); }),
                          semWaits(Waits{})));
}

HOOK int sem_post(sem_t* s) {
  REAL(sem_post);
  return semResult(
      hooked(Kind::SemPost, s, sharedSem(s), 0, errorNumber([s] { return real_sem_post(s); }), Releases{}));
}

// ==== condition variables ==========================================================

HOOK int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  REAL(pthread_cond_wait);
  return condWait(c, m, 0, [&] { return real_pthread_cond_wait(c, m); });
}

HOOK int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* until) {
  REAL(pthread_cond_timedwait);
  return condWait(c, m, kSyncTimed, [&] { return real_pthread_cond_timedwait(c, m, until); });
}

HOOK int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const struct timespec* until) {
  REAL(pthread_cond_clockwait);
  return condWait(c, m, kSyncTimed, [&] { return real_pthread_cond_clockwait(c, m, clock, until); });
}

HOOK int pthread_cond_signal(pthread_cond_t* c) {
  REAL(pthread_cond_signal);
  return hooked(
      Kind::CondSignal, c, sharedCond(c), 0, [&] { return real_pthread_cond_signal(c); }, Releases{});
}

HOOK int pthread_cond_broadcast(pthread_cond_t* c) {
  REAL(pthread_cond_broadcast);
  return hooked(
      Kind::CondSignal, c, sharedCond(c), kSyncBroadcast, [&] { return real_pthread_cond_broadcast(c); }, Releases{});
}

// ==== barriers =====================================================================

HOOK int pthread_barrier_wait(pthread_barrier_t* b) {
  REAL(pthread_barrier_wait);
  switch (inject::syncMode()) {
    case inject::SyncMode::Off:
      return real_pthread_barrier_wait(b);
    case inject::SyncMode::Replay:
      return barrierInTurn(b, real_pthread_barrier_wait);
    case inject::SyncMode::Record:
      break;
  }
  return barrierRecorded(b, real_pthread_barrier_wait);
}
