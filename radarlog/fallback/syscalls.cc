#include "fallback/syscalls.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstdint>

#include "fallback/events.h"
#include "log/crc32c.h"

namespace radar::fallback {

using log::Kind;

log::EventFields eventOf(Kind kind, int fd, const CallSeen& call) {
  log::EventFields e;
  e.kind = kind;
  e.fd = fd;
  e.entry_ns = call.entry_ns;
  e.return_ns = call.return_ns;
  e.result = call.result < 0 ? -1 : call.result;
  e.error = call.result < 0 ? static_cast<uint32_t>(-call.result) : 0;
  return e;
}

namespace {

// The bytes a call moved, read from the program's buffers a chunk at a
// time: their checksum, and the first `keep` of them. `complete` is false
// when the buffers could not all be read (unmapped since): the event then
// claims no checksum.
struct Moved {
  std::string kept;
  uint32_t crc = 0;
  uint64_t read = 0;
};

Moved readMoved(pid_t tid, const std::vector<struct iovec>& iov, uint64_t moved, uint64_t keep) {
  Moved m;
  char chunk[64 * 1024];
  for (const struct iovec& v : iov) {
    for (uint64_t at = 0; at < v.iov_len && m.read < moved;) {
      const size_t want = std::min<uint64_t>({sizeof chunk, v.iov_len - at, moved - m.read});
      const size_t got = readMemory(tid, reinterpret_cast<uint64_t>(v.iov_base) + at, chunk, want);
      m.crc = crc32c(m.crc, chunk, got);
      if (m.kept.size() < keep) m.kept.append(chunk, std::min<uint64_t>(got, keep - m.kept.size()));
      m.read += got;
      at += got;
      if (got < want) return m;
    }
  }
  return m;
}

}  // namespace

void recordTransfer(TracedImage& image, pid_t tid, const CallSeen& call, const Transfer& t) {
  const TracedImage::Fd queue{FdClass::Channel, t.channel, true};
  const TracedImage::Fd& d = t.channel ? queue : image.descriptor(t.fd);
  const bool sending = log::categoryOf(t.kind) == log::Category::Send;
  const bool kept = d.cls == FdClass::Channel && (sending || d.store_received);
  if (d.cls != FdClass::Channel && !(d.cls == FdClass::Output && sending && t.moved)) return;
  const Moved m = readMoved(tid, t.iov, t.moved, kept ? std::min(t.moved, image.payloadLimit()) : 0);
  const bool whole = m.read == t.moved;
  if (d.cls == FdClass::Output) {
    log::EventFields out = eventOf(Kind::Output, t.fd, call);
    out.size = t.size;
    out.has_hash = whole;
    out.hash = m.crc;
    image.append(tid, out);
    return;
  }
  log::EventFields e = eventOf(t.kind, t.fd, call);
  e.channel = d.channel;
  e.size = t.size;
  e.flags = static_cast<uint32_t>(t.flags);
  e.status = t.status;
  const log::Iov payload{m.kept.data(), m.kept.size()};
  if (kept) {
    e.payload = &payload;
    e.payload_iov_count = 1;
    e.payload_len = m.kept.size();
    e.payload_omitted = t.moved - m.kept.size();
  }
  if (t.moved && whole && (!sending || e.payload_omitted)) {
    e.has_hash = true;
    e.hash = m.crc;
  }
  if (!t.address.empty()) {
    e.address = t.address.data();
    e.address_len = t.address.size();
  }
  e.fds = t.fds.data();
  e.fd_count = t.fds.size();
  e.lengths = t.messages.data();
  e.length_count = t.messages.size();
  image.append(tid, e);
}

namespace {

std::vector<struct iovec> oneBuffer(uint64_t address, uint64_t len) {
  return {{reinterpret_cast<void*>(address), len}};
}

uint64_t iovTotal(const std::vector<struct iovec>& iov) {
  uint64_t n = 0;
  for (const auto& v : iov) n += v.iov_len;
  return n;
}

// read, write and their vectored forms.
bool dataCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  Transfer t{Kind::Unspecified, static_cast<int>(a[0])};
  switch (call.entry.nr) {
    case SYS_write:
    case SYS_read:
      t.kind = call.entry.nr == SYS_write ? Kind::Write : Kind::Read;
      t.iov = oneBuffer(a[1], a[2]);
      t.size = a[2];
      break;
    case SYS_writev:
    case SYS_readv:
      t.kind = call.entry.nr == SYS_writev ? Kind::Writev : Kind::Readv;
      t.iov = readIovecs(tid, a[1], a[2]);
      t.size = iovTotal(t.iov);
      break;
    default:
      return false;
  }
  t.moved = call.result > 0 ? static_cast<uint64_t>(call.result) : 0;
  recordTransfer(image, tid, call, t);
  return true;
}

void closeCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  const int fd = static_cast<int>(call.entry.args[0]);
  const TracedImage::Fd* known = image.known(fd);
  const TracedImage::Fd d = known ? *known : TracedImage::Fd{};
  if (call.result != -EBADF) image.forget(fd);  // a close that fails otherwise has freed the number too
  if (d.cls != FdClass::Channel) return;
  log::EventFields e = eventOf(Kind::Close, fd, call);
  e.channel = d.channel;
  image.append(tid, e);
}

