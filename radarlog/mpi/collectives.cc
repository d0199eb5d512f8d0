// Collectives and communicators: one event per rank per collective, with
// the bytes this rank contributes, then those it got (a rank re-runs alone
// on them); the merge matches the n-th collective on a communicator across
// its ranks. Communicators made collectively are
// named alike in every member (mpi_state.h).
#include <dlfcn.h>

#include <climits>

#include "inject/hook.h"
#include "log/kinds.h"
#include "mpi/mpi_state.h"

#include "log/injected.h"

using radar::log::Kind;
using radar::log::MpiEvent;
namespace m = radar::mpi;
namespace lg = radar::log;

namespace {

struct Contribution {
  const void* buf;
  int count;
  MPI_Datatype type;
};
const Contribution kNothing{nullptr, 0, {}};
// What a rank got where its layout is not one piece (the v-collectives'
// displacements with gaps): not kept, and the event says so.
const Contribution kNotKept{nullptr, -1, {}};

// `mine`: what the rank gave; `got`: what it got. The event's ints are the
// count given and the bytes got (-1: not kept).
int collective(const char* name, int64_t entry, MPI_Comm comm, int root, const Contribution& mine,
               const Contribution& got, int rc) {
  if (!m::recording()) return rc;
  const bool in_place = mine.buf == MPI_IN_PLACE;
  m::Bytes bytes(in_place ? nullptr : mine.buf, mine.count, mine.type, comm);
  // (A result of 2 GiB and more is not kept: the event's integers are 32 bits.)
  const bool got_kept = rc == MPI_SUCCESS && got.count >= 0 &&
                        uint64_t(got.count) * uint64_t(got.count > 0 ? m::typeInfo(got.type).size : 0) <= INT32_MAX;
  m::Bytes result(got_kept && got.buf != MPI_IN_PLACE ? got.buf : nullptr, got.count, got.type, comm);
  const char* strings[] = {name, mine.count > 0 ? m::typeInfo(mine.type).name : ""};
  const int32_t ints[] = {mine.count, got_kept ? static_cast<int32_t>(result.size()) : -1};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiCollective);
  e.entry_ns = entry;
  e.channel = m::channelOf(comm);
  e.peer = root;
  e.size = bytes.size();
  e.result = rc == MPI_SUCCESS ? static_cast<int64_t>(bytes.size()) : -int64_t{rc};
  e.ints = ints;
  e.int_count = 2;
  e.strings = strings;
  e.string_count = 2;
  e.bytes = bytes.data();
  e.keep_bytes = true;
  e.result_bytes = result.data();
  e.result_size = result.size();
  m::record(e);
  return rc;
}

int rankIn(MPI_Comm comm) {
  PMPI(Comm_rank);
  int rank = -1;
  pmpi_Comm_rank(comm, &rank);
  return rank;
}

int sizeOf(MPI_Comm comm) {
  PMPI(Comm_size);
  int size = 0;
  pmpi_Comm_size(comm, &size);
  return size;
}

// The pieces of a v-collective's buffer as one: where they lie side by
// side in rank order, from the first.
Contribution piecesInOrder(MPI_Comm comm, void* buf, const int counts[], const int displs[], MPI_Datatype type) {
  const int size = sizeOf(comm);
  int total = 0;
  for (int i = 0; i < size; ++i) {
    if (displs[i] != total) return kNotKept;
    total += counts[i];
  }
  return {buf, total, type};
}

// What a rooted collective's rank contributes: the root its buffer for the
// others (Bcast, Scatter), every rank its own part (Gather, Reduce).
Contribution fromRoot(MPI_Comm comm, int root, const Contribution& c) {
  return rankIn(comm) == root ? c : Contribution{nullptr, 0, c.type};
}

}  // namespace

HOOK int MPI_Barrier(MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Barrier);
  const m::InCollective in("MPI_Barrier", comm);
  return collective("MPI_Barrier", in.entry, comm, -1, kNothing, kNothing, pmpi_Barrier(comm));
}

HOOK int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Bcast);
  const m::InCollective in("MPI_Bcast", comm);
  const int rc = pmpi_Bcast(buf, count, type, root, comm);
  if (!m::recording()) return rc;
  const bool root_here = rankIn(comm) == root;
  return collective("MPI_Bcast", in.entry, comm, root, fromRoot(comm, root, {buf, count, type}),
                    root_here ? kNothing : Contribution{buf, count, type}, rc);
}

HOOK int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                    MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Reduce);
  const m::InCollective in("MPI_Reduce", comm);
  const int rc = pmpi_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  if (!m::recording()) return rc;
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  const Contribution got = rankIn(comm) == root ? Contribution{recvbuf, count, type} : kNothing;
  return collective("MPI_Reduce", in.entry, comm, root, {mine, count, type}, got, rc);
}

HOOK int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Allreduce);
  const m::InCollective in("MPI_Allreduce", comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // In place, the contribution is overwritten by the result: recorded as
  // the result (the bytes before are gone).
  const int rc = pmpi_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  return collective("MPI_Allreduce", in.entry, comm, -1, {in_place ? recvbuf : sendbuf, count, type},
                    {recvbuf, count, type}, rc);
}

HOOK int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Gather);
  const m::InCollective in("MPI_Gather", comm);
  const int rc = pmpi_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (!m::recording()) return rc;
  const Contribution got = rankIn(comm) == root ? Contribution{recvbuf, recvcount * sizeOf(comm), recvtype} : kNothing;
  return collective("MPI_Gather", in.entry, comm, root, {sendbuf, sendcount, sendtype}, got, rc);
}

