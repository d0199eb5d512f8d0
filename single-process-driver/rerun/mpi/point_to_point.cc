// A re-run rank's sends (compared with the recorded ones), receives and
// probes (answered with what the recording says they got), and the Wait
// and Test families, which complete the receives in the recorded order: a
// Test is true exactly where the recording has the receive it completed.
#include <dlfcn.h>

#include "inject/hook.h"
#include "log/kinds.h"
#include "log/mpi_event.h"
#include "rerun/mpi/stand_ins.h"

#include "log/injected.h"

namespace r = radar::rerun_mpi;
namespace lg = radar::log;
using radar::log::Kind;

namespace {

int32_t askedSource(int source) { return source == MPI_ANY_SOURCE ? lg::kMpiAnySource : source; }
int32_t askedTag(int tag) { return tag == MPI_ANY_TAG ? lg::kMpiAnyTag : tag; }

int send(const char* name, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
         uint32_t mode) {
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  r::Communicator c;
  if (!r::communicator(comm, &c)) return MPI_ERR_COMM;
  r::Message message(buf, count, type, name);
  if (!message.ok()) return r::kFailed;
  radar_rerun_mpi_call call{};
  call.size = message.size();
  call.kind = static_cast<uint16_t>(Kind::MpiSend);
  call.channel = c.channel;
  call.peer = dest;
  call.tag = tag;
  call.count = count;
  call.flags = mode;
  call.bytes = message.packed();
  r::Text what;
  what << name << "(to rank " << dest << ", tag " << tag << ", " << call.size << " bytes)";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  return a.error;
}

// A receive that completes: blocking (serial 0) or posted by MPI_Irecv.
int receive(const r::Pending& p, MPI_Status* status) {
  r::Message message(p.buf, p.count, p.type, "MPI_Recv");
  if (!message.ok()) return r::kFailed;
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiRecv);
  call.channel = p.channel;
  call.peer = p.source;
  call.tag = p.tag;
  call.count = p.count;
  call.serial = p.serial;
  call.into = message.room();
  call.room = message.size();
  r::Text what;
  what << (p.serial ? "the completion of MPI_Irecv" : "MPI_Recv") << "(from rank " << p.source << ", tag " << p.tag
       << ", room for " << p.room << " bytes)";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  message.unpack(a.bytes);
  r::setStatus(status, a.peer, a.tag, a.bytes, a.error);
  return a.error;
}

// What a receive asks, as the log has it; false where it cannot be answered.
bool receiveOf(const char* name, void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               r::Pending* p) {
  r::Communicator c;
  if (!r::communicator(comm, &c)) return false;
  p->channel = c.channel;
  p->buf = buf;
  p->count = count;
  p->type = type;
  p->source = askedSource(source);
  p->tag = askedTag(tag);
  return r::bytesOf(type, count, name, &p->room);
}

}  // namespace

#define BLOCKING_SEND(name, mode)                                                                        \
  HOOK int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) { \
    return send("MPI_" #name, buf, count, type, dest, tag, comm, mode);                                  \
  }
BLOCKING_SEND(Send, lg::kMpiStandard)
BLOCKING_SEND(Ssend, lg::kMpiSynchronous)
BLOCKING_SEND(Bsend, lg::kMpiBuffered)
BLOCKING_SEND(Rsend, lg::kMpiReady)

#define NONBLOCKING_SEND(name, mode)                                                                    \
  HOOK int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,  \
                      MPI_Request* request) {                                                           \
    const int rc = send("MPI_" #name, buf, count, type, dest, tag, comm, (mode) | lg::kMpiNonblocking); \
    *request = rc == MPI_SUCCESS ? r::posted(r::Pending{}) : r::nullRequest();                          \
    return rc;                                                                                          \
  }
NONBLOCKING_SEND(Isend, lg::kMpiStandard)
NONBLOCKING_SEND(Issend, lg::kMpiSynchronous)
NONBLOCKING_SEND(Ibsend, lg::kMpiBuffered)
NONBLOCKING_SEND(Irsend, lg::kMpiReady)

HOOK int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (source == MPI_PROC_NULL) {
    r::setStatus(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
    return MPI_SUCCESS;
  }
  r::Pending p;
  if (!receiveOf("MPI_Recv", buf, count, type, source, tag, comm, &p)) return r::kFailed;
  return receive(p, status);
}

HOOK int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  *request = r::nullRequest();
  if (source == MPI_PROC_NULL) return MPI_SUCCESS;
  r::Pending p;
  if (!receiveOf("MPI_Irecv", buf, count, type, source, tag, comm, &p)) return r::kFailed;
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiIrecv);
  call.channel = p.channel;
  call.peer = p.source;
  call.tag = p.tag;
  call.count = count;
  r::Text what;
  what << "MPI_Irecv(from rank " << p.source << ", tag " << p.tag << ")";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  p.receive = true;
  p.serial = a.serial;
  *request = r::posted(p);
  return MPI_SUCCESS;
}

