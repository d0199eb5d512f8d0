// Hooks on synchronization through memory: locks, semaphores, condition
// variables, barriers. Each calls the real function unchanged; when the
// library follows synchronization (radar record --sync) it numbers the
// operation on its object (inject/library.h, syncTake) at the moment that
// makes the numbers the order the operations happened in:
//   * an acquisition (a lock, a wait that returned) once it has returned:
//     nobody else can take the object's next number before it is done;
//   * a release (an unlock, a post, a signal or broadcast) as it begins:
//     what it lets go on -- a lock, a woken wait -- numbers itself after
//     it, even when it runs before the release has returned.
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

// MUTEX_LOCK's flags (proto/radarlog.proto).
constexpr uint32_t kTry = 1, kTimed = 2, kRead = 4, kSpin = 8, kRwlock = 16, kBroadcast = 32, kSerial = 64;

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
  o.entry = inject::syncClock();
  return o;
}

// Runs `real`, said to be waiting in `o` meanwhile.
template <typename Real>
int waiting(const inject::SyncOp& o, Real real) {
  inject::syncWaits(o);
  const int r = real();
  inject::syncWaited();
  return r;
}

// An acquisition returned `r` (0: acquired): numbered and told.
int acquired(inject::SyncOp o, int r) {
  inject::syncDone(o, r == 0 ? inject::syncTake(o.object, o.shared) : 0, r);
  return r;
}

// A release, numbered as it begins.
template <typename Real>
int released(inject::SyncOp o, Real real) {
  const uint64_t number = inject::syncTake(o.object, o.shared);
  const int r = real();
  inject::syncDone(o, number, r);
  return r;
}

// sem_wait and friends return -1 with errno; errno stays theirs.
int semAcquired(inject::SyncOp o, int r) {
  const int saved = errno;
  inject::syncDone(o, r == 0 ? inject::syncTake(o.object, o.shared) : 0, r == 0 ? 0 : saved);
  errno = saved;
  return r;
}

// A condition wait: the mutex is released as the wait begins and taken
// again before it returns, inside the C library, where no hook sees it.
template <typename Real>
int condWait(pthread_cond_t* c, pthread_mutex_t* m, uint32_t flags, Real real) {
  inject::SyncOp unlock = op(Kind::MutexUnlock, m, sharedMutex(m), 0);
  inject::syncDone(unlock, inject::syncTake(m, unlock.shared), 0);
  inject::SyncOp wait = op(Kind::CondWait, c, sharedCond(c), flags);
  wait.since = inject::syncNow(c, wait.shared);
  const int r = waiting(wait, real);
  inject::SyncOp lock = op(Kind::MutexLock, m, unlock.shared, 0);
  const uint64_t relocked = inject::syncTake(m, unlock.shared);
  inject::syncDone(wait, inject::syncTake(c, wait.shared), r);
  inject::syncDone(lock, relocked, 0);
  return r;
}

}  // namespace

// ==== mutexes and read-write locks ===============================================

HOOK int pthread_mutex_lock(pthread_mutex_t* m) {
  REAL(pthread_mutex_lock);
  if (!inject::followsSync()) return real_pthread_mutex_lock(m);
  const inject::SyncOp o = op(Kind::MutexLock, m, sharedMutex(m), 0);
  return acquired(o, waiting(o, [&] { return real_pthread_mutex_lock(m); }));
}

HOOK int pthread_mutex_trylock(pthread_mutex_t* m) {
  REAL(pthread_mutex_trylock);
  if (!inject::followsSync()) return real_pthread_mutex_trylock(m);
  const inject::SyncOp o = op(Kind::MutexLock, m, sharedMutex(m), kTry);
  return acquired(o, real_pthread_mutex_trylock(m));
}

HOOK int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* until) {
  REAL(pthread_mutex_timedlock);
  if (!inject::followsSync()) return real_pthread_mutex_timedlock(m, until);
  const inject::SyncOp o = op(Kind::MutexLock, m, sharedMutex(m), kTimed);
  return acquired(o, waiting(o, [&] { return real_pthread_mutex_timedlock(m, until); }));
}

