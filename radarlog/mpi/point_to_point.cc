// MPI's start and end and its point-to-point calls, through the profiling
// interface: each wrapper calls P<name> and records what it did. Sends are
// recorded with their bytes; receives with the source and tag they got and
// a checksum (the sender's log has the bytes); a nonblocking receive when
// the Wait or Test that completed it returns.
#include <dlfcn.h>

#include "inject/hook.h"
#include "log/kinds.h"
#include "mpi/mpi_state.h"

#include "log/injected.h"

using radar::log::Kind;
using radar::log::MpiEvent;
namespace m = radar::mpi;

namespace {

constexpr uint32_t kStandard = radar::log::kMpiStandard, kSynchronous = radar::log::kMpiSynchronous,
                   kBuffered = radar::log::kMpiBuffered, kReady = radar::log::kMpiReady,
                   kNonblocking = radar::log::kMpiNonblocking;

// Minus the MPI error code, or what `ok` says on success.
int64_t outcome(int rc, int64_t ok) { return rc == MPI_SUCCESS ? ok : -int64_t{rc}; }

void recordSend(int64_t entry, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                uint32_t mode, int rc) {
  m::Bytes bytes(buf, count, type, comm);
  const char* strings[] = {m::typeInfo(type).name};
  const int32_t ints[] = {count};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiSend);
  e.entry_ns = entry;
  e.channel = m::channelOf(comm);
  e.peer = dest;
  e.tag = tag;
  e.size = bytes.size();
  e.result = outcome(rc, static_cast<int64_t>(bytes.size()));
  e.flags = mode;
  e.ints = ints;
  e.int_count = 1;
  e.strings = strings;
  e.string_count = 1;
  e.bytes = bytes.data();
  e.keep_bytes = true;
  m::record(e);
}

}  // namespace

// A receive that completed (or failed), with the status it got.
void radar::mpi::recordReceive(int64_t entry, const m::PostedReceive& r, const MPI_Status& status, int rc) {
  PMPI(Get_count);
  int got = 0;
  if (rc == MPI_SUCCESS) pmpi_Get_count(&status, r.type, &got);
  if (got < 0 || got == MPI_UNDEFINED) got = 0;
  MPI_Comm comm = m::world();  // packing needs a communicator; any of the job's will do
  m::Bytes bytes(r.buf, got, r.type, comm);
  const m::TypeInfo& type = m::typeInfo(r.type);
  const int type_size = type.size;
  const char* strings[] = {type.name};
  const int32_t ints[] = {m::askedSource(r.source), m::askedTag(r.tag), r.count, static_cast<int32_t>(r.serial)};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiRecv);
  e.entry_ns = entry;
  e.channel = r.channel;
  e.peer = rc == MPI_SUCCESS ? status.MPI_SOURCE : r.source;
  e.tag = rc == MPI_SUCCESS ? status.MPI_TAG : r.tag;
  e.size = uint64_t(r.count > 0 ? r.count : 0) * uint64_t(type_size > 0 ? type_size : 0);
  e.result = outcome(rc, static_cast<int64_t>(bytes.size()));
  e.ints = ints;
  e.int_count = 4;
  e.strings = strings;
  e.string_count = 1;
  e.bytes = bytes.data();
  m::record(e);
}

namespace {

int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, uint32_t mode, int rc,
         int64_t entry) {
  if (m::recording() && dest != MPI_PROC_NULL) recordSend(entry, buf, count, type, dest, tag, comm, mode, rc);
  return rc;
}

}  // namespace

HOOK int MPI_Init(int* argc, char*** argv) {
  const m::Inside inside;
  PMPI(Init);
  const int64_t entry = m::now();
  const int rc = pmpi_Init(argc, argv);
  if (rc == MPI_SUCCESS) m::start();
  if (!m::recording()) return rc;
  PMPI(Comm_rank);
  PMPI(Comm_size);
  PMPI(Get_library_version);
  int rank = 0, size = 0, len = 0;
  pmpi_Comm_rank(m::world(), &rank);
  pmpi_Comm_size(m::world(), &size);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  pmpi_Get_library_version(library, &len);
  for (char* c = library; *c; ++c)
    if (*c == '\n' || *c == ',') *c = 0;  // its first line, up to the first comma
  const int32_t ints[] = {rank, size};
  const char* strings[] = {library};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiInit);
  e.entry_ns = entry;
  e.channel = m::channelOf(m::world());
  e.ints = ints;
  e.int_count = 2;
  e.strings = strings;
  e.string_count = 1;
  m::record(e);
  return rc;
}

HOOK int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const m::Inside inside;
  PMPI(Init_thread);
  // Its entry before the call: what the library does in it is the library's.
  const int64_t entry = m::now();
  const int rc = pmpi_Init_thread(argc, argv, required, provided);
  if (rc != MPI_SUCCESS) return rc;
  m::start();
  if (!m::recording()) return rc;
  PMPI(Comm_rank);
  PMPI(Comm_size);
  int rank = 0, size = 0;
  pmpi_Comm_rank(m::world(), &rank);
  pmpi_Comm_size(m::world(), &size);
  const int32_t ints[] = {rank, size};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiInit);
  e.entry_ns = entry;
  e.channel = m::channelOf(m::world());
  e.ints = ints;
  e.int_count = 2;
  m::record(e);
  return rc;
}

