// The interposed libc functions: each one calls the real function (found
// with dlsym(RTLD_NEXT)) and reports to the recorder (recorder.h).
//
// RULES for everything in preload/ -- this code runs inside other people's
// programs, in the reach of their signal handlers and forks:
//   1. The program sees exactly what it would without radar: the real
//      call's return value and errno (Call saves and restores errno), its
//      descriptor numbers (ours live high and are invisible to close(),
//      dup2() and close_range()), its signal dispositions.
//   2. No malloc/new, no stdio, no iostreams, no exceptions, no C++ runtime.
//      System calls are raw (sys.h): a libc call might be one of our hooks.
//   3. No lock that a signal handler or a forked child could find held: the
//      one writer lock knows its owner, a handler on the owning thread defers
//      its record, and a forked child resets it.
//   4. Hooks never fail the program: when recording is impossible they just
//      forward.
//   5. A signal handler may arrive at any instruction of a hook, and may make
//      recorded calls itself. What it may do there:
//        * state it shares with the code it interrupted is per thread and
//          changed only by single atomic instructions (the deferred queue's
//          reservation, table entries, slot claims) or saved and restored
//          around its own use (the thread slot a Call marks);
//        * if its thread holds the writer, it never waits for it: its records
//          go to the thread's deferred queue, whose entries never move and
//          own copies of everything they point to; the holder drains them
//          before it lets go (recorder.cc);
//        * the trampoline then makes the holder resume with signals held back
//          until it lets go of the writer, so a thread is interrupted at most
//          once per hold, however fast signals come; frames are compressed
//          with signals held back too (writer.cc);
//        * other threads' handlers wait for the writer like any caller:
//          briefly spinning, then asleep on a futex.
//      tests/preload/signal_storm_test.cc holds every call family to this
//      under interval timers of 20 to 50 microseconds.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "inject/env_array.h"
#include "inject/file_crc.h"
#include "inject/hook.h"
#include "inject/interface_query.h"
#include "log/go_program.h"
#include "log/log_handout.h"
#include "log/sys.h"
#include "preload/environment.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

extern char** environ;

using radar::log::ChannelOrigin;
using radar::log::EventFields;
using radar::log::Iov;
using radar::log::Kind;
using radar::log::ReadyFd;
using radar::log::TraceRequest;
using namespace radar::preload;
namespace sys = radar::sys;

using radar::log::asIov;

namespace {

uint64_t iovTotal(const struct iovec* v, int n) {
  uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += v[i].iov_len;
  return total;
}

uint64_t moved(ssize_t r) { return r > 0 ? static_cast<uint64_t>(r) : 0; }

// Descriptors passed with SCM_RIGHTS are new in this process.
void noteReceivedFds(const struct msghdr* msg, int32_t* out, size_t* count, size_t capacity) {
  *count = 0;
  if (!msg || !msg->msg_control) return;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(const_cast<struct msghdr*>(msg)); c;
       c = CMSG_NXTHDR(const_cast<struct msghdr*>(msg), c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const int* fds = reinterpret_cast<const int*>(CMSG_DATA(c));
    for (size_t i = 0; i < n; ++i) {
      forget(fds[i]);
      if (*count < capacity) out[(*count)++] = fds[i];
    }
  }
}

// Bytes that sendfile()/splice() moved from a regular file: read back at
// the same position so the payload can be stored.
struct ReadBack {
  void* map = nullptr;
  size_t len = 0;
  ~ReadBack() {
    if (map) sys::munmap(map, len);
  }
  bool load(int fd, uint64_t pos, size_t n) {
    struct stat st {};
    if (!n || sys::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    len = n;
    long m = sys::mmapAside(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0 && m > -4096) {
      len = 0;
      return false;
    }
    map = reinterpret_cast<void*>(m);
    return sys::pread(fd, map, n, pos) == static_cast<long>(n);
  }
};

long filePosition(int fd) { return sys::raw(SYS_lseek, fd, 0, SEEK_CUR); }

}  // namespace

// ==== sends =====================================================================

HOOK ssize_t write(int fd, const void* buf, size_t n) {
  REAL(write);
  if (!active()) return real_write(fd, buf, n);
  if (!isChannel(fd)) {
    const Iov iov{buf, n};
    return outputWritten(fd, &iov, 1, n, real_write(fd, buf, n));
  }
  Call call(Kind::Write, fd);
  const ssize_t r = real_write(fd, buf, n);
  call.finish(r);
  const Iov iov{buf, n};
  call.send(&iov, 1, n, moved(r));
  return r;
}

HOOK ssize_t writev(int fd, const struct iovec* iov, int count) {
  REAL(writev);
  if (!active()) return real_writev(fd, iov, count);
  if (!isChannel(fd))
    return outputWritten(fd, asIov(iov), count > 0 ? static_cast<size_t>(count) : 0, iovTotal(iov, count),
                         real_writev(fd, iov, count));
  Call call(Kind::Writev, fd);
  const ssize_t r = real_writev(fd, iov, count);
  call.finish(r);
  call.send(asIov(iov), count > 0 ? static_cast<size_t>(count) : 0, iovTotal(iov, count), moved(r));
  return r;
}

// Positioned writes: files only (a channel refuses them with ESPIPE).
HOOK ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  REAL(pwrite);
  if (!active()) return real_pwrite(fd, buf, n, offset);
  const Iov iov{buf, n};
  return outputWritten(fd, &iov, 1, n, real_pwrite(fd, buf, n, offset));
}

HOOK ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  REAL(pwrite64);
  if (!active()) return real_pwrite64(fd, buf, n, offset);
  const Iov iov{buf, n};
  return outputWritten(fd, &iov, 1, n, real_pwrite64(fd, buf, n, offset));
}

HOOK ssize_t send(int fd, const void* buf, size_t n, int flags) {
  REAL(send);
  if (!active() || !isChannel(fd)) return real_send(fd, buf, n, flags);
  Call call(Kind::Send, fd);
  const ssize_t r = real_send(fd, buf, n, flags);
  call.finish(r);
  const Iov iov{buf, n};
  call.send(&iov, 1, n, moved(r), flags);
  return r;
}

HOOK ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to, socklen_t to_len) {
  REAL(sendto);
  if (!active() || !isChannel(fd)) return real_sendto(fd, buf, n, flags, to, to_len);
  Call call(Kind::Sendto, fd);
  const ssize_t r = real_sendto(fd, buf, n, flags, to, to_len);
  call.finish(r);
  const Iov iov{buf, n};
  call.send(&iov, 1, n, moved(r), flags, to, to ? to_len : 0);
  return r;
}

HOOK ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  REAL(sendmsg);
  if (!active() || !isChannel(fd)) return real_sendmsg(fd, msg, flags);
  Call call(Kind::Sendmsg, fd);
  const ssize_t r = real_sendmsg(fd, msg, flags);
  call.finish(r);
  int32_t fds[64];
  size_t nfds = 0;
  if (msg && msg->msg_control) {
    for (struct cmsghdr* c = CMSG_FIRSTHDR(const_cast<struct msghdr*>(msg)); c;
         c = CMSG_NXTHDR(const_cast<struct msghdr*>(msg), c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int) && nfds < 64; ++i)
          fds[nfds++] = reinterpret_cast<const int*>(CMSG_DATA(c))[i];
  }
  call.extra.fds = fds;
  call.extra.fd_count = nfds;
  const int iovlen = msg ? static_cast<int>(msg->msg_iovlen) : 0;
  call.send(msg ? asIov(msg->msg_iov) : nullptr, static_cast<size_t>(iovlen), msg ? iovTotal(msg->msg_iov, iovlen) : 0,
            moved(r), flags, msg ? static_cast<const struct sockaddr*>(msg->msg_name) : nullptr,
            msg && msg->msg_name ? msg->msg_namelen : 0);
  return r;
}

HOOK int sendmmsg(int fd, struct mmsghdr* msgs, unsigned count, int flags) {
  REAL(sendmmsg);
  if (!active() || !isChannel(fd)) return real_sendmmsg(fd, msgs, count, flags);
  Call call(Kind::Sendmmsg, fd);
  const int r = real_sendmmsg(fd, msgs, count, flags);
  call.finish(r);
  call.multi(msgs, count, flags);
  return r;
}

