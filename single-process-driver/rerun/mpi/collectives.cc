// A re-run rank's collectives: what it gives is compared with what it gave
// in the recording, and what it got is put where the program asked, as
// the recorder kept them (radarlog/mpi/collectives.cc): no other rank runs.
#include <dlfcn.h>

#include "inject/hook.h"
#include "log/kinds.h"
#include "rerun/mpi/stand_ins.h"

#include "log/injected.h"

namespace r = radar::rerun_mpi;
using radar::log::Kind;

namespace {

struct Part {
  const void* buf;
  int count;
  MPI_Datatype type;
};
const Part kNothing{nullptr, 0, {}};

// `gives`: what the rank gives; `gets`: where what it gets goes.
int collective(const char* name, MPI_Comm comm, int root, const Part& gives, const Part& gets) {
  r::Communicator c;
  if (!r::communicator(comm, &c)) return MPI_ERR_COMM;
  radar_rerun_mpi_call call{};
  const bool giving = gives.buf && gives.buf != MPI_IN_PLACE && gives.count > 0;
  const bool getting = gets.buf && gets.buf != MPI_IN_PLACE && gets.count > 0;
  r::Message given(giving ? gives.buf : nullptr, giving ? gives.count : 0, gives.type, name);
  r::Message got(getting ? gets.buf : nullptr, getting ? gets.count : 0, gets.type, name);
  if ((giving && !given.ok()) || (getting && !got.ok())) return r::kFailed;
  call.size = given.size();
  call.room = got.size();
  call.kind = static_cast<uint16_t>(Kind::MpiCollective);
  call.flags = gives.buf == MPI_IN_PLACE ? RADAR_RERUN_MPI_IN_PLACE : 0;
  call.channel = c.channel;
  call.peer = root;
  call.operation = name;
  call.bytes = giving ? given.packed() : nullptr;
  call.into = getting ? got.room() : nullptr;
  r::Text what;
  what << name << "(" << call.size << " bytes given";
  if (root >= 0) what << ", root rank " << root;
  what << ")";
  call.what = what.str();
  radar_rerun_mpi_answer a;
  if (!r::ask(call, &a)) return r::kFailed;
  got.unpack(a.bytes);
  return a.error;
}

int rankIn(MPI_Comm comm) {
  r::Communicator c;
  return r::communicator(comm, &c) ? c.rank : -1;
}

int sizeOf(MPI_Comm comm) {
  r::Communicator c;
  return r::communicator(comm, &c) ? c.size : 0;
}

// A v-collective's pieces as one, where they lie side by side in rank
// order (the recorder kept them only then).
Part piecesInOrder(MPI_Comm comm, const void* buf, const int counts[], const int displs[], MPI_Datatype type) {
  int total = 0;
  for (int i = 0, size = sizeOf(comm); i < size; ++i) {
    if (displs[i] != total) return kNothing;
    total += counts[i];
  }
  return {buf, total, type};
}

}  // namespace

HOOK int MPI_Barrier(MPI_Comm comm) { return collective("MPI_Barrier", comm, -1, kNothing, kNothing); }

HOOK int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const bool root_here = rankIn(comm) == root;
  return collective("MPI_Bcast", comm, root, root_here ? Part{buf, count, type} : kNothing,
                    root_here ? kNothing : Part{buf, count, type});
}

HOOK int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op, int root, MPI_Comm comm) {
  const bool root_here = rankIn(comm) == root;
  // In place, the contribution was recorded as the result (the bytes
  // before were gone): nothing to compare it with before the call.
  const Part gives = {sendbuf, count, type};
  return collective("MPI_Reduce", comm, root, gives, root_here ? Part{recvbuf, count, type} : kNothing);
}

HOOK int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op, MPI_Comm comm) {
  const Part gives = {sendbuf, count, type};
  return collective("MPI_Allreduce", comm, -1, gives, {recvbuf, count, type});
}

HOOK int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Part gets = rankIn(comm) == root ? Part{recvbuf, recvcount * sizeOf(comm), recvtype} : kNothing;
  return collective("MPI_Gather", comm, root, {sendbuf, sendcount, sendtype}, gets);
}

HOOK int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Part gets = rankIn(comm) == root ? piecesInOrder(comm, recvbuf, recvcounts, displs, recvtype) : kNothing;
  return collective("MPI_Gatherv", comm, root, {sendbuf, sendcount, sendtype}, gets);
}

HOOK int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Part gives = rankIn(comm) == root ? Part{sendbuf, sendcount * sizeOf(comm), sendtype} : kNothing;
  return collective("MPI_Scatter", comm, root, gives, {recvbuf, recvcount, recvtype});
}

HOOK int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                      void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const Part gives = rankIn(comm) == root ? piecesInOrder(comm, sendbuf, sendcounts, displs, sendtype) : kNothing;
  return collective("MPI_Scatterv", comm, root, gives, {recvbuf, recvcount, recvtype});
}

HOOK int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm) {
  return collective("MPI_Allgather", comm, -1, {sendbuf, sendcount, sendtype},
                    {recvbuf, recvcount * sizeOf(comm), recvtype});
}

HOOK int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm) {
  const int size = sizeOf(comm);
  return collective("MPI_Alltoall", comm, -1, {sendbuf, sendcount * size, sendtype},
                    {recvbuf, recvcount * size, recvtype});
}

HOOK int MPI_Alltoallv(const void*, const int[], const int[], MPI_Datatype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return collective("MPI_Alltoallv", comm, -1, kNothing, piecesInOrder(comm, recvbuf, recvcounts, rdispls, recvtype));
}
