#include "analysis/narrative.h"

#include <sys/ipc.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "trace/findings.h"

namespace radar::analysis {

Narrator::Narrator(const Trace& trace, bool live) : t_(trace), live_(live) {}

std::vector<uint32_t> Narrator::receivers(uint32_t send) const {
  std::vector<uint32_t> out;
  for (uint32_t k : t_.messagesFrom(send)) {
    const uint32_t p = t_.events[t_.edges[k].to].process;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

std::vector<uint32_t> Narrator::senders(uint32_t receive) const {
  std::vector<uint32_t> out;
  auto [b, e] = t_.incoming(receive);
  for (; b != e; ++b) {
    if (b->why != Edge::Why::Message) continue;
    const uint32_t p = t_.events[b->from].process;
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

std::string Narrator::who(uint32_t process) const {
  return process < t_.processes.size() ? t_.label(process) : std::string("?");
}

std::string Narrator::channel(const Event& e) const {
  if (e.endpoint == kNone) return "an unknown channel";
  return t_.channelLabel(t_.endpoints[e.endpoint].channel);
}

namespace {

std::string bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// "parser[4123] and itself": a message between threads of one process, or
// through a self-pipe, names the subject as itself.
std::string names(const Trace& t, const std::vector<uint32_t>& ps, uint32_t subject) {
  std::string s;
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i) s += i + 1 == ps.size() ? " and " : ", ";
    s += ps[i] == subject ? std::string("itself") : t.label(ps[i]);
  }
  return s;
}

}  // namespace

std::string Narrator::execPath(uint32_t position) const {
  log::Record r;
  std::vector<std::string> strings;
  if (!t_.record(position, &r, nullptr, &strings, nullptr) || strings.empty() || strings[0].empty()) return "a program";
  return strings[0];
}

// The name is in the record (user events are few).
std::string Narrator::userEventName(uint32_t position) const {
  log::Record r;
  std::vector<std::string> strings;
  if (t_.record(position, &r, nullptr, &strings, nullptr) && !strings.empty()) return strings[0];
  return "an event";
}

// The interface's name leads the struct ifreq an INTERFACE event kept.
std::string Narrator::interfaceName(uint32_t position) const {
  log::Record r;
  std::string ifreq;
  if (t_.record(position, &r, &ifreq, nullptr, nullptr) && !ifreq.empty()) {
    const std::string name = ifreq.substr(0, std::min<size_t>(ifreq.size(), 16)).c_str();
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 127; }))
      return "network interface " + name;
  }
  return "a network interface";
}

// A message queue's message: ", priority 7" (POSIX), ", type 2" (System
// V), from the record; "" for other messages.
std::string Narrator::tag(uint32_t position, Kind k) const {
  const bool posix = k == Kind::MqSend || k == Kind::MqReceive, sysv = k == Kind::Msgsnd || k == Kind::Msgrcv;
  log::Record r;
  if ((k == Kind::MpiSend || k == Kind::MpiRecv) && t_.record(position, &r, nullptr, nullptr, nullptr))
    return ", tag " + std::to_string(r.status);
  if ((!posix && !sysv) || !t_.record(position, &r, nullptr, nullptr, nullptr)) return "";
  return (posix ? ", priority " + std::to_string(static_cast<uint32_t>(r.status))
                : ", type " + std::to_string(r.status));
}

// What mq_open or mq_unlink named: "message queue /name" (or an eventfd).
std::string Narrator::queueName(uint32_t position) const {
  log::Record r;
  std::vector<std::string> strings;
  if (t_.record(position, &r, nullptr, &strings, nullptr) && !strings.empty())
    return strings[0] == log::kEventFdOpened ? "an eventfd" : "message queue " + strings[0];
  return "a message queue";
}

