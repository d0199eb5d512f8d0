// The stand-ins' state, MPI's start and end, communicators and the calls
// that only ask (rank, size, counts, the clock).
#include "rerun/mpi/stand_ins.h"

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "inject/hook.h"
#include "log/kinds.h"

#include "log/injected.h"

namespace radar::rerun_mpi {
namespace {

SpinLock g_lock;

void* symbol(const char* name) { return dlsym(RTLD_DEFAULT, name); }

template <class Fn>
Fn entry(const char* name) {
  return reinterpret_cast<Fn>(symbol(name));
}

// Communicators: world and self, then those made (their handle is the
// address of their slot, which the program only passes back).
constexpr int kCommunicators = 256;
struct CommSlot {
  bool used = false;
  Communicator c;
};
CommSlot g_comms[kCommunicators];
Communicator g_world;
bool g_started = false, g_finalized = false;
int g_thread_level = MPI_THREAD_SINGLE;  // as MPI_Init or MPI_Init_thread gave it

constexpr int kPending = 4096;
struct PendingSlot {
  bool used = false;
  Pending p;
};
PendingSlot g_pending[kPending];

}  // namespace

MPI_Comm world() { return static_cast<MPI_Comm>(symbol("ompi_mpi_comm_world")); }
MPI_Comm self() { return static_cast<MPI_Comm>(symbol("ompi_mpi_comm_self")); }
MPI_Comm nullComm() { return static_cast<MPI_Comm>(symbol("ompi_mpi_comm_null")); }
MPI_Request nullRequest() { return static_cast<MPI_Request>(symbol("ompi_request_null")); }

thread_local uint32_t t_fruitless = 0;  // polls that found nothing since the last call answered

bool ask(const radar_rerun_mpi_call& call, radar_rerun_mpi_answer* answer) {
  static const auto fn = entry<radar_rerun_mpi_replay_fn>("radar_rerun_mpi_replay");
  *answer = {};
  t_fruitless = 0;
  return fn && fn(&call, answer) == 1;
}

void foundNothing(const char* poll) {
  // A recorded poll that found something is answered at once; one that
  // keeps finding nothing waits for what the recording does not have next.
  if (++t_fruitless < kFruitlessPolls) return;
  t_fruitless = 0;
  Text t;
  t << "the program polls with " << poll << " " << int64_t{kFruitlessPolls}
    << " times for what the recording does not have next";
  cannot(t.str());
}

bool next(uint16_t kind, radar_rerun_mpi_answer* answer) {
  static const auto fn = entry<radar_rerun_mpi_next_fn>("radar_rerun_mpi_next");
  *answer = {};
  return fn && fn(kind, answer) == 1;
}

void cannot(const char* report) {
  static const auto fn = entry<radar_rerun_mpi_diverge_fn>("radar_rerun_mpi_diverge");
  if (fn) fn(report);
}

bool communicator(MPI_Comm comm, Communicator* out) {
  if (comm == world() && g_started) {
    *out = g_world;
    return true;
  }
  if (comm == self()) {
    *out = Communicator{};
    return true;
  }
  Held held(g_lock);
  for (CommSlot& slot : g_comms) {
    if (slot.used && reinterpret_cast<MPI_Comm>(&slot) == comm) {
      *out = slot.c;
      return true;
    }
  }
  return false;
}

void started(uint32_t world_channel, int rank, int size) {
  g_world = Communicator{world_channel, rank, size};
  g_started = true;
}

MPI_Comm made(const Communicator& c) {
  Held held(g_lock);
  for (CommSlot& slot : g_comms) {
    if (slot.used) continue;
    slot.used = true;
    slot.c = c;
    return reinterpret_cast<MPI_Comm>(&slot);
  }
  cannot("the re-run's MPI stand-ins have room for 256 communicators at once, and the program made more");
  return nullComm();
}

void freed(MPI_Comm comm) {
  Held held(g_lock);
  for (CommSlot& slot : g_comms)
    if (reinterpret_cast<MPI_Comm>(&slot) == comm) slot.used = false;
}

MPI_Request posted(const Pending& p) {
  Held held(g_lock);
  for (PendingSlot& slot : g_pending) {
    if (slot.used) continue;
    slot.used = true;
    slot.p = p;
    return reinterpret_cast<MPI_Request>(&slot);
  }
  cannot("the re-run's MPI stand-ins have room for 4096 nonblocking calls at once, and the program made more");
  return nullRequest();
}

bool pending(MPI_Request request, Pending* out) {
  Held held(g_lock);
  for (PendingSlot& slot : g_pending) {
    if (slot.used && reinterpret_cast<MPI_Request>(&slot) == request) {
      *out = slot.p;
      return true;
    }
  }
  return false;
}

void completed(MPI_Request* request) {
  {
    Held held(g_lock);
    for (PendingSlot& slot : g_pending)
      if (reinterpret_cast<MPI_Request>(&slot) == *request) slot.used = false;
  }
  *request = nullRequest();
}

void setStatus(MPI_Status* status, int source, int tag, uint64_t bytes, int error) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = error;
  status->_cancelled = 0;
  status->_ucount = static_cast<size_t>(bytes);
}

Text& Text::operator<<(const char* s) {
  while (s && *s && len_ + 1 < sizeof buf_) buf_[len_++] = *s++;
  buf_[len_] = 0;
  return *this;
}

