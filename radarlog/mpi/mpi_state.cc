#include "mpi/mpi_state.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <time.h>

#include <cstdlib>
#include <cstring>

#include "inject/spin_lock.h"
#include "log/kinds.h"

#include "log/injected.h"

namespace radar::mpi {
namespace {

radar_mpi_communicator_fn g_define = nullptr;
radar_mpi_record_fn g_record = nullptr;
radar_mpi_enter_fn g_enter = nullptr;  // optional: without them, no rank is told as waiting in a collective
radar_mpi_leave_fn g_leave = nullptr;
std::atomic<bool> g_recording{false};
MPI_Comm g_world{};

using inject::Held;
using inject::SpinLock;

// Communicators named so far (more than 256 at once are rare: the rest go
// unrecorded, their channel 0).
// Written under the lock, read without it (channelOf, on every call): the
// handle is stored before the channel, which publishes it.
struct Communicator {
  std::atomic<MPI_Comm> comm{};
  std::atomic<uint32_t> channel{0};
  uint32_t made = 0;  // communicators made from it so far
  char identity[128] = {};
};
constexpr int kCommunicators = 256;
Communicator g_comms[kCommunicators];
std::atomic<int> g_comms_used{0};  // slots ever used: the lookups look no further
SpinLock g_comms_lock;

// Posted receives, by request (open addressing; 4096 outstanding at once).
constexpr int kPosted = 4096;
enum SlotState : uint8_t { kEmpty, kUsed, kFreed };  // a lookup goes on past a freed slot, stops at an empty one
struct PostedSlot {
  MPI_Request request{};
  SlotState state = kEmpty;
  PostedReceive posted;
};
PostedSlot g_posted[kPosted];
SpinLock g_posted_lock;
std::atomic<uint32_t> g_serial{0};
std::atomic<int> g_posted_count{0};

size_t copyText(char* out, size_t room, const char* text) {
  size_t n = 0;
  while (text[n] && n + 1 < room) {
    out[n] = text[n];
    ++n;
  }
  out[n] = 0;
  return n;
}

size_t appendNumber(char* out, size_t at, size_t room, unsigned long v) {
  char digits[24];
  int k = 0;
  do digits[k++] = static_cast<char>('0' + v % 10);
  while ((v /= 10) && k < 23);
  while (k > 0 && at + 1 < room) out[at++] = digits[--k];
  out[at] = 0;
  return at;
}

// The job's name, the same in all its processes: the launcher's namespace.
void jobName(char* out, size_t room) {
  for (const char* name : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME"}) {
    if (const char* v = std::getenv(name); v && *v) {
      copyText(out, room, v);
      return;
    }
  }
  size_t n = copyText(out, room, "singleton-");
  appendNumber(out, n, room, static_cast<unsigned long>(getpid()));
}

Communicator* find(MPI_Comm comm) {
  const int used = g_comms_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    Communicator& c = g_comms[i];
    if (c.channel.load(std::memory_order_acquire) && c.comm.load(std::memory_order_relaxed) == comm) return &c;
  }
  return nullptr;
}

// Defines the channel; the caller holds the lock.
void addLocked(MPI_Comm comm, const char* identity) {
  for (int i = 0; i < kCommunicators; ++i) {
    Communicator& c = g_comms[i];
    if (c.channel.load(std::memory_order_relaxed)) continue;
    int rank = 0, size = 0;
    PMPI(Comm_rank);
    PMPI(Comm_size);
    pmpi_Comm_rank(comm, &rank);
    pmpi_Comm_size(comm, &size);
    copyText(c.identity, sizeof c.identity, identity);
    c.comm.store(comm, std::memory_order_relaxed);
    c.made = 0;
    c.channel.store(g_define(c.identity, rank, size), std::memory_order_release);
    if (i >= g_comms_used.load(std::memory_order_relaxed)) g_comms_used.store(i + 1, std::memory_order_release);
    return;
  }
}

}  // namespace

bool recording() { return g_recording.load(std::memory_order_relaxed); }

int64_t now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

MPI_Comm world() { return g_world; }