namespace {

// A copy into a file or device that the kernel made (no channel's): an
// OUTPUT whose checksum is read back from the source, `in` from `pos`.
template <class Copy>
ssize_t outputCopied(int out, int in, long pos, uint64_t count, Copy&& copy) {
  const ssize_t r = copy();
  if (r <= 0) return r;
  const uint32_t crc = pos >= 0 ? radar::inject::fileCrc32c(in, static_cast<uint64_t>(pos), moved(r)) : 0;
  recordOutputChecksum(out, count, r, crc);
  return r;
}

}  // namespace

HOOK ssize_t copy_file_range(int in, off64_t* off_in, int out, off64_t* off_out, size_t len, unsigned flags) {
  REAL(copy_file_range);
  if (!active() || !isOutputFile(out)) return real_copy_file_range(in, off_in, out, off_out, len, flags);
  return outputCopied(out, in, off_in ? static_cast<long>(*off_in) : filePosition(in), len,
                      [&] { return real_copy_file_range(in, off_in, out, off_out, len, flags); });
}

HOOK ssize_t sendfile(int out, int in, off_t* offset, size_t count) {
  REAL(sendfile);
  if (active() && isOutputFile(out))
    return outputCopied(out, in, offset ? static_cast<long>(*offset) : filePosition(in), count,
                        [&] { return real_sendfile(out, in, offset, count); });
  if (!active() || !isChannel(out)) return real_sendfile(out, in, offset, count);
  const long pos = offset ? *offset : filePosition(in);
  Call call(Kind::Sendfile, out);
  const ssize_t r = real_sendfile(out, in, offset, count);
  call.finish(r);
  ReadBack back;
  if (r > 0 && pos >= 0 && back.load(in, static_cast<uint64_t>(pos), static_cast<size_t>(r))) {
    const Iov iov{back.map, static_cast<size_t>(r)};
    call.send(&iov, 1, count, moved(r));
  } else {
    call.extra.payload_omitted = moved(r);
    call.send(nullptr, 0, count, 0);
  }
  return r;
}

HOOK ssize_t sendfile64(int out, int in, off64_t* offset, size_t count) {
  return sendfile(out, in, reinterpret_cast<off_t*>(offset), count);
}

namespace {

// Bytes that went from one channel to another inside the kernel (splice
// between a pipe and a socket or another pipe, tee): a receive on `in`
// (a peek for tee, which consumes nothing), then a send on `out`. Their
// sizes are known, their content is not.
void recordPassThrough(Call& call, int in, int out, size_t len, ssize_t r, bool peek) {
  if (in >= 0) {
    call.extra.payload_omitted = peek ? 0 : moved(r);
    call.extra.channel = channelOf(in);
    call.extra.size = len;
    call.extra.flags = radar::log::kFlagPassThrough | (peek ? MSG_PEEK : 0);
    call.record();
    if (out < 0 || r <= 0) return;  // one failed call is one event
    call.retarget(Kind::Splice, out);
  }
  call.extra.payload_omitted = moved(r);
  call.extra.channel = channelOf(out);
  call.extra.size = len;
  call.extra.flags = radar::log::kFlagPassThrough;
  call.record();
}

}  // namespace

HOOK ssize_t splice(int in, loff_t* off_in, int out, loff_t* off_out, size_t len, unsigned flags) {
  REAL(splice);
  if (!active()) return real_splice(in, off_in, out, off_out, len, flags);
  const bool out_channel = isChannel(out), in_channel = isChannel(in);
  if (!out_channel && !in_channel) return real_splice(in, off_in, out, off_out, len, flags);
  if (out_channel && in_channel) {
    Call call(Kind::Read, in);
    const ssize_t r = real_splice(in, off_in, out, off_out, len, flags);
    call.finish(r);
    recordPassThrough(call, in, out, len, r, false);
    return r;
  }
  const long pos = off_in ? *off_in : filePosition(in);
  const long out_pos = off_out ? *off_out : filePosition(out);
  Call call(out_channel ? Kind::Splice : Kind::Read, out_channel ? out : in);
  const ssize_t r = real_splice(in, off_in, out, off_out, len, flags);
  call.finish(r);
  ReadBack back;
  if (out_channel && r > 0 && pos >= 0 && back.load(in, static_cast<uint64_t>(pos), static_cast<size_t>(r))) {
    const Iov iov{back.map, static_cast<size_t>(r)};
    call.send(&iov, 1, len, moved(r));
    return r;
  }
  if (!out_channel && r > 0 && out_pos >= 0 && back.load(out, static_cast<uint64_t>(out_pos), static_cast<size_t>(r))) {
    // Into a file: what the channel gave is there to read back.
    const Iov iov{back.map, static_cast<size_t>(r)};
    call.receive(&iov, 1, len, moved(r));
    return r;
  }
  struct stat target {};
  if (!out_channel && sys::fstat(out, &target) == 0 && S_ISREG(target.st_mode)) {
    // Into a file that cannot be read back (opened write-only, as a
    // download's is): the program received the bytes all the same. A
    // receive whose bytes are the senders', matched as any receive's (not
    // checked: no hash), and the re-run writes them into the file.
    call.extra.channel = channelOf(in);
    call.extra.size = len;
    if (storesReceived(in)) call.extra.payload_omitted = moved(r);  // from outside: not kept
    call.record();
    return r;
  }
  // The bytes went through a pipe we cannot read back, or to a device
  // (/dev/null): their size is known, their content is not.
  recordPassThrough(call, out_channel ? -1 : in, out_channel ? out : -1, len, r, false);
  return r;
}

HOOK ssize_t tee(int in, int out, size_t len, unsigned flags) {
  REAL(tee);
  if (!active()) return real_tee(in, out, len, flags);
  const bool out_channel = isChannel(out), in_channel = isChannel(in);
  if (!out_channel && !in_channel) return real_tee(in, out, len, flags);
  Call call(in_channel ? Kind::Read : Kind::Splice, in_channel ? in : out);
  const ssize_t r = real_tee(in, out, len, flags);
  call.finish(r);
  recordPassThrough(call, in_channel ? in : -1, out_channel ? out : -1, len, r, true);
  return r;
}

// vmsplice() into a pipe sends the program's buffers, as writev() does; from
// a pipe's read end it receives into them, as readv() does.
HOOK ssize_t vmsplice(int fd, const struct iovec* iov, size_t count, unsigned flags) {
  REAL(vmsplice);
  if (!active() || !isChannel(fd)) return real_vmsplice(fd, iov, count, flags);
  const bool receiving = (sys::fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY;
  Call call(receiving ? Kind::Readv : Kind::Writev, fd);
  const ssize_t r = real_vmsplice(fd, iov, count, flags);
  call.finish(r);
  const int n = static_cast<int>(count > 1024 ? 1024 : count);
  if (receiving)
    call.receive(asIov(iov), static_cast<size_t>(n), iovTotal(iov, n), moved(r));
  else
    call.send(asIov(iov), static_cast<size_t>(n), iovTotal(iov, n), moved(r));
  return r;
}

// ==== receives =================================================================

namespace {

// A read that is not a message (signals taken, random bytes): the bytes it
// got, gathered from its buffers, are the event's payload.
void recordBytesRead(Call& call, const Iov* iov, size_t count, ssize_t r) {
  size_t room = 0;
  for (size_t i = 0; i < count; ++i) room += iov[i].len;
  call.extra.payload = iov;
  call.extra.payload_iov_count = count;
  call.extra.payload_len = moved(r);
  call.extra.size = room;
  call.record();
}

// A read or readv of a signalfd or (with --nondet) a random device; false
// for other descriptors, untouched. `read` makes the call.
template <typename Read>
bool recordedNonMessageRead(int fd, const Iov* iov, size_t count, ssize_t* result, Read read) {
  noteIfSharedEventFd(fd);
  if (isSignalFd(fd)) {
    // Signals taken: struct signalfd_siginfo each; the first one's number
    // and sender are the event's.
    Call call(Kind::SignalWait, fd);
    const ssize_t r = *result = read();
    call.finish(r);
    struct signalfd_siginfo first {};
    if (r >= static_cast<ssize_t>(sizeof(first))) {
      auto* to = reinterpret_cast<char*>(&first);
      for (size_t i = 0, got = 0; i < count && got < sizeof(first); ++i) {
        const size_t take = iov[i].len < sizeof(first) - got ? iov[i].len : sizeof(first) - got;
        std::memcpy(to + got, iov[i].base, take);
        got += take;
      }
      call.extra.signal = static_cast<int32_t>(first.ssi_signo);
      if (sentByAProcess(first.ssi_code)) call.extra.peer_pid = static_cast<int32_t>(first.ssi_pid);
    }
    recordBytesRead(call, iov, count, r);
    return true;
  }
  if (recordingNondet() && isRandomDevice(fd)) {
    Call call(Kind::Random, fd);
    const ssize_t r = *result = read();
    call.finish(r);
    recordBytesRead(call, iov, count, r);
    return true;
  }
  return false;
}

ssize_t recordedRead(int fd, void* buf, size_t n, ssize_t (*real)(int, void*, size_t)) {
  if (!active()) return real(fd, buf, n);
  const Iov iov{buf, n};
  if (isChannel(fd)) {
    Call call(Kind::Read, fd);
    const ssize_t r = real(fd, buf, n);
    call.finish(r);
    call.receive(&iov, 1, n, moved(r));
    return r;
  }
  ssize_t r;
  if (recordedNonMessageRead(fd, &iov, 1, &r, [&] { return real(fd, buf, n); })) return r;
  return real(fd, buf, n);
}

}  // namespace

HOOK ssize_t read(int fd, void* buf, size_t n) {
  REAL(read);
  return recordedRead(fd, buf, n, real_read);
}

HOOK ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
  REAL(read);
  if (n > buflen) {
    REAL(__read_chk);
    return real___read_chk(fd, buf, n, buflen);  // reports the overflow as glibc does
  }
  return recordedRead(fd, buf, n, real_read);
}

