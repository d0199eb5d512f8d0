#include "fallback/tracer.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>

namespace radar::fallback {
namespace {

constexpr long kOptions = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE |
                          PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
// A thread of an interposed process traced for its exec: what it creates
// before the exec is the interposer's to record, not followed.
constexpr long kOptionsUntilExec = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;

int64_t now() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

unsigned long eventMessage(pid_t tid) {
  unsigned long message = 0;
  ::ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &message);
  return message;
}

// A call the kernel restarts after a signal (ERESTARTSYS and its kin): the
// program never sees this return; the call comes again, or fails EINTR.
bool restarted(int64_t result) { return result <= -512 && result >= -516; }

// Whether thread `tid` has a handler for `signal` (SigCgt in its status).
bool caught(pid_t tid, int signal) {
  if (signal < 1 || signal > 64) return false;
  std::ifstream status("/proc/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.compare(0, 7, "SigCgt:") == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1)) & 1;
  return false;
}

// Whether executing `path` (as thread `tid` names it, from `dirfd`) would
// give the process privileges a traced exec does not get.
bool gainsPrivileges(pid_t tid, int dirfd, const std::string& path) {
  const std::string proc = "/proc/" + std::to_string(tid) + "/";
  const std::string where = path.empty()        ? ""
                            : path[0] == '/'    ? proc + "root" + path
                            : dirfd == AT_FDCWD ? proc + "cwd/" + path
                                                : proc + "fd/" + std::to_string(dirfd) + "/" + path;
  struct stat st {};
  if (where.empty() || ::stat(where.c_str(), &st) != 0) return false;
  if ((st.st_mode & S_ISUID) || ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP)))
    return true;  // (S_ISGID alone: locking)
  char caps[64];
  return ::getxattr(where.c_str(), "security.capability", caps, sizeof caps) > 0;
}

// Whether kill(`target`, `signal`) by `process` signals `process` itself
// (its own pid, or its group: 0, or the group's number negated), which
// cannot fail, as the interposer decides.
bool signalsItself(pid_t process, pid_t target, int signal) {
  return signal > 0 && signal < NSIG &&
         (target == process || target == 0 || (target < -1 && ::getpgid(process) == -target));
}

// Whether thread `tid` has ended, its process still there (a zombie).
bool isZombie(pid_t tid) {
  const std::string text = procFile(tid, "stat");
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

bool sentByAProcess(int code) { return code == SI_USER || code == SI_QUEUE || code == SI_TKILL || code == SI_MESGQ; }

}  // namespace

void stopToBeSeized() { ::raise(SIGSTOP); }

Tracer::Tracer(TracerConfig config) : config_(std::move(config)) {}

Tracer::~Tracer() = default;

bool Tracer::seizeRoot(pid_t pid, std::string* error) {
  // Its stop, looked at first: an end is left for radar record to reap.
  siginfo_t stopped{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &stopped, WEXITED | WSTOPPED | WNOWAIT) != 0 && errno == EINTR) {
  }
  if (stopped.si_code != CLD_STOPPED) {
    *error = "the program ended before it could be traced";
    return false;
  }
  int status = 0;
  pid_t r;
  while ((r = ::waitpid(pid, &status, WUNTRACED)) < 0 && errno == EINTR) {
  }
  if (r == pid && !WIFSTOPPED(status)) {  // killed since it was looked at
    root_end_ = status;
    *error = "the program ended before it could be traced";
    return false;
  }
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, kOptions) != 0) {
    *error = std::string("ptrace: ") + std::strerror(errno);
    ::kill(pid, SIGCONT);
    return false;
  }
  root_ = pid;
  threads_[pid].process = pid;
  ::kill(pid, SIGCONT);
  // Its stops until its exec: radar record waits for the exec before it
  // reaps (an exec that fails ends it: left for radar record to reap).
  while (!processes_.count(pid) && threads_.count(pid)) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WSTOPPED | WNOWAIT | __WALL) != 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (info.si_code == CLD_EXITED || info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED) break;
    while ((r = ::waitpid(pid, &status, __WALL)) < 0 && errno == EINTR) {
    }
    if (r != pid) break;
    if (!WIFSTOPPED(status)) {  // killed since it was looked at
      handle(pid, status);
      root_end_ = status;
      break;
    }
    handle(pid, status);
  }
  return true;
}

