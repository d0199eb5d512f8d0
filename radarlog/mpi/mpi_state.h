// libradar-mpi.so's state: the interposer's two entry points, the
// communicators it has named, the receives posted and not completed yet.
// Code that runs inside an MPI program: no allocation, fixed tables,
// spin locks (MPI_THREAD_MULTIPLE lets several threads call at once).
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "log/mpi_event.h"

namespace radar::mpi {

// The profiling interface's function `PMPI_<name>`, looked up on first use:
// libradar-mpi.so does not link the MPI library (it is preloaded into every
// process of an MPI job, mpirun too), and refers to none of its data.
#define PMPI(name)                                       \
  static decltype(&::PMPI_##name) pmpi_##name = nullptr; \
  if (__builtin_expect(!pmpi_##name, 0))                 \
  pmpi_##name = reinterpret_cast<decltype(&::PMPI_##name)>(dlsym(RTLD_NEXT, "PMPI_" #name))

// Whether this process's MPI calls are recorded: the interposer is there
// and the MPI library is the one libradar-mpi.so was built for (Open MPI:
// another library's handles would be misread, so its calls only pass).
bool recording();
// Called by the MPI_Init wrappers once the library is up.
void start();
int64_t now();

// MPI_COMM_WORLD, found by name (its macro names the library's data).
MPI_Comm world();

// A communicator's channel in the log (0: unknown to radar). Communicators
// are named alike in every rank without talking: MPI_COMM_WORLD is "job/w";
// the n-th made from a communicator P (collectively, so every member counts
// the same n) is "P/n", and "P/n.c" for the members of color c of a split.
uint32_t channelOf(MPI_Comm comm);
void nameCommunicator(MPI_Comm parent, MPI_Comm made, int color);
void forgetCommunicator(MPI_Comm comm);

// The calling thread is inside an MPI call for as long as this lives: the
// system calls recorded meanwhile are the MPI library's. Every wrapper
// has one, the calls it records and those it does not (a Test that found
// nothing), from before MPI_Init's start.
class Inside {
 public:
  Inside();
  ~Inside();
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

// A rank in a collective, for as long as it is in it: its thread's slot in
// the log says so (a rank killed while it waited there is told as
// waiting in it). `entry`: the clock when it came.
class InCollective {
 public:
  InCollective(const char* operation, MPI_Comm comm);
  ~InCollective();
  InCollective(const InCollective&) = delete;
  InCollective& operator=(const InCollective&) = delete;
  const int64_t entry;

 private:
  bool marked_ = false;
};

// Receives posted by MPI_Irecv and not yet completed, by request.
struct PostedReceive {
  uint32_t serial = 0;
  uint32_t channel = 0;
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type{};
  int source = 0, tag = 0;
};
uint32_t nextReceiveSerial();
// Whether any posted receive waits for its completion (the Wait and Test
// wrappers do nothing more when none does).
bool anyPostedReceive();
void rememberReceive(MPI_Request request, const PostedReceive& posted);
// Takes it out of the table: false when the request is no posted receive.
bool takeReceive(MPI_Request request, PostedReceive* posted);

// A source or tag asked, as the log has it: MPI's wildcards by the log's
// own values (log::kMpiAnySource, kMpiAnyTag), whatever the library's are.
inline int32_t askedSource(int source) { return source == MPI_ANY_SOURCE ? log::kMpiAnySource : source; }
inline int32_t askedTag(int tag) { return tag == MPI_ANY_TAG ? log::kMpiAnyTag : tag; }

// Records a receive that completed (or failed) with the status it got.
void recordReceive(int64_t entry, const PostedReceive& r, const MPI_Status& status, int rc);

// Writes the event through the interposer.
void record(const log::MpiEvent& e);

// What the recording needs of a datatype: its size, whether its elements
// lie side by side, its name ("MPI_INT"; "derived"). Valid until the
// thread's next call.
struct TypeInfo {
  int size = -1;  // -1: a cache slot not used yet
  bool contiguous = false;
  char name[MPI_MAX_OBJECT_NAME] = {};
};
const TypeInfo& typeInfo(MPI_Datatype type);

// The bytes of `count` elements of `type` at `buf`, contiguous: the buffer
// itself, or a packed copy (mapped, given back by the destructor).
class Bytes {
 public:
  Bytes(const void* buf, int count, MPI_Datatype type, MPI_Comm comm);
  ~Bytes();
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  const void* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  const void* data_ = nullptr;
  uint64_t size_ = 0;
  void* mapped_ = nullptr;
  uint64_t mapped_size_ = 0;
};

}  // namespace radar::mpi