HOOK ssize_t readv(int fd, const struct iovec* iov, int count) {
  REAL(readv);
  if (!active()) return real_readv(fd, iov, count);
  if (!isChannel(fd)) {
    ssize_t r;
    const size_t n = count > 0 ? static_cast<size_t>(count) : 0;
    if (n <= IOV_MAX && recordedNonMessageRead(fd, asIov(iov), n, &r, [&] { return real_readv(fd, iov, count); }))
      return r;
    return real_readv(fd, iov, count);
  }
  Call call(Kind::Readv, fd);
  const ssize_t r = real_readv(fd, iov, count);
  call.finish(r);
  call.receive(asIov(iov), count > 0 ? static_cast<size_t>(count) : 0, iovTotal(iov, count), moved(r));
  return r;
}

HOOK ssize_t recv(int fd, void* buf, size_t n, int flags) {
  REAL(recv);
  if (!active() || !isChannel(fd)) return real_recv(fd, buf, n, flags);
  Call call(Kind::Recv, fd);
  const ssize_t r = real_recv(fd, buf, n, flags);
  call.finish(r);
  const Iov iov{buf, n};
  call.receive(&iov, 1, n, r > 0 && static_cast<size_t>(r) > n ? n : moved(r), flags);
  return r;
}

HOOK ssize_t __recv_chk(int fd, void* buf, size_t n, size_t buflen, int flags) {
  if (n > buflen) {
    REAL(__recv_chk);
    return real___recv_chk(fd, buf, n, buflen, flags);
  }
  return recv(fd, buf, n, flags);
}

HOOK ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from, socklen_t* from_len) {
  REAL(recvfrom);
  if (!active() || !isChannel(fd)) return real_recvfrom(fd, buf, n, flags, from, from_len);
  Call call(Kind::Recvfrom, fd);
  const ssize_t r = real_recvfrom(fd, buf, n, flags, from, from_len);
  call.finish(r);
  const Iov iov{buf, n};
  call.receive(&iov, 1, n, r > 0 && static_cast<size_t>(r) > n ? n : moved(r), flags, r >= 0 ? from : nullptr,
               r >= 0 && from && from_len ? *from_len : 0);
  return r;
}

HOOK ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t buflen, int flags, struct sockaddr* from,
                            socklen_t* from_len) {
  if (n > buflen) {
    REAL(__recvfrom_chk);
    return real___recvfrom_chk(fd, buf, n, buflen, flags, from, from_len);
  }
  return recvfrom(fd, buf, n, flags, from, from_len);
}

HOOK ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  REAL(recvmsg);
  if (!active() || !isChannel(fd)) return real_recvmsg(fd, msg, flags);
  Call call(Kind::Recvmsg, fd);
  const ssize_t r = real_recvmsg(fd, msg, flags);
  call.finish(r);
  int32_t fds[64];
  size_t nfds = 0;
  if (r >= 0) noteReceivedFds(msg, fds, &nfds, 64);
  call.extra.fds = fds;
  call.extra.fd_count = nfds;
  if (r >= 0 && msg) call.extra.status = msg->msg_flags;
  const int iovlen = msg ? static_cast<int>(msg->msg_iovlen) : 0;
  const uint64_t room = msg ? iovTotal(msg->msg_iov, iovlen) : 0;
  call.receive(msg ? asIov(msg->msg_iov) : nullptr, static_cast<size_t>(iovlen), room,
               r > 0 && static_cast<uint64_t>(r) > room ? room : moved(r), flags,
               r >= 0 && msg ? static_cast<const struct sockaddr*>(msg->msg_name) : nullptr,
               r >= 0 && msg && msg->msg_name ? msg->msg_namelen : 0);
  return r;
}

HOOK int recvmmsg(int fd, struct mmsghdr* msgs, unsigned count, int flags, struct timespec* timeout) {
  REAL(recvmmsg);
  if (!active() || !isChannel(fd)) return real_recvmmsg(fd, msgs, count, flags, timeout);
  Call call(Kind::Recvmmsg, fd);
  const int r = real_recvmmsg(fd, msgs, count, flags, timeout);
  call.finish(r);
  call.multi(msgs, count, flags);
  return r;
}

// ==== channel life cycle =======================================================

namespace {

template <class Fn>
int pairCall(Kind kind, int fds[2], Fn&& real) {
  Call call(kind, -1);
  const int r = real();
  call.finish(r);
  if (r == 0) onPair(kind, fds);
  int32_t both[2] = {r == 0 ? fds[0] : -1, r == 0 ? fds[1] : -1};
  call.extra.fds = both;
  call.extra.fd_count = r == 0 ? 2 : 0;
  call.extra.channel = r == 0 ? channelOf(fds[0]) : 0;
  call.record();
  return r;
}

void recordSimple(Call& call, int fd, const struct sockaddr* addr = nullptr, socklen_t len = 0) {
  call.extra.channel = channelOf(fd);
  call.extra.address = addr;
  call.extra.address_len = addr ? len : 0;
  call.record();
}

}  // namespace

HOOK int pipe(int fds[2]) {
  REAL(pipe);
  if (!active()) return real_pipe(fds);
  return pairCall(Kind::Pipe, fds, [&] { return real_pipe(fds); });
}

HOOK int pipe2(int fds[2], int flags) {
  REAL(pipe2);
  if (!active()) return real_pipe2(fds, flags);
  return pairCall(Kind::Pipe, fds, [&] { return real_pipe2(fds, flags); });
}

HOOK int socketpair(int domain, int type, int protocol, int fds[2]) {
  REAL(socketpair);
  if (!active()) return real_socketpair(domain, type, protocol, fds);
  return pairCall(Kind::Socketpair, fds, [&] { return real_socketpair(domain, type, protocol, fds); });
}

HOOK int socket(int domain, int type, int protocol) {
  REAL(socket);
  if (!active()) return real_socket(domain, type, protocol);
  Call call(Kind::Socket, -1);
  const int r = real_socket(domain, type, protocol);
  call.finish(r);
  if (r >= 0) onCreated(r, ChannelOrigin::Created);
  call.extra.flags = static_cast<uint32_t>(type);
  recordSimple(call, r);
  return r;
}

// An eventfd is a channel (channels.cc): made here, it is an OPEN with its
// initial count and flags, so that a re-run makes one at the same number.
HOOK int eventfd(unsigned value, int flags) {
  REAL(eventfd);
  if (!active()) return real_eventfd(value, flags);
  Call call(Kind::Open, -1);
  const int r = real_eventfd(value, flags);
  call.finish(r);
  if (r >= 0) onCreated(r, ChannelOrigin::Created);
  const char* strings[] = {radar::log::kEventFdOpened};
  call.extra.strings = strings;
  call.extra.string_count = 1;
  call.extra.flags = static_cast<uint32_t>(flags);
  call.extra.size = value;
  recordSimple(call, r);
  return r;
}

