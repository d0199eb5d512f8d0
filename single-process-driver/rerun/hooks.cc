// The interposed libc functions of the replay: where the recorder (radarlog/
// preload/hooks.cc) recorded a call, this library answers it from the
// script instead: receives get the recorded bytes, sends are compared with
// the recorded ones and discarded, descriptors are stand-ins placed at the
// recorded numbers, children are never started, peers never touched.
//
// Each hook mirrors the recorder's condition for recording the call, so
// that a call is replayed exactly when the recording has it. When the
// program leaves the recording (rerun.h: expect() returned null), the hook
// performs the real call: the program runs on its own from there.
//
// Rules: as for the recorder (no malloc, no stdio, raw system calls; errno
// is set only to what the recorded call returned).
#include <dlfcn.h>
#include <fcntl.h>
#include <mqueue.h>
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
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include "inject/env_array.h"
#include "inject/file_crc.h"
#include "inject/hook.h"
#include "inject/interface_query.h"
#include "inject/library.h"
#include "inject/signals.h"
#include "inject/stdio_table.h"
#include "log/crc32c.h"
#include "log/fields.h"
#include "log/sys.h"
#include "rerun/rerun.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

extern char** environ;

using radar::driver::kBranchToChild;
using radar::driver::kHashKnown;
using radar::driver::kPassThrough;
using radar::driver::ScriptReady;
using radar::log::Kind;
using namespace radar::rerun;
namespace sys = radar::sys;

namespace {

// "name(fd N, M bytes)" for reports.
struct What {
  Report r;
  What(const char* name, int fd, uint64_t bytes) { r << name << "(fd " << fd << ", " << bytes << " bytes)"; }
  explicit What(const char* name) { r << name << "()"; }
  What(const char* name, int fd) { r << name << "(fd " << fd << ")"; }
  const char* str() const { return r.str(); }
};

template <class T>
T finishWith(const ScriptEvent* e) {
  if (e->result < 0) errno = e->error;
  return static_cast<T>(e->result);
}

const int32_t* fdsOf(const ScriptEvent* e, size_t* n) {
  *n = e->fds.size / sizeof(int32_t);
  return static_cast<const int32_t*>(blob(e->fds));
}

// Copies the recorded bytes of a receive into the program's buffers.
void scatter(const ScriptEvent* e, const struct iovec* iov, size_t count) {
  const auto* p = static_cast<const uint8_t*>(blob(e->data));
  size_t left = e->data.size;
  for (size_t i = 0; i < count && left; ++i) {
    const size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
    std::memcpy(iov[i].iov_base, p, n);
    p += n;
    left -= n;
  }
}

uint64_t total(const struct iovec* iov, size_t count) {
  uint64_t n = 0;
  for (size_t i = 0; i < count; ++i) n += iov[i].iov_len;
  return n;
}

void fillAddress(const ScriptEvent* e, struct sockaddr* addr, socklen_t* len) {
  if (!addr || !len) return;
  const socklen_t have = static_cast<socklen_t>(e->address.size);
  std::memcpy(addr, blob(e->address), have < *len ? have : *len);
  *len = have;
}

// A receive: the recorded bytes, result and errno (and a message queue's
// priority, into `priority`). False when the program left the recording
// (the caller makes the real call).
bool replayReceive(Kind kind, const char* name, int fd, const struct iovec* iov, size_t count, ssize_t* result,
                   unsigned* priority = nullptr) {
  const uint64_t room = total(iov, count);
  const What what(name, fd, room);
  const ScriptEvent* e = expect(kind, fd, what.str());
  if (!e) return false;
  if (e->data.size > room) {
    Report r;
    r << "the program's " << what.str() << " has room for " << room << " bytes; the recorded call received "
      << static_cast<uint64_t>(e->data.size) << ": " << text(e);
    diverge(e, r.str());
    return false;
  }
  scatter(e, iov, count);
  if (priority && e->result >= 0) *priority = static_cast<unsigned>(e->status);
  consume(e);
  *result = finishWith<ssize_t>(e);
  return true;
}

// The first byte where the program's bytes differ from the recorded ones,
// or -1.
long firstDifference(const struct iovec* iov, size_t count, const uint8_t* expected, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < count && at < n; ++i) {
    const auto* p = static_cast<const uint8_t*>(iov[i].iov_base);
    const size_t len = iov[i].iov_len < n - at ? iov[i].iov_len : n - at;
    if (std::memcmp(p, expected + at, len) != 0)  // the common case at memory speed; then where
      for (size_t j = 0; j < len; ++j)
        if (p[j] != expected[at + j]) return static_cast<long>(at + j);
    at += len;
  }
  return at < n ? static_cast<long>(at) : -1;
}

// Up to 32 bytes of the program's buffers from `from`, for the report.
size_t gather(const struct iovec* iov, size_t count, size_t from, uint8_t* out, size_t max) {
  size_t at = 0, n = 0;
  for (size_t i = 0; i < count && n < max; ++i) {
    const auto* p = static_cast<const uint8_t*>(iov[i].iov_base);
    for (size_t j = 0; j < iov[i].iov_len && n < max; ++j, ++at)
      if (at >= from) out[n++] = p[j];
  }
  return n;
}

// A send: compared with the recorded one (and a message queue's priority
// with `priority`), then discarded (or also written to the terminal), and
// answered with the recorded result.
bool replaySend(Kind kind, const char* name, int fd, const struct iovec* iov, size_t count, ssize_t* result,
                const unsigned* priority = nullptr, const char* priority_name = "priority") {
  const uint64_t size = total(iov, count);
  What what(name, fd, size);
  if (!nextIs(kind, fd)) {
    // Not what the recording has next: the report shows what it sends
    // (an error message the re-run prints where the recorded run did not).
    uint8_t first[64];
    what.r << " ";
    const size_t got = gather(iov, count, 0, first, sizeof(first));
    what.r.text(first, got, got);
    if (size > got) what.r << "...";
  }
  const ScriptEvent* e = expect(kind, fd, what.str());
  if (!e) return false;
  // The bytes the recorded call moved (as far as the recording kept them)
  // must be the program's; the rest it will send again later, as then.
  const uint64_t moved = e->result > 0 ? static_cast<uint64_t>(e->result) : 0;
  const uint64_t kept = e->data.size < moved ? e->data.size : moved;
  const auto* expected = static_cast<const uint8_t*>(blob(e->data));
  const uint64_t common = kept < size ? kept : size;
  long at = firstDifference(iov, count, expected, common);
  const bool size_differs = size != e->size;
  const bool hash_differs = !size_differs && at < 0 && e->omitted && (e->flags & kHashKnown) &&
                            radar::log::crc32cOfFirst(radar::log::asIov(iov), count, moved) != e->hash;
  if (priority && e->result >= 0 && !size_differs && at < 0 && !hash_differs &&
      *priority != static_cast<unsigned>(e->status)) {
    Report r;
    r << "the program's " << what.str() << " sends with " << priority_name << " " << *priority
      << " where the recording has " << static_cast<unsigned>(e->status) << ": " << text(e);
    diverge(e, r.str());
    return false;
  }
  if (size_differs || at >= 0 || hash_differs) {
    Report r;
    r << "the program's " << what.str();
    if (size_differs)
      r << " sends " << size << " bytes where the recording sends " << e->size;
    else
      r << " sends other bytes than the recording";
    r << ": " << text(e);
    if (at < 0 && size_differs) at = static_cast<long>(common);  // one is a prefix of the other
    if (at >= 0) {
      uint8_t got[32];
      const size_t n = gather(iov, count, static_cast<size_t>(at), got, sizeof(got));
      r << "\n  first difference at byte " << at << "\n  recorded: ";
      r.bytes(expected + at, kept - static_cast<size_t>(at));
      r << "\n  re-run:   ";
      r.bytes(got, n);
    } else {
      r << "\n  (beyond the " << static_cast<uint64_t>(e->data.size) << " bytes kept: their checksum differs)";
    }
    diverge(e, r.str());
    return false;
  }
  // (Not into a stand-in socket: it leads nowhere, and writing to it
  // raises SIGPIPE in a program that does not ignore it.)
  struct stat st {};
  if ((e->flags & kPassThrough) && moved && sys::fstat(fd, &st) == 0 && !S_ISSOCK(st.st_mode)) {
    uint64_t left = moved;
    for (size_t i = 0; i < count && left; ++i) {
      const size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
      sys::write(fd, iov[i].iov_base, n);
      left -= n;
    }
  }
  consume(e);
  *result = finishWith<ssize_t>(e);
  return true;
}

// Where the recording has a new descriptor, a real one of the same kind is
// put at its number.
bool placeNew(const ScriptEvent* e, long real_fd, int want, bool cloexec) {
  if (real_fd < 0) {
    Report r;
    r << "no stand-in for descriptor " << want << " could be made (" << -real_fd << "): " << text(e);
    diverge(e, r.str());
    return false;
  }
  if (threadsWereStarted() && want >= 0 && sys::fcntl(want, F_GETFD) >= 0) releaseLateClose(e, want);
  if (!placeAt(static_cast<int>(real_fd), want, cloexec, e)) {
    Report r;
    r << "descriptor " << want << ", new in the recording here, is already open in the re-run";
    char link[32], held[160] = {};
    Report path;
    path << "/proc/self/fd/" << want;
    std::strncpy(link, path.str(), sizeof(link) - 1);
    link[sizeof(link) - 1] = 0;
    if (sys::readlink(link, held, sizeof(held) - 1) > 0) r << " (on " << held << ")";
    r << ": " << text(e);
    // Between the calls radar records, threads run in the re-run's order.
    if (threadsWereStarted() && !isChannelFd(want))
      r << "\n  another thread of the re-run holds it: threads ran in another order than recorded between calls";
    diverge(e, r.str());
    return false;
  }
  setChannelFd(want, true);
  return true;
}

// Both ends of a pipe or socket pair at the recorded numbers, which may be
// each other's.
bool placePair(const ScriptEvent* e, int real[2], bool cloexec) {
  size_t n = 0;
  const int32_t* want = fdsOf(e, &n);
  if (n < 2) return true;
  if (real[0] == want[0] && real[1] == want[1]) {
    setChannelFd(want[0], true);
    setChannelFd(want[1], true);
    return true;
  }
  const long a = sys::fcntl(real[0], F_DUPFD_CLOEXEC, 512);
  const long b = sys::fcntl(real[1], F_DUPFD_CLOEXEC, 512);
  sys::close(real[0]);
  sys::close(real[1]);
  return placeNew(e, a, want[0], cloexec) && placeNew(e, b, want[1], cloexec);
}

bool isChannelKindOfFile(int fd) {
  struct stat st {};
  if (sys::fstat(fd, &st) < 0) return false;
  switch (st.st_mode & S_IFMT) {
    case S_IFIFO:
    case S_IFSOCK:
      return true;
    case S_IFCHR: {
      struct termios t;
      return sys::raw(SYS_ioctl, fd, TCGETS, reinterpret_cast<long>(&t)) == 0;
    }
    default:
      return false;
  }
}

long socketLike(int like, int extra_flags) {
  int domain = AF_UNIX, type = SOCK_STREAM;
  socklen_t len = sizeof(int);
  sys::raw(SYS_getsockopt, like, SOL_SOCKET, SO_DOMAIN, reinterpret_cast<long>(&domain), reinterpret_cast<long>(&len));
  len = sizeof(int);
  sys::raw(SYS_getsockopt, like, SOL_SOCKET, SO_TYPE, reinterpret_cast<long>(&type), reinterpret_cast<long>(&len));
  return sys::raw(SYS_socket, domain, type | extra_flags, 0);
}

}  // namespace

// ==== sends =========================================================================

