// What a user should look at first: messages never received, bytes with
// no sender, processes that crashed or never ended, deadlocks, logs that
// are incomplete. Computed once the trace is merged.
#pragma once

#include <string>

namespace radar::trace {

class Trace;

void findProblems(Trace& trace);

// "read" -> "a read", for sentences; the call a thread was blocked in.
std::string blockedCallName(unsigned kind);

}  // namespace radar::trace