HOOK int bind(int fd, const struct sockaddr* addr, socklen_t len) {
  REAL(bind);
  if (!active() || !isChannel(fd)) return real_bind(fd, addr, len);
  Call call(Kind::Bind, fd);
  const int r = real_bind(fd, addr, len);
  call.finish(r);
  if (r == 0) refreshSocket(fd);
  recordSimple(call, fd, addr, len);
  return r;
}

HOOK int listen(int fd, int backlog) {
  REAL(listen);
  if (!active() || !isChannel(fd)) return real_listen(fd, backlog);
  Call call(Kind::Listen, fd);
  const int r = real_listen(fd, backlog);
  call.finish(r);
  call.extra.size = static_cast<uint64_t>(backlog > 0 ? backlog : 0);
  recordSimple(call, fd);
  return r;
}

HOOK int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  REAL(connect);
  if (!active() || !isChannel(fd)) return real_connect(fd, addr, len);
  Call call(Kind::Connect, fd);
  const int r = real_connect(fd, addr, len);
  call.finish(r);
  if (r == 0 || call.error() == EINPROGRESS) refreshSocket(fd);
  recordSimple(call, fd, addr, len);
  return r;
}

// getsockopt(SO_ERROR) on a socket: how a connect in progress ended. The
// kernel's answer is an input like a received byte: a re-run must get it.
HOOK int getsockopt(int fd, int level, int name, void* value, socklen_t* len) {
  REAL(getsockopt);
  if (level != SOL_SOCKET || name != SO_ERROR || !active() || !isChannel(fd))
    return real_getsockopt(fd, level, name, value, len);
  Call call(Kind::Connect, fd);
  const int r = real_getsockopt(fd, level, name, value, len);
  call.finish(r);
  call.extra.flags = radar::log::kFlagConnectOutcome;
  if (r == 0 && value && len && *len >= sizeof(int))
    call.extra.size = static_cast<uint32_t>(*static_cast<const int*>(value));
  recordSimple(call, fd);
  return r;
}

namespace {

int recordedAccept(int fd, struct sockaddr* addr, socklen_t* len, int flags, bool four) {
  REAL(accept);
  REAL(accept4);
  if (!active() || !isChannel(fd)) return four ? real_accept4(fd, addr, len, flags) : real_accept(fd, addr, len);
  Call call(Kind::Accept, fd);
  const int r = four ? real_accept4(fd, addr, len, flags) : real_accept(fd, addr, len);
  call.finish(r);
  if (r >= 0) onCreated(r, ChannelOrigin::Accepted);
  call.extra.flags = static_cast<uint32_t>(flags);
  recordSimple(call, r >= 0 ? r : fd, r >= 0 ? addr : nullptr, r >= 0 && addr && len ? *len : 0);
  return r;
}

}  // namespace

HOOK int accept(int fd, struct sockaddr* addr, socklen_t* len) { return recordedAccept(fd, addr, len, 0, false); }

HOOK int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  return recordedAccept(fd, addr, len, flags, true);
}

HOOK int shutdown(int fd, int how) {
  REAL(shutdown);
  if (!active() || !isChannel(fd)) return real_shutdown(fd, how);
  Call call(Kind::Shutdown, fd);
  const int r = real_shutdown(fd, how);
  call.finish(r);
  call.extra.flags = static_cast<uint32_t>(how);
  recordSimple(call, fd);
  return r;
}

HOOK int close(int fd) {
  REAL(close);
  if (isOwnFd(fd)) {
    errno = EBADF;  // to the program, our descriptors do not exist
    return -1;
  }
  if (!active()) return real_close(fd);
  const uint32_t channel = isChannel(fd) ? channelOf(fd) : 0;
  if (!channel) {
    forget(fd);
    return real_close(fd);
  }
  const uint64_t entry = descriptorEntry(fd);
  Call call(Kind::Close, fd);
  const int r = real_close(fd);
  call.finish(r);
  forgetIfStill(fd, entry);
  call.extra.channel = channel;
  call.record();
  return r;
}

HOOK int close_range(unsigned first, unsigned last, int flags) {
  REAL(close_range);
  if (first > last) return real_close_range(first, last, flags);  // EINVAL, as the kernel says
  // Close everything asked for except our own descriptors.
  int own[2];
  const int n_own = ownFds(own);
  unsigned lo = first;
  int r = 0;
  for (int i = 0; i < n_own && r == 0; ++i) {
    const unsigned o = static_cast<unsigned>(own[i]);
    if (o < lo || o > last) continue;
    if (o > lo) r = real_close_range(lo, o - 1, flags);
    lo = o + 1;
  }
  if (r == 0 && lo <= last && lo != 0) r = real_close_range(lo, last, flags);
  if (r == 0 && lo == 0 && n_own == 0) r = real_close_range(first, last, flags);
  if (r == 0 && active() && !(flags & CLOSE_RANGE_CLOEXEC)) onRangeClosed(first, last);
  return r;
}

HOOK void closefrom(int lowfd) { close_range(static_cast<unsigned>(lowfd < 0 ? 0 : lowfd), ~0u, 0); }

// ==== the program's view of its descriptors ===================================
//
// Our descriptors do not exist for the program: close() says EBADF for them
// (above), and a listing of this process's /proc/PID/fd leaves them out, so
// that a program that closes whatever it finds there sees what it would see
// without radar.

namespace {

// "/proc/PID/fd" or "/proc/PID/task/TID/fd", PID this process: where the
// directory open as `dirfd` leads.
bool listsOwnDescriptors(int dirfd) {
  char path[40] = "/proc/self/fd/";
  sys::formatDecimal(path + 14, sizeof path - 14, static_cast<uint64_t>(dirfd));
  char target[96];
  const long n = sys::readlink(path, target, sizeof target - 1);
  if (n <= 0) return false;
  target[n] = 0;
  char pid[24] = "/proc/";
  const size_t len = 6 + sys::formatDecimal(pid + 6, sizeof pid - 7, static_cast<uint64_t>(sys::getpid()));
  pid[len] = '/';
  pid[len + 1] = 0;
  if (strncmp(target, pid, len + 1) != 0) return false;
  const char* rest = target + len + 1;
  if (strcmp(rest, "fd") == 0) return true;
  if (strncmp(rest, "task/", 5) != 0) return false;
  rest += 5;
  while (*rest >= '0' && *rest <= '9') ++rest;
  return strcmp(rest, "/fd") == 0;
}

// Whether an entry named `name` of the directory open as `dirfd` is one of
// our descriptors. Only an entry whose name is our descriptor's number costs
// more than a few comparisons.
bool hiddenEntry(const char* name, int dirfd) {
  int fd = 0;
  if (!*name) return false;
  for (const char* c = name; *c; ++c) {
    if (*c < '0' || *c > '9' || fd > 100000000) return false;
    fd = fd * 10 + (*c - '0');
  }
  return isOwnFd(fd) && listsOwnDescriptors(dirfd);
}

}  // namespace

HOOK struct dirent* readdir(DIR* dir) {
  REAL(readdir);
  struct dirent* e;
  while ((e = real_readdir(dir)) && hiddenEntry(e->d_name, dirfd(dir))) {
  }
  return e;
}

HOOK struct dirent64* readdir64(DIR* dir) {
  REAL(readdir64);
  struct dirent64* e;
  while ((e = real_readdir64(dir)) && hiddenEntry(e->d_name, dirfd(dir))) {
  }
  return e;
}

HOOK ssize_t getdents64(int fd, void* buf, size_t n) {
  REAL(getdents64);
  for (;;) {
    const ssize_t got = real_getdents64(fd, buf, n);
    ssize_t r = got;
    // Entries are packed records: ours is cut out of the buffer.
    char* b = static_cast<char*>(buf);
    for (ssize_t at = 0; r > 0 && at < r;) {
      struct dirent64* e = reinterpret_cast<struct dirent64*>(b + at);
      const size_t len = e->d_reclen;
      if (len == 0 || at + static_cast<ssize_t>(len) > r) break;
      if (hiddenEntry(e->d_name, fd)) {
        memmove(b + at, b + at + len, static_cast<size_t>(r - at) - len);
        r -= static_cast<ssize_t>(len);
      } else {
        at += static_cast<ssize_t>(len);
      }
    }
    // A buffer that held only ours must not read as the end of the
    // directory: the entries after it are read instead.
    if (r != 0 || got == 0) return r;
  }
}