namespace radar::rerun {

ssize_t replayedWrite(int fd, const void* buf, size_t n, ssize_t (*real)(int, const void*, size_t)) {
  const struct iovec iov { const_cast<void*>(buf), n };
  ssize_t r;
  if (replaySend(Kind::Write, "write", fd, &iov, 1, &r)) return r;
  return real ? real(fd, buf, n) : static_cast<ssize_t>(n);
}

}  // namespace radar::rerun

namespace {

// A write to no channel, made: compared when it is to a file or device.
ssize_t outputMade(int fd, const struct iovec* iov, size_t count, ssize_t r) {
  checkOutput(fd, iov, count, r);
  return r;
}

}  // namespace

HOOK ssize_t write(int fd, const void* buf, size_t n) {
  REAL(write);
  if (!replaying()) return real_write(fd, buf, n);
  if (!isChannelFd(fd)) {
    const struct iovec iov { const_cast<void*>(buf), n };
    return outputMade(fd, &iov, 1, real_write(fd, buf, n));
  }
  return replayedWrite(fd, buf, n, real_write);
}

HOOK ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  REAL(pwrite);
  if (!replaying()) return real_pwrite(fd, buf, n, offset);
  const struct iovec iov { const_cast<void*>(buf), n };
  return outputMade(fd, &iov, 1, real_pwrite(fd, buf, n, offset));
}

HOOK ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  REAL(pwrite64);
  if (!replaying()) return real_pwrite64(fd, buf, n, offset);
  const struct iovec iov { const_cast<void*>(buf), n };
  return outputMade(fd, &iov, 1, real_pwrite64(fd, buf, n, offset));
}

HOOK ssize_t writev(int fd, const struct iovec* iov, int count) {
  REAL(writev);
  if (!replaying()) return real_writev(fd, iov, count);
  if (!isChannelFd(fd))
    return outputMade(fd, iov, count > 0 ? static_cast<size_t>(count) : 0, real_writev(fd, iov, count));
  ssize_t r;
  if (replaySend(Kind::Writev, "writev", fd, iov, count > 0 ? static_cast<size_t>(count) : 0, &r)) return r;
  return real_writev(fd, iov, count);
}

HOOK ssize_t send(int fd, const void* buf, size_t n, int flags) {
  REAL(send);
  if (!replaying() || !isChannelFd(fd)) return real_send(fd, buf, n, flags);
  const struct iovec iov { const_cast<void*>(buf), n };
  ssize_t r;
  if (replaySend(Kind::Send, "send", fd, &iov, 1, &r)) return r;
  return real_send(fd, buf, n, flags);
}

HOOK ssize_t sendto(int fd, const void* buf, size_t n, int flags, const struct sockaddr* to, socklen_t to_len) {
  REAL(sendto);
  if (!replaying() || !isChannelFd(fd)) return real_sendto(fd, buf, n, flags, to, to_len);
  const struct iovec iov { const_cast<void*>(buf), n };
  ssize_t r;
  if (replaySend(Kind::Sendto, "sendto", fd, &iov, 1, &r)) return r;
  return real_sendto(fd, buf, n, flags, to, to_len);
}

HOOK ssize_t sendmsg(int fd, const struct msghdr* msg, int flags) {
  REAL(sendmsg);
  if (!replaying() || !isChannelFd(fd) || !msg) return real_sendmsg(fd, msg, flags);
  ssize_t r;
  if (replaySend(Kind::Sendmsg, "sendmsg", fd, msg->msg_iov, msg->msg_iovlen, &r)) return r;
  return real_sendmsg(fd, msg, flags);
}

HOOK int sendmmsg(int fd, struct mmsghdr* msgs, unsigned count, int flags) {
  REAL(sendmmsg);
  if (!replaying() || !isChannelFd(fd)) return real_sendmmsg(fd, msgs, count, flags);
  const ScriptEvent* e = expect(Kind::Sendmmsg, fd, What("sendmmsg", fd).str());
  if (!e) return real_sendmmsg(fd, msgs, count, flags);
  const auto* lengths = static_cast<const uint64_t*>(blob(e->lengths));
  const size_t n = e->lengths.size / sizeof(uint64_t);
  for (size_t m = 0; m < n && m < count; ++m) msgs[m].msg_len = static_cast<unsigned>(lengths[m]);
  consume(e);
  return finishWith<int>(e);
}

namespace {

// sendfile()/splice() from a file: the bytes come from the file, whose
// position moves as it did.
ssize_t replayFileSend(const ScriptEvent* e, int in, off_t* offset, size_t count) {
  if (e->size != count) {
    Report r;
    r << "the program sends " << static_cast<uint64_t>(count) << " bytes from a file; the recording has " << e->size
      << ": " << text(e);
    diverge(e, r.str());
    return -2;
  }
  if (e->result > 0) {
    if (offset)
      *offset += e->result;
    else
      sys::raw(SYS_lseek, in, e->result, SEEK_CUR);
  }
  consume(e);
  return finishWith<ssize_t>(e);
}

}  // namespace

namespace {

// A copy the kernel made into a file or device: compared, its checksum
// read back from the source as the recorder did (`in` from `pos`).
template <class Copy>
ssize_t outputCopied(int out, int in, long pos, Copy&& copy) {
  const ssize_t r = copy();
  const int error = errno;
  const uint32_t crc =
      r > 0 && pos >= 0 ? radar::inject::fileCrc32c(in, static_cast<uint64_t>(pos), static_cast<uint64_t>(r)) : 0;
  checkCopiedOutput(out, r, crc);
  errno = error;
  return r;
}

long filePosition(int fd) { return sys::raw(SYS_lseek, fd, 0, SEEK_CUR); }

}  // namespace

HOOK ssize_t copy_file_range(int in, off64_t* off_in, int out, off64_t* off_out, size_t len, unsigned flags) {
  REAL(copy_file_range);
  if (!replaying() || isChannelFd(out)) return real_copy_file_range(in, off_in, out, off_out, len, flags);
  return outputCopied(out, in, off_in ? static_cast<long>(*off_in) : filePosition(in),
                      [&] { return real_copy_file_range(in, off_in, out, off_out, len, flags); });
}

HOOK ssize_t sendfile(int out, int in, off_t* offset, size_t count) {
  REAL(sendfile);
  if (!replaying()) return real_sendfile(out, in, offset, count);
  if (!isChannelFd(out))
    return outputCopied(out, in, offset ? static_cast<long>(*offset) : filePosition(in),
                        [&] { return real_sendfile(out, in, offset, count); });
  const ScriptEvent* e = expect(Kind::Sendfile, out, What("sendfile", out, count).str());
  const ssize_t r = e ? replayFileSend(e, in, offset, count) : -2;
  return r != -2 ? r : real_sendfile(out, in, offset, count);
}

HOOK ssize_t sendfile64(int out, int in, off64_t* offset, size_t count) {
  return sendfile(out, in, reinterpret_cast<off_t*>(offset), count);
}

namespace {

// Bytes from one channel to another inside the kernel (splice, tee): the
// receive on `in` (kind Read, a peek for tee), then the send on `out`; the
// re-run's stand-ins need neither's bytes. Returns -2 on a divergence.
ssize_t replayPassThrough(const char* name, int in, int out, size_t len) {
  ssize_t r = 0;
  if (in >= 0) {
    const ScriptEvent* e = expect(Kind::Read, in, What(name, in, len).str());
    if (!e) return -2;
    consume(e);
    r = finishWith<ssize_t>(e);
    if (r <= 0 || out < 0) return r;
  }
  const ScriptEvent* e = expect(Kind::Splice, out, What(name, out, len).str());
  if (!e) return -2;
  consume(e);
  return finishWith<ssize_t>(e);
}

}  // namespace

HOOK ssize_t tee(int in, int out, size_t len, unsigned flags) {
  REAL(tee);
  if (!replaying() || (!isChannelFd(out) && !isChannelFd(in))) return real_tee(in, out, len, flags);
  const ssize_t r = replayPassThrough("tee", isChannelFd(in) ? in : -1, isChannelFd(out) ? out : -1, len);
  return r != -2 ? r : real_tee(in, out, len, flags);
}

HOOK ssize_t vmsplice(int fd, const struct iovec* iov, size_t count, unsigned flags) {
  REAL(vmsplice);
  if (!replaying() || !isChannelFd(fd)) return real_vmsplice(fd, iov, count, flags);
  const size_t n = count > 1024 ? 1024 : count;
  ssize_t r;
  // Which way, as the recording says: the descriptor that stands in for
  // the recorded one may be open both ways (a terminal for a pipe's end).
  const bool receiving = nextIs(Kind::Readv, fd);
  if (receiving ? replayReceive(Kind::Readv, "vmsplice", fd, iov, n, &r)
                : replaySend(Kind::Writev, "vmsplice", fd, iov, n, &r))
    return r;
  return real_vmsplice(fd, iov, count, flags);
}

HOOK ssize_t splice(int in, loff_t* off_in, int out, loff_t* off_out, size_t len, unsigned flags) {
  REAL(splice);
  if (!replaying() || (!isChannelFd(out) && !isChannelFd(in))) return real_splice(in, off_in, out, off_out, len, flags);
  if (isChannelFd(out) && isChannelFd(in)) {
    const ssize_t r = replayPassThrough("splice", in, out, len);
    return r != -2 ? r : real_splice(in, off_in, out, off_out, len, flags);
  }
  if (isChannelFd(out)) {
    const ScriptEvent* e = expect(Kind::Splice, out, What("splice", out, len).str());
    const ssize_t r = e ? replayFileSend(e, in, reinterpret_cast<off_t*>(off_in), len) : -2;
    return r != -2 ? r : real_splice(in, off_in, out, off_out, len, flags);
  }
  // From a channel into a file: the recorded bytes are written there.
  const ScriptEvent* e = expect(Kind::Read, in, What("splice", in, len).str());
  if (!e) return real_splice(in, off_in, out, off_out, len, flags);
  if (e->data.size) {
    if (off_out) {
      sys::pwrite(out, blob(e->data), e->data.size, static_cast<uint64_t>(*off_out));
      *off_out += e->data.size;
    } else {
      sys::write(out, blob(e->data), e->data.size);
    }
  }
  consume(e);
  return finishWith<ssize_t>(e);
}

// ==== receives =====================================================================

namespace radar::rerun {

ssize_t replayedRead(int fd, void* buf, size_t n, ssize_t (*real)(int, void*, size_t)) {
  const struct iovec iov { buf, n };
  ssize_t r;
  if (replayReceive(Kind::Read, "read", fd, &iov, 1, &r)) return r;
  return real ? real(fd, buf, n) : -1;
}

}  // namespace radar::rerun

namespace {

// Reads of a signalfd (the signals taken) and of /dev/urandom (recorded
// with --nondet): the recorded bytes, spread over the buffers. False when
// the next event is not one of them.
bool replayedBytesRead(int fd, const struct iovec* iov, size_t count, ssize_t* result) {
  const ScriptEvent* e = expectIf(Kind::SignalWait, fd);
  if (!e) e = expectIf(Kind::Random, fd);
  if (!e) return false;
  const auto* from = static_cast<const char*>(blob(e->data));
  for (size_t i = 0, done = 0; i < count && done < e->data.size; ++i) {
    const size_t take = iov[i].iov_len < e->data.size - done ? iov[i].iov_len : e->data.size - done;
    std::memcpy(iov[i].iov_base, from + done, take);
    done += take;
  }
  consume(e);
  *result = finishWith<ssize_t>(e);
  return true;
}

ssize_t readHook(int fd, void* buf, size_t n, ssize_t (*real)(int, void*, size_t)) {
  if (!replaying()) return real(fd, buf, n);
  if (isChannelFd(fd)) return replayedRead(fd, buf, n, real);
  const struct iovec iov { buf, n };
  ssize_t r;
  if (replayedBytesRead(fd, &iov, 1, &r)) return r;
  return real(fd, buf, n);
}

}  // namespace

HOOK ssize_t read(int fd, void* buf, size_t n) {
  REAL(read);
  return readHook(fd, buf, n, real_read);
}

