// Processes and events chosen by what a user typed: the commands' PROCESS
// arguments and filters, the same everywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::trace {

// A process named by pid ("4123"), by name ("parser") or "name[pid]":
// every image that matches. Sets *error when none does, or when a name is
// ambiguous and `unique` is asked for.
std::vector<uint32_t> findProcesses(const trace::Trace& t, const std::string& spec, bool unique, std::string* error);

}  // namespace radar::trace