// Thread `tid` of `process`, which the interposer records, seized at its
// asking, with `options`; its first stop is the interrupt's, and its calls
// stop it from there.
bool Tracer::seizeForTheInterposer(pid_t process, pid_t tid, long options, std::string* error) {
  if (threads_.count(tid) || departed_.count(tid)) {
    *error = "already traced";
    return false;
  }
  if (::ptrace(PTRACE_SEIZE, tid, nullptr, options) != 0) {
    *error = std::string("ptrace: ") + std::strerror(errno);
    return false;
  }
  Thread& t = threads_[tid];
  t.process = process;
  t.first_stop = false;  // (a job-control stop before the interrupt's is the program's)
  processes_[process].threads.insert(tid);
  ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
  return true;
}

bool Tracer::traceThroughExec(pid_t process, pid_t tid, const ImageStart& start, std::string* error) {
  if (!seizeForTheInterposer(process, tid, kOptionsUntilExec, error)) return false;
  threads_[tid].exec_start = start;
  return true;
}

bool Tracer::traceItsSpawn(pid_t process, pid_t tid, const ImageStart& start, std::string* error) {
  if (!seizeForTheInterposer(process, tid, kOptions, error)) return false;  // (its child inherits them)
  threads_[tid].spawn_start = start;
  return true;
}

void Tracer::release(pid_t tid) {
  auto t = threads_.find(tid);
  if (t == threads_.end() || !(t->second.exec_start || t->second.spawn_start)) return;
  t->second.release = true;
  ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
}

// A thread traced for an exec that is not coming, at a stop: detached,
// with `signal` (the signal it stopped to be given, if any) delivered.
void Tracer::detachReleased(pid_t tid, int signal) {
  ::ptrace(PTRACE_DETACH, tid, nullptr, signal);
  onEnded(tid);
}

// A thread let go at the stop of a fork, vfork or clone it made: what it
// made (the kernel traces it already) is let go too, at its first stop.
void Tracer::letGoOfNewTracee(pid_t tid) {
  const auto child = static_cast<pid_t>(eventMessage(tid));
  unannounced_.erase(child);
  Thread& c = threads_[child];
  if (!c.process) c.process = child;
  processes_[c.process].threads.insert(child);
  c.release = true;
  for (auto& [caller, threads] : held_)
    if (threads.count(tid)) threads.insert(child);
  ::ptrace(PTRACE_INTERRUPT, child, nullptr, nullptr);
}

// A ptrace call at its entry. A program that traces (a debugger, strace)
// needs what radar traces: PTRACE_TRACEME lets the caller's process go,
// and an attach to a traced process lets that process go (the caller held
// until it is), so that the call does what it would have done; the log of
// the process let go says so. True when the caller is held or let go.
bool Tracer::onPtraceCall(pid_t tid, const Thread& t, const SyscallRegs& regs) {
  const long request = static_cast<long>(regs.args[0]);
  if (request == PTRACE_TRACEME) {
    handOver(t.process, "PTRACE_TRACEME: its parent traces it", 0, tid);
    return true;
  }
  if (request != PTRACE_ATTACH && request != PTRACE_SEIZE) return false;
  const auto target = threads_.find(static_cast<pid_t>(regs.args[1]));
  if (target == threads_.end() || target->second.process == t.process) return false;
  handOver(target->second.process, "by process " + std::to_string(t.process), tid, 0);
  return held_.count(tid) > 0;
}

