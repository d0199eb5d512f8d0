// What `radar events`, `check` and `stats` share: loading recordings with
// progress and clear errors, naming processes on the command line, JSON.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trace.h"

namespace radar::cli {

// Loads and merges; reports problems and progress on stderr. Returns null
// (after printing why) when nothing could be read.
std::unique_ptr<replay::Trace> loadForCommand(const char* command, const std::vector<std::string>& dirs);

// A process named by pid ("4123"), by name ("parser") or "name[pid]":
// every image that matches. Sets *error when none does, or when a name is
// ambiguous and `unique` is asked for.
std::vector<uint32_t> findProcesses(const replay::Trace& t, const std::string& spec, bool unique,
                                    std::string* error);

std::string jsonString(const std::string& s);

}  // namespace radar::cli