HOOK ssize_t __read_chk(int fd, void* buf, size_t n, size_t buflen) {
  REAL(read);
  if (n > buflen) {
    REAL(__read_chk);
    return real___read_chk(fd, buf, n, buflen);
  }
  return readHook(fd, buf, n, real_read);
}

HOOK ssize_t readv(int fd, const struct iovec* iov, int count) {
  REAL(readv);
  if (!replaying()) return real_readv(fd, iov, count);
  const size_t n = count > 0 ? static_cast<size_t>(count) : 0;
  ssize_t r;
  if (!isChannelFd(fd)) return replayedBytesRead(fd, iov, n, &r) ? r : real_readv(fd, iov, count);
  if (replayReceive(Kind::Readv, "readv", fd, iov, n, &r)) return r;
  return real_readv(fd, iov, count);
}

HOOK ssize_t recv(int fd, void* buf, size_t n, int flags) {
  REAL(recv);
  if (!replaying() || !isChannelFd(fd)) return real_recv(fd, buf, n, flags);
  const struct iovec iov { buf, n };
  ssize_t r;
  if (replayReceive(Kind::Recv, "recv", fd, &iov, 1, &r)) return r;
  return real_recv(fd, buf, n, flags);
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
  if (!replaying() || !isChannelFd(fd)) return real_recvfrom(fd, buf, n, flags, from, from_len);
  const What what("recvfrom", fd, n);
  const ScriptEvent* e = expect(Kind::Recvfrom, fd, what.str());
  if (!e) return real_recvfrom(fd, buf, n, flags, from, from_len);
  const size_t have = e->data.size < n ? e->data.size : n;
  std::memcpy(buf, blob(e->data), have);
  if (e->result >= 0) fillAddress(e, from, from_len);
  consume(e);
  return finishWith<ssize_t>(e);
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
  if (!replaying() || !isChannelFd(fd) || !msg) return real_recvmsg(fd, msg, flags);
  const uint64_t room = total(msg->msg_iov, msg->msg_iovlen);
  const What what("recvmsg", fd, room);
  const ScriptEvent* e = expect(Kind::Recvmsg, fd, what.str());
  if (!e) return real_recvmsg(fd, msg, flags);
  scatter(e, msg->msg_iov, msg->msg_iovlen);
  if (e->result >= 0) {
    if (msg->msg_name) fillAddress(e, static_cast<struct sockaddr*>(msg->msg_name), &msg->msg_namelen);
    msg->msg_flags = e->status;
    // Descriptors passed with SCM_RIGHTS: stand-ins at the recorded numbers.
    size_t n = 0;
    const int32_t* fds = fdsOf(e, &n);
    const size_t space = CMSG_SPACE(n * sizeof(int));
    if (n && msg->msg_control && msg->msg_controllen >= space) {
      struct cmsghdr* c = reinterpret_cast<struct cmsghdr*>(msg->msg_control);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(n * sizeof(int));
      for (size_t i = 0; i < n; ++i) {
        const long s = sys::openat(AT_FDCWD, "/dev/null", O_RDWR, 0);
        if (s >= 0) placeAt(static_cast<int>(s), fds[i], (flags & MSG_CMSG_CLOEXEC) != 0);
        setChannelFd(fds[i], true);
        std::memcpy(CMSG_DATA(c) + i * sizeof(int), &fds[i], sizeof(int));
      }
      msg->msg_controllen = space;
    } else {
      msg->msg_controllen = 0;
    }
  }
  consume(e);
  return finishWith<ssize_t>(e);
}

HOOK int recvmmsg(int fd, struct mmsghdr* msgs, unsigned count, int flags, struct timespec* timeout) {
  REAL(recvmmsg);
  if (!replaying() || !isChannelFd(fd)) return real_recvmmsg(fd, msgs, count, flags, timeout);
  const ScriptEvent* e = expect(Kind::Recvmmsg, fd, What("recvmmsg", fd).str());
  if (!e) return real_recvmmsg(fd, msgs, count, flags, timeout);
  const auto* lengths = static_cast<const uint64_t*>(blob(e->lengths));
  const size_t n = e->lengths.size / sizeof(uint64_t);
  const auto* p = static_cast<const uint8_t*>(blob(e->data));
  size_t left = e->data.size;
  for (size_t m = 0; m < n && m < count; ++m) {
    size_t len = lengths[m] < left ? lengths[m] : left;
    msgs[m].msg_len = static_cast<unsigned>(len);
    for (size_t i = 0; i < msgs[m].msg_hdr.msg_iovlen && len; ++i) {
      const size_t k = msgs[m].msg_hdr.msg_iov[i].iov_len < len ? msgs[m].msg_hdr.msg_iov[i].iov_len : len;
      std::memcpy(msgs[m].msg_hdr.msg_iov[i].iov_base, p, k);
      p += k;
      left -= k;
      len -= k;
    }
  }
  consume(e);
  return finishWith<int>(e);
}

// ==== channel life cycle ==============================================================

HOOK int pipe2(int fds[2], int flags) {
  REAL(pipe2);
  if (!replaying()) return real_pipe2(fds, flags);
  const ScriptEvent* e = expect(Kind::Pipe, -1, "pipe()");
  if (!e) return real_pipe2(fds, flags);
  consume(e);
  if (e->result == 0) {
    int real[2];
    if (sys::raw(SYS_pipe2, reinterpret_cast<long>(real), flags) != 0 || !placePair(e, real, (flags & O_CLOEXEC) != 0))
      return real_pipe2(fds, flags);
    size_t n = 0;
    const int32_t* want = fdsOf(e, &n);
    fds[0] = want[0];
    fds[1] = want[1];
  }
  return finishWith<int>(e);
}

HOOK int pipe(int fds[2]) { return pipe2(fds, 0); }

HOOK int socketpair(int domain, int type, int protocol, int fds[2]) {
  REAL(socketpair);
  if (!replaying()) return real_socketpair(domain, type, protocol, fds);
  const ScriptEvent* e = expect(Kind::Socketpair, -1, "socketpair()");
  if (!e) return real_socketpair(domain, type, protocol, fds);
  consume(e);
  if (e->result == 0) {
    int real[2];
    if (sys::raw(SYS_socketpair, domain, type, protocol, reinterpret_cast<long>(real)) != 0 ||
        !placePair(e, real, (type & SOCK_CLOEXEC) != 0))
      return real_socketpair(domain, type, protocol, fds);
    size_t n = 0;
    const int32_t* want = fdsOf(e, &n);
    fds[0] = want[0];
    fds[1] = want[1];
  }
  return finishWith<int>(e);
}

HOOK int socket(int domain, int type, int protocol) {
  REAL(socket);
  if (!replaying()) return real_socket(domain, type, protocol);
  const ScriptEvent* e = expect(Kind::Socket, -1, "socket()");
  if (!e) return real_socket(domain, type, protocol);
  consume(e);
  if (e->result >= 0) {
    // A real, unconnected socket of the same kind: setsockopt() and fcntl()
    // behave; it never reaches the network (bind/connect are replayed).
    long s = sys::raw(SYS_socket, domain, type, protocol);
    if (s < 0) s = sys::raw(SYS_socket, AF_UNIX, SOCK_STREAM | (type & (SOCK_CLOEXEC | SOCK_NONBLOCK)), 0);
    if (!placeNew(e, s, static_cast<int>(e->result), (type & SOCK_CLOEXEC) != 0))
      return real_socket(domain, type, protocol);
    setSocketNames(static_cast<int>(e->result), &e->names);
  }
  return finishWith<int>(e);
}

// An eventfd the recording made: a real one, made now, stands in at the
// recorded number (poll and epoll take it); what is read from it comes
// from the recording, what is written is compared. Where the recorder could
// not tell it from others (a kernel without eventfd ids), it is the
// program's own, used for real as then.
HOOK int eventfd(unsigned value, int flags) {
  REAL(eventfd);
  if (!replaying() || !eventFdsRecorded()) return real_eventfd(value, flags);
  const ScriptEvent* e = expect(Kind::Open, -1, "eventfd()");
  if (!e) return real_eventfd(value, flags);
  const char* recorded = e->strings.size ? static_cast<const char*>(blob(e->strings)) : "";
  if (std::strcmp(recorded, radar::log::kEventFdOpened) != 0 || e->size != value ||
      e->call_flags != static_cast<uint32_t>(flags)) {
    Report r;
    r << "the program calls eventfd(" << static_cast<uint64_t>(value) << ", flags " << flags
      << ") where the recording has " << text(e);
    diverge(e, r.str());
    return real_eventfd(value, flags);
  }
  consume(e);
  if (e->result >= 0) {
    const long stand_in = sys::raw(SYS_eventfd2, value, flags & ~EFD_CLOEXEC);
    if (!placeNew(e, stand_in, static_cast<int>(e->result), (flags & EFD_CLOEXEC) != 0)) return -1;
    if (!(e->flags & radar::driver::kOnChannel)) setChannelFd(static_cast<int>(e->result), false);
  }
  return finishWith<int>(e);
}

namespace {

// bind, listen, shutdown: answered as recorded, never performed.
int replaySimple(Kind kind, const char* name, int fd) {
  const ScriptEvent* e = expect(kind, fd, What(name, fd).str());
  if (!e) return INT_MIN;
  consume(e);
  setSocketNames(fd, &e->names);
  return finishWith<int>(e);
}

}  // namespace

HOOK int bind(int fd, const struct sockaddr* addr, socklen_t len) {
  REAL(bind);
  if (!replaying() || !isChannelFd(fd)) return real_bind(fd, addr, len);
  const int r = replaySimple(Kind::Bind, "bind", fd);
  // A Unix socket's file is part of what the program sees (it may chmod,
  // stat or unlink it): in the sandbox, where it stays, it is made.
  if (r == 0 && sandboxed() && addr && len > offsetof(sockaddr_un, sun_path) && addr->sa_family == AF_UNIX &&
      reinterpret_cast<const sockaddr_un*>(addr)->sun_path[0] != 0)
    sys::raw(SYS_bind, fd, reinterpret_cast<long>(addr), len);
  return r != INT_MIN ? r : real_bind(fd, addr, len);
}

HOOK int listen(int fd, int backlog) {
  REAL(listen);
  if (!replaying() || !isChannelFd(fd)) return real_listen(fd, backlog);
  const int r = replaySimple(Kind::Listen, "listen", fd);
  return r != INT_MIN ? r : real_listen(fd, backlog);
}

HOOK int shutdown(int fd, int how) {
  REAL(shutdown);
  if (!replaying() || !isChannelFd(fd)) return real_shutdown(fd, how);
  const int r = replaySimple(Kind::Shutdown, "shutdown", fd);
  return r != INT_MIN ? r : real_shutdown(fd, how);
}

HOOK int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  REAL(connect);
  if (!replaying() || !isChannelFd(fd)) return real_connect(fd, addr, len);
  const ScriptEvent* e = expect(Kind::Connect, fd, What("connect", fd).str());
  if (!e) return real_connect(fd, addr, len);
  if (e->call_flags & radar::log::kFlagConnectOutcome) {
    Report r;
    r << "the program calls connect() where the recording has: " << text(e);
    diverge(e, r.str());
    return real_connect(fd, addr, len);
  }
  if (e->address.size && (e->address.size != len || std::memcmp(blob(e->address), addr, len) != 0)) {
    Report r;
    r << "the program connects to another address than the recording: " << text(e);
    diverge(e, r.str());
    return real_connect(fd, addr, len);
  }
  consume(e);
  setSocketNames(fd, &e->names);
  return finishWith<int>(e);
}

