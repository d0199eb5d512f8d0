// A recording as a Perfetto trace (ui.perfetto.dev, trace_processor): the
// protobuf trace format, TracePacket by TracePacket, with only the
// messages a timeline of calls needs (docs/exporting.md):
//   - a process track per process (a pid: its images before and after an
//     exec share it) and a thread track per thread, named;
//   - a slice per call, from its entry to its return, named by the call,
//     its category the event's kind (send, receive, process ...), with the
//     event's number (radar replay --at-event, radar events), its RADAR
//     number, channel, bytes and result as arguments;
//   - a flow from each send to every receive that got its bytes;
//   - instants for user events (with their data) and for findings, on a
//     track of their own.
// The protobuf format rather than Chrome's JSON: exact nanoseconds, a send
// with several receivers has several flows, and with names interned a call
// takes tens of bytes, not hundreds: a big recording stays openable.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "export/progress.h"
#include "trace/trace.h"

namespace radar::exporting {

struct PerfettoCounts {
  uint64_t process_tracks = 0, thread_tracks = 0, slices = 0, instants = 0, flows = 0;
};

bool writePerfetto(const trace::Trace& t, std::FILE* out, PerfettoCounts* counts, std::string* error,
                   const Progress& progress = {});

}  // namespace radar::exporting
