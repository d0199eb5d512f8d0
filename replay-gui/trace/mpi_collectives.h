// MPI's collectives as one event across their ranks: the n-th collective
// on a communicator, in every rank that called it, as the merge ties them
// (trace/merge_mpi.cc): up to the first place where the ranks call
// different collectives, past which they are not one collective any more.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace radar::trace {

struct CollectiveInstance {
  uint32_t channel = kNone;       // the communicator
  uint32_t operation = 0;         // mpiCollectiveCode()
  uint32_t nth = 0;               // its place on the communicator (1: the first)
  std::vector<uint32_t> members;  // each rank's MPI_COLLECTIVE event (positions, ascending)
};

// Every collective that two or more ranks called, in the order of their
// communicators, then of their place on it.
std::vector<CollectiveInstance> mpiCollectives(const Trace& t);

}  // namespace radar::trace