namespace {

int replayAccept(int fd, struct sockaddr* addr, socklen_t* len, int flags, bool four) {
  REAL(accept);
  REAL(accept4);
  auto real = [&] { return four ? real_accept4(fd, addr, len, flags) : real_accept(fd, addr, len); };
  if (!replaying() || !isChannelFd(fd)) return real();
  const ScriptEvent* e = expect(Kind::Accept, fd, What("accept", fd).str());
  if (!e) return real();
  consume(e);
  if (e->result >= 0) {
    if (!placeNew(e, socketLike(fd, flags & (SOCK_NONBLOCK | SOCK_CLOEXEC)), static_cast<int>(e->result),
                  (flags & SOCK_CLOEXEC) != 0))
      return real();
    setSocketNames(static_cast<int>(e->result), &e->names);
    fillAddress(e, addr, len);
  }
  return finishWith<int>(e);
}

}  // namespace

HOOK int accept(int fd, struct sockaddr* addr, socklen_t* len) { return replayAccept(fd, addr, len, 0, false); }

HOOK int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  return replayAccept(fd, addr, len, flags, true);
}

namespace {

// The program's own epoll registrations in the re-run, (epoll descriptor,
// descriptor) -> its data: epoll_wait gives back what this process
// registered, as the kernel would, never the recorded run's value (often a
// pointer into another address space). Fixed size, no allocation; a full
// table gives back the recorded value, as before.
struct EpollInterest {
  static constexpr int kSlots = 4096;
  struct Slot {
    int32_t epfd = -1, fd = -1;
    uint64_t data = 0;
  } slots[kSlots];
  sys::FutexLock lock;
  void hold() { lock.lock(); }
  void release() { lock.unlock(); }
  Slot* find(int32_t epfd, int32_t fd, bool make) {
    Slot* free_slot = nullptr;
    for (Slot& s : slots) {
      if (s.epfd == epfd && s.fd == fd) return &s;
      if (!free_slot && s.epfd < 0) free_slot = &s;
    }
    return make ? free_slot : nullptr;
  }
  void set(int32_t epfd, int32_t fd, uint64_t data) {
    hold();
    if (Slot* s = find(epfd, fd, true)) *s = {epfd, fd, data};
    release();
  }
  void forget(int32_t epfd, int32_t fd) {
    hold();
    if (Slot* s = find(epfd, fd, false)) *s = {};
    release();
  }
  // A closed descriptor leaves every interest list, and a closed epoll
  // descriptor takes its list with it.
  void closed(int32_t fd) {
    hold();
    for (Slot& s : slots)
      if (s.epfd == fd || s.fd == fd) s = {};
    release();
  }
  bool get(int32_t epfd, int32_t fd, uint64_t* data) {
    hold();
    const Slot* s = find(epfd, fd, false);
    if (s) *data = s->data;
    release();
    return s != nullptr;
  }
};
EpollInterest g_epoll;

}  // namespace

HOOK int close(int fd) {
  REAL(close);
  if (replaying()) g_epoll.closed(fd);
  forgetStandInForFile(fd);
  if (!replaying() || !isChannelFd(fd)) return real_close(fd);
  // Closed before its turn: another thread's call counted before this
  // close may have got this number in the recording, the close having let
  // it go before its own event was written (the kernel hands a number out
  // again as soon as it is free).
  // (Once closed, the number is no channel of this close's: another
  // thread may make it its own before this close's turn.)
  const ScriptEvent* next = peekNext(Kind::Close, fd);
  const bool early = next && next->result == 0;
  if (early) {
    setChannelFd(fd, false);
    sys::close(fd);
  }
  const ScriptEvent* e = expect(Kind::Close, fd, What("close", fd).str());
  if (!e) return early ? 0 : real_close(fd);
  if (e->result == 0 && !early) sys::close(fd);
  if (!early) setChannelFd(fd, false);
  consume(e);
  return finishWith<int>(e);
}

HOOK int close_range(unsigned first, unsigned last, int flags) {
  REAL(close_range);
  if (replaying() && !(flags & CLOSE_RANGE_CLOEXEC)) {
    for (unsigned fd = first; fd <= last && fd < (1u << 16); ++fd) {
      if (!isChannelFd(static_cast<int>(fd))) continue;
      const ScriptEvent* e = expect(Kind::Close, static_cast<int>(fd), What("close_range", static_cast<int>(fd)).str());
      if (!e) break;
      setChannelFd(static_cast<int>(fd), false);
      consume(e);
    }
  }
  return real_close_range(first, last, flags);
}

HOOK void closefrom(int lowfd) { close_range(static_cast<unsigned>(lowfd < 0 ? 0 : lowfd), ~0u, 0); }

namespace {

// A copy of a channel descriptor at the number the recording has.
int replayDup(const ScriptEvent* e, int oldfd, int cloexec) {
  consume(e);
  if (e->result < 0) return finishWith<int>(e);
  const long copy = sys::fcntl(oldfd, F_DUPFD_CLOEXEC, 512);
  if (!placeNew(e, copy, static_cast<int>(e->result), cloexec != 0)) return -1;
  setSocketNames(static_cast<int>(e->result), socketNames(oldfd));
  return static_cast<int>(e->result);
}

}  // namespace

HOOK int dup(int oldfd) {
  REAL(dup);
  if (!replaying() || !isChannelFd(oldfd)) {
    const int r = real_dup(oldfd);
    setChannelFd(r, false);
    return r;
  }
  const ScriptEvent* e = expect(Kind::Dup, oldfd, What("dup", oldfd).str());
  return e ? replayDup(e, oldfd, 0) : real_dup(oldfd);
}

namespace {

int dupOnto(int oldfd, int newfd, int flags, bool three) {
  REAL(dup2);
  REAL(dup3);
  auto real = [&] { return three ? real_dup3(oldfd, newfd, flags) : real_dup2(oldfd, newfd); };
  if (!replaying()) return real();
  if (oldfd != newfd) forgetStandInForFile(newfd);
  const bool clobbers = oldfd != newfd && isChannelFd(newfd);
  const bool from_channel = isChannelFd(oldfd);
  if (!from_channel && !clobbers) {
    const int r = real();
    if (r >= 0) setChannelFd(r, false);
    return r;
  }
  if (clobbers) {  // the recorder logged the close that dup2 implies
    const ScriptEvent* c = expect(Kind::Close, newfd, What("dup2", newfd).str());
    if (!c) return real();
    consume(c);
  }
  const ScriptEvent* e = expect(Kind::Dup, oldfd, What("dup2", oldfd).str());
  if (!e) return real();
  consume(e);
  if (e->result < 0) return finishWith<int>(e);
  const int r = real();
  if (r >= 0) {
    setChannelFd(r, from_channel);
    setSocketNames(r, socketNames(oldfd));
  }
  return r;
}

int fcntlHook(int (*real)(int, int, ...), int fd, int cmd, void* arg) {
  // The program knows itself by the recorded pid (getpid() answered from a
  // --nondet recording); the kernel, by the real one (nginx's F_SETOWN
  // failed with ESRCH and it gave up a worker).
  const long self = static_cast<long>(sys::getpid());
  const long believed = believedPid();
  if (cmd == F_SETOWN && replaying() && reinterpret_cast<long>(arg) == believed && self != believed)
    return real(fd, cmd, reinterpret_cast<void*>(self));
  if (cmd == F_SETOWN_EX && replaying() && arg) {
    f_owner_ex owner = *static_cast<const f_owner_ex*>(arg);
    if (owner.type != F_OWNER_PGRP && owner.pid == believed && self != believed) {
      owner.pid = static_cast<pid_t>(self);
      return real(fd, cmd, &owner);
    }
  }
  if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC) return real(fd, cmd, arg);
  if (!replaying() || !isChannelFd(fd)) {
    const int r = real(fd, cmd, arg);
    setChannelFd(r, false);
    return r;
  }
  const ScriptEvent* e = expect(Kind::Dup, fd, What("fcntl(F_DUPFD)", fd).str());
  return e ? replayDup(e, fd, cmd == F_DUPFD_CLOEXEC) : real(fd, cmd, arg);
}

}  // namespace

HOOK int dup2(int oldfd, int newfd) { return dupOnto(oldfd, newfd, 0, false); }
HOOK int dup3(int oldfd, int newfd, int flags) { return dupOnto(oldfd, newfd, flags, true); }

HOOK int fcntl(int fd, int cmd, ...) {
  REAL(fcntl);
  OPTIONAL_ARG(cmd, arg);
  return fcntlHook(real_fcntl, fd, cmd, arg);
}

HOOK int fcntl64(int fd, int cmd, ...) {
  REAL(fcntl64);
  OPTIONAL_ARG(cmd, arg);
  return fcntlHook(real_fcntl64, fd, cmd, arg);
}

// open() and friends are real (files are the program's own); a FIFO or a
// terminal opened by path becomes a channel, as it was for the recorder.
namespace {

// A FIFO opened to wait for its other end: that process does not run in
// the re-run, and the real open would wait for it forever. What the
// program reads and writes there comes from the recording, so a pipe end
// stands in. -1: not such an open; the real one is made.
long fifoStandIn(int dirfd, const char* path, int flags) {
  if (!path || (flags & (O_NONBLOCK | O_PATH))) return -1;  // those never wait
  struct stat st {};
  if (sys::raw(SYS_newfstatat, dirfd, reinterpret_cast<long>(path), reinterpret_cast<long>(&st), 0) != 0 ||
      !S_ISFIFO(st.st_mode))
    return -1;
  int pair[2];
  if (sys::raw(SYS_pipe2, reinterpret_cast<long>(pair), 0) != 0) return -1;
  const bool write = (flags & O_ACCMODE) == O_WRONLY;
  sys::close(write ? pair[0] : pair[1]);
  return write ? pair[1] : pair[0];
}

// The open of a FIFO or a terminal, recorded (Kind::Open): the channel at
// the recorded number, a stand-in for a FIFO. A recording without the event
// (made before opens were recorded): a FIFO's stand-in at the number the
// open would have returned.
template <class Open>
int openFifoOrReal(int dirfd, const char* path, int flags, Open&& real) {
  if (!replaying()) return real();
  const long fifo = fifoStandIn(dirfd, path, flags);
  const long fd = fifo >= 0 ? fifo : real();
  if (fd < 0) return static_cast<int>(fd);
  if (const ScriptEvent* e = isChannelKindOfFile(static_cast<int>(fd)) ? expectIf(Kind::Open, -1) : nullptr) {
    consume(e);
    if (e->result < 0) {
      sys::close(static_cast<int>(fd));
      return finishWith<int>(e);
    }
    // Diverged (the number is taken): the program goes on alone, and a FIFO's
    // real open would still wait forever.
    if (!placeNew(e, fd, static_cast<int>(e->result), (flags & O_CLOEXEC) != 0))
      return fifo >= 0 ? static_cast<int>(fifoStandIn(dirfd, path, flags)) : real();
    return finishWith<int>(e);
  }
  if (fifo < 0) return static_cast<int>(fd);
  // The lowest free number, as the open would have had.
  const long slot = sys::openat(AT_FDCWD, "/dev/null", O_RDONLY, 0);
  if (slot >= 0 && slot < fifo && sys::raw(SYS_dup3, fifo, slot, flags & O_CLOEXEC) >= 0) {
    sys::close(static_cast<int>(fifo));
    return static_cast<int>(slot);
  }
  if (slot >= 0) sys::close(static_cast<int>(slot));
  return static_cast<int>(fifo);
}

int opened(int fd, const char* path, int flags) {
  if (!replaying()) return fd;
  if (fd >= 0) setChannelFd(fd, isChannelKindOfFile(fd));
  // A file it made itself now (O_EXCL, O_TRUNC) holds what the re-run wrote.
  const bool made = fd >= 0 && (flags & O_CREAT) && (flags & (O_EXCL | O_TRUNC));
  if ((flags & O_ACCMODE) != O_WRONLY && !made) noteFileOpened(path, fd >= 0 ? 0 : errno);
  return fd;
}

}  // namespace

HOOK int open(const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(open);
  return opened(openFifoOrReal(AT_FDCWD, path, flags, [&] { return real_open(path, flags, mode); }), path, flags);
}

