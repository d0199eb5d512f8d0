// ASAN_OPTIONS as radar record and radar debug leave it for the program
// (host code only).
#pragma once

#include <string>

namespace radar::log {

// What radar record adds to ASAN_OPTIONS (a program built with ASan would
// abort with radar's library preloaded before the sanitizer's runtime).
inline constexpr char kAsanLinkOrder[] = "verify_asan_link_order=0";

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
