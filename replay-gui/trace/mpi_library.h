// What the MPI library did on its own: the system calls a rank made inside
// its MPI calls (the library's transport, its progress polls) and on the
// threads the library started. The story tells the MPI calls themselves;
// these are hidden by default and shown on request.
#pragma once

#include "trace/trace.h"

namespace radar::trace {

// Fills t.mpi_library: by position, whether the MPI library made the event.
// A rank's event is the library's when the recorder marked it so
// (Process::in_mpi_calls: made inside any MPI call, one it did not record
// as well), when it lies inside one of the rank's
// recorded MPI calls on the same thread (begun after the call's entry,
// recorded before it), or when its thread is one the library started (its
// first event inside an MPI call of another thread, and no MPI call of its
// own).
void markMpiLibrary(Trace& t);

}  // namespace radar::trace