void dupCall(TracedImage& image, pid_t tid, int from, const CallSeen& call) {
  if (call.result < 0) return;
  const int to = static_cast<int>(call.result);
  const bool named = call.entry.nr == SYS_dup2 || call.entry.nr == SYS_dup3;  // dup and F_DUPFD take a free one
  const TracedImage::Fd* was = image.known(to);
  if (named && was && was->cls == FdClass::Channel && to != from) {  // dup2 over a channel closes it
    log::EventFields closing = eventOf(Kind::Close, to, call);
    closing.result = 0;
    closing.channel = was->channel;
    image.append(tid, closing);
  }
  if (to != from) {
    image.forget(to);
    image.duplicated(from, to);
  }
  const TracedImage::Fd d = image.descriptor(from);
  if (d.cls != FdClass::Channel) return;
  log::EventFields e = eventOf(Kind::Dup, from, call);
  e.channel = d.channel;
  const int32_t fds[2] = {from, to};
  // dup2 and dup3 name the number they take; dup and F_DUPFD return it.
  if (named) {
    e.fds = fds;
    e.fd_count = 2;
  }
  image.append(tid, e);
}

// pipe, pipe2, socketpair: the two new descriptors, defined before the event.
void pairCall(TracedImage& image, pid_t tid, Kind kind, uint64_t fds_at, const CallSeen& call) {
  int32_t fds[2] = {-1, -1};
  const bool made = call.result == 0 && readMemory(tid, fds_at, fds, sizeof fds) == sizeof fds;
  log::EventFields e = eventOf(kind, -1, call);
  if (made) {
    image.forget(fds[0]);
    image.forget(fds[1]);
    e.channel = image.created(fds[0], log::ChannelOrigin::Created).channel;
    image.created(fds[1], log::ChannelOrigin::Created);
    e.fds = fds;
    e.fd_count = 2;
  }
  image.append(tid, e);
}

void waitCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Wait, -1, call);
  e.flags = static_cast<uint32_t>(call.entry.args[2]);
  int status = call.reaped_status.value_or(0);
  if (call.result > 0 && call.entry.args[1]) readMemory(tid, call.entry.args[1], &status, sizeof status);
  e.peer_pid = call.result > 0 ? static_cast<int32_t>(call.result) : 0;
  e.status = call.result > 0 ? status : 0;
  image.append(tid, e);
}

// close_range: the channels in the range closed, as the interposer's
// onRangeClosed records them.
void closeRangeCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  constexpr uint64_t kCloexec = 4;  // CLOSE_RANGE_CLOEXEC: nothing closed now
  if (call.result != 0 || (call.entry.args[2] & kCloexec)) return;
  const uint64_t first = call.entry.args[0], last = call.entry.args[1];
  for (const auto& [fd, d] : image.knownIn(first, last)) {
    if (d.cls == FdClass::Channel) {
      log::EventFields e = eventOf(Kind::Close, fd, call);
      e.channel = d.channel;
      image.append(tid, e);
    }
    image.forget(fd);
  }
}

// Calls that return a descriptor radar does not record the making of
// (open, epoll_create ...; eventfd and mq_open are recorded above): whatever the number meant before is
// forgotten, and what it is now is asked on its first use.
constexpr long kNewDescriptor[] = {
    SYS_open,           SYS_openat,          SYS_creat,         SYS_eventfd,           SYS_eventfd2,
    SYS_epoll_create,   SYS_epoll_create1,   SYS_signalfd,      SYS_signalfd4,         SYS_timerfd_create,
    SYS_memfd_create,   SYS_inotify_init,    SYS_inotify_init1, SYS_pidfd_open,        SYS_pidfd_getfd,
    SYS_userfaultfd,    SYS_perf_event_open, SYS_fanotify_init, SYS_open_by_handle_at, SYS_openat2,
    SYS_io_uring_setup, SYS_mq_open};