// Recorded when it returns, so that what the library does to end itself
// (closing its connections, joining its threads) lies inside the call.
HOOK int MPI_Finalize() {
  const m::Inside inside;
  PMPI(Finalize);
  if (!m::recording()) return pmpi_Finalize();
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiFinalize);
  e.entry_ns = m::now();
  e.channel = m::channelOf(m::world());
  const int rc = pmpi_Finalize();
  m::record(e);
  return rc;
}

#define BLOCKING_SEND(name, mode)                                                                                \
  HOOK int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {         \
    PMPI(name);                                                                                                  \
    const m::Inside inside;                                                                                      \
    const int64_t entry = m::now();                                                                              \
    return send(buf, count, type, dest, tag, comm, mode, pmpi_##name(buf, count, type, dest, tag, comm), entry); \
  }
BLOCKING_SEND(Send, kStandard)
BLOCKING_SEND(Ssend, kSynchronous)
BLOCKING_SEND(Bsend, kBuffered)
BLOCKING_SEND(Rsend, kReady)

// A nonblocking send is recorded when it is posted: MPI forbids changing
// its buffer until it completes, so these are the bytes that leave.
#define NONBLOCKING_SEND(name, mode)                                                                   \
  HOOK int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, \
                      MPI_Request* request) {                                                          \
    PMPI(name);                                                                                        \
    const m::Inside inside;                                                                            \
    const int64_t entry = m::now();                                                                    \
    return send(buf, count, type, dest, tag, comm, (mode) | kNonblocking,                              \
                pmpi_##name(buf, count, type, dest, tag, comm, request), entry);                       \
  }
NONBLOCKING_SEND(Isend, kStandard)
NONBLOCKING_SEND(Issend, kSynchronous)
NONBLOCKING_SEND(Ibsend, kBuffered)
NONBLOCKING_SEND(Irsend, kReady)

HOOK int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Recv);
  if (!m::recording() || source == MPI_PROC_NULL) return pmpi_Recv(buf, count, type, source, tag, comm, status);
  const int64_t entry = m::now();
  MPI_Status mine;
  MPI_Status* got = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = pmpi_Recv(buf, count, type, source, tag, comm, got);
  const m::PostedReceive r{0, m::channelOf(comm), buf, count, type, source, tag};
  m::recordReceive(entry, r, *got, rc);
  return rc;
}

HOOK int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  const m::Inside inside;
  PMPI(Irecv);
  const int64_t entry = m::now();
  const int rc = pmpi_Irecv(buf, count, type, source, tag, comm, request);
  if (!m::recording() || rc != MPI_SUCCESS || source == MPI_PROC_NULL) return rc;
  const m::PostedReceive r{m::nextReceiveSerial(), m::channelOf(comm), buf, count, type, source, tag};
  m::rememberReceive(*request, r);
  const int32_t ints[] = {m::askedSource(source), m::askedTag(tag), count};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiIrecv);
  e.entry_ns = entry;
  e.channel = r.channel;
  e.result = r.serial;
  e.ints = ints;
  e.int_count = 3;
  m::record(e);
  return rc;
}

HOOK int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                      MPI_Status* status) {
  const m::Inside inside;
  PMPI(Sendrecv);
  if (!m::recording())
    return pmpi_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, status);
  const int64_t entry = m::now();
  MPI_Status mine;
  MPI_Status* got = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = pmpi_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                               recvtag, comm, got);
  send(sendbuf, sendcount, sendtype, dest, sendtag, comm, kStandard, rc, entry);
  if (source != MPI_PROC_NULL)
    m::recordReceive(entry, m::PostedReceive{0, m::channelOf(comm), recvbuf, recvcount, recvtype, source, recvtag},
                     *got, rc);
  return rc;
}

namespace {
void recordProbe(int64_t entry, MPI_Comm comm, int source, int tag, const MPI_Status& status, bool found,
                 uint32_t flags, int rc) {
  PMPI(Get_count);
  int bytes = 0;
  if (found && rc == MPI_SUCCESS) {
    static MPI_Datatype byte = static_cast<MPI_Datatype>(dlsym(RTLD_DEFAULT, "ompi_mpi_byte"));
    pmpi_Get_count(&status, byte, &bytes);
  }
  const int32_t ints[] = {m::askedSource(source), m::askedTag(tag)};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiProbe);
  e.entry_ns = entry;
  e.channel = m::channelOf(comm);
  e.peer = found ? status.MPI_SOURCE : -1;
  e.tag = found ? status.MPI_TAG : -1;
  e.result = outcome(rc, bytes);
  e.flags = flags | (found ? 0u : 2u);
  e.ints = ints;
  e.int_count = 2;
  m::record(e);
}
}  // namespace

HOOK int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Probe);
  if (!m::recording()) return pmpi_Probe(source, tag, comm, status);
  const int64_t entry = m::now();
  MPI_Status mine;
  MPI_Status* got = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = pmpi_Probe(source, tag, comm, got);
  recordProbe(entry, comm, source, tag, *got, true, 0, rc);
  return rc;
}

HOOK int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Iprobe);
  if (!m::recording()) return pmpi_Iprobe(source, tag, comm, flag, status);
  const int64_t entry = m::now();
  MPI_Status mine;
  MPI_Status* got = status == MPI_STATUS_IGNORE ? &mine : status;
  const int rc = pmpi_Iprobe(source, tag, comm, flag, got);
  // Only when it found something: a loop polling for a message would
  // otherwise fill the log with nothing.
  if (rc == MPI_SUCCESS && *flag) recordProbe(entry, comm, source, tag, *got, true, 1, rc);
  return rc;
}