// An eventfd's write or read, after its subject: " adds 3 to eventfd 1,
// taken by B", " takes 3 from eventfd 1, added by A".
std::string Narrator::counted(uint32_t position) const {
  const Event& e = t_.events[position];
  const bool add = log::categoryOf(e.eventKind()) == log::Category::Send;
  const std::string on = channel(e);
  if (e.flags & kEventFailed)
    return add ? " fails to add to " + on : " finds nothing to take from " + on + " (the call failed)";
  std::string count = "its count";
  log::Record r;
  std::string payload;
  if (t_.record(position, &r, &payload, nullptr, nullptr) && payload.size() == sizeof(uint64_t)) {
    uint64_t n;
    std::memcpy(&n, payload.data(), sizeof n);
    count = std::to_string(n);
  }
  const auto others = add ? receivers(position) : senders(position);
  std::string who;
  if (!others.empty())
    who = (add ? ", taken by " : ", added by ") + names(t_, others, e.process);
  else if (!add && (e.flags & kEventUnmatched))
    who = ", which no recorded process added";
  else if (add && !(e.flags & kEventExternal))
    who = ", which nobody takes";
  return (add ? " adds " + count + " to " : " takes " + count + " from ") + on + who;
}

// What an open did, after its subject: " opens message queue /jobs",
// " creates eventfd 1".
std::string Narrator::opened(uint32_t position) const {
  const Event& e = t_.events[position];
  if (e.flags & kEventFailed) return " fails to open " + queueName(position);
  return (onCounter(e) ? " creates " : " opens ") + channel(e);
}

bool Narrator::onCounter(const Event& e) const {
  return e.endpoint != kNone && log::isCounterType(t_.endpoints[e.endpoint].type);
}

// What a send did, after its subject: " sends a message to ... (N bytes)".
std::string Narrator::sent(uint32_t position) const {
  const Event& e = t_.events[position];
  if (onCounter(e)) return counted(position);
  const Kind k = e.eventKind();
  const std::string on = " on " + channel(e);
  if (e.flags & kEventFailed) return " fails to send" + on;
  const auto to = receivers(position);
  std::string whom;
  if (!to.empty())
    whom = " to " + names(t_, to, e.process);
  else if (e.flags & kEventExternal) {
    const Channel& c = t_.channels[t_.endpoints[e.endpoint].channel];
    whom = " to " + (c.external_peer.empty() ? std::string("outside the recording") : c.external_peer);
  }
  std::string s = " sends a message" + whom + on + " (" + bytes(e.value) + tag(position, k) + ")";
  if (t_.beganBeforeAttach(e.endpoint) && !(e.flags & kEventExternal))
    s += ", not seen received (the channel was open before radar attach)";
  else if (to.empty() && (e.flags & kEventReceivedWhole) && e.value && e.endpoint != kNone &&
           t_.channelBeganBeforeWindow(t_.endpoints[e.endpoint].channel))
    s += ", received before the oldest events the flight recorder kept of its receiver";
  else if (to.empty() && !(e.flags & kEventExternal))
    s += live_             ? ", not received yet"
         : t_.frozen_at_ns ? ", not received when the recording was frozen"
                           : ", which nobody receives";
  return s;
}

// Where a receive's bytes came from when no recorded send explains them:
// a send whose process's log ended inside it, a holder of the channel
// radar did not see send (io_uring, a lost log's end), or nobody recorded.
std::string Narrator::unmatchedWhence(uint32_t position) const {
  const Event& e = t_.events[position];
  const auto unfinished = unfinishedSendInto(t_, position);
  if (unfinished.process != kNone)
    return " from " + t_.label(unfinished.process) + ", whose log ended inside its " +
           log::kindName(static_cast<log::Kind>(unfinished.kind)) + "(),";
  if (t_.beganBeforeAttach(e.endpoint)) return " radar did not see sent (the channel was open before radar attach)";
  if (channelGapExplained(t_, t_.endpoints[e.endpoint].channel, e.process)) return " whose sending radar did not see";
  return " that no recorded process sent";
}

// Whether a receive returned after the last event of every other process
// holding its channel (a freeze copied their logs before it).
bool Narrator::afterSendersEnd(uint32_t position) const {
  const Event& e = t_.events[position];
  bool others = false;
  for (uint32_t end : t_.channels[t_.endpoints[e.endpoint].channel].endpoints) {
    const uint32_t p = t_.endpoints[end].process;
    if (p == e.process || t_.process_events[p].empty()) continue;
    others = true;
    if (t_.wallReturnTime(t_.process_events[p].back()) >= t_.wallReturnTime(position)) return false;
  }
  return others;
}