HOOK int open64(const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(open64);
  return opened(openFifoOrReal(AT_FDCWD, path, flags, [&] { return real_open64(path, flags, mode); }), path, flags);
}

HOOK int openat(int dirfd, const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(openat);
  return opened(openFifoOrReal(dirfd, path, flags, [&] { return real_openat(dirfd, path, flags, mode); }), path, flags);
}

HOOK int openat64(int dirfd, const char* path, int flags, ...) {
  OPEN_MODE(flags, mode);
  REAL(openat64);
  return opened(openFifoOrReal(dirfd, path, flags, [&] { return real_openat64(dirfd, path, flags, mode); }), path,
                flags);
}

HOOK int __open_2(const char* path, int flags) {
  REAL(__open_2);
  return opened(openFifoOrReal(AT_FDCWD, path, flags, [&] { return real___open_2(path, flags); }), path, flags);
}

HOOK int creat(const char* path, mode_t mode) {
  REAL(creat);
  return opened(real_creat(path, mode), path, O_WRONLY);
}

// stdio opens files without open() (glibc calls the kernel itself): noted
// here, so that a divergence can name the files the re-run read.
HOOK FILE* fopen(const char* path, const char* mode) {
  REAL(fopen);
  FILE* f = real_fopen(path, mode);
  if (replaying() && mode && mode[0] == 'r') noteFileOpened(path, f ? 0 : errno);
  return f;
}

HOOK FILE* fopen64(const char* path, const char* mode) {
  REAL(fopen64);
  FILE* f = real_fopen64(path, mode);
  if (replaying() && mode && mode[0] == 'r') noteFileOpened(path, f ? 0 : errno);
  return f;
}

// ==== message queues: answered from the recording ===================================
//
// No queue is opened or made: its messages come from the recording, and
// /dev/null stands in for a POSIX queue's descriptor at the recorded
// number. A recording made before queues were recorded has none of these
// events: the real calls are made then (in the sandbox's own IPC namespace).
namespace {

// The recorded mq_open or mq_unlink of `name`, or null (the real call is
// made; a different name is a divergence).
const ScriptEvent* queueEvent(Kind kind, const char* call, const char* name) {
  if (!replaying() || !queuesRecorded()) return nullptr;
  What what(call);
  const ScriptEvent* e = expect(kind, -1, what.str());
  if (!e) return nullptr;
  const char* recorded = e->strings.size ? static_cast<const char*>(blob(e->strings)) : "";
  if (std::strcmp(recorded, name ? name : "") != 0) {
    Report r;
    r << "the program calls " << call << "(\"" << (name ? name : "") << "\") where the recording has " << text(e);
    diverge(e, r.str());
    return nullptr;
  }
  consume(e);
  return e;
}

mqd_t replayQueueOpen(const ScriptEvent* e) {
  if (e->result < 0) return finishWith<mqd_t>(e);
  const long stand_in = sys::openat(AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC, 0);
  if (!placeNew(e, stand_in, static_cast<int>(e->result), true)) return -1;  // the kernel's are close-on-exec
  return finishWith<mqd_t>(e);
}

template <class Real>
int replayQueueSend(mqd_t q, const char* msg, size_t len, unsigned priority, Real&& real) {
  if (!replaying() || !isChannelFd(q)) return real();
  const struct iovec iov { const_cast<char*>(msg), len };
  ssize_t result = 0;
  if (!replaySend(Kind::MqSend, "mq_send", q, &iov, 1, &result, &priority)) return real();
  return result < 0 ? -1 : 0;  // recorded as the bytes sent
}

template <class Real>
ssize_t replayQueueReceive(mqd_t q, char* msg, size_t len, unsigned* priority, Real&& real) {
  if (!replaying() || !isChannelFd(q)) return real();
  const struct iovec iov { msg, len };
  ssize_t result = 0;
  if (!replayReceive(Kind::MqReceive, "mq_receive", q, &iov, 1, &result, priority)) return real();
  return result;
}

template <class Real>
int replayQueueAttributes(mqd_t q, const char* call, struct mq_attr* out, Real&& real) {
  if (!replaying() || !isChannelFd(q)) return real();
  const ScriptEvent* e = expect(Kind::MqAttributes, q, What(call, q).str());
  if (!e) return real();
  if (e->result == 0 && out) std::memcpy(out, blob(e->data), e->data.size < sizeof *out ? e->data.size : sizeof *out);
  consume(e);
  return finishWith<int>(e);
}

}  // namespace

HOOK mqd_t mq_open(const char* name, int flags, ...) {
  REAL(mq_open);
  mode_t mode = 0;
  struct mq_attr* attr = nullptr;
  if (flags & O_CREAT) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    attr = va_arg(ap, struct mq_attr*);
    va_end(ap);
  }
  if (const ScriptEvent* e = queueEvent(Kind::Open, "mq_open", name)) return replayQueueOpen(e);
  return real_mq_open(name, flags, mode, attr);
}

HOOK mqd_t __mq_open_2(const char* name, int flags) {
  REAL(__mq_open_2);
  if (const ScriptEvent* e = queueEvent(Kind::Open, "mq_open", name)) return replayQueueOpen(e);
  return real___mq_open_2(name, flags);
}

HOOK int mq_unlink(const char* name) {
  REAL(mq_unlink);
  if (const ScriptEvent* e = queueEvent(Kind::MqUnlink, "mq_unlink", name)) return finishWith<int>(e);
  return real_mq_unlink(name);
}

HOOK int mq_close(mqd_t q) { return close(q); }

HOOK int mq_send(mqd_t q, const char* msg, size_t len, unsigned prio) {
  REAL(mq_send);
  return replayQueueSend(q, msg, len, prio, [&] { return real_mq_send(q, msg, len, prio); });
}

HOOK int mq_timedsend(mqd_t q, const char* msg, size_t len, unsigned prio, const struct timespec* timeout) {
  REAL(mq_timedsend);
  return replayQueueSend(q, msg, len, prio, [&] { return real_mq_timedsend(q, msg, len, prio, timeout); });
}

HOOK ssize_t mq_receive(mqd_t q, char* msg, size_t len, unsigned* prio) {
  REAL(mq_receive);
  return replayQueueReceive(q, msg, len, prio, [&] { return real_mq_receive(q, msg, len, prio); });
}

HOOK ssize_t mq_timedreceive(mqd_t q, char* msg, size_t len, unsigned* prio, const struct timespec* timeout) {
  REAL(mq_timedreceive);
  return replayQueueReceive(q, msg, len, prio, [&] { return real_mq_timedreceive(q, msg, len, prio, timeout); });
}

HOOK int mq_getattr(mqd_t q, struct mq_attr* attr) {
  REAL(mq_getattr);
  return replayQueueAttributes(q, "mq_getattr", attr, [&] { return real_mq_getattr(q, attr); });
}

HOOK int mq_setattr(mqd_t q, const struct mq_attr* attr, struct mq_attr* old) {
  REAL(mq_setattr);
  return replayQueueAttributes(q, "mq_setattr", old, [&] { return real_mq_setattr(q, attr, old); });
}

// The recorded outcome; a notification by signal arrives where the
// recording has its SIGNAL.
HOOK int mq_notify(mqd_t q, const struct sigevent* how) {
  REAL(mq_notify);
  if (!replaying() || !isChannelFd(q)) return real_mq_notify(q, how);
  const ScriptEvent* e = expect(Kind::MqNotify, q, What("mq_notify", q).str());
  if (!e) return real_mq_notify(q, how);
  consume(e);
  return finishWith<int>(e);
}

// System V queues: the recorded id for msgget, each message received the
// recorded one with its type, each sent compared with the recorded one.
namespace {

const ScriptEvent* sysvEvent(Kind kind, const char* call) {
  if (!replaying() || !queuesRecorded()) return nullptr;
  What what(call);
  return expect(kind, -1, what.str());
}

}  // namespace

HOOK int msgget(key_t key, int flags) {
  REAL(msgget);
  const ScriptEvent* e = sysvEvent(Kind::Msgget, "msgget");
  if (!e) return real_msgget(key, flags);
  consume(e);
  return finishWith<int>(e);
}

HOOK int msgsnd(int id, const void* msg, size_t size, int flags) {
  REAL(msgsnd);
  if (!replaying() || !queuesRecorded()) return real_msgsnd(id, msg, size, flags);
  long type = 0;
  std::memcpy(&type, msg, sizeof type);
  const auto tag = static_cast<unsigned>(type);
  const struct iovec text { const_cast<char*>(static_cast<const char*>(msg)) + sizeof(long), size };
  ssize_t result = 0;
  if (!replaySend(Kind::Msgsnd, "msgsnd", -1, &text, 1, &result, &tag, "type"))
    return real_msgsnd(id, msg, size, flags);
  return result < 0 ? -1 : 0;  // recorded as the bytes sent
}

HOOK ssize_t msgrcv(int id, void* msg, size_t size, long type, int flags) {
  REAL(msgrcv);
  if (!replaying() || !queuesRecorded()) return real_msgrcv(id, msg, size, type, flags);
  const struct iovec text { static_cast<char*>(msg) + sizeof(long), size };
  ssize_t result = 0;
  unsigned got = 0;
  if (!replayReceive(Kind::Msgrcv, "msgrcv", -1, &text, 1, &result, &got))
    return real_msgrcv(id, msg, size, type, flags);
  if (result >= 0) {
    const long recorded = static_cast<int32_t>(got);
    std::memcpy(msg, &recorded, sizeof recorded);
  }
  return result;
}

HOOK int msgctl(int id, int cmd, struct msqid_ds* buf) {
  REAL(msgctl);
  const ScriptEvent* e = sysvEvent(Kind::Msgctl, "msgctl");
  if (!e) return real_msgctl(id, cmd, buf);
  if (e->call_flags != static_cast<uint32_t>(cmd)) {  // what it fills differs in size
    Report r;
    r << "the program calls msgctl(" << static_cast<int64_t>(id) << ", command " << cmd << ") where the recording has "
      << text(e);
    diverge(e, r.str());
    return real_msgctl(id, cmd, buf);
  }
  if (e->result >= 0 && buf && e->data.size) std::memcpy(buf, blob(e->data), e->data.size);
  consume(e);
  return finishWith<int>(e);
}

// ==== readiness: the recorded answer, at once ==========================================

namespace {

const ScriptReady* readyOf(const ScriptEvent* e, size_t* n) {
  *n = e->ready.size / sizeof(ScriptReady);
  return static_cast<const ScriptReady*>(blob(e->ready));
}

int replayPoll(struct pollfd* fds, nfds_t n, bool* replayed) {
  *replayed = false;
  const ScriptEvent* e = expect(Kind::Poll, -1, "poll()");
  if (!e) return 0;
  if (e->size != n) {
    Report r;
    r << "the program polls " << static_cast<uint64_t>(n) << " descriptors; the recording has " << e->size << ": "
      << text(e);
    diverge(e, r.str());
    return 0;
  }
  for (nfds_t i = 0; i < n; ++i) fds[i].revents = 0;
  size_t count = 0;
  const ScriptReady* ready = readyOf(e, &count);
  for (size_t k = 0; k < count; ++k)
    for (nfds_t i = 0; i < n; ++i)
      if (fds[i].fd == ready[k].fd) fds[i].revents = static_cast<short>(ready[k].events);
  consume(e);
  *replayed = true;
  return finishWith<int>(e);
}

int replaySelect(int nfds, fd_set* r, fd_set* w, fd_set* x, bool* replayed) {
  *replayed = false;
  const ScriptEvent* e = expect(Kind::Select, -1, "select()");
  if (!e) return 0;
  for (int fd = 0; fd < nfds && fd < FD_SETSIZE; ++fd) {
    if (r) FD_CLR(fd, r);
    if (w) FD_CLR(fd, w);
    if (x) FD_CLR(fd, x);
  }
  size_t count = 0;
  const ScriptReady* ready = readyOf(e, &count);
  for (size_t k = 0; k < count; ++k) {
    const int fd = ready[k].fd;
    if (fd < 0 || fd >= FD_SETSIZE) continue;
    if (r && (ready[k].events & 1)) FD_SET(fd, r);
    if (w && (ready[k].events & 2)) FD_SET(fd, w);
    if (x && (ready[k].events & 4)) FD_SET(fd, x);
  }
  consume(e);
  *replayed = true;
  return finishWith<int>(e);
}

int replayEpollWait(int epfd, struct epoll_event* events, int max, bool* replayed) {
  *replayed = false;
  const ScriptEvent* e = expect(Kind::EpollWait, epfd, What("epoll_wait", epfd).str());
  if (!e) return 0;
  size_t count = 0;
  const ScriptReady* ready = readyOf(e, &count);
  if (static_cast<int64_t>(count) > max) {
    Report r;
    r << "the program's epoll_wait takes " << max << " events; the recording has " << static_cast<uint64_t>(count)
      << ": " << text(e);
    diverge(e, r.str());
    return 0;
  }
  for (size_t k = 0; k < count; ++k) {
    events[k].events = ready[k].events;
    uint64_t own = 0;
    events[k].data.u64 = ready[k].fd >= 0 && g_epoll.get(epfd, ready[k].fd, &own) ? own : ready[k].data;
  }
  consume(e);
  *replayed = true;
  return finishWith<int>(e);
}

}  // namespace

