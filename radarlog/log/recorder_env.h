// The environment variables `radar record` sets for the recorded program
// (and that the recorder passes on to every process it starts). Other
// RADAR_* variables, such as the RADAR_PORT_* of the port convention,
// belong to the program.
#pragma once

#include <cstring>

namespace radar::log {

inline constexpr const char* kRecorderVariables[] = {
    "RADAR_DIR",      "RADAR_RECORDING_ID", "RADAR_PAYLOAD_LIMIT", "RADAR_TAIL", "RADAR_NONDET",
    "RADAR_EXTERNAL", "RADAR_LINK",         "RADAR_BOOT_ID",       "RADAR_HOST",
};

// Whether "NAME=value" (or "NAME") is one of them.
inline bool isRecorderVariable(const char* entry) {
  for (const char* name : kRecorderVariables) {
    const size_t n = std::strlen(name);
    if (std::strncmp(entry, name, n) == 0 && (entry[n] == '=' || entry[n] == 0)) return true;
  }
  return false;
}

}  // namespace radar::log