HOOK int pthread_mutex_unlock(pthread_mutex_t* m) {
  REAL(pthread_mutex_unlock);
  if (!inject::followsSync()) return real_pthread_mutex_unlock(m);
  return released(op(Kind::MutexUnlock, m, sharedMutex(m), 0), [&] { return real_pthread_mutex_unlock(m); });
}

HOOK int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_rdlock);
  if (!inject::followsSync()) return real_pthread_rwlock_rdlock(l);
  const inject::SyncOp o = op(Kind::MutexLock, l, sharedRwlock(l), kRwlock | kRead);
  return acquired(o, waiting(o, [&] { return real_pthread_rwlock_rdlock(l); }));
}

HOOK int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_wrlock);
  if (!inject::followsSync()) return real_pthread_rwlock_wrlock(l);
  const inject::SyncOp o = op(Kind::MutexLock, l, sharedRwlock(l), kRwlock);
  return acquired(o, waiting(o, [&] { return real_pthread_rwlock_wrlock(l); }));
}

HOOK int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_tryrdlock);
  if (!inject::followsSync()) return real_pthread_rwlock_tryrdlock(l);
  const inject::SyncOp o = op(Kind::MutexLock, l, sharedRwlock(l), kRwlock | kRead | kTry);
  return acquired(o, real_pthread_rwlock_tryrdlock(l));
}

HOOK int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_trywrlock);
  if (!inject::followsSync()) return real_pthread_rwlock_trywrlock(l);
  const inject::SyncOp o = op(Kind::MutexLock, l, sharedRwlock(l), kRwlock | kTry);
  return acquired(o, real_pthread_rwlock_trywrlock(l));
}

HOOK int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* until) {
  REAL(pthread_rwlock_timedrdlock);
  if (!inject::followsSync()) return real_pthread_rwlock_timedrdlock(l, until);
  const inject::SyncOp o = op(Kind::MutexLock, l, sharedRwlock(l), kRwlock | kRead | kTimed);
  return acquired(o, waiting(o, [&] { return real_pthread_rwlock_timedrdlock(l, until); }));
}

HOOK int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* until) {
  REAL(pthread_rwlock_timedwrlock);
  if (!inject::followsSync()) return real_pthread_rwlock_timedwrlock(l, until);
  const inject::SyncOp o = op(Kind::MutexLock, l, sharedRwlock(l), kRwlock | kTimed);
  return acquired(o, waiting(o, [&] { return real_pthread_rwlock_timedwrlock(l, until); }));
}

HOOK int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  REAL(pthread_rwlock_unlock);
  if (!inject::followsSync()) return real_pthread_rwlock_unlock(l);
  const inject::SyncOp o = op(Kind::MutexUnlock, l, sharedRwlock(l), kRwlock);
  return released(o, [&] { return real_pthread_rwlock_unlock(l); });
}

// ==== spin locks: the order only ===================================================

HOOK int pthread_spin_lock(pthread_spinlock_t* s) {
  REAL(pthread_spin_lock);
  if (!inject::followsSync()) return real_pthread_spin_lock(s);
  const inject::SyncOp o = op(Kind::MutexLock, const_cast<int*>(s), false, kSpin);
  return acquired(o, waiting(o, [&] { return real_pthread_spin_lock(s); }));
}

HOOK int pthread_spin_trylock(pthread_spinlock_t* s) {
  REAL(pthread_spin_trylock);
  if (!inject::followsSync()) return real_pthread_spin_trylock(s);
  const inject::SyncOp o = op(Kind::MutexLock, const_cast<int*>(s), false, kSpin | kTry);
  return acquired(o, real_pthread_spin_trylock(s));
}

HOOK int pthread_spin_unlock(pthread_spinlock_t* s) {
  REAL(pthread_spin_unlock);
  if (!inject::followsSync()) return real_pthread_spin_unlock(s);
  return released(op(Kind::MutexUnlock, const_cast<int*>(s), false, kSpin),
                  [&] { return real_pthread_spin_unlock(s); });
}

// ==== semaphores ===================================================================

HOOK int sem_wait(sem_t* s) {
  REAL(sem_wait);
  if (!inject::followsSync()) return real_sem_wait(s);
  inject::SyncOp o = op(Kind::SemWait, s, sharedSem(s), 0);
  o.since = inject::syncNow(s, o.shared);
  return semAcquired(o, waiting(o, [&] { return real_sem_wait(s); }));
}

