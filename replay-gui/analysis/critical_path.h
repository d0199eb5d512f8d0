// Why did this take so long? The critical path of an event (after Ashton
// and Penny's interaction networks): walking back from the event, at each
// step the predecessor that was ready last decided when the event could
// happen — the previous call of its thread, or the send (fork, exit, kill,
// close) whose edge leads into it. The chain of those predecessors
// explains, to the nanosecond, the time from its first event to the end:
//   running  a thread in a call, or computing between two calls;
//   blocked  a thread in a call that waited for something the recording
//            does not link (a timeout, readiness, a peer outside it);
//   transit  from a send's completion to the return of the receive that
//            was waiting for it (also a fork to the child, an exit to the
//            wait, a kill to the signal, an unlock, post or signal to the
//            lock or wait it let go on: the time before it is the holder's);
//   queued   a message waiting in its channel while the receiver was busy
//            with what the path's start does not explain (with --from).
// Other predecessors have slack: how much later they could have come
// without changing the end.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::analysis {

// An analysis reads a merged trace and speaks its language.
using namespace radar::trace;

struct PathSegment {
  enum class Kind : uint8_t { Running, Blocked, Transit, Queued };
  Kind kind = Kind::Running;
  int64_t begin_ns = 0, end_ns = 0;  // wall clock of the recording
  uint32_t process = kNone;          // whose time: the thread's; for transit and queued, the receiver's
  uint32_t channel = kNone;          // transit and queued: the channel, when there is one
  uint32_t event = kNone;            // the event (position) the segment leads to
  uint32_t woken_by = kNone;         // transit to a lock or wait: the release that let it go on
  int64_t ns() const { return end_ns - begin_ns; }
};

// A predecessor the path did not take, and its slack.
struct Branch {
  uint32_t from = kNone, to = kNone;  // positions: the predecessor, and the path's event it leads to
  int64_t slack_ns = 0;
};

struct CriticalPath {
  std::vector<uint32_t> events;       // positions, first to last: each step a happens-before edge
  std::vector<PathSegment> segments;  // in time order, each beginning where the previous ends
  std::vector<Branch> branches;       // the other predecessors of the path's events, least slack first
  int64_t begin_ns = 0, end_ns = 0;
};

const char* pathSegmentName(PathSegment::Kind k);

// Whose time a segment is: the thread's ("mt[40] (thread 2)"), on which
// channel, and for a lock or wait the thread whose release let it go on
// and the object ("woken by mt[40] (mutex 0x5555555580c0)"). The command
// line's rows and the window's say the same.
std::string segmentOwner(const Trace& t, const PathSegment& s);

// The critical path that ends at event `to` (position). With `from`
// (a position, or kNone), the path starts there: every step is an event
// `from` happens before; false (and *error) when `to` does not follow
// from `from`.
bool criticalPath(const Trace& t, uint32_t from, uint32_t to, CriticalPath* out, std::string* error);

// The last event of the recording's first process (its last image), or kNone.
uint32_t lastEventOfRoot(const Trace& t);

}  // namespace radar::analysis
