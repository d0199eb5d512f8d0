// How a log written by the fallback recorder says so: its header's
// recorder, after radar's version ("radar 0.1.0 (fallback: ptrace)").
#pragma once

#include <string>

namespace radar::fallback {

inline constexpr char kMark[] = "(fallback: ptrace)";

inline bool recordedByTheFallback(const std::string& recorder) { return recorder.find(kMark) != std::string::npos; }

}  // namespace radar::fallback