Text& Text::operator<<(int64_t v) {
  char digits[24];
  int k = 0;
  const bool negative = v < 0;
  uint64_t u = negative ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  do digits[k++] = static_cast<char>('0' + u % 10);
  while ((u /= 10) && k < 23);
  if (negative) digits[k++] = '-';
  while (k > 0 && len_ + 1 < sizeof buf_) buf_[len_++] = digits[--k];
  buf_[len_] = 0;
  return *this;
}

}  // namespace radar::rerun_mpi

namespace r = radar::rerun_mpi;
using radar::log::Kind;

namespace {

int start(const char* name) {
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiInit);
  call.what = name;
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  r::started(a.channel, a.rank, a.size);
  return MPI_SUCCESS;
}

}  // namespace

HOOK int MPI_Init(int*, char***) { return start("MPI_Init()"); }

// Any level of threads is given: the stand-ins take a lock.
HOOK int MPI_Init_thread(int*, char***, int required, int* provided) {
  const int rc = start("MPI_Init_thread()");
  if (rc == MPI_SUCCESS) r::g_thread_level = required;
  if (rc == MPI_SUCCESS && provided) *provided = required;
  return rc;
}

HOOK int MPI_Initialized(int* flag) {
  *flag = r::g_started;
  return MPI_SUCCESS;
}

HOOK int MPI_Finalized(int* flag) {
  *flag = r::g_finalized;
  return MPI_SUCCESS;
}

HOOK int MPI_Finalize() {
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiFinalize);
  call.channel = r::g_world.channel;
  call.what = "MPI_Finalize()";
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  r::g_finalized = true;
  return MPI_SUCCESS;
}

// The other ranks are not there to abort: the rank ends as mpirun ends it.
HOOK int MPI_Abort(MPI_Comm, int code) { _exit(code); }

HOOK int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  r::Communicator c;
  if (!r::communicator(comm, &c)) return MPI_ERR_COMM;
  *rank = c.rank;
  return MPI_SUCCESS;
}

HOOK int MPI_Comm_size(MPI_Comm comm, int* size) {
  r::Communicator c;
  if (!r::communicator(comm, &c)) return MPI_ERR_COMM;
  *size = c.size;
  return MPI_SUCCESS;
}

namespace {
int makeCommunicator(const char* operation, MPI_Comm parent, int color, int key, MPI_Comm* made) {
  r::Communicator p;
  if (!r::communicator(parent, &p)) return MPI_ERR_COMM;
  if (!p.channel) {  // made from MPI_COMM_SELF: the recorder had no name for it, nor an event
    *made = r::made(p);
    return MPI_SUCCESS;
  }
  const int32_t ints[] = {static_cast<int32_t>(p.channel), color, key};
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiComm);
  call.channel = p.channel;
  call.operation = operation;
  call.ints = ints;
  call.int_count = 3;
  r::Text what;
  what << operation << "(color " << color << ", key " << key << ")";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  const bool duplicate = std::strcmp(operation, "MPI_Comm_dup") == 0;
  *made = r::made(r::Communicator{a.channel, a.rank, a.size, duplicate ? r::rankSpace(p) : 0});
  return MPI_SUCCESS;
}
}  // namespace

HOOK int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  if (color == MPI_UNDEFINED) {  // not a member: nothing recorded
    *newcomm = r::nullComm();
    return MPI_SUCCESS;
  }
  return makeCommunicator("MPI_Comm_split", comm, color, key, newcomm);
}

HOOK int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return makeCommunicator("MPI_Comm_dup", comm, -1, 0, newcomm);
}

HOOK int MPI_Comm_free(MPI_Comm* comm) {
  r::freed(*comm);
  *comm = r::nullComm();
  return MPI_SUCCESS;
}

// A re-run's calls fail only where the recorded ones did: an error
// handler has nothing to change.
HOOK int MPI_Comm_set_errhandler(MPI_Comm, MPI_Errhandler) { return MPI_SUCCESS; }

// A reduction the program defines: a re-run's reduce gets its result from
// the recording, so the function is never called, and the handle only has
// to be one of its own (the address of a byte of this table).
namespace {
char g_ops[4096];
std::atomic<uint32_t> g_ops_made{0};
}  // namespace

HOOK int MPI_Op_create(MPI_User_function*, int, MPI_Op* op) {
  const uint32_t n = g_ops_made.fetch_add(1, std::memory_order_relaxed);
  *op = reinterpret_cast<MPI_Op>(&g_ops[n % sizeof(g_ops)]);
  return MPI_SUCCESS;
}

HOOK int MPI_Op_free(MPI_Op* op) {
  *op = static_cast<MPI_Op>(dlsym(RTLD_DEFAULT, "ompi_mpi_op_null"));
  return MPI_SUCCESS;
}

HOOK int MPI_Error_class(int code, int* error_class) {
  *error_class = code;
  return MPI_SUCCESS;
}

HOOK int MPI_Error_string(int code, char* text, int* length) {
  r::Text t;
  t << "MPI error " << code << " (as recorded)";
  std::strncpy(text, t.str(), MPI_MAX_ERROR_STRING - 1);
  text[MPI_MAX_ERROR_STRING - 1] = 0;
  *length = static_cast<int>(std::strlen(text));
  return MPI_SUCCESS;
}

HOOK int MPI_Query_thread(int* provided) {
  *provided = r::g_thread_level;
  return MPI_SUCCESS;
}

HOOK int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

HOOK double MPI_Wtime() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

HOOK double MPI_Wtick() { return 1e-9; }

HOOK int MPI_Get_processor_name(char* name, int* length) {
  if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) name[0] = 0;
  name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
  *length = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}
