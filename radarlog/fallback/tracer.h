// The fallback recorder: processes the interposer cannot see into (a
// statically linked program, a Go program, or every process with
// radar record --fallback=always) recorded from outside, by radar record,
// through ptrace. Each system call stops its thread at entry and exit; the
// calls radar records are read from the thread's registers and memory and
// written as the interposer's events into the same log format, so that the
// merge, the story, the findings and the exports treat the process like any
// other (its header's recorder says "fallback: ptrace"). Processes and
// threads it creates are traced from their first instruction; an exec
// starts the next image's log, as the interposer's exec hook does.
//
// radar record's thread that started the program is the tracer: it passes
// every wait status of a traced thread to handle().
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fallback/image.h"
#include "fallback/syscalls.h"

namespace radar::fallback {

// In the program's process before its exec: stops until radar record has
// seized it (Tracer::seizeRoot), so that its exec is the first thing seen.
void stopToBeSeized();

class Tracer {
 public:
  explicit Tracer(TracerConfig config);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // The program's first process, stopped by stopToBeSeized(): traced from
  // now on, and recorded from its exec. False with `error` when the kernel
  // refuses (it then runs on unrecorded).
  bool seizeRoot(pid_t pid, std::string* error);
  // The root's wait status, when it ended while it was being seized (the
  // caller reaps nothing more of it then).
  std::optional<int> takeRootEnd() { return std::exchange(root_end_, std::nullopt); }
  // Thread `tid` of `process`, a process the interposer records, about to
  // exec a program it cannot see into (log::TraceRequest): traced through
  // its exec, and the new image recorded from its start, linked as `start`
  // says. False with `error` when the kernel refuses.
  bool traceThroughExec(pid_t process, pid_t tid, const ImageStart& start, std::string* error);
  // The same thread about to spawn a process (posix_spawn) that runs such
  // a program: the process it creates is traced through its exec, linked
  // as `start` says, and the thread let go.
  bool traceItsSpawn(pid_t process, pid_t tid, const ImageStart& start, std::string* error);
  // A thread traced for an exec or a spawn that is no longer wanted (its
  // asker gave up waiting, or its spawn failed): let go at its next stop.
  void release(pid_t tid);
  bool traces(pid_t tid) const { return threads_.count(tid) || departed_.count(tid); }
  // A wait status (waitpid with __WALL) of a traced thread. A stop is
  // handled, and the thread resumed: true. An end is taken note of (its
  // process's log closed with its last thread): false, for the caller to
  // reap it as any other.
  bool handle(pid_t tid, int status);
  // What went wrong (a log that could not be made ...), once each.
  std::vector<std::string> takeProblems();

 private:
  struct Thread {
    pid_t process = 0;
    bool in_call = false;
    bool first_stop = true;  // the stop a new tracee starts with (PTRACE_EVENT_STOP)
    bool exiting = false;    // it has reached its exit (PTRACE_EVENT_EXIT)
    CallSeen call;
    std::vector<std::string> exec_strings;  // an execve's file and arguments, read at its entry
    // A call a signal interrupted (-ERESTARTSYS ...): restarted, or failed
    // with EINTR once the signal's handler returns (rt_sigreturn says which).
    bool interrupted = false, in_handler = false;
    CallSeen interrupted_call;
    // Traced for an exec the interposer asked for: where the new image's
    // log links to; whether the exec failed (let go at its next call but
    // another exec: execvp tries each directory of PATH); whether to let
    // it go at its next stop.
    std::optional<ImageStart> exec_start;
    bool exec_failed = false, release = false;
    std::optional<ImageStart> spawn_start;  // traced for a spawn: where its child's image links to
  };
  struct Process {
    std::unique_ptr<TracedImage> image;
    std::set<pid_t> threads;
    pid_t parent = 0;  // the traced process that made it, if any
  };

  void onSyscallStop(pid_t tid, Thread& t);
  void onCallDone(pid_t tid, Thread& t);
  void lookAtRings(pid_t tid);
  void letGo(pid_t tid, Thread& t);
  void onNewTracee(pid_t tid, int event);
  void adoptChild(pid_t creator, pid_t child, bool thread, bool vfork);
  void adoptUnannounced(pid_t tid);
  void onExec(pid_t tid);
  void onExit(pid_t tid);
  void onEnded(pid_t tid);
  void detachReleased(pid_t tid, int signal);
  bool seizeForTheInterposer(pid_t process, pid_t tid, long options, std::string* error);
  bool onPtraceCall(pid_t tid, const Thread& t, const SyscallRegs& regs);
  void letGoOfNewTracee(pid_t tid);
  void handOver(pid_t process, const std::string& detail, pid_t caller, pid_t stopped);
  void startProcess(pid_t pid, const ImageStart& start);
  void resume(pid_t tid, int signal = 0);
  Process* processOf(pid_t tid);

  TracerConfig config_;
  std::map<pid_t, Thread> threads_;
  std::map<pid_t, Process> processes_;
  std::set<pid_t> departed_;     // threads an exec ended (or let go), whose end is still to be reported
  std::set<pid_t> unannounced_;  // taken in before their creator's event came
  std::optional<int> root_end_;  // the root's wait status, when seizing it took it
  std::map<pid_t, int> ended_;   // traced processes' wait statuses, until their parent's wait4 reaps them
  // Threads held at their ptrace(PTRACE_ATTACH or PTRACE_SEIZE) until the
  // threads of the process they attach to are let go.
  std::map<pid_t, std::set<pid_t>> held_;
  pid_t root_ = 0;
  std::vector<std::string> problems_;
};

}  // namespace radar::fallback