namespace {
// The interposer's radar_mpi_inside, looked up on first use (MPI_Init's
// wrapper is the first, before start()); null without the interposer.
radar_mpi_inside_fn insideFn() {
  static std::atomic<radar_mpi_inside_fn> fn{nullptr};
  static std::atomic<bool> looked{false};
  if (!looked.load(std::memory_order_acquire)) {
    fn.store(reinterpret_cast<radar_mpi_inside_fn>(dlsym(RTLD_DEFAULT, "radar_mpi_inside")), std::memory_order_relaxed);
    looked.store(true, std::memory_order_release);
  }
  return fn.load(std::memory_order_relaxed);
}
}  // namespace

Inside::Inside() {
  if (const radar_mpi_inside_fn fn = insideFn()) fn(1);
}

Inside::~Inside() {
  if (const radar_mpi_inside_fn fn = insideFn()) fn(-1);
}

InCollective::InCollective(const char* operation, MPI_Comm comm) : entry(now()) {
  marked_ = recording() && g_enter &&
            g_enter(static_cast<uint16_t>(log::Kind::MpiCollective),
                    static_cast<int32_t>(log::mpiCollectiveCode(operation)), channelOf(comm), entry);
}

InCollective::~InCollective() {
  if (marked_) g_leave();
}

void start() {
  g_define = reinterpret_cast<radar_mpi_communicator_fn>(dlsym(RTLD_DEFAULT, "radar_mpi_communicator"));
  g_record = reinterpret_cast<radar_mpi_record_fn>(dlsym(RTLD_DEFAULT, "radar_mpi_record"));
  g_enter = reinterpret_cast<radar_mpi_enter_fn>(dlsym(RTLD_DEFAULT, "radar_mpi_enter"));
  g_leave = reinterpret_cast<radar_mpi_leave_fn>(dlsym(RTLD_DEFAULT, "radar_mpi_leave"));
  if (!g_enter || !g_leave) g_enter = nullptr;
  void* world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
  if (!g_define || !g_record || !world) return;
  g_world = static_cast<MPI_Comm>(world);
  char identity[128];
  jobName(identity, sizeof identity - 3);
  const size_t n = std::strlen(identity);
  copyText(identity + n, sizeof identity - n, "/w");
  Held held(g_comms_lock);
  addLocked(g_world, identity);
  g_recording.store(true, std::memory_order_relaxed);
}

uint32_t channelOf(MPI_Comm comm) {
  const Communicator* c = find(comm);
  return c ? c->channel.load(std::memory_order_relaxed) : 0;
}

void nameCommunicator(MPI_Comm parent, MPI_Comm made, int color) {
  Held held(g_comms_lock);
  Communicator* p = find(parent);
  if (!p) return;
  const uint32_t nth = ++p->made;  // counted by every member, made or not
  if (reinterpret_cast<void*>(made) == dlsym(RTLD_DEFAULT, "ompi_mpi_comm_null")) return;
  char identity[128];
  size_t n = copyText(identity, sizeof identity, p->identity);
  n = copyText(identity + n, sizeof identity - n, "/") + n;
  n = appendNumber(identity, n, sizeof identity, nth);
  if (color >= 0) {
    n = copyText(identity + n, sizeof identity - n, ".") + n;
    appendNumber(identity, n, sizeof identity, static_cast<unsigned long>(color));
  }
  addLocked(made, identity);
}

void forgetCommunicator(MPI_Comm comm) {
  Held held(g_comms_lock);
  if (Communicator* c = find(comm)) c->channel.store(0, std::memory_order_release);
}

bool anyPostedReceive() { return g_posted_count.load(std::memory_order_relaxed) > 0; }

uint32_t nextReceiveSerial() { return g_serial.fetch_add(1, std::memory_order_relaxed) + 1; }

namespace {
size_t slotOf(MPI_Request request) {
  const auto v = reinterpret_cast<uintptr_t>(request);
  return static_cast<size_t>((v >> 4) * 0x9E3779B97F4A7C15ull >> 52) % kPosted;
}
}  // namespace