HOOK int poll(struct pollfd* fds, nfds_t n, int timeout) {
  REAL(poll);
  if (!replaying()) return real_poll(fds, n, timeout);
  bool replayed;
  const int r = replayPoll(fds, n, &replayed);
  return replayed ? r : real_poll(fds, n, timeout);
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
  if (!replaying()) return real_ppoll(fds, n, timeout, mask);
  bool replayed;
  const int r = replayPoll(fds, n, &replayed);
  return replayed ? r : real_ppoll(fds, n, timeout, mask);
}

HOOK int select(int nfds, fd_set* r, fd_set* w, fd_set* x, struct timeval* tv) {
  REAL(select);
  if (!replaying()) return real_select(nfds, r, w, x, tv);
  bool replayed;
  const int ret = replaySelect(nfds, r, w, x, &replayed);
  return replayed ? ret : real_select(nfds, r, w, x, tv);
}

HOOK int pselect(int nfds, fd_set* r, fd_set* w, fd_set* x, const struct timespec* ts, const sigset_t* mask) {
  REAL(pselect);
  if (!replaying()) return real_pselect(nfds, r, w, x, ts, mask);
  bool replayed;
  const int ret = replaySelect(nfds, r, w, x, &replayed);
  return replayed ? ret : real_pselect(nfds, r, w, x, ts, mask);
}

HOOK int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout) {
  REAL(epoll_wait);
  if (!replaying()) return real_epoll_wait(epfd, events, max, timeout);
  bool replayed;
  const int r = replayEpollWait(epfd, events, max, &replayed);
  return replayed ? r : real_epoll_wait(epfd, events, max, timeout);
}

HOOK int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout, const sigset_t* mask) {
  REAL(epoll_pwait);
  if (!replaying()) return real_epoll_pwait(epfd, events, max, timeout, mask);
  bool replayed;
  const int r = replayEpollWait(epfd, events, max, &replayed);
  return replayed ? r : real_epoll_pwait(epfd, events, max, timeout, mask);
}

// The interest list is the program's business; its answers come from the
// recording, so the call is answered as recorded without being made (what
// the program registers is kept, for epoll_wait to give back).
HOOK int epoll_ctl(int epfd, int op, int fd, struct epoll_event* event) {
  REAL(epoll_ctl);
  if (!replaying()) return real_epoll_ctl(epfd, op, fd, event);
  const ScriptEvent* e = expect(Kind::EpollCtl, epfd, What("epoll_ctl", epfd).str());
  if (!e) return real_epoll_ctl(epfd, op, fd, event);
  // Kept before the call is replayed: another thread's epoll_wait may be
  // replayed while this one waits for its turn in consume().
  if (e->result == 0) {
    if (op == EPOLL_CTL_DEL)
      g_epoll.forget(epfd, fd);
    else if (event)
      g_epoll.set(epfd, fd, event->data.u64);
  }
  consume(e);
  return finishWith<int>(e);
}

// ==== processes: never started, answered as recorded ======================================

extern "C" int __register_atfork(void (*prepare)(), void (*parent)(), void (*child)(), void* dso);

namespace {

// The handlers libraries gave pthread_atfork (libuv's makes its signal
// pipe anew in a child): a fork answered from the recording runs them as
// glibc's fork does, so that what they did in the recorded process, and
// the calls they made, happen in the re-run too.
struct ForkHandlers {
  void (*prepare)();
  void (*parent)();
  void (*child)();
};
constexpr size_t kMaxForkHandlers = 256;
ForkHandlers g_fork_handlers[kMaxForkHandlers];
size_t g_fork_handler_count = 0;  // written under the lock, read by forks
sys::FutexLock g_fork_handlers_lock;

enum class ForkSide { kPrepare, kParent, kChild };

// As glibc: prepare handlers in the reverse order of their registration,
// the others in that order. A library unloaded since is skipped (dlclose
// takes its handlers off glibc's list).
void runForkHandlers(ForkSide side) {
  const size_t count = __atomic_load_n(&g_fork_handler_count, __ATOMIC_ACQUIRE);
  for (size_t k = 0; k < count; ++k) {
    const ForkHandlers& h = g_fork_handlers[side == ForkSide::kPrepare ? count - 1 - k : k];
    void (*run)() = side == ForkSide::kPrepare ? h.prepare : side == ForkSide::kParent ? h.parent : h.child;
    Dl_info where;
    if (run && dladdr(reinterpret_cast<void*>(run), &where)) run();
  }
}

bool anyParentHandler() {
  const size_t count = __atomic_load_n(&g_fork_handler_count, __ATOMIC_ACQUIRE);
  for (size_t k = 0; k < count; ++k)
    if (g_fork_handlers[k].parent) return true;
  return false;
}

// The re-run left the recording after the prepare handlers ran: a real
// fork that does not run them again (_Fork), the rest run here.
pid_t forkAfterHandlers(bool parent_handlers_pending) {
  const pid_t pid = _Fork();
  if (pid == 0)
    runForkHandlers(ForkSide::kChild);
  else if (parent_handlers_pending)
    runForkHandlers(ForkSide::kParent);
  return pid;
}

}  // namespace

// pthread_atfork() (libc_nonshared.a) registers through this.
HOOK int __register_atfork(void (*prepare)(), void (*parent)(), void (*child)(), void* dso) {
  REAL(__register_atfork);
  const int r = real___register_atfork ? real___register_atfork(prepare, parent, child, dso) : ENOMEM;
  if (r != 0) return r;
  g_fork_handlers_lock.lock();
  if (g_fork_handler_count < kMaxForkHandlers) {
    g_fork_handlers[g_fork_handler_count] = {prepare, parent, child};
    __atomic_store_n(&g_fork_handler_count, g_fork_handler_count + 1, __ATOMIC_RELEASE);
  }
  g_fork_handlers_lock.unlock();
  return r;
}

// glibc's fork runs the prepare handlers, then the parent's or the child's:
// the parent's log has the first two's calls before the fork's, the child's
// log the child handlers' calls first.
HOOK pid_t fork(void) {
  REAL(fork);
  if (!replaying()) return real_fork();
  // With no fork ahead the call leaves the recording below, and glibc's
  // fork runs the handlers, once.
  const ScriptEvent* ahead = nextForkOfThisThread(Kind::Fork);
  const bool to_child = ahead && (ahead->flags & kBranchToChild);
  if (ahead) {
    runForkHandlers(ForkSide::kPrepare);
    if (!to_child)
      runForkHandlers(ForkSide::kParent);
    else if (anyParentHandler())
      skipToFork(ahead);  // the parent handlers' calls: the child never made them
  }
  const ScriptEvent* e = expect(Kind::Fork, -1, "fork()");
  if (!e) return ahead ? forkAfterHandlers(to_child) : real_fork();
  consume(e);
  if (e->flags & kBranchToChild) {
    branchToChild(e);
    runForkHandlers(ForkSide::kChild);
    return 0;
  }
  return finishWith<pid_t>(e);
}

// No real vfork here: nothing is started while replaying, and afterwards a
// fork() does what vfork() promises.
HOOK pid_t vfork(void) {
  if (!replaying()) return fork();
  const ScriptEvent* e = expect(Kind::Vfork, -1, "vfork()");
  if (!e) return fork();
  consume(e);
  if (e->flags & kBranchToChild) {
    branchToChild(e);
    return 0;
  }
  // The recorder logs a second VFORK when the parent resumes: the child's pid.
  pid_t child = e->peer_pid;
  if (const ScriptEvent* resumed = expectIf(Kind::Vfork, -1)) {
    consume(resumed);
    child = resumed->peer_pid;
  }
  return child;
}

namespace {

// The exec family: a failed exec fails as it did; a successful one ends
// this image's replay (the new image has its own log).
bool replayExec(const char* path) {
  if (!replaying()) return false;
  Report what;
  what << "execve(" << (path ? path : "") << ")";
  const ScriptEvent* e = expect(Kind::Exec, -1, what.str());
  if (!e) return false;
  consume(e);
  if (const ScriptEvent* failed = expectIf(Kind::ExecFailed, -1)) {
    consume(failed);
    errno = failed->error;
    return true;
  }
  imageExecs(e);
  return true;
}

// The environment a real exec or spawn passes on (childEnvironmentEntry):
// on the stack when small, else mapped.
class ChildEnvironment {
 public:
  explicit ChildEnvironment(char* const* envp) : size_(radar::inject::environmentSize(envp)), array_(size_ + 1, true) {
    if (!envp) return;
    if (array_.capacity() < size_ + 1) {
      passed_ = envp;  // no room: as the program gave it
      return;
    }
    char** env = array_.data();
    size_t k = 0;
    for (size_t i = 0; i < size_; ++i)
      if (const char* entry = childEnvironmentEntry(envp[i])) env[k++] = const_cast<char*>(entry);
    env[k] = nullptr;
    passed_ = env;
  }
  char* const* get() const { return passed_; }

 private:
  const size_t size_;
  radar::inject::EnvArray array_;
  char* const* passed_ = nullptr;
};

}  // namespace

HOOK int execve(const char* path, char* const argv[], char* const envp[]) {
  REAL(execve);
  if (replayExec(path)) return -1;
  const ChildEnvironment env(envp);
  return real_execve(path, argv, env.get());
}

HOOK int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }

HOOK int execvpe(const char* file, char* const argv[], char* const envp[]) {
  REAL(execvpe);
  if (replayExec(file)) return -1;
  const ChildEnvironment env(envp);
  return real_execvpe(file, argv, env.get());
}

HOOK int execvp(const char* file, char* const argv[]) { return execvpe(file, argv, environ); }

HOOK int fexecve(int fd, char* const argv[], char* const envp[]) {
  REAL(fexecve);
  if (replayExec("(a descriptor)")) return -1;
  const ChildEnvironment env(envp);
  return real_fexecve(fd, argv, env.get());
}

// execl(), execlp(), execle(): inject/shared_hooks.cc, through execve() and execvpe().

namespace {

int replaySpawn(pid_t* pid, bool* replayed) {
  *replayed = false;
  const ScriptEvent* e = expect(Kind::Spawn, -1, "posix_spawn()");
  if (!e) return 0;
  consume(e);
  if (pid && e->error == 0) *pid = e->peer_pid;
  *replayed = true;
  return e->error;  // posix_spawn returns the error number
}

}  // namespace