HOOK int dup(int oldfd) {
  REAL(dup);
  if (!active() || !isChannel(oldfd)) {
    const int r = real_dup(oldfd);
    if (r >= 0) forget(r);
    return r;
  }
  Call call(Kind::Dup, oldfd);
  const int r = real_dup(oldfd);
  call.finish(r);
  if (r >= 0) onDup(oldfd, r);
  recordSimple(call, oldfd);
  return r;
}

namespace {

int dupOnto(int oldfd, int newfd, int flags, bool three) {
  REAL(dup2);
  REAL(dup3);
  if (isOwnFd(newfd)) evictOwnFd(newfd);  // the program may have that number
  auto real = [&] { return three ? real_dup3(oldfd, newfd, flags) : real_dup2(oldfd, newfd); };
  if (!active()) return real();
  const uint32_t clobbered = oldfd != newfd && isChannel(newfd) ? channelOf(newfd) : 0;
  if (!isChannel(oldfd) && !clobbered) {
    const int r = real();
    if (r >= 0) forget(r);
    return r;
  }
  Call call(Kind::Dup, oldfd);
  const int r = real();
  call.finish(r);
  if (r >= 0) {
    if (clobbered) {  // dup2 closed what newfd was
      EventFields close_event;
      close_event.kind = Kind::Close;
      close_event.fd = newfd;
      close_event.channel = clobbered;
      close_event.entry_ns = close_event.return_ns = call.entry();
      commitEvent(close_event);
    }
    onDup(oldfd, r);
  }
  int32_t both[2] = {oldfd, newfd};
  call.extra.fds = both;
  call.extra.fd_count = 2;
  recordSimple(call, oldfd);
  return r;
}

}  // namespace

HOOK int dup2(int oldfd, int newfd) { return dupOnto(oldfd, newfd, 0, false); }
HOOK int dup3(int oldfd, int newfd, int flags) { return dupOnto(oldfd, newfd, flags, true); }

namespace {

int recordedFcntl(int (*real)(int, int, ...), int fd, int cmd, void* arg) {
  if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC) return real(fd, cmd, arg);
  if (!active() || !isChannel(fd)) {
    const int r = real(fd, cmd, arg);
    if (r >= 0) forget(r);
    return r;
  }
  Call call(Kind::Dup, fd);
  const int r = real(fd, cmd, arg);
  call.finish(r);
  if (r >= 0) onDup(fd, r);
  recordSimple(call, fd);
  return r;
}

}  // namespace

HOOK int fcntl(int fd, int cmd, ...) {
  REAL(fcntl);
  OPTIONAL_ARG(cmd, arg);
  return recordedFcntl(real_fcntl, fd, cmd, arg);
}

HOOK int fcntl64(int fd, int cmd, ...) {
  REAL(fcntl64);
  OPTIONAL_ARG(cmd, arg);
  return recordedFcntl(real_fcntl64, fd, cmd, arg);
}

// open() and friends: a new descriptor number, maybe a FIFO or terminal.
namespace {

// A FIFO or terminal opened is a channel, and its open an event: the
// re-run gives the program a stand-in at that number rather than waiting
// for a writer or reader that does not run there. (Files are no channels:
// their opens are not recorded.)
int opened(int fd) {
  if (fd < 0 || !active()) return fd;
  onCreated(fd, ChannelOrigin::Opened);
  if (isChannel(fd)) {
    Call call(Kind::Open, -1);
    call.finish(fd);
    recordSimple(call, fd);
  }
  return fd;
}

}  // namespace

HOOK int open(const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(open);
  return opened(real_open(path, flags, mode));
}

HOOK int open64(const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(open64);
  return opened(real_open64(path, flags, mode));
}

HOOK int openat(int dirfd, const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(openat);
  return opened(real_openat(dirfd, path, flags, mode));
}

HOOK int openat64(int dirfd, const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(openat64);
  return opened(real_openat64(dirfd, path, flags, mode));
}

HOOK int __open_2(const char* path, int flags) {
  REAL(__open_2);
  return opened(real___open_2(path, flags));
}

HOOK int creat(const char* path, mode_t mode) {
  REAL(creat);
  return opened(real_creat(path, mode));
}

// ==== readiness =================================================================

namespace {

constexpr size_t kMaxReady = 256;

int recordPoll(Call& call, struct pollfd* fds, nfds_t n, int timeout_ms, int r) {
  ReadyFd ready[kMaxReady];
  size_t count = 0;
  if (r > 0)
    for (nfds_t i = 0; i < n && count < kMaxReady; ++i)
      if (fds[i].revents) ready[count++] = {fds[i].fd, static_cast<uint32_t>(fds[i].revents), 0};
  call.extra.ready = ready;
  call.extra.ready_count = count;
  call.extra.has_timeout = true;
  call.extra.timeout_ms = timeout_ms;
  call.extra.size = n;
  call.record();
  return r;
}

int timespecMs(const struct timespec* ts) {
  if (!ts) return -1;
  const long long ms = ts->tv_sec * 1000LL + ts->tv_nsec / 1000000;
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

}  // namespace

HOOK int poll(struct pollfd* fds, nfds_t n, int timeout) {
  REAL(poll);
  if (!active()) return real_poll(fds, n, timeout);
  Call call(Kind::Poll, -1);
  const int r = real_poll(fds, n, timeout);
  call.finish(r);
  return recordPoll(call, fds, n, timeout, r);
}

HOOK int __poll_chk(struct pollfd* fds, nfds_t n, int timeout, size_t fdslen) {
  if (fdslen / sizeof(*fds) < n) {
    REAL(__poll_chk);
    return real___poll_chk(fds, n, timeout, fdslen);
  }
  return poll(fds, n, timeout);
}

HOOK int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  REAL(ppoll);
  if (!active()) return real_ppoll(fds, n, timeout, mask);
  const int ms = timespecMs(timeout);
  Call call(Kind::Poll, -1);
  const int r = real_ppoll(fds, n, timeout, mask);
  call.finish(r);
  return recordPoll(call, fds, n, ms, r);
}

namespace {

int recordSelect(Call& call, int nfds, fd_set* r, fd_set* w, fd_set* x, int timeout_ms, int ret) {
  ReadyFd ready[kMaxReady];
  size_t count = 0;
  if (ret > 0)
    for (int fd = 0; fd < nfds && fd < FD_SETSIZE && count < kMaxReady; ++fd) {
      const uint32_t bits =
          (r && FD_ISSET(fd, r) ? 1u : 0u) | (w && FD_ISSET(fd, w) ? 2u : 0u) | (x && FD_ISSET(fd, x) ? 4u : 0u);
      if (bits) ready[count++] = {fd, bits, 0};
    }
  call.extra.ready = ready;
  call.extra.ready_count = count;
  call.extra.has_timeout = true;
  call.extra.timeout_ms = timeout_ms;
  call.extra.size = static_cast<uint64_t>(nfds > 0 ? nfds : 0);
  call.record();
  return ret;
}

}  // namespace

HOOK int select(int nfds, fd_set* r, fd_set* w, fd_set* x, struct timeval* tv) {
  REAL(select);
  if (!active()) return real_select(nfds, r, w, x, tv);
  const int ms = tv ? static_cast<int>(tv->tv_sec * 1000 + tv->tv_usec / 1000) : -1;
  Call call(Kind::Select, -1);
  const int ret = real_select(nfds, r, w, x, tv);
  call.finish(ret);
  return recordSelect(call, nfds, r, w, x, ms, ret);
}

HOOK int pselect(int nfds, fd_set* r, fd_set* w, fd_set* x, const struct timespec* ts, const sigset_t* mask) {
  REAL(pselect);
  if (!active()) return real_pselect(nfds, r, w, x, ts, mask);
  const int ms = timespecMs(ts);
  Call call(Kind::Select, -1);
  const int ret = real_pselect(nfds, r, w, x, ts, mask);
  call.finish(ret);
  return recordSelect(call, nfds, r, w, x, ms, ret);
}