// What a receive did, after its subject: " receives a message from ...".
std::string Narrator::received(uint32_t position) const {
  const Event& e = t_.events[position];
  if (onCounter(e)) return counted(position);
  const Kind k = e.eventKind();
  const std::string on = " on " + channel(e);
  if (e.flags & kEventFailed) {
    // EAGAIN: RADAR's "unsuccessful conditional receive".
    return " finds no message" + on + " (the call failed)";
  }
  if (e.flags & kEventEof) return " reads end of file" + on;
  const auto from = senders(position);
  std::string whence;
  if (!from.empty())
    whence = " from " + names(t_, from, e.process);
  else if (e.flags & kEventExternal) {
    const Channel& c = t_.channels[t_.endpoints[e.endpoint].channel];
    whence = " from " + (c.external_peer.empty() ? std::string("outside the recording") : c.external_peer);
  } else if (e.flags & kEventUnmatched) {
    whence = unmatchedWhence(position);
  } else if (e.value && e.endpoint != kNone && t_.frozen_at_ns && afterSendersEnd(position)) {
    whence = t_.running ? " whose send its sender's log does not hold yet" : " sent after its sender's log was frozen";
  } else if (e.value && e.endpoint != kNone && t_.channelBeganBeforeWindow(t_.endpoints[e.endpoint].channel)) {
    whence = " whose send the flight recorder's window does not hold";
  }
  const std::string verb = (e.flags & kEventPeek) ? " peeks at a message" : " receives a message";
  std::string unseen;  // some of its bytes, where others came from recorded sends
  if (const uint64_t n = from.empty() ? 0 : t_.unseenBytes(position))
    unseen = ", " + std::to_string(n) + " of them sent unseen";
  return verb + whence + on + " (" + bytes(e.value) + unseen + tag(position, k) + ")";
}

// A call on a message queue that moves no message, after its subject.
std::string Narrator::queueCall(uint32_t position) const {
  const Event& e = t_.events[position];
  const bool failed = e.flags & kEventFailed;
  switch (e.eventKind()) {
    case Kind::MqUnlink:
      return std::string(failed ? " fails to remove " : " removes ") + queueName(position);
    case Kind::MqAttributes:
      return std::string(failed ? " fails to ask " : " asks ") + channel(e) + " for its attributes";
    case Kind::MqNotify:
      return std::string(failed ? " fails to ask" : " asks") + " to be told when " + channel(e) + " gets a message";
    case Kind::Msgget:
      return failed ? std::string(" fails to get a System V queue") : " gets " + channel(e);
    case Kind::Msgctl:
      return queueControl(position);
    default:
      return " " + std::string(log::kindName(e.eventKind()));
  }
}

// What msgctl did, after its subject: " removes System V queue 3".
std::string Narrator::queueControl(uint32_t position) const {
  const Event& e = t_.events[position];
  const std::string queue = e.endpoint != kNone ? channel(e) : std::string("System V queues");
  log::Record r;
  const int cmd = t_.record(position, &r, nullptr, nullptr, nullptr) ? static_cast<int>(r.flags) : -1;
  const std::string what = cmd == IPC_RMID  ? "remove " + queue
                           : cmd == IPC_SET ? "change the settings of " + queue
                           : cmd >= 0       ? "ask " + queue + " for its state"
                                            : "control " + queue;
  if (e.flags & kEventFailed) return " fails to " + what;
  const size_t verb = what.find(' ');
  return " " + what.substr(0, verb) + "s" + what.substr(verb);
}