HOOK int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                      MPI_Status* status) {
  // Both halves were recorded, whatever the call returned.
  const int sent = send("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm, lg::kMpiStandard);
  const int got = MPI_Recv(recvbuf, recvcount, recvtype, source, recvtag, comm, status);
  return sent != MPI_SUCCESS ? sent : got;
}

namespace {
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status, uint32_t flags) {
  r::Communicator c;
  if (!r::communicator(comm, &c)) return MPI_ERR_COMM;
  radar_rerun_mpi_call call{};
  call.kind = static_cast<uint16_t>(Kind::MpiProbe);
  call.channel = c.channel;
  call.peer = askedSource(source);
  call.tag = askedTag(tag);
  call.flags = flags;
  r::Text what;
  what << (flags ? "MPI_Iprobe" : "MPI_Probe") << "(from rank " << call.peer << ", tag " << call.tag << ")";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  r::setStatus(status, a.peer, a.tag, a.bytes, a.error);
  return a.error;
}
}  // namespace

HOOK int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return probe(source, tag, comm, status, 0);
}

// Recorded only when it found a message: true exactly there.
HOOK int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  radar_rerun_mpi_answer a;
  r::Communicator c;
  *flag = r::next(static_cast<uint16_t>(Kind::MpiProbe), &a) && (a.flags & 1) && r::communicator(comm, &c) &&
          a.channel == c.channel && a.asked_source == askedSource(source) && a.asked_tag == askedTag(tag);
  if (!*flag) r::foundNothing("MPI_Iprobe");
  return *flag ? probe(source, tag, comm, status, 1) : MPI_SUCCESS;
}

// ==== completion ==================================================================

namespace {

MPI_Status* statusAt(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Completes one request; a receive as the recording's next completion.
int complete(MPI_Request* request, MPI_Status* status) {
  r::Pending p;
  if (*request == r::nullRequest()) {
    r::setStatus(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    return MPI_SUCCESS;
  }
  if (!r::pending(*request, &p)) return MPI_ERR_REQUEST;
  const int rc = p.receive ? receive(p, status) : MPI_SUCCESS;
  if (!p.receive) r::setStatus(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
  r::completed(request);
  return rc;
}

// Which of `requests` completes now: the receive the recording completes
// next, else a send (which needs nothing), else -1; `receives`: the first
// receive, to wait on where nothing else can complete.
int completesNow(int count, MPI_Request requests[], int* receive_waited) {
  radar_rerun_mpi_answer a;
  const bool recorded = r::next(static_cast<uint16_t>(Kind::MpiRecv), &a);
  int send = -1;
  *receive_waited = -1;
  for (int i = 0; i < count; ++i) {
    r::Pending p;
    if (requests[i] == r::nullRequest() || !r::pending(requests[i], &p)) continue;
    if (p.receive && recorded && p.serial == a.serial) return i;
    if (!p.receive && send < 0) send = i;
    if (p.receive && *receive_waited < 0) *receive_waited = i;
  }
  return send;
}

bool anyActive(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i)
    if (requests[i] != r::nullRequest()) return true;
  return false;
}

}  // namespace

HOOK int MPI_Wait(MPI_Request* request, MPI_Status* status) { return complete(request, status); }

HOOK int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  int receive = -1;
  *flag = *request == r::nullRequest() || completesNow(1, request, &receive) == 0;
  if (!*flag) r::foundNothing("MPI_Test");
  return *flag ? complete(request, status) : MPI_SUCCESS;
}

HOOK int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    const int one = complete(&requests[i], statusAt(statuses, i));
    if (one != MPI_SUCCESS) rc = statuses == MPI_STATUSES_IGNORE ? one : MPI_ERR_IN_STATUS;
  }
  return rc;
}

HOOK int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  // True where every request could complete: each receive's completion is
  // recorded, in order, from the next on.
  int receive = -1;
  const int now = completesNow(count, requests, &receive);
  *flag = !anyActive(count, requests) || receive < 0 || now == receive;
  if (!*flag) r::foundNothing("MPI_Testall");
  return *flag ? MPI_Waitall(count, requests, statuses) : MPI_SUCCESS;
}

HOOK int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  int receive = -1;
  const int now = completesNow(count, requests, &receive);
  *index = now >= 0 ? now : receive;
  if (*index < 0) {
    *index = MPI_UNDEFINED;
    r::setStatus(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    return MPI_SUCCESS;
  }
  return complete(&requests[*index], status);
}

HOOK int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  int receive = -1;
  *index = completesNow(count, requests, &receive);
  *flag = *index >= 0 || !anyActive(count, requests);
  if (!*flag) r::foundNothing("MPI_Testany");
  if (*index < 0) {
    *index = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  return complete(&requests[*index], status);
}

namespace {
// Completes what can complete now, one after the other; `wait`: where
// nothing can, the first receive is waited for.
int some(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[], bool wait) {
  *outcount = 0;
  if (!anyActive(count, requests)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  int rc = MPI_SUCCESS;
  for (;;) {
    int receive = -1;
    int now = completesNow(count, requests, &receive);
    if (now < 0 && wait && *outcount == 0) now = receive;
    if (now < 0 && *outcount == 0) r::foundNothing("MPI_Testsome");
    if (now < 0) return rc;
    indices[*outcount] = now;
    const int one = complete(&requests[now], statusAt(statuses, *outcount));
    ++*outcount;
    if (one != MPI_SUCCESS) return statuses == MPI_STATUSES_IGNORE ? one : MPI_ERR_IN_STATUS;
  }
}
}  // namespace

HOOK int MPI_Waitsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return some(count, requests, outcount, indices, statuses, true);
}

HOOK int MPI_Testsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return some(count, requests, outcount, indices, statuses, false);
}

HOOK int MPI_Request_free(MPI_Request* request) {
  r::completed(request);
  return MPI_SUCCESS;
}