namespace {

int recordEpoll(Call& call, struct epoll_event* events, int timeout, int r) {
  ReadyFd ready[kMaxReady];
  size_t count = 0;
  for (int i = 0; i < r && count < kMaxReady; ++i) ready[count++] = {-1, events[i].events, events[i].data.u64};
  call.extra.ready = ready;
  call.extra.ready_count = count;
  call.extra.has_timeout = true;
  call.extra.timeout_ms = timeout;
  call.record();
  return r;
}

}  // namespace

HOOK int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  REAL(epoll_wait);
  if (!active()) return real_epoll_wait(epfd, events, max, timeout);
  Call call(Kind::EpollWait, epfd);
  const int r = real_epoll_wait(epfd, events, max, timeout);
  call.finish(r);
  return recordEpoll(call, events, timeout, r);
}

HOOK int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  REAL(epoll_pwait);
  if (!active()) return real_epoll_pwait(epfd, events, max, timeout, mask);
  Call call(Kind::EpollWait, epfd);
  const int r = real_epoll_pwait(epfd, events, max, timeout, mask);
  call.finish(r);
  return recordEpoll(call, events, timeout, r);
}

HOOK int epoll_ctl(int epfd, int op, int fd, struct epoll_event* event) {
  REAL(epoll_ctl);
  if (!active()) return real_epoll_ctl(epfd, op, fd, event);
  Call call(Kind::EpollCtl, epfd);
  const int r = real_epoll_ctl(epfd, op, fd, event);
  call.finish(r);
  int32_t args[3] = {epfd, op, fd};
  ReadyFd interest{fd, event ? event->events : 0, event ? event->data.u64 : 0};
  call.extra.fds = args;
  call.extra.fd_count = 3;
  call.extra.ready = &interest;
  call.extra.ready_count = 1;
  call.record();
  return r;
}

// ==== processes ================================================================

HOOK pid_t fork(void) {
  REAL(fork);
  if (!active()) return real_fork();
  beforeFork();
  // A signal waits until the fork is recorded (fork() cannot be interrupted,
  // so the program cannot tell): a handler that ran between the fork and its
  // record would be told before it, and a re-run would run it before the
  // fork, leaving its marks in the child too.
  sys::HeldSignals held;
  Call call(Kind::Fork, -1);
  const pid_t pid = real_fork();
  if (pid == 0) {
    call.forgetSlot();
    afterForkInChild();
    return 0;
  }
  afterForkParent();
  call.finish(pid);
  call.extra.peer_pid = pid > 0 ? pid : 0;
  call.record();
  return pid;
}

// vfork() cannot be wrapped by a function that returns in the child (its
// frame would be gone when the parent resumes): this stub records in C,
// then jumps to the real vfork with the caller's return address in place.
extern "C" __attribute__((visibility("hidden"), used)) void* radar_vfork_prepare() {
  static void* real = nullptr;
  if (!real) real = dlsym(RTLD_NEXT, "vfork");
  if (active()) {
    Call call(Kind::Vfork, -1);
    call.finish(0);
    call.record();
    afterVforkPrepare();
  }
  return real;
}

#if defined(__x86_64__)
asm(R"(
    .text
    .globl vfork
    .type vfork, @function
vfork:
    .cfi_startproc
    sub $8, %rsp
    .cfi_adjust_cfa_offset 8
    call radar_vfork_prepare
    add $8, %rsp
    .cfi_adjust_cfa_offset -8
    jmp *%rax
    .cfi_endproc
    .size vfork, .-vfork
)");
#else
HOOK pid_t vfork(void) { return fork(); }  // correct, if slower, everywhere else
#endif

namespace {

// The new image's environment: its pointers (16 more than the program's,
// for radar's variables) and the strings radar adds.
struct EnvBuffer {
  explicit EnvBuffer(char* const* envp) : array(radar::inject::environmentSize(envp) + 16, !inVforkChild()) {}
  radar::inject::EnvArray array;
  char** const env = array.data();
  const size_t capacity = array.capacity();
  EnvScratch strings;
};

// Everything the exec family shares. `check` is the file as the program
// named it (radar record looks at it if the new image leaves no log), `run`
// performs the exec with an environment.

// An EXEC or SPAWN event's strings: the program, then its arguments.
constexpr size_t kProgramStrings = 258;
size_t programStrings(const char* program, char* const argv[], const char* (&out)[kProgramStrings]) {
  size_t n = 0;
  out[n++] = program ? program : "";
  for (char* const* a = argv; a && *a && n < kProgramStrings; ++a) out[n++] = *a;
  return n;
}

// After a seccomp filter the program that starts would start the recorder
// under it: it runs without, as the program alone would (the environment
// on the stack: no mapping).
template <class Run>
int runWithoutRecorder(char* const envp[], Run&& run) {
  char* const* from = envp ? envp : environ;
  radar::inject::EnvArray env(radar::inject::environmentSize(from) + 16, /*may_map=*/false);
  EnvScratch strings;
  if (buildBareEnvironment(g_config, from, env.data(), env.capacity(), &strings)) return run(env.data());
  return run(envp);
}

// An exec that returned: its EXECFAILED event, errno as the exec left it.
int execFailed(int r) {
  const int err = errno;
  {
    Call failed(Kind::ExecFailed, -1);
    failed.finish(r, err);
    failed.record();
  }
  errno = err;
  return r;
}

// Whether the program `file` names (found along PATH as execvp finds it,
// when `search` and it has no slash: the first regular file there the
// caller may execute) is one the interposer cannot see into: statically
// linked, Go, or using liburing (whose rings it does not follow).
bool unseenByTheInterposer(const char* file, bool search) {
  if (!file || !file[0]) return false;
  if (!search || std::strchr(file, '/')) return radar::log::unseenByTheInterposer(file, true) != nullptr;
  const char* path = "/bin:/usr/bin";
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "PATH=", 5) == 0) {
      path = *e + 5;
      break;
    }
  const size_t file_len = std::strlen(file);
  char candidate[1024];
  for (const char* dir = path;; ++dir) {
    const char* end = std::strchr(dir, ':');
    const size_t len = end ? static_cast<size_t>(end - dir) : std::strlen(dir);
    if (len + file_len + 3 < sizeof(candidate)) {
      size_t at = len;
      std::memcpy(candidate, dir, len);
      if (at == 0) candidate[at++] = '.';  // an empty entry: the current directory
      candidate[at++] = '/';
      std::memcpy(candidate + at, file, file_len + 1);
      struct stat st;
      if (sys::stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
          sys::raw(SYS_access, reinterpret_cast<long>(candidate), X_OK) == 0)
        return radar::log::unseenByTheInterposer(candidate, true) != nullptr;
    }
    if (!end) return false;
    dir = end;
  }
}

// An exec radar record's fallback recorder traces this thread through (it
// runs a program the interposer cannot see into): the program starts
// without the interposer, which it would never load (and whose variables
// it would see), and its children are traced too. If it fails, the tracer
// lets the thread go at its next call, and this image goes on as it was.
template <class Run>
int runTraced(char* const envp[], EnvBuffer& buffer, Run&& run) {
  const bool bare = buildBareEnvironment(g_config, envp, buffer.env, buffer.capacity, &buffer.strings);
  return run(bare ? buffer.env : envp);
}