// Lets every thread of `process` go: `stopped` (in its stop now) at once,
// the others at their next stop, `caller` held until they are.
void Tracer::handOver(pid_t process, const std::string& detail, pid_t caller, pid_t stopped) {
  auto p = processes_.find(process);
  if (p == processes_.end()) return;
  if (p->second.image) {
    p->second.image->sayUnseen(log::Unseen::Ptrace, detail);
    p->second.image.reset();
  }
  const std::set<pid_t> threads = p->second.threads;
  for (pid_t thread : threads) {
    if (thread == stopped) {
      detachReleased(thread, 0);
      continue;
    }
    threads_[thread].release = true;
    ::ptrace(PTRACE_INTERRUPT, thread, nullptr, nullptr);
    // (Not for a leader that left before its threads: it stops no more.)
    if (caller && !isZombie(thread)) held_[caller].insert(thread);
  }
}

std::vector<std::string> Tracer::takeProblems() { return std::exchange(problems_, {}); }

Tracer::Process* Tracer::processOf(pid_t tid) {
  auto t = threads_.find(tid);
  if (t == threads_.end()) return nullptr;
  auto p = processes_.find(t->second.process);
  return p == processes_.end() ? nullptr : &p->second;
}

void Tracer::resume(pid_t tid, int signal) { ::ptrace(PTRACE_SYSCALL, tid, nullptr, signal); }

bool Tracer::handle(pid_t tid, int status) {
  if (departed_.count(tid) && WIFSTOPPED(status)) {
    ::ptrace(PTRACE_DETACH, tid, nullptr, 0);  // a thread of a process let go, stopped before its end
    return true;
  }
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    if (departed_.erase(tid)) return true;  // a thread an exec ended
    const bool process = !threads_.count(tid) || threads_[tid].process == tid;
    // (Told before its parent can reap it; kept for a traced parent's wait.)
    if (const auto p = processes_.find(tid); process && p != processes_.end() && processes_.count(p->second.parent))
      ended_[tid] = status;
    onEnded(tid);
    return !process;  // a thread's end is the tracer's alone
  }
  if (!WIFSTOPPED(status)) return true;
  const int signal = WSTOPSIG(status), event = status >> 16;
  if (auto let_go = threads_.find(tid);
      let_go != threads_.end() &&
      (let_go->second.release || (let_go->second.exec_failed && signal != (SIGTRAP | 0x80)))) {
    if (signal == SIGTRAP && (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE))
      letGoOfNewTracee(tid);
    const auto former = static_cast<pid_t>(signal == SIGTRAP && event == PTRACE_EVENT_EXEC ? eventMessage(tid) : tid);
    detachReleased(tid, event == 0 && signal != (SIGTRAP | 0x80) ? signal : 0);
    if (former != tid) onEnded(former);  // (an exec by another thread, told under the leader's id)
    return true;
  }
  // A new tracee whose first stop comes before its creator's event: it is
  // taken in now (the event may never come, if its creator is killed). (An
  // exec by a thread other than the leader is told under the leader's id:
  // onExec takes the thread's place.)
  const bool exec = signal == SIGTRAP && event == PTRACE_EVENT_EXEC;
  if (!threads_.count(tid) && !exec) adoptUnannounced(tid);
  Thread& t = threads_[tid];
  if (signal == (SIGTRAP | 0x80)) {
    onSyscallStop(tid, t);
    return true;
  }
  if (signal == SIGTRAP && event && event != PTRACE_EVENT_STOP) {
    if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE)
      onNewTracee(tid, event);
    else if (event == PTRACE_EVENT_EXEC)
      onExec(tid);
    else if (event == PTRACE_EVENT_EXIT)
      onExit(tid);
    resume(tid);
    return true;
  }
  if (event == PTRACE_EVENT_STOP) {
    // A new tracee's first stop is the tracer's; a stopping signal's (job
    // control) keeps it stopped until SIGCONT, as without a tracer.
    const bool stopping = signal == SIGSTOP || signal == SIGTSTP || signal == SIGTTIN || signal == SIGTTOU;
    const bool first = std::exchange(t.first_stop, false);
    if (stopping && !first)
      ::ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);
    else
      resume(tid);
    return true;
  }
  if (Process* p = processOf(tid); p && p->image && caught(tid, signal)) {
    siginfo_t info{};
    const bool sent = ::ptrace(PTRACE_GETSIGINFO, tid, nullptr, &info) == 0 && sentByAProcess(info.si_code);
    recordSignal(*p->image, tid, signal, sent ? info.si_pid : 0, now());
    t.in_handler = t.interrupted;
  }
  resume(tid, signal);  // the program's signal, delivered
  return true;
}

