// ASAN_OPTIONS as radar record and radar debug leave it for the program
// (host code only).
#pragma once

#include <string>

#include "log/recorder_env.h"

namespace radar::log {

// "ASAN_OPTIONS=..." with radar's addition; and as it was before it.
inline std::string withAsanLinkOrder(const std::string& entry) {
  const std::string value = entry.substr(entry.find('=') + 1);
  return "ASAN_OPTIONS=" + value + (value.empty() ? "" : ":") + kAsanLinkOrder;
}
inline std::string withoutAsanLinkOrder(const std::string& entry) {
  const std::string suffix = std::string(":") + kAsanLinkOrder;
  if (entry == std::string("ASAN_OPTIONS=") + kAsanLinkOrder) return "";
  if (entry.size() > suffix.size() && entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) == 0)
    return entry.substr(0, entry.size() - suffix.size());
  return entry;
}

}  // namespace radar::log