template <class Run>
int recordedExec(bool search, const char* check, char* const argv[], char* const envp[], Run&& run) {
  if (!radar::preload::active() && !inVforkChild()) {
    if (underSeccomp()) return runWithoutRecorder(envp, run);
    // Not recording this image (or it already exited): still let children be.
    return run(envp);
  }
  char link[128];
  EnvBuffer buffer(envp);
  if (inVforkChild()) {
    noteVforkExec(check);
    if (unseenByTheInterposer(check, search) &&
        askToBeTraced(TraceRequest::Exec, radar::log::Origin::Vforked, logId(), vforkCounter(), 0))
      return runTraced(envp, buffer, [&](char* const* env) {
        const int r = run(env);
        noteVforkExecFailed(errno);
        return r;
      });
    formatLink(link, sizeof(link), "vfork", logId(), vforkCounter(), 0);
    const bool built = buildExecEnvironment(g_config, envp, link, buffer.env, buffer.capacity, &buffer.strings);
    int r = run(built ? buffer.env : envp);
    if (r < 0 && errno == E2BIG && buildBareEnvironment(g_config, envp, buffer.env, buffer.capacity, &buffer.strings))
      r = run(buffer.env);  // see below
    noteVforkExecFailed(errno);
    return r;
  }
  {
    // Ended before the exec: a Call gives errno back when it ends, and the
    // program must see the exec's own errno when it fails (execvp and
    // shells decide by it).
    Call call(Kind::Exec, -1);
    call.finish(0);
    const char* strings[kProgramStrings];
    call.extra.strings = strings;
    call.extra.string_count = programStrings(check, argv, strings);
    call.record();
  }
  if (unseenByTheInterposer(check, search) &&
      askToBeTraced(TraceRequest::Exec, radar::log::Origin::Execed, logId(), lastCounter(), generation() + 1))
    return execFailed(runTraced(envp, buffer, run));
  formatLink(link, sizeof(link), "exec", logId(), lastCounter(), generation() + 1);
  const bool built = buildExecEnvironment(g_config, envp, link, buffer.env, buffer.capacity, &buffer.strings);
  int r = run(built ? buffer.env : envp);
  if (r < 0 && errno == E2BIG && buildBareEnvironment(g_config, envp, buffer.env, buffer.capacity, &buffer.strings)) {
    // radar's variables made the arguments and environment too large for
    // the kernel, where they would fit without radar: the program runs as
    // it would have, unrecorded from here, and the log says why.
    const char* note =
        "exec: radar's variables would make the arguments and environment too large (E2BIG): "
        "the program runs without them, not recorded";
    EventFields e;
    e.kind = Kind::Note;
    e.strings = &note;
    e.string_count = 1;
    commitEvent(e);
    r = run(buffer.env);
  }
  return execFailed(r);
}

}  // namespace

HOOK int execve(const char* path, char* const argv[], char* const envp[]) {
  REAL(execve);
  return recordedExec(false, path, argv, envp, [&](char* const* env) { return real_execve(path, argv, env); });
}

HOOK int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }

HOOK int execvpe(const char* file, char* const argv[], char* const envp[]) {
  REAL(execvpe);
  return recordedExec(true, file, argv, envp, [&](char* const* env) { return real_execvpe(file, argv, env); });
}

HOOK int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }

HOOK int fexecve(int fd, char* const argv[], char* const envp[]) {
  REAL(fexecve);
  char proc[64] = "/proc/self/fd/";
  sys::formatDecimal(proc + 14, sizeof proc - 14, static_cast<unsigned>(fd));
  return recordedExec(false, proc, argv, envp, [&](char* const* env) { return real_fexecve(fd, argv, env); });
}

// execl(), execlp(), execle(): inject/shared_hooks.cc, through execve() and execvpe().

namespace {

template <class Run>
int recordedSpawn(bool search, pid_t* pid, const char* check, char* const argv[], char* const envp[], Run&& run) {
  if (!active()) return underSeccomp() ? runWithoutRecorder(envp, run) : run(envp);
  char link[128];
  formatLink(link, sizeof(link), "spawn", logId(), lastCounter(), 0);
  EnvBuffer buffer(envp ? envp : environ);
  // A program the interposer cannot see into: radar record's fallback
  // recorder traces the process spawned from its exec, which starts
  // without the interposer (see runTraced).
  const bool traced = unseenByTheInterposer(check, search) &&
                      askToBeTraced(TraceRequest::Spawn, radar::log::Origin::Spawned, logId(), lastCounter(), 0);
  const bool built =
      traced
          ? buildBareEnvironment(g_config, envp ? envp : environ, buffer.env, buffer.capacity, &buffer.strings)
          : buildExecEnvironment(g_config, envp ? envp : environ, link, buffer.env, buffer.capacity, &buffer.strings);
  Call call(Kind::Spawn, -1);
  const int r = run(built ? buffer.env : envp);
  // (A child made lets the thread go at once: only a spawn that failed
  // may leave it traced.)
  if (traced && r != 0) askToBeTraced(TraceRequest::Done, radar::log::Origin::Spawned, 0, 0, 0);
  call.finish(r == 0 ? (pid ? *pid : 0) : -1, r);
  const char* strings[kProgramStrings];
  call.extra.strings = strings;
  call.extra.string_count = programStrings(check, argv, strings);
  call.extra.peer_pid = r == 0 && pid ? *pid : 0;
  call.record();
  return r;
}

}  // namespace

HOOK int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                     const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  REAL(posix_spawn);
  return recordedSpawn(false, pid, path, argv, envp,
                       [&](char* const* env) { return real_posix_spawn(pid, path, actions, attr, argv, env); });
}

HOOK int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                      const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  REAL(posix_spawnp);
  return recordedSpawn(true, pid, file, argv, envp,
                       [&](char* const* env) { return real_posix_spawnp(pid, file, actions, attr, argv, env); });
}

HOOK int system(const char* command) {
  REAL(system);
  if (!active() || !command) return real_system(command);
  Call call(Kind::System, -1);
  const int r = real_system(command);
  call.finish(r);
  call.extra.strings = &command;
  call.extra.string_count = 1;
  call.extra.status = r;
  call.record();
  return r;
}

HOOK FILE* popen(const char* command, const char* mode) {
  REAL(popen);
  if (!active()) return real_popen(command, mode);
  Call call(Kind::Popen, -1);
  FILE* f = real_popen(command, mode);
  const int fd = f ? fileno(f) : -1;
  call.finish(fd);
  if (f) {
    onCreated(fd, ChannelOrigin::Created);
    // popen streams have their own jump table, sharing read and write.
    patchStdioTable(*reinterpret_cast<void**>(reinterpret_cast<char*>(f) + sizeof(FILE)));
  }
  const char* strings[2] = {command, mode};
  call.extra.strings = strings;
  call.extra.string_count = 2;
  recordSimple(call, fd);
  return f;
}

HOOK int pclose(FILE* f) {
  REAL(pclose);
  if (!active() || !f) return real_pclose(f);
  const int fd = fileno(f);
  const uint32_t channel = channelOf(fd);
  Call call(Kind::Wait, -1);
  const int r = real_pclose(f);
  call.finish(r);
  forget(fd);
  if (channel) {
    EventFields close_event;
    close_event.kind = Kind::Close;
    close_event.fd = fd;
    close_event.channel = channel;
    close_event.entry_ns = close_event.return_ns = call.entry();
    commitEvent(close_event);
  }
  const char* what = "pclose";
  call.extra.strings = &what;
  call.extra.string_count = 1;
  call.extra.status = r;
  call.record();
  return r;
}

namespace {

pid_t recordWait(Call& call, pid_t r, const int* status) {
  call.finish(r);
  call.extra.peer_pid = r > 0 ? r : 0;
  call.extra.status = r > 0 && status ? *status : 0;
  call.record();
  return r;
}

}  // namespace

HOOK pid_t waitpid(pid_t pid, int* status, int options) {
  REAL(waitpid);
  if (!active()) return real_waitpid(pid, status, options);
  int local = 0;
  int* where = status ? status : &local;
  Call call(Kind::Wait, -1);
  call.extra.flags = static_cast<uint32_t>(options);
  const pid_t r = real_waitpid(pid, where, options);
  return recordWait(call, r, where);
}

HOOK pid_t wait(int* status) { return waitpid(-1, status, 0); }

HOOK pid_t wait4(pid_t pid, int* status, int options, struct rusage* usage) {
  REAL(wait4);
  if (!active()) return real_wait4(pid, status, options, usage);
  int local = 0;
  int* where = status ? status : &local;
  Call call(Kind::Wait, -1);
  call.extra.flags = static_cast<uint32_t>(options);
  const pid_t r = real_wait4(pid, where, options, usage);
  return recordWait(call, r, where);
}

HOOK pid_t wait3(int* status, int options, struct rusage* usage) { return wait4(-1, status, options, usage); }

