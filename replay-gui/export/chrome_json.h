// A recording in Chrome's JSON trace event format, for the tools that read
// only that (Chrome's about:tracing, speedscope, older trace viewers):
//   - a process and its threads named by metadata events (a pid: its
//     images before and after an exec share it);
//   - a complete event ("X") per call, named by the call, its category the
//     event's kind, with the event's number, RADAR number, channel, bytes
//     and result as arguments;
//   - a flow ("s" at the send, "f" at the receive) along each message;
//   - instants for user events (their data) and findings (global).
// Times are microseconds with three decimals (nanoseconds) from the
// recording's first event; `otherData.radar_first_event_ns` gives that
// instant on the wall clock. The Perfetto export is smaller and exact: use
// it where the tool reads it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "export/progress.h"
#include "trace/trace.h"

namespace radar::exporting {

struct ChromeJsonCounts {
  uint64_t processes = 0, threads = 0, slices = 0, instants = 0, flows = 0;
};

bool writeChromeJson(const trace::Trace& t, std::FILE* out, ChromeJsonCounts* counts, std::string* error,
                     const Progress& progress = {});

}  // namespace radar::exporting
