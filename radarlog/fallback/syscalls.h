// The system calls the fallback recorder records, read at their exit from
// the traced thread's registers and memory, as the events the interposer
// writes for the C library calls that make them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fallback/image.h"
#include "fallback/remote.h"

namespace radar::fallback {

// One system call of a traced thread, from its entry to its exit.
struct CallSeen {
  SyscallRegs entry;
  int64_t result = 0;  // the return value, or -errno
  int64_t entry_ns = 0, return_ns = 0;
  // A wait that reaped a child without asking its status (a null pointer):
  // the status the tracer saw it end with.
  std::optional<int> reaped_status;
  bool recorded = false;    // at its entry already (a signal to itself, which may never return)
  int32_t timeout_ms = -1;  // a readiness call's, read at its entry (select and ppoll change it)
};

// What a call's entry must be read for now, before the kernel changes it:
// a readiness call's timeout.
void readAtEntry(pid_t tid, CallSeen* call);

// Whether a call of number `nr` may be recorded (its exit is worth a stop).
bool mayRecord(long nr);

// Records the call into `image`'s log when it is one radar records.
void recordCall(TracedImage& image, pid_t tid, const CallSeen& call);

// The events of a process's life, which ptrace reports apart from the
// calls that cause them.
void recordFork(TracedImage& parent, pid_t tid, bool vfork, pid_t child, int64_t entry_ns);
uint64_t recordExec(TracedImage& image, pid_t tid, const std::vector<std::string>& strings, int64_t entry_ns);
void recordExecFailed(TracedImage& image, pid_t tid, const CallSeen& call);
void recordExit(TracedImage& image, pid_t tid, int status, int64_t entry_ns);
// A signal about to run the program's handler; `sender` when a process sent it.
void recordSignal(TracedImage& image, pid_t tid, int signal, pid_t sender, int64_t entry_ns);

}  // namespace radar::fallback
