// When an event happened in the story, on the common wall clock: when its
// call began, but for a call that waited for another process (a receive, a
// wait, an accept) when it returned, as it is told after what it waited
// for. The event table's times and the timeline's ruler both say it.
#pragma once

#include <cstdint>

#include "trace/trace.h"

namespace radar::app {

inline int64_t storyTime(const trace::Trace& t, uint32_t position) {
  for (auto [b, e] = t.incoming(position); b != e; ++b)
    if (t.events[b->from].process != t.events[position].process) return t.wallReturnTime(position);
  return t.wallTime(position);
}

}  // namespace radar::app