void Tracer::startProcess(pid_t pid, const ImageStart& start) {
  Process& p = processes_[pid];
  p.threads.insert(pid);
  p.image = std::make_unique<TracedImage>(pid, config_, start);
  std::string error;
  if (!p.image->open(&error)) {
    problems_.push_back(error);
    p.image.reset();
  }
}

void Tracer::onSyscallStop(pid_t tid, Thread& t) {
  SyscallRegs regs;
  if (!readSyscallRegs(tid, &regs)) return resume(tid);
  const bool exec = regs.nr == SYS_execve || regs.nr == SYS_execveat;
  if (regs.stop == SyscallRegs::Entry || (regs.stop == SyscallRegs::Unknown && !t.in_call)) {
    if (std::exchange(t.exec_failed, false) && !exec) return detachReleased(tid, 0);
    t.in_call = true;
    t.call = CallSeen{};
    t.call.entry = regs;
    t.call.entry_ns = now();
    readAtEntry(tid, &t.call);
    lookAtRings(tid);
    if (exec) {
      const bool at = regs.nr == SYS_execveat;
      t.exec_strings = readStringArray(tid, regs.args[at ? 2 : 1]);
      t.exec_strings.insert(t.exec_strings.begin(), readString(tid, regs.args[at ? 1 : 0]));
      if (gainsPrivileges(tid, at ? static_cast<int>(regs.args[0]) : AT_FDCWD, t.exec_strings[0])) return letGo(tid, t);
    }
    if (regs.nr == SYS_ptrace && onPtraceCall(tid, t, regs)) return;
    if (regs.nr == SYS_kill &&
        signalsItself(t.process, static_cast<pid_t>(regs.args[0]), static_cast<int>(regs.args[1]))) {
      // It may never return (SIGKILL, a fatal signal): told now, as sent.
      CallSeen sent = t.call;
      sent.return_ns = sent.entry_ns;
      if (Process* p = processOf(tid); p && p->image) recordCall(*p->image, tid, sent);
      t.call.recorded = true;
    }
    return resume(tid);
  }
  if (!t.in_call) return resume(tid);  // the exit of a call made before it was traced
  t.in_call = false;
  t.call.result = regs.result;
  t.call.return_ns = now();
  onCallDone(tid, t);
  resume(tid);
}

// A stop of any thread of an image with io_uring requests in flight:
// the completions posted since, recorded before the call that stops it
// (whose story may follow from them).
void Tracer::lookAtRings(pid_t tid) {
  Process* p = processOf(tid);
  if (p && p->image && p->image->rings().inFlight()) p->image->rings().complete(*p->image, tid, now());
}

