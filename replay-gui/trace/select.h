// Processes and events chosen by what a user typed: the commands' PROCESS
// arguments and filters, the same everywhere.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::trace {

// A process named by pid ("4123"), by name ("parser") or "name[pid]":
// every image that matches. Sets *error when none does, or when a name is
// ambiguous and `unique` is asked for.
std::vector<uint32_t> findProcesses(const trace::Trace& t, const std::string& spec, bool unique, std::string* error);

// Whether a --kind names anything (log::kindMatches says what it names).
bool knownKind(const std::string& want);

// The channels a --channel names, added to `channels`: by name or number;
// a named socket's name selects every connection to it. False when none.
bool selectChannels(const Trace& t, const std::string& spec, std::set<uint32_t>* channels);

// The events a user asked for: of these processes, on these channels, of
// these kinds (each set empty: any).
struct EventFilter {
  std::set<uint32_t> processes, channels;
  std::vector<std::string> kinds;
  std::set<int32_t> tags;    // MPI messages with one of these tags only
  bool mpi_library = false;  // also what the MPI library did on its own (Trace::mpi_library)
  bool wants(const Trace& t, uint32_t event) const;
};

}  // namespace radar::trace
