// How far an export is: events written of the trace's, told now and then
// from the thread that writes them (radar's progress line on a terminal).
#pragma once

#include <cstdint>
#include <functional>

namespace radar::exporting {

using Progress = std::function<void(uint64_t done, uint64_t total)>;

// Tells `progress` once every 65536 events: cheap in any event's loop.
inline void tellProgress(const Progress& progress, uint64_t done, uint64_t total) {
  if (progress && (done & 0xffff) == 0) progress(done, total);
}

}  // namespace radar::exporting