void rememberReceive(MPI_Request request, const PostedReceive& posted) {
  Held held(g_posted_lock);
  for (size_t i = 0, at = slotOf(request); i < kPosted; ++i, at = (at + 1) % kPosted) {
    if (g_posted[at].state == kUsed) continue;
    g_posted[at].state = kUsed;
    g_posted[at].request = request;
    g_posted[at].posted = posted;
    g_posted_count.fetch_add(1, std::memory_order_relaxed);
    return;
  }
}

bool takeReceive(MPI_Request request, PostedReceive* posted) {
  Held held(g_posted_lock);
  for (size_t i = 0, at = slotOf(request); i < kPosted; ++i, at = (at + 1) % kPosted) {
    if (g_posted[at].state == kEmpty) return false;
    if (g_posted[at].state == kFreed || g_posted[at].request != request) continue;
    *posted = g_posted[at].posted;
    g_posted[at].state = kFreed;
    g_posted_count.fetch_sub(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

void record(const log::MpiEvent& e) {
  if (g_record) g_record(&e);
}

namespace {
// The last predefined datatypes asked about, per thread: their size, shape
// and name do not change (a derived one's handle may be freed and reused,
// so it is asked about each time).
constexpr int kTypeCache = 4;
thread_local TypeInfo t_types[kTypeCache + 1];  // the last: a derived type's
thread_local MPI_Datatype t_type_handles[kTypeCache];
thread_local int t_type_next = 0;

void describeType(MPI_Datatype type, TypeInfo* info) {
  PMPI(Type_size);
  PMPI(Type_get_true_extent);
  PMPI(Type_get_extent);
  PMPI(Type_get_name);
  int size = 0, len = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  if (pmpi_Type_size(type, &size) != MPI_SUCCESS || size < 0) size = 0;
  pmpi_Type_get_extent(type, &lb, &extent);
  pmpi_Type_get_true_extent(type, &true_lb, &true_extent);
  info->size = size;
  info->contiguous = true_lb == 0 && true_extent == size && extent == size;
  if (pmpi_Type_get_name(type, info->name, &len) != MPI_SUCCESS || len <= 0)
    copyText(info->name, sizeof info->name, "derived");
}
}  // namespace

const TypeInfo& typeInfo(MPI_Datatype type) {
  for (int i = 0; i < kTypeCache; ++i)
    if (t_types[i].size >= 0 && t_type_handles[i] == type) return t_types[i];
  PMPI(Type_get_envelope);
  int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
  const bool named = pmpi_Type_get_envelope(type, &integers, &addresses, &datatypes, &combiner) == MPI_SUCCESS &&
                     combiner == MPI_COMBINER_NAMED;
  const int slot = named ? t_type_next : kTypeCache;
  if (named) {
    t_type_next = (t_type_next + 1) % kTypeCache;
    t_type_handles[slot] = type;
  }
  describeType(type, &t_types[slot]);
  return t_types[slot];
}

Bytes::Bytes(const void* buf, int count, MPI_Datatype type, MPI_Comm comm) {
  if (!buf || count <= 0) return;
  const TypeInfo& info = typeInfo(type);
  if (info.size <= 0) return;
  size_ = uint64_t(info.size) * uint64_t(count);
  if (info.contiguous) {
    data_ = buf;
    return;
  }
  // A derived type with holes: packed, as it travels.
  PMPI(Pack_size);
  PMPI(Pack);
  int room = 0;
  if (pmpi_Pack_size(count, type, comm, &room) != MPI_SUCCESS || room <= 0) {
    size_ = 0;
    return;
  }
  mapped_size_ = uint64_t(room);
  mapped_ = mmap(nullptr, mapped_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int position = 0;
  if (mapped_ == MAP_FAILED || pmpi_Pack(buf, count, type, mapped_, room, &position, comm) != MPI_SUCCESS) {
    if (mapped_ != MAP_FAILED) munmap(mapped_, mapped_size_);
    mapped_ = nullptr;
    size_ = 0;
    return;
  }
  data_ = mapped_;
  size_ = uint64_t(position);
}

Bytes::~Bytes() {
  if (mapped_) munmap(mapped_, mapped_size_);
}

}  // namespace radar::mpi