// What a process does to processes: creates, executes, waits, ends.
std::string Narrator::processCall(uint32_t position) const {
  const Event& e = t_.events[position];
  const Process& p = t_.processes[e.process];
  const std::string on = " on " + channel(e);
  const Kind k = e.eventKind();
  const bool failed = e.flags & kEventFailed;
  switch (k) {
    case Kind::Vfork: {
      // Two events: the call, then (once the child has exec'd or ended and
      // the parent runs again) who the child was.
      if (failed && !e.value) return " fails to create a process";
      if (!e.value) return " calls vfork: a child runs in its memory while it waits";
      for (const auto& q : t_.processes)
        if (q.pid == static_cast<int32_t>(e.value) && q.parent == e.process)
          return " resumes: its vfork child " + t_.label(q.index) + " executes " + q.executable;
      if (failed)
        return " resumes: its vfork child, process " + std::to_string(e.value) + ", failed to execute a program";
      if (e.result == 0)
        return " resumes: its vfork child, process " + std::to_string(e.value) + ", ended without executing a program";
      return " resumes: its vfork child, process " + std::to_string(e.value) +
             ", executed a program radar could not record";
    }
    case Kind::Fork:
    case Kind::Spawn: {
      if (failed) return " fails to create a process";
      if (!e.value) return " creates a process";
      for (const auto& q : t_.processes)
        if (q.pid == static_cast<int32_t>(e.value) && q.parent == e.process) return " creates " + t_.label(q.index);
      return " creates process " + std::to_string(e.value);
    }
    case Kind::System:
      return " runs a shell command, which " + statusText(e.result);
    case Kind::Popen:
      return " starts a shell command with a pipe" + on;
    case Kind::Exec: {
      // One try of several (a PATH search tries each directory in turn):
      // the program it tried is the record's, not the one that ran.
      const uint32_t after = t_.positionOfCounter(e.process, e.counter + 1);
      if (after != kNone && t_.events[after].eventKind() == Kind::ExecFailed)
        return " tries to execute " + execPath(position);
      if (p.next_image != kNone) {
        // A program radar could not record: which, and why.
        const Process& next = t_.processes[p.next_image];
        return " executes " + next.executable + (next.not_recorded.empty() ? "" : ", " + next.not_recorded);
      }
      const std::string path = execPath(position);
      return (path.empty() || path == "a program" ? " executes a new program" : " executes " + path);
    }
    case Kind::ExecFailed: {
      const uint32_t before = t_.localPredecessor(position);
      const std::string what =
          before != kNone && t_.events[before].eventKind() == Kind::Exec ? execPath(before) : "a program";
      return " fails to execute " + what +
             (e.value ? ": " + std::string(std::strerror(static_cast<int>(e.value))) : "");
    }
    case Kind::Exit:
      return " exits with status " + std::to_string(e.result);
    case Kind::Wait: {
      if (failed) return " waits for a child, in vain";
      if (!e.value) return " finds no child ended yet";
      std::string child = "process " + std::to_string(e.value);
      for (const auto& q : t_.processes)
        if (q.pid == static_cast<int32_t>(e.value)) child = t_.label(q.index);
      return " learns that " + child + " " + statusText(e.result);
    }
    default:
      return " does " + std::string(log::kindName(k));
  }
}

// A signal sent or received.
std::string Narrator::signalCall(uint32_t position) const {
  const Event& e = t_.events[position];
  const Kind k = e.eventKind();
  const bool failed = e.flags & kEventFailed;
  switch (k) {
    case Kind::Kill: {
      // kill(pid), kill(-pgid) (a group: its leader's pid), kill(0) (the
      // sender's own group), kill(-1) (every process it may signal).
      const auto to = static_cast<int32_t>(e.value);
      const int64_t pid = to < -1 ? -int64_t{to} : to;  // INT32_MIN too
      std::string target = "process " + std::to_string(pid);
      for (const auto& q : t_.processes)
        if (q.pid == pid) target = t_.label(q.index);
      if (to == 0)
        target = "its own process group";
      else if (to == -1)
        target = "every process it may signal";
      else if (to < 0)
        target = "the process group of " + target;
      return " sends signal " + signalText(e.result) + " to " + target + (failed ? " (it fails)" : "");
    }
    case Kind::Signal: {
      std::string from;
      if (e.value)
        for (const auto& q : t_.processes)
          if (q.pid == static_cast<int32_t>(e.value)) from = " from " + t_.label(q.index);
      return " receives signal " + signalText(e.result) + from;
    }
    case Kind::SignalWait: {
      if (failed)
        return " waits for a signal: " + (e.value == EAGAIN
                                              ? std::string("none came before its timeout")
                                              : "it fails: " + std::string(std::strerror(static_cast<int>(e.value))));
      std::string from;
      if (e.value)
        for (const auto& q : t_.processes)
          if (q.pid == static_cast<int32_t>(e.value)) from = " from " + t_.label(q.index);
      return " receives signal " + signalText(e.result) + from + ", waiting for it (no handler runs)";
    }
    default:
      return " does " + std::string(log::kindName(k));
  }
}