void Tracer::onCallDone(pid_t tid, Thread& t) {
  Process* p = processOf(tid);
  TracedImage* image = p ? p->image.get() : nullptr;
  if (t.call.entry.nr == SYS_rt_sigreturn && t.interrupted && t.in_handler) {
    // The handler is done: the interrupted call fails with EINTR, or is
    // made again (its restart is a call of its own).
    t.interrupted = t.in_handler = false;
    if (t.call.result == -EINTR && image) {
      t.interrupted_call.result = -EINTR;
      t.interrupted_call.return_ns = t.call.return_ns;
      recordCall(*image, tid, t.interrupted_call);
    }
    return;
  }
  if (!t.in_handler) t.interrupted = false;  // restarted with no handler run
  if (image) image->rings().onCallDone(*image, tid, t.call, t.call.return_ns);
  if (!mayRecord(t.call.entry.nr) || t.call.recorded) return;
  if (t.call.entry.nr == SYS_wait4 && t.call.result > 0) {
    auto reaped = ended_.find(static_cast<pid_t>(t.call.result));
    if (reaped != ended_.end()) {
      t.call.reaped_status = reaped->second;
      ended_.erase(reaped);
    }
  }
  const bool exec = t.call.entry.nr == SYS_execve || t.call.entry.nr == SYS_execveat;
  if (exec && t.call.result < 0 && t.exec_start) t.exec_failed = true;
  if (exec && t.call.result < 0 && image) recordExecFailed(*image, tid, t.call);
  if (restarted(t.call.result)) {
    t.interrupted = true;
    t.interrupted_call = t.call;
    return;
  }
  if (image) recordCall(*image, tid, t.call);
}

// An exec of a set-user-ID or set-group-ID program, or of one with file
// capabilities: traced, it would run without its privileges. Its process
// is let go, its last image ending with the EXEC; what it runs is not
// recorded (as under the interposer, which the loader refuses there).
void Tracer::letGo(pid_t tid, Thread& t) {
  const pid_t process = t.process;
  if (Process* p = processOf(tid); p && p->image) recordExec(*p->image, tid, t.exec_strings, t.call.entry_ns);
  if (auto p = processes_.find(process); p != processes_.end()) {
    // (A leader whose place the exec gives this thread: its end is never told.)
    for (pid_t other : p->second.threads)
      if (other != tid && threads_.erase(other) && other != process) departed_.insert(other);
    processes_.erase(p);
  }
  threads_.erase(tid);
  ::ptrace(PTRACE_DETACH, tid, nullptr, 0);
}

// A fork, a vfork or a clone: a new process, with a log of its own linked
// to its parent's FORK event, or a new thread of the same one.
void Tracer::onNewTracee(pid_t tid, int event) {
  const auto child = static_cast<pid_t>(eventMessage(tid));
  const Thread& parent = threads_[tid];
  uint64_t flags = parent.call.entry.args[0];
  if (parent.call.entry.nr == SYS_clone3 && readMemory(tid, parent.call.entry.args[0], &flags, sizeof flags) != 8)
    flags = 0;
  const bool thread = event == PTRACE_EVENT_CLONE && (flags & CLONE_THREAD);
  const bool vfork = event == PTRACE_EVENT_VFORK;
  const bool seen = unannounced_.erase(child) > 0;  // its first stop came first (it may have ended since)
  if (!seen) adoptChild(tid, child, thread, vfork);
  Process* p = processOf(tid);
  if (!thread && p && p->image) recordFork(*p->image, tid, vfork, child, now());
  if (!thread && !vfork && p && p->image) p->image->rings().forked(*p->image);
}

// A new thread or process: its creator's process has it; a process's log
// links to its creator's last event (the FORK comes right after it).
void Tracer::adoptChild(pid_t creator, pid_t child, bool thread, bool vfork) {
  ended_.erase(child);  // (a number used again)
  Thread& c = threads_[child];
  Process* p = processOf(creator);
  if (thread) {
    c.process = threads_[creator].process;
    if (p) p->threads.insert(child);
    return;
  }
  c.process = child;
  if (const std::optional<ImageStart> spawning = threads_[creator].spawn_start) {
    // The process an interposed one spawns: traced through its exec; its
    // creator, its spawn made, let go at its next stop.
    c.exec_start = spawning;
    processes_[child].threads.insert(child);
    threads_[creator].release = true;
    return;
  }
  ImageStart start;
  start.origin = vfork ? log::Origin::Vforked : log::Origin::Forked;
  if (p && p->image) {
    start.parent_log = p->image->logId();
    start.parent_counter = p->image->lastCounter();
  }
  if (::kill(child, 0) != 0) return;  // (not one that has already ended)
  startProcess(child, start);
  processes_[child].parent = threads_[creator].process;
}

