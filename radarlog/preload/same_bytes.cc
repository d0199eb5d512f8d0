// Bytes kept once: a send of bytes its thread received just before (a
// pipeline stage, a proxy, a broker passing a message on) is logged as a
// reference to that receive, whose bytes the recording holds already (in
// its sender's log, or in its own), instead of a second copy. Decided from
// the CRC-32C each receive takes anyway and the one the send then takes;
// the reader checks the bytes it resolves against the send's.
#include <climits>

#include "log/crc32c.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {

using log::EventFields;
using log::Iov;

namespace {

// Below this, a reference (counter, checksum, length: about 12 bytes)
// saves little, and the checksum costs as much as the copy.
constexpr uint64_t kLeastReferred = 64;

constexpr int kMsgPeek = 0x2;

}  // namespace

void rememberReceive(const EventFields& e, uint64_t counter) {
  if (!g_config.same_bytes || !counter || !e.channel || !e.has_hash ||
      e.result < static_cast<int64_t>(kLeastReferred) || static_cast<uint64_t>(e.result) > e.size ||
      e.result > INT32_MAX || (e.flags & kMsgPeek) || log::isMultiMessage(e.kind) ||
      log::categoryOf(e.kind) != log::Category::Receive)
    return;
  ThreadState& t = t_thread;
  __atomic_store_n(&t.recent_version, static_cast<uint8_t>(t.recent_version + 1), __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (t.recent_log_gen != g_process.log_gen) {
    for (RecentReceive& r : t.recent) r.counter = 0;
    t.recent_log_gen = g_process.log_gen;
  }
  t.recent[t.recent_next % kRecentReceives] = {counter, static_cast<uint32_t>(e.result), e.hash};
  t.recent_next = static_cast<uint8_t>((t.recent_next + 1) % kRecentReceives);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  __atomic_store_n(&t.recent_version, static_cast<uint8_t>(t.recent_version + 1), __ATOMIC_RELAXED);
}

bool referToReceive(EventFields& e, const Iov* iov, size_t iov_count, uint64_t moved) {
  if (!g_config.same_bytes || moved < kLeastReferred) return false;
  const ThreadState& t = t_thread;
  const uint8_t version = __atomic_load_n(&t.recent_version, __ATOMIC_RELAXED);
  if ((version & 1) || t.recent_log_gen != g_process.log_gen) return false;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  RecentReceive same_length[kRecentReceives];
  int found = 0;
  for (int i = 1; i <= kRecentReceives; ++i) {  // the newest first
    const RecentReceive& r = t.recent[(t.recent_next + kRecentReceives - i) % kRecentReceives];
    if (r.counter && r.len == moved) same_length[found++] = r;
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (!found || __atomic_load_n(&t.recent_version, __ATOMIC_RELAXED) != version) return false;
  const uint32_t crc = log::crc32cOfFirst(iov, iov_count, moved);
  for (int i = 0; i < found; ++i) {
    if (same_length[i].crc != crc) continue;
    e.same_as = same_length[i].counter;
    e.same_from = 0;
    e.has_hash = true;
    e.hash = crc;
    e.payload_len = 0;
    e.payload_omitted = moved;
    return true;
  }
  return false;
}

void keepACopyInstead(EventFields& e) {
  if (!e.same_as) return;
  e.same_as = e.same_from = 0;
  e.has_hash = false;
  e.payload_len = e.payload_omitted;  // the send's iovecs are still there
  e.payload_omitted = 0;
}

void dropStaleReference(EventFields& e) {
  // A signal handler forked between the send's look at its receives and
  // this append: the counter is its parent's log's.
  if (e.same_as && t_thread.recent_log_gen != g_process.log_gen) keepACopyInstead(e);
}

}  // namespace radar::preload
