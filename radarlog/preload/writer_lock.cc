// The writer lock and the records deferred while it is held (rules: see
// hooks.cc): one thread writes the log at a time; a signal handler that
// interrupts the holder on its own thread keeps its record in a per-thread
// queue, drained before the holder lets go.
#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstring>

#include "inject/text.h"
#include "log/stop_at.h"
#include "log/sys.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {

using log::ChannelFields;
using log::EventFields;
using namespace radar::inject;  // text without libc state

// ---- the writer lock and deferred records ---------------------------------

// A thread that finds the writer taken spins briefly, then sleeps on the
// lock word: a holder interrupted by its own signal handlers (which defer
// their records and return) must get the CPU, not share it with spinners.
bool lockWriter() {
  Process& p = g_process;
  const uint32_t tid = currentTid();
  for (unsigned spins = 0;; ++spins) {
    uint32_t expected = 0;
    if (p.lock_owner.compare_exchange_weak(expected, tid, std::memory_order_acquire)) return true;
    if (expected == tid) return false;  // a signal handler on the thread holding it
    // Holders keep it for a microsecond or two: a handoff through the
    // kernel costs more than that, so spin about that long first.
    if (spins < 2048) {
      __builtin_ia32_pause();
      continue;
    }
    if (!expected) continue;
    p.lock_waiters.fetch_add(1, std::memory_order_seq_cst);
    // Woken by the unlock; a changed word (unlocked meanwhile) returns at once.
    if (p.lock_owner.load(std::memory_order_seq_cst) == expected) sys::futexWait(&p.lock_owner, expected);
    p.lock_waiters.fetch_sub(1, std::memory_order_relaxed);
  }
}

void unlockWriter() {
  Process& p = g_process;
  p.lock_owner.store(0, std::memory_order_seq_cst);
  if (p.lock_waiters.load(std::memory_order_seq_cst)) sys::futexWake(&p.lock_owner, 1);
  ThreadState& t = t_thread;
  if (t.signals_held) {
    t.signals_held = false;  // nothing can run in between: signals are held
    sys::setSignalMask(SIG_SETMASK, &t.resume_mask, nullptr);
  }
}

bool holdsWriter() { return g_process.lock_owner.load(std::memory_order_relaxed) == currentTid(); }

void holdSignalsUntilUnlock(sigset_t* resume_mask) {
  ThreadState& t = t_thread;
  uint64_t bits = 0;
  std::memcpy(&bits, resume_mask, sizeof(bits));  // the kernel's 64 signals
  // Handlers nest: the outermost returns last, so its context's mask, the
  // one the holder had, is the one kept.
  t.resume_mask = bits;
  t.signals_held = true;
  bits |= sys::kHeldSignals;
  std::memcpy(resume_mask, &bits, sizeof(bits));
}

void holdSignalsUntilUnlock() {
  ThreadState& t = t_thread;
  if (t.signals_held) return;
  sys::setSignalMask(SIG_BLOCK, &sys::kHeldSignals, &t.resume_mask);
  t.signals_held = true;
}

void appendLocked(EventFields& e) {
  Process& p = g_process;
  if (!p.writer.isOpen() || p.closed) return;
  if (__builtin_expect(p.deferred_lost.load(std::memory_order_relaxed) != 0, 0)) {
    const uint64_t lost = p.deferred_lost.exchange(0);
    char text[96];
    size_t at = appendDec(text, 0, sizeof(text), lost);
    appendStr(text, at, sizeof(text), " records of signal handlers were lost: no memory to keep them");
    const char* note = text;
    EventFields n;
    n.kind = Kind::Note;
    n.strings = &note;
    n.string_count = 1;
    p.writer.append(n);
  }
  if (e.kind == Kind::Channel && e.channel_info) {
    if (ChannelState* cs = channelState(e.channel_info->index)) {
      if (!cs->type) {
        cs->moved[0] = cs->moved[1] = 0;
        cs->refresh_tries = 0;
      }
      cs->type = static_cast<uint8_t>(e.channel_info->type);
      cs->flags = static_cast<uint8_t>(e.flags);
    }
    e.flags = 0;
  } else if (log::isData(e.kind) && e.channel) {
    dropStaleReference(e);
    if (ChannelState* cs = channelState(e.channel)) {
      const int dir = log::categoryOf(e.kind) == log::Category::Send ? 0 : 1;
      e.has_offset = true;
      e.offset = cs->moved[dir];
      cs->moved[dir] += log::bytesMoved(e.kind, e.result, e.flags, e.lengths, e.length_count);
    }
  }
  const uint64_t counter = p.writer.append(e);
  rememberReceive(e, counter);
  if (counter && t_thread.slot >= 0 && t_thread.slot_gen == p.log_gen)
    p.writer.control()->threads[t_thread.slot].last_counter = counter;
}