HOOK int sem_trywait(sem_t* s) {
  REAL(sem_trywait);
  if (!inject::followsSync()) return real_sem_trywait(s);
  inject::SyncOp o = op(Kind::SemWait, s, sharedSem(s), kTry);
  o.since = inject::syncNow(s, o.shared);
  return semAcquired(o, real_sem_trywait(s));
}

HOOK int sem_timedwait(sem_t* s, const struct timespec* until) {
  REAL(sem_timedwait);
  if (!inject::followsSync()) return real_sem_timedwait(s, until);
  inject::SyncOp o = op(Kind::SemWait, s, sharedSem(s), kTimed);
  o.since = inject::syncNow(s, o.shared);
  return semAcquired(o, waiting(o, [&] { return real_sem_timedwait(s, until); }));
}

HOOK int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* until) {
  REAL(sem_clockwait);
  if (!inject::followsSync()) return real_sem_clockwait(s, clock, until);
  inject::SyncOp o = op(Kind::SemWait, s, sharedSem(s), kTimed);
  o.since = inject::syncNow(s, o.shared);
  return semAcquired(o, waiting(o, [&] { return real_sem_clockwait(s, clock, until); }));
}

HOOK int sem_post(sem_t* s) {
  REAL(sem_post);
  if (!inject::followsSync()) return real_sem_post(s);
  inject::SyncOp o = op(Kind::SemPost, s, sharedSem(s), 0);
  const uint64_t number = inject::syncTake(s, o.shared);
  const int r = real_sem_post(s);
  const int saved = errno;
  inject::syncDone(o, number, r == 0 ? 0 : saved);
  errno = saved;
  return r;
}

// ==== condition variables ==========================================================

HOOK int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  REAL(pthread_cond_wait);
  if (!inject::followsSync()) return real_pthread_cond_wait(c, m);
  return condWait(c, m, 0, [&] { return real_pthread_cond_wait(c, m); });
}

HOOK int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* until) {
  REAL(pthread_cond_timedwait);
  if (!inject::followsSync()) return real_pthread_cond_timedwait(c, m, until);
  return condWait(c, m, kTimed, [&] { return real_pthread_cond_timedwait(c, m, until); });
}

HOOK int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const struct timespec* until) {
  REAL(pthread_cond_clockwait);
  if (!inject::followsSync()) return real_pthread_cond_clockwait(c, m, clock, until);
  return condWait(c, m, kTimed, [&] { return real_pthread_cond_clockwait(c, m, clock, until); });
}

HOOK int pthread_cond_signal(pthread_cond_t* c) {
  REAL(pthread_cond_signal);
  if (!inject::followsSync()) return real_pthread_cond_signal(c);
  return released(op(Kind::CondSignal, c, sharedCond(c), 0), [&] { return real_pthread_cond_signal(c); });
}

HOOK int pthread_cond_broadcast(pthread_cond_t* c) {
  REAL(pthread_cond_broadcast);
  if (!inject::followsSync()) return real_pthread_cond_broadcast(c);
  const inject::SyncOp o = op(Kind::CondSignal, c, sharedCond(c), kBroadcast);
  return released(o, [&] { return real_pthread_cond_broadcast(c); });
}

// ==== barriers =====================================================================

HOOK int pthread_barrier_wait(pthread_barrier_t* b) {
  REAL(pthread_barrier_wait);
  if (!inject::followsSync()) return real_pthread_barrier_wait(b);
  inject::SyncOp o = op(Kind::BarrierWait, b, sharedBarrier(b), 0);
  std::memcpy(&o.parties, reinterpret_cast<const char*>(b) + 8, sizeof o.parties);  // its count
  o.since = inject::syncTake(b, o.shared);                                          // its arrival
  const int r = waiting(o, [&] { return real_pthread_barrier_wait(b); });
  // The one thread told it is the serial one passed like the others.
  const bool serial = r == PTHREAD_BARRIER_SERIAL_THREAD;
  if (serial) o.flags |= kSerial;
  inject::syncDone(o, r == 0 || serial ? inject::syncTake(b, o.shared) : 0, serial ? 0 : r);
  return r;
}