bool makesADescriptor(long nr) {
  return std::find(std::begin(kNewDescriptor), std::end(kNewDescriptor), nr) != std::end(kNewDescriptor);
}

// eventfd, eventfd2: an OPEN of the new channel with its initial count and
// flags, as the interposer records eventfd().
void eventfdCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Open, -1, call);
  if (call.result >= 0) e.channel = image.remade(static_cast<int>(call.result), log::ChannelOrigin::Created);
  const char* strings[] = {log::kEventFdOpened};
  e.strings = strings;
  e.string_count = 1;
  e.flags = call.entry.nr == SYS_eventfd2 ? static_cast<uint32_t>(call.entry.args[1]) : 0;
  e.size = static_cast<uint32_t>(call.entry.args[0]);
  image.append(tid, e);
}

// A mapping other processes may write to (shared and writable, or shared
// and anonymous), as the interposer says it (inject/unseen_hooks.cc): not
// recorded, said. A POSIX named semaphore is such a mapping of a file
// /dev/shm/sem.* (named at random when sem_open creates it, linked to its
// name only after: so said with no name).
void mappedCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const int fd = static_cast<int>(a[4]), type = static_cast<int>(a[3]) & MAP_TYPE;
  const bool shared = type == MAP_SHARED || type == MAP_SHARED_VALIDATE;
  if (call.result < 0 || !shared || !((a[3] & MAP_ANONYMOUS) || (a[2] & PROT_WRITE)) || image.rings().has(fd)) return;
  if (a[3] & MAP_ANONYMOUS)
    return image.sayUnseen(log::Unseen::SharedMemory, "anonymous, " + std::to_string((a[1] + 1023) / 1024) + " KiB");
  const std::string path = procLink(tid, "fd/" + std::to_string(fd));
  if (path.rfind("/dev/shm/sem.", 0) == 0) return image.sayUnseen(log::Unseen::Semaphore, "");
  image.sayUnseen(log::Unseen::SharedMemory, path);
}

// waitid: its siginfo told as a wait status, as the interposer does.
void waitidCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Wait, -1, call);
  e.flags = static_cast<uint32_t>(call.entry.args[3]);
  siginfo_t info{};
  if (call.result == 0 && readMemory(tid, call.entry.args[2], &info, sizeof info) == sizeof info && info.si_pid) {
    const int s = info.si_status;
    e.peer_pid = info.si_pid;
    e.status = info.si_code == CLD_EXITED      ? (s & 0xff) << 8
               : info.si_code == CLD_KILLED    ? s & 0x7f
               : info.si_code == CLD_DUMPED    ? (s & 0x7f) | 0x80
               : info.si_code == CLD_STOPPED   ? ((s & 0xff) << 8) | 0x7f
               : info.si_code == CLD_CONTINUED ? 0xffff
                                               : 0;
  }
  image.append(tid, e);
}

// ---- readiness: poll, ppoll, select, pselect6, the epoll waits, epoll_ctl,
// as the interposer records them (the ready descriptors, at most 256).
constexpr size_t kMaxReady = 256;

// A readiness call's event, with what was ready and its timeout.
void appendReadiness(TracedImage& image, pid_t tid, log::EventFields& e, const std::vector<log::ReadyFd>& ready,
                     const CallSeen& call) {
  e.ready = ready.data();
  e.ready_count = ready.size();
  e.has_timeout = true;
  e.timeout_ms = call.timeout_ms;
  image.append(tid, e);
}

void pollCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Poll, -1, call);
  const uint64_t n = call.entry.args[1];
  std::vector<log::ReadyFd> ready;
  if (call.result > 0) {
    std::vector<struct pollfd> fds(std::min<uint64_t>(n, 65536));
    fds.resize(readMemory(tid, call.entry.args[0], fds.data(), fds.size() * sizeof(struct pollfd)) /
               sizeof(struct pollfd));
    for (const struct pollfd& p : fds)
      if (p.revents && ready.size() < kMaxReady) ready.push_back({p.fd, static_cast<uint32_t>(p.revents), 0});
  }
  e.size = n;
  appendReadiness(image, tid, e, ready, call);
}

void selectCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Select, -1, call);
  const int nfds = static_cast<int>(call.entry.args[0]);
  std::vector<log::ReadyFd> ready;
  if (call.result > 0 && nfds > 0) {
    const int upto = std::min(nfds, FD_SETSIZE);
    fd_set sets[3];
    for (int k = 0; k < 3; ++k) {
      FD_ZERO(&sets[k]);
      if (call.entry.args[1 + k]) readMemory(tid, call.entry.args[1 + k], &sets[k], (upto + 7) / 8);
    }
    for (int fd = 0; fd < upto && ready.size() < kMaxReady; ++fd) {
      const uint32_t bits = (call.entry.args[1] && FD_ISSET(fd, &sets[0]) ? 1u : 0u) |
                            (call.entry.args[2] && FD_ISSET(fd, &sets[1]) ? 2u : 0u) |
                            (call.entry.args[3] && FD_ISSET(fd, &sets[2]) ? 4u : 0u);
      if (bits) ready.push_back({fd, bits, 0});
    }
  }
  e.size = static_cast<uint64_t>(nfds > 0 ? nfds : 0);
  appendReadiness(image, tid, e, ready, call);
}

void epollWaitCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::EpollWait, static_cast<int>(call.entry.args[0]), call);
  std::vector<log::ReadyFd> ready;
  if (call.result > 0) {
    std::vector<struct epoll_event> events(std::min<uint64_t>(static_cast<uint64_t>(call.result), kMaxReady));
    events.resize(readMemory(tid, call.entry.args[1], events.data(), events.size() * sizeof(struct epoll_event)) /
                  sizeof(struct epoll_event));
    for (const struct epoll_event& ev : events) ready.push_back({-1, ev.events, ev.data.u64});
  }
  appendReadiness(image, tid, e, ready, call);
}

void epollCtlCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  log::EventFields e = eventOf(Kind::EpollCtl, static_cast<int>(a[0]), call);
  struct epoll_event event {};
  const bool given = a[3] && readMemory(tid, a[3], &event, sizeof event) == sizeof event;
  int32_t args[3] = {static_cast<int32_t>(a[0]), static_cast<int32_t>(a[1]), static_cast<int32_t>(a[2])};
  log::ReadyFd interest{static_cast<int32_t>(a[2]), given ? event.events : 0, given ? event.data.u64 : 0};
  e.fds = args;
  e.fd_count = 3;
  e.ready = &interest;
  e.ready_count = 1;
  image.append(tid, e);
}

// A timeout in milliseconds, as the interposer counts it: a timespec's or
// timeval's, -1 for none (a null pointer), capped at INT_MAX.
int32_t timeoutAt(pid_t tid, uint64_t address, bool timeval) {
  if (!address) return -1;
  int64_t t[2] = {0, 0};
  if (readMemory(tid, address, t, sizeof t) != sizeof t) return -1;
  const long long ms = t[0] * 1000LL + (timeval ? t[1] / 1000 : t[1] / 1000000);
  return ms > INT32_MAX ? INT32_MAX : static_cast<int32_t>(ms);
}

// kill, tgkill: a signal sent, to a process (or a group: pid <= 0).
void killCall(TracedImage& image, pid_t tid, int32_t target, int signal, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Kill, -1, call);
  e.peer_pid = target;
  e.signal = signal;
  image.append(tid, e);
}

}  // namespace

bool mayRecord(long nr) {
  static constexpr long kRecorded[] = {
      SYS_read,       SYS_write,         SYS_readv,          SYS_writev,    SYS_sendto,       SYS_recvfrom,
      SYS_sendmsg,    SYS_recvmsg,       SYS_sendmmsg,       SYS_recvmmsg,  SYS_close,        SYS_dup,
      SYS_dup2,       SYS_dup3,          SYS_fcntl,          SYS_pipe,      SYS_pipe2,        SYS_socketpair,
      SYS_socket,     SYS_accept,        SYS_accept4,        SYS_connect,   SYS_bind,         SYS_listen,
      SYS_shutdown,   SYS_getsockopt,    SYS_wait4,          SYS_waitid,    SYS_kill,         SYS_close_range,
      SYS_execve,     SYS_execveat,      SYS_poll,           SYS_ppoll,     SYS_select,       SYS_pselect6,
      SYS_epoll_wait, SYS_epoll_pwait,   SYS_epoll_pwait2,   SYS_epoll_ctl, SYS_mq_timedsend, SYS_mq_timedreceive,
      SYS_mq_notify,  SYS_mq_getsetattr, SYS_mq_unlink,      SYS_msgget,    SYS_msgsnd,       SYS_msgrcv,
      SYS_msgctl,     SYS_mmap,          SYS_io_uring_enter, SYS_shmat,     SYS_semop,        SYS_semtimedop};
  return std::find(std::begin(kRecorded), std::end(kRecorded), nr) != std::end(kRecorded) || makesADescriptor(nr);
}

void recordCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  if (dataCall(image, tid, call) || recordSocketCall(image, tid, call) || recordQueueCall(image, tid, call)) return;
  const uint64_t* a = call.entry.args;
  if (call.entry.nr == SYS_eventfd || call.entry.nr == SYS_eventfd2) return eventfdCall(image, tid, call);
  if (makesADescriptor(call.entry.nr)) {
    if (call.result >= 0) image.forget(static_cast<int>(call.result));
    return;
  }
  switch (call.entry.nr) {
    case SYS_close_range:
      return closeRangeCall(image, tid, call);
    case SYS_close:
      return closeCall(image, tid, call);
    case SYS_dup:
    case SYS_dup2:
    case SYS_dup3:
      return dupCall(image, tid, static_cast<int>(a[0]), call);
    case SYS_fcntl:
      if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC) dupCall(image, tid, static_cast<int>(a[0]), call);
      return;
    case SYS_pipe:
    case SYS_pipe2:
      return pairCall(image, tid, Kind::Pipe, a[0], call);
    case SYS_socketpair:
      return pairCall(image, tid, Kind::Socketpair, a[3], call);
    case SYS_wait4:
      return waitCall(image, tid, call);
    case SYS_waitid:
      return waitidCall(image, tid, call);
    case SYS_kill:
      return killCall(image, tid, static_cast<int32_t>(a[0]), static_cast<int>(a[1]), call);
    case SYS_poll:
    case SYS_ppoll:
      return pollCall(image, tid, call);
    case SYS_select:
    case SYS_pselect6:
      return selectCall(image, tid, call);
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_epoll_pwait2:
      return epollWaitCall(image, tid, call);
    case SYS_epoll_ctl:
      return epollCtlCall(image, tid, call);
    case SYS_mmap:
      return mappedCall(image, tid, call);
    case SYS_shmat:
      return image.sayUnseen(log::Unseen::SharedMemory, "System V segment " + std::to_string(a[0]));
    case SYS_semop:
    case SYS_semtimedop:
      return image.sayUnseen(log::Unseen::SysvSemaphore, "set " + std::to_string(a[0]));
    default:
      return;
  }
}

void readAtEntry(pid_t tid, CallSeen* call) {
  const uint64_t* a = call->entry.args;
  switch (call->entry.nr) {
    case SYS_poll:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
      call->timeout_ms = static_cast<int32_t>(a[call->entry.nr == SYS_poll ? 2 : 3]);
      return;
    case SYS_ppoll:
      call->timeout_ms = timeoutAt(tid, a[2], false);
      return;
    case SYS_epoll_pwait2:
      call->timeout_ms = timeoutAt(tid, a[3], false);
      return;
    case SYS_select:
    case SYS_pselect6:
      call->timeout_ms = timeoutAt(tid, a[4], call->entry.nr == SYS_select);
      return;
    default:
      return;
  }
}

void recordFork(TracedImage& parent, pid_t tid, bool vfork, pid_t child, int64_t entry_ns) {
  CallSeen call;
  call.entry_ns = call.return_ns = entry_ns;
  call.result = child;
  log::EventFields e = eventOf(vfork ? Kind::Vfork : Kind::Fork, -1, call);
  e.peer_pid = child;
  parent.append(tid, e);
}

uint64_t recordExec(TracedImage& image, pid_t tid, const std::vector<std::string>& strings, int64_t entry_ns) {
  CallSeen call;
  call.entry_ns = call.return_ns = entry_ns;
  log::EventFields e = eventOf(Kind::Exec, -1, call);
  std::vector<const char*> pointers;
  for (const std::string& s : strings) pointers.push_back(s.c_str());
  e.strings = pointers.data();
  e.string_count = pointers.size();
  return image.append(tid, e);
}

void recordExecFailed(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::ExecFailed, -1, call);
  image.append(tid, e);
}

void recordExit(TracedImage& image, pid_t tid, int status, int64_t entry_ns) {
  CallSeen call;
  call.entry_ns = call.return_ns = entry_ns;
  log::EventFields e = eventOf(Kind::Exit, -1, call);
  e.status = status;
  image.append(tid, e);
}

void recordSignal(TracedImage& image, pid_t tid, int signal, pid_t sender, int64_t entry_ns) {
  CallSeen call;
  call.entry_ns = call.return_ns = entry_ns;
  log::EventFields e = eventOf(Kind::Signal, -1, call);
  e.signal = signal;
  e.peer_pid = sender;
  image.append(tid, e);
}

}  // namespace radar::fallback
