// The Wait and Test families: a nonblocking receive is recorded when the
// call that completed it returns, with the status it got. The requests are
// read before the call (it sets completed ones to MPI_REQUEST_NULL), and
// the statuses kept even where the program ignores them.
#include <dlfcn.h>
#include <sys/mman.h>

#include "inject/hook.h"
#include "mpi/mpi_state.h"

#include "log/injected.h"

namespace m = radar::mpi;

namespace {

// The requests as they were before the call, and room for the statuses.
class Completion {
 public:
  Completion(int count, const MPI_Request* requests, MPI_Status* statuses) : count_(count > 0 ? count : 0) {
    const size_t need = size_t(count_) * (sizeof(MPI_Request) + sizeof(MPI_Status));
    if (count_ <= kOnStack) {
      saved_ = saved_here_;
      statuses_ = statuses_here_;
    } else {
      mapped_size_ = need;
      mapped_ = mmap(nullptr, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mapped_ == MAP_FAILED) {
        mapped_ = nullptr;
        count_ = 0;  // too little memory to follow: the call only passes
        return;
      }
      statuses_ = static_cast<MPI_Status*>(mapped_);
      saved_ = reinterpret_cast<MPI_Request*>(statuses_ + count_);
    }
    for (int i = 0; i < count_; ++i) saved_[i] = requests[i];
    if (statuses != MPI_STATUSES_IGNORE) statuses_ = statuses;
  }
  ~Completion() {
    if (mapped_) munmap(mapped_, mapped_size_);
  }
  Completion(const Completion&) = delete;
  Completion& operator=(const Completion&) = delete;

  bool following() const { return count_ > 0; }
  MPI_Status* statuses() { return statuses_; }
  // Request `i` completed with statuses()[at].
  void completed(int i, int at, int rc) {
    m::PostedReceive posted;
    if (i < 0 || i >= count_ || !m::takeReceive(saved_[i], &posted)) return;
    m::recordReceive(entry_, posted, statuses_[at], rc);
  }

 private:
  static constexpr int kOnStack = 32;
  int count_;
  int64_t entry_ = m::now();
  MPI_Request* saved_ = nullptr;
  MPI_Status* statuses_ = nullptr;
  MPI_Request saved_here_[kOnStack];
  MPI_Status statuses_here_[kOnStack];
  void* mapped_ = nullptr;
  size_t mapped_size_ = 0;
};

bool following() { return m::recording() && m::anyPostedReceive(); }

// A status's error where a call that completed many failed (MPI_ERR_IN_STATUS).
int statusError(int rc, const MPI_Status& s) { return rc == MPI_ERR_IN_STATUS ? s.MPI_ERROR : rc; }

}  // namespace

HOOK int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Wait);
  if (!following() || !request) return pmpi_Wait(request, status);
  Completion c(1, request, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
  const int rc = pmpi_Wait(request, c.statuses());
  c.completed(0, 0, rc);
  return rc;
}

HOOK int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Test);
  if (!following() || !request) return pmpi_Test(request, flag, status);
  Completion c(1, request, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
  const int rc = pmpi_Test(request, flag, c.statuses());
  if (rc != MPI_SUCCESS || *flag) c.completed(0, 0, rc);
  return rc;
}

HOOK int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  const m::Inside inside;
  PMPI(Waitall);
  if (!following()) return pmpi_Waitall(count, requests, statuses);
  Completion c(count, requests, statuses);
  if (!c.following()) return pmpi_Waitall(count, requests, statuses);
  const int rc = pmpi_Waitall(count, requests, c.statuses());
  for (int i = 0; i < count; ++i) c.completed(i, i, statusError(rc, c.statuses()[i]));
  return rc;
}

HOOK int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  const m::Inside inside;
  PMPI(Testall);
  if (!following()) return pmpi_Testall(count, requests, flag, statuses);
  Completion c(count, requests, statuses);
  if (!c.following()) return pmpi_Testall(count, requests, flag, statuses);
  const int rc = pmpi_Testall(count, requests, flag, c.statuses());
  if (rc == MPI_SUCCESS && !*flag) return rc;
  for (int i = 0; i < count; ++i) c.completed(i, i, statusError(rc, c.statuses()[i]));
  return rc;
}

HOOK int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Waitany);
  if (!following()) return pmpi_Waitany(count, requests, index, status);
  Completion c(count, requests, MPI_STATUSES_IGNORE);
  if (!c.following()) return pmpi_Waitany(count, requests, index, status);
  const int rc = pmpi_Waitany(count, requests, index, c.statuses());
  if (*index != MPI_UNDEFINED) c.completed(*index, 0, rc);
  if (status != MPI_STATUS_IGNORE) *status = c.statuses()[0];
  return rc;
}

HOOK int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  const m::Inside inside;
  PMPI(Testany);
  if (!following()) return pmpi_Testany(count, requests, index, flag, status);
  Completion c(count, requests, MPI_STATUSES_IGNORE);
  if (!c.following()) return pmpi_Testany(count, requests, index, flag, status);
  const int rc = pmpi_Testany(count, requests, index, flag, c.statuses());
  if (*flag && *index != MPI_UNDEFINED) c.completed(*index, 0, rc);
  if (status != MPI_STATUS_IGNORE && *flag) *status = c.statuses()[0];
  return rc;
}

namespace {
template <class Call>
int some(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[], Call call) {
  Completion c(count, requests, statuses);
  if (!c.following()) return call(statuses);
  const int rc = call(c.statuses());
  if (*outcount == MPI_UNDEFINED) return rc;
  for (int k = 0; k < *outcount; ++k) c.completed(indices[k], k, statusError(rc, c.statuses()[k]));
  return rc;
}
}  // namespace

HOOK int MPI_Waitsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const m::Inside inside;
  PMPI(Waitsome);
  if (!following()) return pmpi_Waitsome(count, requests, outcount, indices, statuses);
  return some(count, requests, outcount, indices, statuses,
              [&](MPI_Status* s) { return pmpi_Waitsome(count, requests, outcount, indices, s); });
}

HOOK int MPI_Testsome(int count, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const m::Inside inside;
  PMPI(Testsome);
  if (!following()) return pmpi_Testsome(count, requests, outcount, indices, statuses);
  return some(count, requests, outcount, indices, statuses,
              [&](MPI_Status* s) { return pmpi_Testsome(count, requests, outcount, indices, s); });
}