// A tracee the tracer has not heard of: its thread group and its parent
// say whose it is.
void Tracer::adoptUnannounced(pid_t tid) {
  unannounced_.insert(tid);
  const auto group = static_cast<pid_t>(procStatusNumber(tid, "Tgid"));
  const auto parent = static_cast<pid_t>(procStatusNumber(tid, "PPid"));
  if (group != tid && threads_.count(group)) return adoptChild(group, tid, true, false);
  // Its creator: a traced thread of its parent (the process's leader, or
  // the one thread an interposed process has traced for its spawn).
  pid_t creator = threads_.count(parent) ? parent : tid;
  if (creator == tid)
    for (const auto& [other, thread] : threads_)
      if (other != tid && thread.process == parent && thread.spawn_start) {
        creator = other;
        break;
      }
  adoptChild(creator, tid, false, false);
}

// An exec done: the image before it ends with its EXEC event, and the one
// after starts a log linked to it. The process's other threads are gone.
void Tracer::onExec(pid_t tid) {
  const auto former = static_cast<pid_t>(eventMessage(tid));
  if (former != tid && threads_.count(former)) {
    threads_[tid] = threads_[former];
    threads_.erase(former);
  }
  Thread& t = threads_[tid];
  t.process = tid;
  Process& p = processes_[tid];
  for (pid_t other : p.threads)
    if (other != tid && threads_.erase(other)) departed_.insert(other);
  p.threads = {tid};
  ImageStart start;  // the program's first image: the root
  if (t.exec_start) {
    // An interposed process's exec, traced at its asking: linked to its
    // EXEC event; from here, what it creates is followed.
    start = *std::exchange(t.exec_start, std::nullopt);
    ::ptrace(PTRACE_SETOPTIONS, tid, nullptr, kOptions);
  } else if (p.image) {
    start.origin = log::Origin::Execed;
    start.parent_log = p.image->logId();
    start.parent_counter = recordExec(*p.image, tid, t.exec_strings, t.call.entry_ns);
    start.generation = p.image->generation() + 1;
    p.image.reset();
  }
  startProcess(tid, start);
}

// A thread leaving: the process's last (or its exit_group) ends its log,
// with the status it exits with.
void Tracer::onExit(pid_t tid) {
  const auto status = static_cast<int>(eventMessage(tid));
  Process* p = processOf(tid);
  if (!p || !p->image) return;
  // Its last thread to leave (a main thread that called pthread_exit
  // stays listed until the others are gone), or an exit_group.
  threads_[tid].exiting = true;
  p->image->rings().complete(*p->image, tid, now());  // (its memory is still there)
  bool last = threads_[tid].call.entry.nr == SYS_exit_group;
  if (!last) {
    last = true;
    for (pid_t other : p->threads) last = last && (!threads_.count(other) || threads_[other].exiting);
  }
  if (!last) return;
  if (WIFEXITED(status)) recordExit(*p->image, tid, WEXITSTATUS(status), now());
  p->image.reset();
}

void Tracer::onEnded(pid_t tid) {
  held_.erase(tid);
  // A caller held until this thread was let go (or ended) goes on.
  for (auto h = held_.begin(); h != held_.end();) {
    if (h->second.erase(tid) && h->second.empty()) {
      const pid_t caller = h->first;
      h = held_.erase(h);
      if (threads_.count(caller)) resume(caller);
    } else {
      ++h;
    }
  }
  auto t = threads_.find(tid);
  if (t == threads_.end()) return;
  const pid_t process = t->second.process;
  threads_.erase(t);
  auto p = processes_.find(process);
  if (p == processes_.end()) return;
  p->second.threads.erase(tid);
  if (p->second.threads.empty()) processes_.erase(p);
}

}  // namespace radar::fallback