HOOK int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Gatherv);
  const m::InCollective in("MPI_Gatherv", comm);
  const int rc = pmpi_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  if (!m::recording()) return rc;
  const Contribution got = rankIn(comm) == root ? piecesInOrder(comm, recvbuf, recvcounts, displs, recvtype) : kNothing;
  return collective("MPI_Gatherv", in.entry, comm, root, {sendbuf, sendcount, sendtype}, got, rc);
}

HOOK int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Scatter);
  const m::InCollective in("MPI_Scatter", comm);
  const int rc = pmpi_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (!m::recording()) return rc;
  return collective("MPI_Scatter", in.entry, comm, root,
                    fromRoot(comm, root, {sendbuf, sendcount * sizeOf(comm), sendtype}), {recvbuf, recvcount, recvtype},
                    rc);
}

HOOK int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Scatterv);
  const m::InCollective in("MPI_Scatterv", comm);
  const int rc = pmpi_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  if (!m::recording()) return rc;
  // The root's pieces, where they lie side by side in rank order.
  const Contribution given =
      rankIn(comm) == root ? piecesInOrder(comm, const_cast<void*>(sendbuf), sendcounts, displs, sendtype) : kNothing;
  return collective("MPI_Scatterv", in.entry, comm, root, given.count < 0 ? kNothing : given,
                    {recvbuf, recvcount, recvtype}, rc);
}

HOOK int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Allgather);
  const m::InCollective in("MPI_Allgather", comm);
  const int rc = pmpi_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (!m::recording()) return rc;
  return collective("MPI_Allgather", in.entry, comm, -1, {sendbuf, sendcount, sendtype},
                    {recvbuf, recvcount * sizeOf(comm), recvtype}, rc);
}

HOOK int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Alltoall);
  const m::InCollective in("MPI_Alltoall", comm);
  const int rc = pmpi_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  if (!m::recording()) return rc;
  const int size = sizeOf(comm);
  return collective("MPI_Alltoall", in.entry, comm, -1, {sendbuf, sendcount * size, sendtype},
                    {recvbuf, recvcount * size, recvtype}, rc);
}

HOOK int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                       void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm) {
  const m::Inside inside;
  PMPI(Alltoallv);
  const m::InCollective in("MPI_Alltoallv", comm);
  const int rc = pmpi_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  // Pieces anywhere in the buffer: the event tells the operation, not the
  // bytes given; those got are kept where they lie in rank order.
  if (!m::recording()) return rc;
  return collective("MPI_Alltoallv", in.entry, comm, -1, {nullptr, 0, sendtype},
                    piecesInOrder(comm, recvbuf, recvcounts, rdispls, recvtype), rc);
}

// ==== communicators ==================================================================

namespace {
// A member's MPI_Comm_create records its group (log/mpi_event.h).
int32_t membersOf(MPI_Comm parent, MPI_Group group) {
  PMPI(Comm_group);
  PMPI(Group_size);
  PMPI(Group_translate_ranks);
  PMPI(Group_free);
  MPI_Group parent_group;
  int size = 0;
  if (pmpi_Comm_group(parent, &parent_group) != MPI_SUCCESS) return 0;
  uint32_t h = lg::kMpiMembersSeed;
  if (pmpi_Group_size(group, &size) != MPI_SUCCESS) size = 0;
  for (int i = 0; i < size; ++i) {
    int rank = MPI_UNDEFINED;
    pmpi_Group_translate_ranks(group, 1, &i, parent_group, &rank);
    h = lg::mpiMembersStep(h, rank);
  }
  pmpi_Group_free(&parent_group);
  return lg::mpiMembersChecksum(h);
}

// A communicator made (`group`: MPI_Comm_create's, whose members take the
// place of a key).
int made(const char* how, int64_t entry, MPI_Comm parent, MPI_Comm* made_comm, int color, int key, int rc,
         const MPI_Group* group = nullptr) {
  if (!m::recording() || rc != MPI_SUCCESS) return rc;
  m::nameCommunicator(parent, *made_comm, color);
  const uint32_t channel = m::channelOf(*made_comm);
  if (!channel) return rc;  // not a member (MPI_COMM_NULL)
  if (group) key = membersOf(parent, *group);
  const int32_t ints[] = {static_cast<int32_t>(m::channelOf(parent)), color, key};
  const char* strings[] = {how};
  MpiEvent e;
  e.kind = static_cast<uint16_t>(Kind::MpiComm);
  e.entry_ns = entry;
  e.channel = channel;
  e.ints = ints;
  e.int_count = 3;
  e.strings = strings;
  e.string_count = 1;
  m::record(e);
  return rc;
}
}  // namespace

HOOK int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const m::Inside inside;
  PMPI(Comm_split);
  const int64_t entry = m::now();
  const int rc = pmpi_Comm_split(comm, color, key, newcomm);
  return made("MPI_Comm_split", entry, comm, newcomm, color == MPI_UNDEFINED ? -1 : color, key, rc);
}

HOOK int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const m::Inside inside;
  PMPI(Comm_dup);
  const int64_t entry = m::now();
  return made("MPI_Comm_dup", entry, comm, newcomm, -1, 0, pmpi_Comm_dup(comm, newcomm));
}

HOOK int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const m::Inside inside;
  PMPI(Comm_create);
  const int64_t entry = m::now();
  return made("MPI_Comm_create", entry, comm, newcomm, -1, 0, pmpi_Comm_create(comm, group, newcomm), &group);
}

HOOK int MPI_Comm_free(MPI_Comm* comm) {
  const m::Inside inside;
  PMPI(Comm_free);
  if (m::recording() && comm) m::forgetCommunicator(*comm);
  return pmpi_Comm_free(comm);
}
