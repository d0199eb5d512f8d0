// What a user should look at first: messages never received, bytes with
// no sender, processes that crashed or never ended, deadlocks, logs that
// are incomplete. Computed once the trace is merged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace radar::trace {

class Trace;
struct Finding;

// Finds them all, ranked (rankFindings).
void findProblems(Trace& trace);

// Gives each finding its severity and, where the story holds one, its
// cause; orders them errors first, and within a severity causes before
// their effects (findings_rank.cc).
void rankFindings(Trace& trace);

// Whether a signal is a crash's (SIGSEGV, SIGABRT ...), not a request to end.
bool isCrashSignal(int signal);

// ", which pool[3] sent (kill() at event 88)": what describe() adds for a
// finding the story explains; "" for the others.
std::string causeOf(const Trace& trace, const Finding& finding);

// A finding in one line for people, by the names shown now (a network
// description's where it gives one, else the recorded ones).
std::string describe(const Trace& trace, const Finding& finding);

// What the recorded processes used that radar does not record (io_uring,
// shared memory, message queues ...), said apart from the findings: a limit
// of what radar saw, not a fault of the program. Anonymous shared memory is
// said only where the process forked after mapping it (else nobody shares it).
struct UnseenLine {
  uint32_t process;
  uint32_t event;          // position of the event after which it began, or kNone
  std::string name, text;  // log::unseenName(); "X[pid] uses io_uring (liburing): ..."
};
std::vector<UnseenLine> unseenLines(const Trace& trace);

// Whether bytes on `channel` that seem to lack a sender or a receiver may
// have gone where radar does not see: another holder than `process` lost
// its last events (a full disk) or moved bytes through io_uring or raw
// system calls, or an end was open before radar attach began recording.
bool channelGapExplained(const Trace& trace, uint32_t channel, uint32_t process);

// A process whose log ended inside a send (write, send ...) that could
// have brought the bytes of `receive` (a position) that no record explains:
// killed after the kernel moved them and before it recorded the call. Its
// send was on the channel's other side (not the receiving end, nor another
// copy of that socket end), and the receive does not happen before the
// last event the sending thread recorded.
struct UnfinishedSend {
  uint32_t process = ~0u;  // kNone: none
  unsigned kind = 0;       // log::Kind of the call
};
UnfinishedSend unfinishedSendInto(const Trace& trace, uint32_t receive);

// A synchronization event's object, for sentences: "mutex 0x5580",
// "shared semaphore at inode 5932 + 0" (re-read from its log).
std::string syncObjectName(const Trace& trace, uint32_t position);

// Who made the event, for sentences: "mt[40] (thread 2)" (the main thread
// goes unsaid).
std::string threadOf(const Trace& trace, uint32_t position);

// "read" -> "a read", for sentences; the call a thread was blocked in.
std::string blockedCallName(unsigned kind);

}  // namespace radar::trace
