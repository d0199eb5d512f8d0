// libradar-rerun-mpi.so: the MPI calls of a rank re-run alone, answered
// from the recording by libradar-rerun.so (rerun/mpi_api.h). Preloaded
// before the program's MPI library, so that its MPI_* are these: the
// library never starts, looks for no mpirun and no other rank.
//
// Built against Open MPI's <mpi.h> and linked against no MPI library, as
// the recorder's (radarlog/mpi): the library's handles are found by name.
// Code that runs inside the program: no allocation, fixed tables.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "inject/spin_lock.h"
#include "rerun/mpi_api.h"

namespace radar::rerun_mpi {

// The stand-ins' tables are shared by the program's threads.
using inject::Held;
using inject::SpinLock;

// The library's predefined handles, found by name (their macros name its data).
MPI_Comm world();
MPI_Comm self();
MPI_Comm nullComm();
MPI_Request nullRequest();

// Asks the replay for the call's answer; false when the re-run is not
// replaying (left the recording, reported): the stand-in fails the call.
bool ask(const radar_rerun_mpi_call& call, radar_rerun_mpi_answer* answer);
// A look at the calling thread's next recorded call.
bool next(uint16_t kind, radar_rerun_mpi_answer* answer);
// A call the stand-ins cannot answer: reported as the re-run's divergence.
void cannot(const char* report);
// A Test or Iprobe found nothing; after kFruitlessPolls in a row with no
// call answered, the re-run is waiting for what never comes: reported.
inline constexpr uint32_t kFruitlessPolls = 1u << 22;
void foundNothing(const char* poll);
// What a stand-in returns when it could not answer.
inline constexpr int kFailed = MPI_ERR_OTHER;

// Communicators the program knows: MPI_COMM_WORLD from MPI_Init on,
// MPI_COMM_SELF, and those it made; by their channel in the recording.
struct Communicator {
  uint32_t channel = 0;
  int rank = 0;
  int size = 1;
  uint32_t ranks_of = 0;  // a duplicate's: the channel whose ranks its ranks are (0: its own)
};
// The channel whose ranks a communicator's are: a group taken from it
// is of those.
inline uint32_t rankSpace(const Communicator& c) { return c.ranks_of ? c.ranks_of : c.channel; }
bool communicator(MPI_Comm comm, Communicator* out);
void started(uint32_t world_channel, int rank, int size);
MPI_Comm made(const Communicator& c);  // a new handle for it
void freed(MPI_Comm comm);

// A datatype's size in bytes (its data, not its extent): Open MPI's
// predefined ones, and those the program made with MPI_Type_contiguous and
// MPI_Type_vector (datatypes.cc); -1 for one the stand-ins do not know.
int typeSize(MPI_Datatype type);
// The bytes of `count` elements of `type`, or false (reported) where the
// type is not known.
bool bytesOf(MPI_Datatype type, int count, const char* call, uint64_t* bytes);

// `count` elements of `type` at `buf` as MPI moves them: packed in the
// type's order where its elements have holes (as the recorder packed them),
// the buffer itself where they do not.
class Message {
 public:
  // Reports a type the stand-ins do not know (ok() false).
  Message(const void* buf, int count, MPI_Datatype type, const char* call);
  ~Message();
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  bool ok() const { return ok_; }
  uint64_t size() const { return size_; }
  const void* packed();  // what a send carries
  void* room();          // where a receive's bytes go, then unpack()
  void unpack(uint64_t got);

 private:
  bool ok_ = false;
  const void* buf_;
  int count_ = 0;
  MPI_Datatype type_;
  uint64_t size_ = 0;
  void* mapped_ = nullptr;  // the packed copy, where the type has holes
};

// Nonblocking calls: a request handle of the stand-ins' own per call.
struct Pending {
  bool receive = false;
  uint32_t serial = 0;  // MPI_Irecv's, as recorded
  uint32_t channel = 0;
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type{};
  uint64_t room = 0;
  int source = 0, tag = 0;  // asked, as the log has them
};
MPI_Request posted(const Pending& p);  // null request when the table is full (reported)
bool pending(MPI_Request request, Pending* out);
void completed(MPI_Request* request);

// The status of a call that got `bytes` from `source` with `tag`.
void setStatus(MPI_Status* status, int source, int tag, uint64_t bytes, int error);

// A short text for reports, built without allocating.
class Text {
 public:
  Text& operator<<(const char* s);
  Text& operator<<(int64_t v);
  Text& operator<<(int v) { return *this << static_cast<int64_t>(v); }
  Text& operator<<(uint64_t v) { return *this << static_cast<int64_t>(v); }
  const char* str() const { return buf_; }

 private:
  char buf_[256] = {};
  size_t len_ = 0;
};

}  // namespace radar::rerun_mpi
