// Synchronization recorded (radar record --sync): the numbers of each
// lock, semaphore, condition variable and barrier, and their events.
//
// An object of this process alone is known by its address; its numbers
// live in a table of this process. A process-shared one is known by where
// it lies in the file its shared mapping maps (device, inode, offset: two
// processes' views of one semaphore are one object), and its numbers live
// in a table every process of the recording maps, the recording directory's
// sync-objects file. A table that is full, or a shared table that cannot be
// opened (a process that dropped its privileges), leaves the object
// unnumbered (0): its events are told, their order is not.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <atomic>

#include "inject/library.h"
#include "inject/text.h"
#include "log/sys.h"
#include "preload/place_cache.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {
namespace {

struct NumberSlot {
  std::atomic<uint64_t> key;  // 0: free
  std::atomic<uint64_t> number;
};
static_assert(sizeof(NumberSlot) == 16);

constexpr uint64_t kPrivateSlots = 1 << 16;  // 1 MiB, touched as used
NumberSlot g_private[kPrivateSlots];

constexpr uint64_t kSharedSlots = 1 << 16;
constexpr char kSharedTableName[] = "/sync-objects";
std::atomic<NumberSlot*> g_shared{nullptr};
std::atomic<int> g_shared_state{0};  // 0 not tried, 1 opening, 2 mapped, 3 failed

// Where a shared object lies: a small cache of /proc/self/maps' answers.
constinit PlaceCache<1024> g_places;

// The slot of `key` in `table`, claimed if new; null when the table is full
// along the key's probe.
NumberSlot* slotOf(NumberSlot* table, uint64_t size, uint64_t key) {
  for (uint64_t i = 0, h = mixBits(key); i < 64; ++i) {
    NumberSlot& s = table[(h + i) & (size - 1)];
    uint64_t k = s.key.load(std::memory_order_acquire);
    if (k == key) return &s;
    if (k == 0 && s.key.compare_exchange_strong(k, key, std::memory_order_acq_rel)) return &s;
    if (k == key) return &s;  // another thread claimed it for the same key
  }
  return nullptr;
}

NumberSlot* sharedTable() {
  NumberSlot* t = g_shared.load(std::memory_order_acquire);
  if (t) return t;
  int state = 0;
  if (!g_shared_state.compare_exchange_strong(state, 1)) return g_shared.load(std::memory_order_acquire);
  char path[PATH_MAX + 32];
  size_t at = inject::appendStr(path, 0, sizeof(path), g_config.dir);
  inject::appendStr(path, at, sizeof(path), kSharedTableName);
  const uint64_t bytes = kSharedSlots * sizeof(NumberSlot);
  const long fd = sys::openat(AT_FDCWD, path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  long mapped = -1;
  struct stat st {};
  if (fd >= 0 && sys::fstat(static_cast<int>(fd), &st) == 0 && S_ISREG(st.st_mode) &&
      (static_cast<uint64_t>(st.st_size) >= bytes || sys::ftruncate(static_cast<int>(fd), bytes) == 0))
    mapped = sys::mmapAside(bytes, PROT_READ | PROT_WRITE, MAP_SHARED, static_cast<int>(fd), 0);
  if (fd >= 0) sys::close(static_cast<int>(fd));
  if (mapped < 0 && mapped > -4096) {
    g_shared_state.store(3);
    return nullptr;
  }
  g_shared.store(reinterpret_cast<NumberSlot*>(mapped), std::memory_order_release);
  g_shared_state.store(2);
  return reinterpret_cast<NumberSlot*>(mapped);
}

// Reads /proc/self/maps for the shared mapping that holds `address`.
bool findPlace(uint64_t address, Place* place) {
  const long fd = sys::openat(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  char buf[4096];
  size_t have = 0;
  bool found = false;
  for (;;) {
    const long n = sys::read(static_cast<int>(fd), buf + have, sizeof(buf) - 1 - have);
    if (n <= 0) break;
    have += static_cast<size_t>(n);
    size_t line = 0;
    for (size_t i = 0; i < have && !found; ++i) {
      if (buf[i] != '\n') continue;
      buf[i] = 0;
      // start-end perms offset major:minor inode path
      const char* p = buf + line;
      const uint64_t start = sys::parseHex(p);
      ++p;
      const uint64_t end = sys::parseHex(p);
      ++p;
      const bool is_shared = p[3] == 's';
      p += 5;
      const uint64_t off = sys::parseHex(p);
      ++p;
      const uint64_t major = sys::parseHex(p);
      ++p;
      const uint64_t minor = sys::parseHex(p);
      ++p;
      uint64_t inode = 0;
      while (*p >= '0' && *p <= '9') inode = inode * 10 + static_cast<uint64_t>(*p++ - '0');
      if (address >= start && address < end && is_shared) {
        place->dev = major << 32 | minor;
        place->ino = inode;
        place->offset = off + (address - start);
        found = true;
      }
      line = i + 1;
    }
    if (found) break;
    // Keep the unfinished line; a line longer than the buffer is dropped.
    if (line == 0) line = have;
    for (size_t i = line; i < have; ++i) buf[i - line] = buf[i];
    have -= line;
  }
  sys::close(static_cast<int>(fd));
  return found;
}

// The shared object's place, cached by address.
bool placeOf(const void* object, Place* place) {
  const uint64_t address = reinterpret_cast<uint64_t>(object);
  if (g_places.find(address, place)) return true;
  if (!findPlace(address, place)) return false;
  g_places.keep(address, *place);
  return true;
}

NumberSlot* numberSlot(const void* object, bool shared) {
  if (!shared) return slotOf(g_private, kPrivateSlots, reinterpret_cast<uint64_t>(object) | 1);
  Place place;
  NumberSlot* table = placeOf(object, &place) ? sharedTable() : nullptr;
  if (!table) return nullptr;
  const uint64_t key = mixBits(place.dev ^ mixBits(place.ino ^ mixBits(place.offset))) | 1;
  return slotOf(table, kSharedSlots, key);
}

}  // namespace

bool recordingSync() { return g_config.sync && active(); }

}  // namespace radar::preload

namespace radar::inject {
using namespace radar::preload;

SyncMode syncMode() { return recordingSync() ? SyncMode::Record : SyncMode::Off; }
// The recorder holds nothing to an order.
bool syncTurn(const SyncOp&, SyncTurn*) { return false; }
void syncTurnDone(const SyncTurn&, int) {}

int64_t syncClock() { return monotonicNow(); }

uint64_t syncTake(const void* object, bool shared) {
  NumberSlot* s = numberSlot(object, shared);
  return s ? s->number.fetch_add(1, std::memory_order_acq_rel) + 1 : 0;
}

uint64_t syncNow(const void* object, bool shared) {
  NumberSlot* s = numberSlot(object, shared);
  return s ? s->number.load(std::memory_order_acquire) : 0;
}

// The thread's slot says which object it waits for: its address in this
// process, the low half as the slot's fd and the high half as its channel.
void syncWaits(const SyncOp& op) {
  const uint64_t address = reinterpret_cast<uint64_t>(op.object);
  enterCall(op.kind, static_cast<int32_t>(static_cast<uint32_t>(address)), static_cast<uint32_t>(address >> 32),
            op.entry);
}

void syncWaited() { leaveCall(); }

void syncDone(const SyncOp& op, uint64_t number, int result) {
  const int saved = errno;
  log::EventFields e;
  e.kind = op.kind;
  e.fd = -1;
  e.entry_ns = op.entry;
  e.return_ns = op.returned;
  e.result = result;
  e.error = result > 0 ? static_cast<uint32_t>(result) : 0;
  e.flags = op.flags;
  e.has_offset = number != 0;
  e.offset = number;
  e.size = op.since;
  e.status = static_cast<int32_t>(op.parties);
  // Its address; a shared object's place first: device, inode, offset.
  uint64_t identity[4] = {reinterpret_cast<uint64_t>(op.object), 0, 0, 0};
  Place place;
  const bool placed = op.shared && placeOf(op.object, &place);
  if (placed) {
    identity[0] = place.dev;
    identity[1] = place.ino;
    identity[2] = place.offset;
    identity[3] = reinterpret_cast<uint64_t>(op.object);
  }
  e.address = identity;
  e.address_len = placed ? sizeof(identity) : sizeof(identity[0]);
  commit(e);
  errno = saved;
}

}  // namespace radar::inject