// What a process does to a channel other than sending and receiving.
std::string Narrator::channelCall(uint32_t position) const {
  const Event& e = t_.events[position];
  const Kind k = e.eventKind();
  const bool failed = e.flags & kEventFailed;
  switch (k) {
    case Kind::Pipe:
      return (failed ? " fails to create a pipe" : " creates " + channel(e));
    case Kind::Socketpair:
      return (failed ? " fails to create a socket pair" : " creates " + channel(e));
    case Kind::Socket:
      return " opens a socket" + (e.endpoint != kNone ? " (" + channel(e) + ")" : "");
    case Kind::Bind:
      return (failed ? " fails to bind " : " binds ") + channel(e);
    case Kind::Listen:
      return " listens on " + channel(e);
    case Kind::Connect:
      if (isConnectOutcome(e))
        return " learns how connecting " + channel(e) + " ended: " +
               (e.value ? "it failed: " + std::string(std::strerror(static_cast<int>(e.value))) : "connected");
      if (failed && e.value == EINPROGRESS) return " starts connecting " + channel(e) + " (in progress)";
      return (failed ? " fails to connect " : " connects ") + channel(e);
    case Kind::Accept:
      return " accepts a connection: " + channel(e);
    case Kind::Shutdown:
      return " shuts down its end of " + channel(e);
    case Kind::Close:
      return " closes its end of " + channel(e);
    case Kind::Dup:
      return " duplicates its end of " + channel(e);
    case Kind::Open:
      return opened(position);
    case Kind::EpollCtl:
      return " changes what it waits for";
    case Kind::Poll:
    case Kind::Select:
    case Kind::EpollWait:
      if (failed) return " waits for channels, interrupted";
      if (e.result == 0) return " waits for channels: none ready";
      return " waits for channels: " + std::to_string(e.result) + " ready";
    default:
      return " does " + std::string(log::kindName(k));
  }
}

namespace {
// A rank: "rank 2", "any rank".
std::string rankName(int32_t rank) { return rank == -1 ? "any rank" : "rank " + std::to_string(rank); }
}  // namespace

// MPI's calls other than sends and receives, after their subject:
// " joins MPI_Allreduce on MPI_COMM_WORLD (4 bytes)", " starts MPI as rank
// 0 of 4 (Open MPI v4.1.4)".
std::string Narrator::mpiCall(uint32_t position) const {
  const Event& e = t_.events[position];
  log::Record r;
  std::vector<std::string> strings;
  if (!t_.record(position, &r, nullptr, &strings, nullptr)) return " does " + std::string(log::kindName(e.eventKind()));
  const auto arg = [&](size_t i) { return i < r.fds.size() ? r.fds[i] : 0; };
  const std::string on = e.endpoint != kNone ? " on " + channel(e) : "";
  switch (e.eventKind()) {
    case Kind::MpiInit:
      return " starts MPI as rank " + std::to_string(arg(0)) + " of " + std::to_string(arg(1)) +
             (strings.empty() || strings[0].empty() ? "" : " (" + strings[0] + ")");
    case Kind::MpiFinalize:
      return " finishes MPI";
    case Kind::MpiCollective: {
      const std::string operation = strings.empty() ? "a collective" : strings[0];
      std::string details = e.result > 0 ? bytes(uint64_t(e.result)) : "";
      if (r.peer_pid >= 0)
        details += (details.empty() ? "" : ", ") + std::string("root rank ") + std::to_string(r.peer_pid);
      return " joins " + operation + on + (details.empty() ? "" : " (" + details + ")");
    }
    case Kind::MpiIrecv:
      return " posts a receive" + on + " from " + rankName(arg(0)) +
             (arg(1) == -1 ? ", any tag" : ", tag " + std::to_string(arg(1)));
    case Kind::MpiProbe:
      return " probes" + on + ": a message from rank " + std::to_string(r.peer_pid) + ", tag " +
             std::to_string(r.status) + " (" + bytes(e.result > 0 ? uint64_t(e.result) : 0) + ") waits";
    case Kind::MpiComm:
      return " makes " + channel(e) + (strings.empty() ? "" : " (" + strings[0] + ")");
    default:
      return " does " + std::string(log::kindName(e.eventKind()));
  }
}

std::string Narrator::actor(uint32_t position) const {
  const Event& e = t_.events[position];
  const Process& p = t_.processes[e.process];
  std::string name = t_.label(p.index);
  if (p.threads.size() > 1 && e.thread) name += " (thread " + std::to_string(e.thread + 1) + ")";
  return name;
}