HOOK int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                     const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  REAL(posix_spawn);
  bool replayed = false;
  if (replaying()) {
    const int r = replaySpawn(pid, &replayed);
    if (replayed) return r;
  }
  const ChildEnvironment env(envp);
  return real_posix_spawn(pid, path, actions, attr, argv, env.get());
}

HOOK int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                      const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  REAL(posix_spawnp);
  bool replayed = false;
  if (replaying()) {
    const int r = replaySpawn(pid, &replayed);
    if (replayed) return r;
  }
  const ChildEnvironment env(envp);
  return real_posix_spawnp(pid, file, actions, attr, argv, env.get());
}

HOOK int system(const char* command) {
  REAL(system);
  if (!replaying() || !command) return real_system(command);
  const ScriptEvent* e = expect(Kind::System, -1, "system()");
  if (!e) return real_system(command);
  consume(e);
  return e->status;
}

// popen(): no child; the stream reads or writes a stand-in pipe end at the
// recorded descriptor, and what goes through it is replayed like any
// channel. pclose() returns the recorded status.
namespace {

FILE* g_popened[64];  // streams popen() returned while replaying

}  // namespace

HOOK FILE* popen(const char* command, const char* mode) {
  REAL(popen);
  if (!replaying() || !mode) return real_popen(command, mode);
  const ScriptEvent* e = expect(Kind::Popen, -1, "popen()");
  if (!e) return real_popen(command, mode);
  consume(e);
  if (e->result < 0) {
    errno = e->error;
    return nullptr;
  }
  const int fd = static_cast<int>(e->result);
  int pair[2];
  if (sys::raw(SYS_pipe2, reinterpret_cast<long>(pair), O_CLOEXEC) != 0) {
    diverge(e, "no pipe could stand in for the popen() stream");
    return real_popen(command, mode);
  }
  const bool reads = mode[0] == 'r';
  sys::close(reads ? pair[1] : pair[0]);
  if (!placeNew(e, reads ? pair[0] : pair[1], fd, std::strchr(mode, 'e') != nullptr)) return nullptr;
  FILE* f = fdopen(fd, reads ? "r" : "w");
  for (auto& slot : g_popened)
    if (!slot) {
      slot = f;
      break;
    }
  return f;
}

HOOK int pclose(FILE* f) {
  REAL(pclose);
  FILE** slot = nullptr;
  for (auto& s : g_popened)
    if (f && s == f) slot = &s;
  if (!slot) return real_pclose(f);
  *slot = nullptr;
  // As the recorder logs it: the stream's close, then the wait.
  fflush(f);
  const int fd = fileno(f);
  if (const ScriptEvent* c = expectIf(Kind::Close, fd)) consume(c);
  setChannelFd(fd, false);
  const ScriptEvent* w = expect(Kind::Wait, -1, "pclose()");
  fclose(f);
  if (!w) return -1;
  consume(w);
  if (w->result < 0) errno = w->error;
  return w->status;
}

namespace {

pid_t replayWait(int* status, bool* replayed) {
  *replayed = false;
  const ScriptEvent* e = expect(Kind::Wait, -1, "waitpid()");
  if (!e) return 0;
  consume(e);
  if (status && e->result > 0) *status = e->status;
  *replayed = true;
  return finishWith<pid_t>(e);
}

}  // namespace

HOOK pid_t waitpid(pid_t pid, int* status, int options) {
  REAL(waitpid);
  if (!replaying()) return real_waitpid(pid, status, options);
  bool replayed;
  const pid_t r = replayWait(status, &replayed);
  return replayed ? r : real_waitpid(pid, status, options);
}

HOOK pid_t wait(int* status) { return waitpid(-1, status, 0); }

HOOK pid_t wait4(pid_t pid, int* status, int options, struct rusage* usage) {
  REAL(wait4);
  if (!replaying()) return real_wait4(pid, status, options, usage);
  bool replayed;
  const pid_t r = replayWait(status, &replayed);
  if (replayed && usage) std::memset(usage, 0, sizeof(*usage));
  return replayed ? r : real_wait4(pid, status, options, usage);
}

HOOK pid_t wait3(int* status, int options, struct rusage* usage) { return wait4(-1, status, options, usage); }

HOOK int waitid(idtype_t type, id_t id, siginfo_t* info, int options) {
  REAL(waitid);
  if (!replaying() || !info) return real_waitid(type, id, info, options);
  const ScriptEvent* e = expect(Kind::Wait, -1, "waitid()");
  if (!e) return real_waitid(type, id, info, options);
  consume(e);
  std::memset(info, 0, sizeof(*info));
  if (e->result == 0 && e->peer_pid) {
    const int s = e->status;
    info->si_signo = SIGCHLD;
    info->si_pid = e->peer_pid;
    if (WIFEXITED(s)) {
      info->si_code = CLD_EXITED;
      info->si_status = WEXITSTATUS(s);
    } else if (WIFSIGNALED(s)) {
      info->si_code = WCOREDUMP(s) ? CLD_DUMPED : CLD_KILLED;
      info->si_status = WTERMSIG(s);
    } else if (WIFSTOPPED(s)) {
      info->si_code = CLD_STOPPED;
      info->si_status = WSTOPSIG(s);
    } else {
      info->si_code = CLD_CONTINUED;
    }
  }
  return finishWith<int>(e);
}

// Signals to other processes are never sent: the recorded pids are not
// those processes any more. A signal the process sent itself (to its pid,
// or to its process group, which in the re-run is itself alone) is sent to
// it for real: a program that blocks it and waits for it with sigwait()
// must get it, and one that leaves it to its default action ends as it
// did. A handler still runs only where the recording says (the trampoline
// drops the real delivery). Whether it was to itself is the recording's
// word (the target it recorded): a pid the re-run hands the program (a
// recorded child's, from fork()) may be any process now, this one too.
//
// `pid` is the target as kill() names it; killpg() and sigqueue() are
// replayed the same way (their recorded target is named so too), and
// `toSelf` sends the signal to this process as the call would have.
namespace {
template <class Real, class ToSelf>
int replayedKill(pid_t pid, int sig, const char* what, Real&& real, ToSelf&& toSelf) {
  const ScriptEvent* e = expect(Kind::Kill, -1, what);
  if (!e) return real();
  const pid_t target = e->peer_pid;
  const bool to_self = target == recordedPid() || target == believedPid() || target == 0 ||
                       (target < -1 && pid < -1 && -pid == static_cast<pid_t>(sys::raw(SYS_getpgid, 0)));
  consume(e);
  if (to_self && e->result == 0 && sig > 0) {
    toSelf();
    // Its handler ran before kill() returned (the recorder logs such a
    // kill before the call): the recorded delivery is due now.
    deliverDueSignals();
  }
  return finishWith<int>(e);
}
}  // namespace

HOOK int kill(pid_t pid, int sig) {
  REAL(kill);
  if (!replaying()) return real_kill(pid, sig);
  return replayedKill(
      pid, sig, "kill()", [&] { return real_kill(pid, sig); }, [&] { sys::raw(SYS_kill, sys::getpid(), sig); });
}

HOOK int killpg(pid_t pgrp, int sig) {
  REAL(killpg);
  if (!replaying()) return real_killpg(pgrp, sig);
  return replayedKill(
      pgrp > 0 ? -pgrp : pgrp, sig, "killpg()", [&] { return real_killpg(pgrp, sig); },
      [&] { sys::raw(SYS_kill, sys::getpid(), sig); });
}

HOOK int sigqueue(pid_t pid, int sig, const union sigval value) {
  REAL(sigqueue);
  if (!replaying()) return real_sigqueue(pid, sig, value);
  return replayedKill(
      pid, sig, "sigqueue()", [&] { return real_sigqueue(pid, sig, value); },
      [&] { real_sigqueue(static_cast<pid_t>(sys::getpid()), sig, value); });
}

// A wait for a signal: in the re-run the processes that sent them are not
// running, so the recorded signals that ended the wait are delivered here
// (nginx's master waits in sigsuspend; the re-run waited for ever).
HOOK int sigsuspend(const sigset_t* mask) {
  REAL(sigsuspend);
  if (!waitForRecordedSignal("sigsuspend()")) return real_sigsuspend(mask);
  errno = EINTR;
  return -1;
}

HOOK int pause(void) {
  REAL(pause);
  if (!waitForRecordedSignal("pause()")) return real_pause();
  errno = EINTR;
  return -1;
}

// A signal taken by a wait for it: the one recorded, with its siginfo. One
// the process really has pending (it sent it to itself: kill() did that
// for real) is taken too, as the recorded call took it.
namespace {

bool replaySignalWait(const char* what, siginfo_t* info, int* result) {
  if (!replaying()) return false;
  const ScriptEvent* e = expect(Kind::SignalWait, -1, what);
  if (!e) return false;
  consume(e);
  if (e->result <= 0) {
    *result = finishWith<int>(e);
    return true;
  }
  const int sig = e->signal > 0 && e->signal < _NSIG ? e->signal : static_cast<int>(e->result);
  if (info) {
    std::memset(info, 0, sizeof(*info));
    if (e->data.size == sizeof(*info)) std::memcpy(info, blob(e->data), sizeof(*info));
    info->si_signo = sig;
  }
  sigset_t pending, only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  struct timespec now = {0, 0};
  if (sys::raw(SYS_rt_sigpending, reinterpret_cast<long>(&pending), _NSIG / 8) == 0 && sigismember(&pending, sig) == 1)
    sys::raw(SYS_rt_sigtimedwait, reinterpret_cast<long>(&only), 0, reinterpret_cast<long>(&now), _NSIG / 8);
  *result = sig;
  return true;
}

}  // namespace

HOOK int sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  REAL(sigtimedwait);
  int r;
  if (replaySignalWait("sigtimedwait()", info, &r)) return r;
  return real_sigtimedwait(set, info, timeout);
}

HOOK int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  REAL(sigwaitinfo);
  int r;
  if (replaySignalWait("sigwaitinfo()", info, &r)) return r;
  return real_sigwaitinfo(set, info);
}

HOOK int sigwait(const sigset_t* set, int* sig) {
  REAL(sigwait);
  int r;
  if (!replaySignalWait("sigwait()", nullptr, &r)) return real_sigwait(set, sig);
  if (r < 0) return errno;
  *sig = r;
  return 0;
}

// ==== the end ==============================================================================

// exit, _exit and main's return: inject/shared_hooks.cc (exitStatusKnown()
// and exitsNow() below).

// ==== user events and recorded nondeterminism =================================================

HOOK int radar_user_event(const char* name, const void* data, size_t len) {
  (void)data;
  (void)len;
  if (!replaying()) return 0;
  const ScriptEvent* e = expect(Kind::User, -1, "radar_event()");
  if (!e) return 0;
  const char* recorded = static_cast<const char*>(blob(e->strings));
  if (std::strcmp(recorded, name ? name : "") != 0) {
    Report r;
    r << "the program announces user event \"" << (name ? name : "") << "\"; the recording has " << text(e);
    diverge(e, r.str());
    return 0;
  }
  consume(e);
  return 1;
}

namespace {

// A value the recording captured with --nondet, copied out as it was.
const ScriptEvent* recordedValue(Kind kind, void* out, size_t room) {
  if (!replaying()) return nullptr;
  const ScriptEvent* e = expectIf(kind, -1);
  if (!e) {
    noteLiveValue();
    return nullptr;
  }
  if (out) std::memcpy(out, blob(e->data), e->data.size < room ? e->data.size : room);
  consume(e);
  return e;
}

}  // namespace

HOOK time_t time(time_t* out) {
  REAL(time);
  time_t v;
  if (recordedValue(Kind::Clock, &v, sizeof(v))) {
    if (out) *out = v;
    return v;
  }
  return real_time(out);
}

HOOK int gettimeofday(struct timeval* tv, void* tz) {
  using Fn = int (*)(struct timeval*, void*);
  static Fn real = nullptr;
  if (!real) real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "gettimeofday"));
  if (const ScriptEvent* e = recordedValue(Kind::Clock, tv, sizeof(*tv))) return finishWith<int>(e);
  return real(tv, tz);
}