HOOK int waitid(idtype_t type, id_t id, siginfo_t* info, int options) {
  REAL(waitid);
  if (!active() || !info) return real_waitid(type, id, info, options);
  Call call(Kind::Wait, -1);
  call.extra.flags = static_cast<uint32_t>(options);
  const int r = real_waitid(type, id, info, options);
  call.finish(r);
  if (r == 0 && info->si_pid) {
    // As a wait status, so that every wait looks the same in the log.
    int status = 0;
    if (info->si_code == CLD_EXITED)
      status = (info->si_status & 0xff) << 8;
    else if (info->si_code == CLD_KILLED)
      status = info->si_status & 0x7f;
    else if (info->si_code == CLD_DUMPED)
      status = (info->si_status & 0x7f) | 0x80;
    else if (info->si_code == CLD_STOPPED)
      status = ((info->si_status & 0xff) << 8) | 0x7f;
    else if (info->si_code == CLD_CONTINUED)
      status = 0xffff;
    call.extra.peer_pid = info->si_pid;
    call.extra.status = status;
  }
  call.record();
  return r;
}

// A signal sent to another process: recorded with its target as kill()
// names it (a pid; -pgid for a group; 0 its own group; -1 every process).
namespace {

// Whether the signal reaches the caller itself (its pid, 0: its group, or
// -its group; kill(-1) spares the caller): a thread of it may then take the
// signal before kill() returns (apache2 stops its whole process group).
bool reachesCaller(pid_t target) {
  return target == 0 || target == g_process.pid || (target < -1 && -target == sys::raw(SYS_getpgid, 0));
}

template <class Send>
int recordedKill(pid_t target, int sig, Send&& send) {
  // Such a kill cannot fail (the caller may always signal itself): it is
  // recorded before the call, so that a handler run meanwhile, in this
  // thread or another, is told after the kill that sent its signal.
  if (sig > 0 && sig < NSIG && reachesCaller(target)) {
    {
      Call call(Kind::Kill, -1);
      call.finish(0);
      call.extra.peer_pid = target;
      call.extra.signal = sig;
      call.record();
    }
    return send();
  }
  Call call(Kind::Kill, -1);
  const int r = send();
  call.finish(r);
  call.extra.peer_pid = target;
  call.extra.signal = sig;
  call.record();
  return r;
}
}  // namespace

HOOK int kill(pid_t pid, int sig) {
  REAL(kill);
  if (!active()) return real_kill(pid, sig);
  return recordedKill(pid, sig, [&] { return real_kill(pid, sig); });
}

// The C library's killpg() and sigqueue() do not go through kill().
HOOK int killpg(pid_t pgrp, int sig) {
  REAL(killpg);
  if (!active()) return real_killpg(pgrp, sig);
  return recordedKill(pgrp > 0 ? -pgrp : pgrp, sig, [&] { return real_killpg(pgrp, sig); });
}

HOOK int sigqueue(pid_t pid, int sig, const union sigval value) {
  REAL(sigqueue);
  if (!active()) return real_sigqueue(pid, sig, value);
  return recordedKill(pid, sig, [&] { return real_sigqueue(pid, sig, value); });
}

// A signal taken by a wait for it (sigwaitinfo, sigtimedwait, sigwait):
// no handler runs, the call returns it. Recorded with its sender and the
// siginfo the program got, which a re-run gives back.
namespace {

void recordSignalTaken(Call& call, int sig, const siginfo_t* info) {
  call.extra.signal = sig;
  if (sig > 0 && info && sentByAProcess(info->si_code)) call.extra.peer_pid = info->si_pid;
  const Iov iov{info, sizeof(*info)};
  if (sig > 0 && info) {
    call.extra.payload = &iov;
    call.extra.payload_iov_count = 1;
    call.extra.payload_len = sizeof(*info);
  }
  call.record();
}

}  // namespace

HOOK int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  REAL(sigtimedwait);
  if (!active()) return real_sigtimedwait(set, info, timeout);
  siginfo_t own;
  siginfo_t* got = info ? info : &own;
  Call call(Kind::SignalWait, -1);
  const int r = real_sigtimedwait(set, got, timeout);
  call.finish(r);
  recordSignalTaken(call, r > 0 ? r : 0, got);
  return r;
}

// sigtimedwait() with no timeout, as glibc makes it.
HOOK int sigwaitinfo(const sigset_t* set, siginfo_t* info) { return sigtimedwait(set, info, nullptr); }

// sigwait() returns an error number, and says nothing of the sender: the
// signal is taken as sigwaitinfo() takes it (what glibc's sigwait does
// inside), so that the sender is known.
HOOK int sigwait(const sigset_t* set, int* sig) {
  REAL(sigwait);
  REAL(sigtimedwait);
  if (!active()) return real_sigwait(set, sig);
  siginfo_t info;
  Call call(Kind::SignalWait, -1);
  int r;
  do {
    r = real_sigtimedwait(set, &info, nullptr);
  } while (r < 0 && errno == EINTR);  // sigwait() is not interrupted
  const int error = r < 0 ? errno : 0;
  call.finish(r, error);
  recordSignalTaken(call, r > 0 ? r : 0, &info);
  if (r < 0) return error;
  *sig = r;
  return 0;
}

// ---- the end of a process --------------------------------------------------------

// exit, _exit, main's return, pthread_create, sigaction and the signal() family:
// inject/shared_hooks.cc and inject/signals.cc, with what the recorder does
// for them in stdio_signals.cc.

// ==== user events (radar/radar.h) ==================================================

HOOK int radar_user_event(const char* name, const void* data, size_t len) {
  if (!active()) return 0;
  Call call(Kind::User, -1);
  call.finish(0);
  const char* n = name ? name : "";
  call.extra.strings = &n;
  call.extra.string_count = 1;
  const Iov iov{data, data ? len : 0};
  call.extra.payload = &iov;
  call.extra.payload_iov_count = 1;
  call.extra.payload_len = data ? len : 0;
  call.record();
  return 1;
}

// ==== nondeterminism (radar record --nondet) =========================================

namespace {

void recordValue(Kind kind, uint32_t flags, const void* value, size_t len, long result) {
  Call call(kind, -1);
  call.finish(result);
  const Iov iov{value, value ? len : 0};
  call.extra.payload = &iov;
  call.extra.payload_iov_count = 1;
  call.extra.payload_len = value ? len : 0;
  call.extra.flags = flags;
  call.record();
}

}  // namespace

// What the kernel says about a network interface: an input, recorded
// always (a re-run's network has none of the machine's interfaces).
HOOK int ioctl(int fd, unsigned long request, ...) {
  REAL(ioctl);
  OPTIONAL_ARG(request, arg);
  if (!active() || !radar::inject::isInterfaceQuery(request) || !arg) return real_ioctl(fd, request, arg);
  Call call(Kind::Interface, fd);
  const int r = real_ioctl(fd, request, arg);
  call.finish(r);
  const Iov iov{arg, r == 0 ? sizeof(struct ifreq) : 0};
  call.extra.payload = &iov;
  call.extra.payload_iov_count = 1;
  call.extra.payload_len = iov.len;
  call.extra.flags = static_cast<uint32_t>(request);
  call.record();
  return r;
}

HOOK time_t time(time_t* out) {
  REAL(time);
  const time_t r = real_time(out);
  if (recordingNondet()) recordValue(Kind::Clock, CLOCK_REALTIME, &r, sizeof(r), 0);
  return r;
}

HOOK int gettimeofday(struct timeval* tv, void* tz) {
  using Fn = int (*)(struct timeval*, void*);
  static Fn real = nullptr;
  if (!real) real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "gettimeofday"));
  const int r = real(tv, tz);
  if (recordingNondet()) recordValue(Kind::Clock, CLOCK_REALTIME, tv, sizeof(*tv), r);
  return r;
}

HOOK int clock_gettime(clockid_t clock, struct timespec* ts) {
  REAL(clock_gettime);
  const int r = real_clock_gettime(clock, ts);
  if (recordingNondet()) recordValue(Kind::Clock, static_cast<uint32_t>(clock), ts, sizeof(*ts), r);
  return r;
}

HOOK ssize_t getrandom(void* buf, size_t n, unsigned flags) {
  REAL(getrandom);
  const ssize_t r = real_getrandom(buf, n, flags);
  if (recordingNondet()) recordValue(Kind::Random, flags, buf, moved(r), r);
  return r;
}

HOOK pid_t getpid(void) {
  REAL(getpid);
  const pid_t r = real_getpid();
  if (recordingNondet()) recordValue(Kind::Getpid, 0, nullptr, 0, r);
  return r;
}

HOOK pid_t getppid(void) {
  REAL(getppid);
  const pid_t r = real_getppid();
  if (recordingNondet()) recordValue(Kind::Getpid, 1, nullptr, 0, r);
  return r;
}