// Entry `i` of the queue: segment k holds kFirstSegment << k entries.
Deferred* deferredEntry(DeferredQueue& q, uint32_t i, bool map) {
  const uint32_t first = DeferredQueue::kFirstSegment;
  const int k = 31 - __builtin_clz(i / first + 1);
  if (k >= DeferredQueue::kSegments) return nullptr;
  const uint32_t start = first * ((1u << k) - 1);
  Deferred* seg = __atomic_load_n(&q.segments[k], __ATOMIC_ACQUIRE);
  if (!seg) {
    if (!map) return nullptr;
    // mmap is safe in a signal handler; malloc is not. A nested handler
    // may map the same segment first: then ours is given back.
    const size_t bytes = (size_t{first} << k) * sizeof(Deferred);
    const long m = sys::mmapAside(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0 && m > -4096) return nullptr;
    Deferred* fresh = reinterpret_cast<Deferred*>(m);
    if (__atomic_compare_exchange_n(&q.segments[k], &seg, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      seg = fresh;
    } else {
      sys::munmap(fresh, bytes);
    }
  }
  return &seg[i - start];
}

void releasePayload(Deferred& d) {
  if (d.mapped_len) sys::munmap(d.buffer, d.mapped_len);
  d.mapped_len = 0;
}

// Appends what the thread's handlers deferred, under the writer. Handlers
// that run meanwhile add entries behind the ones being read.
void drainDeferred() {
  DeferredQueue& q = t_thread.deferred;
  for (;;) {
    const uint32_t at = q.drained;
    uint32_t reserved = __atomic_load_n(&q.reserved, __ATOMIC_ACQUIRE);
    if (at == reserved) {
      if (!at) return;
      if (__atomic_compare_exchange_n(&q.reserved, &reserved, 0u, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        // A handler here reserves entry 0 again and finds it drained-to.
        q.drained = 0;
        return;
      }
      continue;  // a handler reserved one more since the load
    }
    if (Deferred* d = deferredEntry(q, at, false); d && __atomic_load_n(&d->ready, __ATOMIC_ACQUIRE)) {
      Iov iov{d->payload, d->payload_len};
      d->e.payload = &iov;
      d->e.payload_iov_count = 1;
      d->e.payload_len = d->payload_len;
      appendLocked(d->e);
      releasePayload(*d);
      __atomic_store_n(&d->ready, 0, __ATOMIC_RELEASE);
    }
    q.drained = at + 1;
  }
}

bool deferredPending() {
  const DeferredQueue& q = t_thread.deferred;
  return __atomic_load_n(&q.reserved, __ATOMIC_ACQUIRE) != q.drained;
}

// Keeps what a signal handler recorded while its thread held the writer.
// Pointers into the handler's memory do not survive it: the payload and
// every variable-length field are copied into memory of the entry's own.
void defer(const EventFields& sent) {
  EventFields e = sent;
  keepACopyInstead(e);
  DeferredQueue& q = t_thread.deferred;
  const uint32_t i = __atomic_fetch_add(&q.reserved, 1u, __ATOMIC_ACQ_REL);
  Deferred* d = deferredEntry(q, i, true);
  if (!d) {
    // No memory: the entry stays reserved and unready, the drain skips it.
    g_process.deferred_lost.fetch_add(1, std::memory_order_relaxed);  // said in a NOTE
    return;
  }
  d->e = e;
  d->e.header = nullptr;
  size_t payload = e.payload_len;
  if (payload > Deferred::kMaxPayload) {
    d->e.payload_omitted += payload - Deferred::kMaxPayload;
    payload = Deferred::kMaxPayload;
  }
  const ChannelFields* c = e.channel_info;
  auto padded = [](size_t n) { return (n + 7) & ~size_t{7}; };
  size_t extras = padded(e.address_len) + padded(e.fd_count * sizeof(int32_t)) +
                  padded(e.ready_count * sizeof(log::ReadyFd)) + padded(e.length_count * sizeof(uint64_t)) +
                  e.string_count * sizeof(char*);
  for (size_t k = 0; k < e.string_count; ++k) extras += padded(std::strlen(e.strings[k] ? e.strings[k] : "") + 1);
  if (c)
    extras +=
        padded(c->local_address_len) + padded(c->peer_address_len) + padded(std::strlen(c->path ? c->path : "") + 1);
  d->buffer = d->inline_buffer;
  d->mapped_len = 0;
  if (padded(payload) + extras > Deferred::kInline) {
    const size_t want = padded(payload) + extras;
    const long m = sys::mmapAside(want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0 && m > -4096) {
      g_process.deferred_lost.fetch_add(1, std::memory_order_relaxed);
      return;  // unready: skipped by the drain
    }
    d->buffer = reinterpret_cast<uint8_t*>(m);
    d->mapped_len = want;
  }
  uint8_t* at = d->buffer;
  auto copy = [&](const void* from, size_t n) -> const void* {
    void* to = at;
    if (n) std::memcpy(to, from, n);
    at += padded(n);
    return to;
  };
  log::gatherPayload(at, e.payload, e.payload_iov_count, payload);
  d->payload = at;
  d->payload_len = payload;
  at += padded(payload);
  d->e.address = e.address_len ? copy(e.address, e.address_len) : nullptr;
  d->e.fds = static_cast<const int32_t*>(copy(e.fds, e.fd_count * sizeof(int32_t)));
  d->e.ready = static_cast<const log::ReadyFd*>(copy(e.ready, e.ready_count * sizeof(log::ReadyFd)));
  d->e.lengths = static_cast<const uint64_t*>(copy(e.lengths, e.length_count * sizeof(uint64_t)));
  if (e.string_count) {
    const char** strings = reinterpret_cast<const char**>(at);
    at += e.string_count * sizeof(char*);
    for (size_t k = 0; k < e.string_count; ++k) {
      const char* text = e.strings[k] ? e.strings[k] : "";
      strings[k] = static_cast<const char*>(copy(text, std::strlen(text) + 1));
    }
    d->e.strings = strings;
  }
  if (c) {
    d->channel = *c;
    d->channel.local_address = copy(c->local_address, c->local_address_len);
    d->channel.peer_address = copy(c->peer_address, c->peer_address_len);
    d->channel.path = c->path ? static_cast<const char*>(copy(c->path, std::strlen(c->path) + 1)) : nullptr;
    d->e.channel_info = &d->channel;
  }
  __atomic_store_n(&d->ready, 1, __ATOMIC_RELEASE);
}

// The thread's queue, given back when the thread ends. In a forked child the
// pending entries are the parent's (copied with its memory): forgotten.
void releaseDeferred(bool unmap) {
  DeferredQueue& q = t_thread.deferred;
  for (uint32_t i = q.drained; i < q.reserved; ++i)
    if (Deferred* d = deferredEntry(q, i, false); d && d->ready) {
      releasePayload(*d);  // in a forked child: its copy of the parent's
      d->ready = 0;
    }
  if (unmap) {
    for (int k = 0; k < DeferredQueue::kSegments; ++k) {
      if (!q.segments[k]) continue;
      sys::munmap(q.segments[k], (size_t{DeferredQueue::kFirstSegment} << k) * sizeof(Deferred));
      q.segments[k] = nullptr;
    }
  }
  q.reserved = q.drained = 0;
}

void commit(EventFields& e) {
  // (Not a signal handler's, which interrupted the MPI call: the program's.)
  if (t_thread.in_mpi_call && !t_thread.in_handler && log::canMarkInMpiCall(e.kind, e.flags))
    e.flags |= log::kFlagInMpiCall;
  const uint32_t tid = currentTid();
  e.tid = tid == static_cast<uint32_t>(g_process.pid) ? 0 : tid;
  if (!lockWriter()) {
    defer(e);
    return;
  }
  char title[256];
  if (titleChanged(title, sizeof(title))) {
    const char* strings[2] = {title, log::kTitleNote};
    EventFields note;
    note.kind = log::Kind::Note;
    note.tid = e.tid;
    note.strings = strings;
    note.string_count = 2;
    appendLocked(note);
  }
  appendLocked(e);
  // A handler may run between the last look and the unlock: look again after.
  for (;;) {
    if (deferredPending()) {
      // A handler interrupted this thread while it held the writer; the
      // signals it lets through are held back already (see the trampoline),
      // those of handlers installed behind our back are held now.
      holdSignalsUntilUnlock();
      drainDeferred();
    }
    unlockWriter();
    if (!deferredPending() || !lockWriter()) break;
  }
  // radar record --on ... --do stop: the process stops at the event, its
  // record in the log and nothing after it -- once, as radar record stops
  // each process once (a child, its own pid, stops at its own).
  if (g_config.stop_at[0] && log::stopAtMatches(g_config.stop_at, e)) {
    static std::atomic<long> stopped_pid{0};
    const long pid = sys::getpid();
    if (stopped_pid.exchange(pid) != pid) sys::raw(SYS_kill, pid, SIGSTOP);
  }
}

}  // namespace radar::preload