HOOK int clock_gettime(clockid_t clock, struct timespec* ts) {
  REAL(clock_gettime);
  if (const ScriptEvent* e = recordedValue(Kind::Clock, ts, sizeof(*ts))) return finishWith<int>(e);
  return real_clock_gettime(clock, ts);
}

HOOK ssize_t getrandom(void* buf, size_t n, unsigned flags) {
  REAL(getrandom);
  if (const ScriptEvent* e = recordedValue(Kind::Random, buf, n)) return finishWith<ssize_t>(e);
  return real_getrandom(buf, n, flags);
}

// What the kernel said about a network interface, as recorded: the
// sandbox's network has only its own loopback.
HOOK int ioctl(int fd, unsigned long request, ...) {
  REAL(ioctl);
  OPTIONAL_ARG(request, arg);
  if (!replaying() || !outputsRecorded() || !radar::inject::isInterfaceQuery(request) || !arg)
    return real_ioctl(fd, request, arg);
  const ScriptEvent* e = expect(Kind::Interface, fd, What("ioctl", fd).str());
  if (!e) return real_ioctl(fd, request, arg);
  if (e->call_flags != static_cast<uint32_t>(request)) {
    Report r;
    r << "the program asks ioctl(fd " << fd << ", request " << static_cast<uint64_t>(request)
      << ") where the recording has " << text(e);
    diverge(e, r.str());
    return real_ioctl(fd, request, arg);
  }
  if (e->result == 0) std::memcpy(arg, blob(e->data), e->data.size < sizeof(ifreq) ? e->data.size : sizeof(ifreq));
  consume(e);
  return finishWith<int>(e);
}

// The recorded pid: a program writes it into its logs, pid files and
// messages (syslog's "dnsmasq[2368]"), which the re-run compares. The
// image's pid is known without --nondet, which records each call.
HOOK pid_t getpid(void) {
  REAL(getpid);
  if (!replaying()) return real_getpid();
  const ScriptEvent* e = expectIf(Kind::Getpid, -1);
  if (e) consume(e);
  const int32_t pid = e ? static_cast<int32_t>(e->result) : imagePid();
  noteBelievedPid(pid);
  return static_cast<pid_t>(pid);
}

HOOK pid_t getppid(void) {
  REAL(getppid);
  if (const ScriptEvent* e = recordedValue(Kind::Getpid, nullptr, 0)) return static_cast<pid_t>(e->result);
  return real_getppid();
}

// ==== threads ======================================================================================
//
// pthread_create(): inject/shared_hooks.cc. As the recorder does, the new
// thread learns its creation order and plays the recorded thread of that
// order (threadStarts() below).

// ==== socket names ===============================================================================

namespace {

// The stand-ins are not bound or connected: their names come from the
// recording (a server that bound port 0 prints the port it got).
int replayName(int fd, struct sockaddr* addr, socklen_t* len, bool peer) {
  const radar::driver::SocketNames* names = socketNames(fd);
  const radar::driver::Blob& b = peer ? names->peer : names->local;
  if (!b.size) return INT_MIN;
  if (!addr || !len) {
    errno = EFAULT;
    return -1;
  }
  const socklen_t have = static_cast<socklen_t>(b.size);
  std::memcpy(addr, blob(b), have < *len ? have : *len);
  *len = have;
  return 0;
}

}  // namespace

// How a connect in progress ended, as the kernel told the recorded program
// (the stand-in socket never connected). A recording made before these
// were recorded has none: the stand-in answers.
HOOK int getsockopt(int fd, int level, int name, void* value, socklen_t* len) {
  REAL(getsockopt);
  if (level != SOL_SOCKET || name != SO_ERROR || !replaying() || !isChannelFd(fd) || !nextIsConnectOutcome(fd))
    return real_getsockopt(fd, level, name, value, len);
  const ScriptEvent* e = expectIf(Kind::Connect, fd);
  if (!e) return real_getsockopt(fd, level, name, value, len);
  consume(e);
  if (e->result == 0 && value && len && *len >= sizeof(int)) {
    *static_cast<int*>(value) = static_cast<int>(e->size);
    *len = sizeof(int);
  }
  return finishWith<int>(e);
}

HOOK int getsockname(int fd, struct sockaddr* addr, socklen_t* len) {
  REAL(getsockname);
  if (replaying() && isChannelFd(fd) && socketNames(fd)) {
    const int r = replayName(fd, addr, len, false);
    if (r != INT_MIN) return r;
  }
  return real_getsockname(fd, addr, len);
}

HOOK int getpeername(int fd, struct sockaddr* addr, socklen_t* len) {
  REAL(getpeername);
  if (replaying() && isChannelFd(fd) && socketNames(fd)) {
    const int r = replayName(fd, addr, len, true);
    if (r != INT_MIN) return r;
  }
  return real_getpeername(fd, addr, len);
}

// ==== signals =====================================================================================
//
// The program's handlers are wrapped, as the recorder wraps them: while
// replaying, a handler runs only where the recording says it ran (the
// script's SIGNAL events, delivered by deliverSignal()); the same signal
// arriving for real (an alarm, a timer) is dropped. sigaction() still
// reports the program's own handler.

namespace {
__thread int t_delivering __attribute__((tls_model("initial-exec")));
}  // namespace

// sigaction() and the trampoline: inject/signals.cc.
// Unblocking a signal that arrived while blocked is when its handler ran.
HOOK int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  REAL(sigprocmask);
  const int r = real_sigprocmask(how, set, old);
  if (r == 0 && set && how != SIG_BLOCK) deliverDueSignals();
  return r;
}

HOOK int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  REAL(pthread_sigmask);
  const int r = real_pthread_sigmask(how, set, old);
  if (r == 0 && set && how != SIG_BLOCK) deliverDueSignals();
  return r;
}

// signal(), bsd_signal(), sysv_signal(): inject/shared_hooks.cc, through sigaction().

namespace radar::rerun {

bool deliverSignal(int sig) {
  if (!radar::inject::programHandles(sig)) return false;  // no handler of the program's to run
  // Delivered here and now even if the program blocks it at this point (it
  // was unblocked inside the call the handler interrupted: ppoll, pselect).
  sigset_t only, old;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sys::raw(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&only), reinterpret_cast<long>(&old), _NSIG / 8);
  t_delivering = sig;
  sys::raw(SYS_tgkill, sys::getpid(), sys::gettid(), sig);
  t_delivering = 0;
  sys::raw(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&old), 0, _NSIG / 8);
  return true;
}

bool hasHandler(int sig) { return radar::inject::programHandles(sig); }

}  // namespace radar::rerun

// ==== what the shared hooks do here (inject/library.h) ===========================================

namespace radar::inject {

bool wrapsSignals() { return true; }

bool signalArrives(int sig, const siginfo_t* info) {
  if (!replaying()) return true;
  // Only the delivery deliverSignal() makes, once: a real one arriving
  // meanwhile (a timer firing while the handler runs) is dropped too.
  const bool ours =
      t_delivering == sig && info && info->si_code == SI_TKILL && info->si_pid == static_cast<pid_t>(sys::getpid());
  if (!ours) return false;
  t_delivering = 0;
  return true;
}

void signalHandled(int, void*) {}

bool announcesThreads() { return replaying(); }
uint32_t takeThreadOrdinal() { return radar::rerun::nextThreadOrdinal(); }
void returnThreadOrdinal() { radar::rerun::returnThreadOrdinal(); }
void threadStarts(uint32_t ordinal) { radar::rerun::threadStarts(ordinal); }
void threadCreated(uint32_t ordinal) { radar::rerun::threadCreated(ordinal); }

// Synchronization recorded (--sync) is held to its recorded order (rerun.cc).
SyncMode syncMode() { return radar::rerun::ordersSync() ? SyncMode::Replay : SyncMode::Off; }
bool syncTurn(const SyncOp& op, SyncTurn* turn) { return radar::rerun::syncTurn(op, turn); }
void syncTurnDone(const SyncTurn& turn, int result) { radar::rerun::syncTurnDone(turn, result); }
int64_t syncClock() { return 0; }
uint64_t syncTake(const void*, bool) { return 0; }
uint64_t syncNow(const void*, bool) { return 0; }
void syncWaits(const SyncOp&) {}
void syncWaited() {}
void syncDone(const SyncOp&, uint64_t, int) {}

void exitStatusKnown(int status) { radar::rerun::noteExitStatus(status); }
void exitsNow(int status) { radar::rerun::programExits(status); }

// What radar did not record cannot be fed: a ring whose transfers the
// recording lacks, a raw read or write on a channel. The re-run stops there
// rather than run on with what the recorded call would have had.
void unseenUsed(log::Unseen what, const char* detail, int fd) {
  if (!replaying()) return;
  Report r;
  if (what == log::Unseen::IoUring)
    r << "the program sets up io_uring (" << detail
      << "), which radar does not record: what it moves through the ring can be neither fed nor compared";
  else if (what == log::Unseen::SeccompFilter)
    r << "the program installs a seccomp filter (" << detail
      << "), where its recording stopped: radar recorded nothing of it after that, so nothing more can be fed or "
         "compared";
  else if (what == log::Unseen::RawSystemCall && fd >= 0 && isChannelFd(fd))
    r << "the program calls " << detail << "(fd " << fd
      << ") through syscall(), which radar does not record: the recording has no such call";
  else
    return;
  diverge(nullptr, r.str());
}

bool isKnownChannel(int fd) { return isChannelFd(fd); }

}  // namespace radar::inject

// ==== stdio (stdio_table.h) =====================================================================

namespace {

ssize_t stdioRead(FILE* fp, void* buf, ssize_t n) {
  const int fd = fp->_fileno;
  if (!replaying() || !isChannelFd(fd)) return radar::inject::realStdioSlots().read(fp, buf, n);
  const struct iovec iov { buf, static_cast<size_t>(n) };
  ssize_t r;
  if (replayReceive(Kind::Read, "read", fd, &iov, 1, &r)) return r;
  return radar::inject::realStdioSlots().read(fp, buf, n);
}

ssize_t stdioWrite(FILE* fp, const void* data, ssize_t n) {
  const int fd = fp->_fileno;
  if (!replaying()) return radar::inject::realStdioSlots().write(fp, data, n);
  if (!isChannelFd(fd)) {
    const struct iovec iov { const_cast<void*>(data), n > 0 ? static_cast<size_t>(n) : 0 };
    return outputMade(fd, &iov, 1, radar::inject::realStdioSlots().write(fp, data, n));
  }
  const struct iovec iov { const_cast<void*>(data), static_cast<size_t>(n) };
  ssize_t r;
  if (replaySend(Kind::Write, "write", fd, &iov, 1, &r)) return r;
  return radar::inject::realStdioSlots().write(fp, data, n);
}

int stdioClose(FILE* fp) {
  const int fd = fp->_fileno;
  if (!replaying() || !isChannelFd(fd)) return radar::inject::realStdioSlots().close(fp);
  const ScriptEvent* e = expect(Kind::Close, fd, What("fclose", fd).str());
  if (!e) return radar::inject::realStdioSlots().close(fp);
  if (e->result == 0) sys::close(fd);
  setChannelFd(fd, false);
  consume(e);
  return finishWith<int>(e);
}

}  // namespace

namespace radar::rerun {

void patchStdio() {
  using radar::inject::patchStdioSlots;
  const radar::inject::StdioSlots mine{&stdioRead, &stdioWrite, &stdioClose};
  FILE* const standard[] = {stdin, stdout, stderr};
  for (FILE* f : standard) patchStdioSlots(radar::inject::stdioTableOf(f), mine);
  if (void* wide = dlsym(RTLD_NEXT, "_IO_wfile_jumps")) patchStdioSlots(wide, mine);
}

}  // namespace radar::rerun
