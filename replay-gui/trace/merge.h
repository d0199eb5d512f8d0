// The causal merge: from per-process logs to one story.
//
//   1. processes are linked to their parents (fork, spawn, exec, system);
//   2. channel ends are grouped into channels by their identity (pipe inode,
//      socket pair, TCP addresses) and every received byte is matched to the
//      send that produced it (streams byte by byte, datagrams one to one);
//   3. the edges (messages, process creation, signals, exits reaped) and
//      each process's own order give the partial order; RADAR's global
//      event number is the longest chain to an event; a deterministic
//      linearization respects the order and breaks ties by the wall time
//      each call returned.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trace/load.h"
#include "trace/trace.h"

namespace radar::trace {

// Builds the trace from what loadLogs() read. Never fails: what cannot be
// matched or ordered is reported in the trace's problems and findings.
std::unique_ptr<Trace> merge(RawRecording&& raw, const std::function<void(int step)>& progress = {});

// "the recordings given share no channel between these groups …: {a} {b}"
std::string describeUnrelatedGroups(const std::vector<std::vector<std::string>>& groups);

// loadLogs() then merge(). Recordings that share no channel are refused
// (the error says so) unless options.merge_unrelated.
std::unique_ptr<Trace> loadTrace(const std::vector<std::string>& dirs, const LoadOptions& options, std::string* error);

}  // namespace radar::trace