// A lock, semaphore, condition or barrier (radar record --sync), with the
// release that let it go on: " locks mutex 0x5580, unlocked by mt (thread 2)
// at event 8".
std::string Narrator::syncCall(uint32_t position) const {
  const Event& e = t_.events[position];
  const Kind k = e.eventKind();
  log::Record r;
  if (!t_.record(position, &r, nullptr, nullptr, nullptr)) return " does " + std::string(log::kindName(k));
  const std::string object = trace::syncObjectName(t_, position);
  const bool failed = e.flags & kEventFailed, tried = r.flags & 1;
  std::string by;  // who let it go on: "mt (thread 2) at event 8"
  for (auto [b, end] = t_.incoming(position); b != end && by.empty(); ++b)
    if (b->why == Edge::Why::Sync) by = actor(b->from) + " at event " + std::to_string(b->from + 1);
  const std::string failure = !tried               ? ": " + std::string(std::strerror(int(r.error)))
                              : k == Kind::SemWait ? ": none left"
                                                   : ": it is held";
  const auto outcome = [&](const char* verb) { return failed ? failure : by.empty() ? "" : ", " + (verb + by); };
  switch (k) {
    case Kind::MutexLock:
      return std::string(tried ? " tries " : " takes ") + object + ((r.flags & 4) ? " to read" : "") +
             outcome("released by ");
    case Kind::MutexUnlock:
      return " releases " + object;
    case Kind::SemWait:
      return std::string(tried ? " tries " : " waits on ") + object + outcome("posted by ");
    case Kind::SemPost:
      return " posts " + object;
    case Kind::CondWait:
      return " waits on " + object + (failed || !by.empty() ? outcome("signalled by ") : ", woken by no signal");
    case Kind::CondSignal:
      return ((r.flags & 32) ? " broadcasts " : " signals ") + object;
    case Kind::BarrierWait:
      return " waits at " + object + " for " + std::to_string(r.status) + " threads" + outcome("after the arrival of ");
    default:
      return " does " + std::string(log::kindName(k));
  }
}

// Announcements and what the process asks the kernel.
std::string Narrator::otherCall(uint32_t position) const {
  const Event& e = t_.events[position];
  const Kind k = e.eventKind();
  switch (k) {
    case Kind::User:
      return " announces " + userEventName(position) + (e.value ? " (" + bytes(e.value) + ")" : "");
    case Kind::Clock:
      return " reads the clock";
    case Kind::Random:
      return " reads random bytes";
    case Kind::Getpid:
      return " asks for its process id";
    case Kind::Interface:
      return " asks the kernel about " + interfaceName(position);
    case Kind::ThreadStart:
      return " starts";
    default:
      return " does " + std::string(log::kindName(k));
  }
}

std::string Narrator::describe(uint32_t position) const {
  const Event& e = t_.events[position];
  const std::string subject = "Process " + actor(position);
  const std::string on = " on " + channel(e);
  const Kind k = e.eventKind();
  const bool failed = e.flags & kEventFailed;
  if (failed && e.result == kResultNeverReturned)
    return subject + " is cancelled in " + log::kindName(k) + "()" + (e.endpoint != kNone ? on : "") +
           ": the call never returns";
  if (k == Kind::MqUnlink || k == Kind::MqAttributes || k == Kind::MqNotify || k == Kind::Msgget || k == Kind::Msgctl)
    return subject + queueCall(position);
  switch (log::categoryOf(k)) {
    case log::Category::Send:
      return subject + sent(position);
    case log::Category::Receive:
      return subject + received(position);
    case log::Category::Mpi:
      return subject + mpiCall(position);
    case log::Category::Sync:
      return subject + syncCall(position);
    default:
      break;
  }
  if (k == Kind::Vfork || k == Kind::Fork || k == Kind::Spawn || k == Kind::System || k == Kind::Popen ||
      k == Kind::Exec || k == Kind::ExecFailed || k == Kind::Exit || k == Kind::Wait)
    return subject + processCall(position);
  if (k == Kind::Kill || k == Kind::Signal || k == Kind::SignalWait) return subject + signalCall(position);
  if (k == Kind::User || k == Kind::Clock || k == Kind::Random || k == Kind::Getpid || k == Kind::Interface ||
      k == Kind::ThreadStart)
    return subject + otherCall(position);
  return subject + channelCall(position);
}

std::string Narrator::sentence(uint32_t position) const {
  return describe(position) + ". Event " + std::to_string(position + 1) + ".";
}

}  // namespace radar::analysis
