// The socket calls, as the interposer's hooks record them (preload/hooks.cc):
// a socket's making, naming and connecting, and its messages with what
// travels beside their bytes (addresses, descriptors passed, lengths).
#include <sys/socket.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstring>

#include "fallback/events.h"

namespace radar::fallback {
namespace {

using log::Kind;

constexpr size_t kMaxAddress = sizeof(struct sockaddr_storage);

// A sockaddr of `len` bytes at `address` (none for a null address).
std::string addressAt(pid_t tid, uint64_t address, uint64_t len) {
  return address ? readBytes(tid, address, std::min<uint64_t>(len, kMaxAddress)) : std::string();
}

// The length a call wrote into the socklen_t at `at`.
uint64_t lengthAt(pid_t tid, uint64_t at) {
  uint32_t len = 0;
  return at && readMemory(tid, at, &len, sizeof len) == sizeof len ? len : 0;
}

uint64_t iovTotal(const std::vector<struct iovec>& iov) {
  uint64_t n = 0;
  for (const auto& v : iov) n += v.iov_len;
  return n;
}

// The descriptors an SCM_RIGHTS message of the control buffer carries.
std::vector<int32_t> passedDescriptors(pid_t tid, const struct msghdr& m) {
  std::vector<int32_t> fds;
  if (!m.msg_control || m.msg_controllen < sizeof(struct cmsghdr)) return fds;
  std::string control =
      readBytes(tid, reinterpret_cast<uint64_t>(m.msg_control), std::min<size_t>(m.msg_controllen, 4096));
  struct msghdr local {};
  local.msg_control = control.data();
  local.msg_controllen = control.size();
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&local); c; c = CMSG_NXTHDR(&local, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) continue;
    // As many as the header says, of those the copy holds.
    const auto* data = reinterpret_cast<const unsigned char*>(CMSG_DATA(c));
    const size_t held = static_cast<size_t>(control.data() + control.size() - reinterpret_cast<const char*>(data));
    const size_t n = std::min((c->cmsg_len - CMSG_LEN(0)) / sizeof(int), held / sizeof(int));
    for (size_t i = 0; i < n && fds.size() < 64; ++i) {
      int fd;
      std::memcpy(&fd, data + i * sizeof fd, sizeof fd);
      fds.push_back(fd);
    }
  }
  return fds;
}

// sendmsg, recvmsg: the header as the call left it.
void messageCall(TracedImage& image, pid_t tid, Kind kind, const CallSeen& call) {
  struct msghdr m {};
  if (readMemory(tid, call.entry.args[1], &m, sizeof m) != sizeof m) return;
  Transfer t{kind, static_cast<int>(call.entry.args[0])};
  t.iov = readIovecs(tid, reinterpret_cast<uint64_t>(m.msg_iov), m.msg_iovlen);
  t.size = iovTotal(t.iov);
  t.moved = call.result > 0 ? std::min<uint64_t>(static_cast<uint64_t>(call.result), t.size) : 0;
  t.flags = static_cast<int>(call.entry.args[2]);
  const bool received = kind == Kind::Recvmsg;
  if (!received || call.result >= 0) {
    t.address = addressAt(tid, reinterpret_cast<uint64_t>(m.msg_name), m.msg_namelen);
    t.fds = passedDescriptors(tid, m);
  }
  if (received && call.result >= 0) {
    t.status = m.msg_flags;
    for (int32_t fd : t.fds) image.forget(fd);  // new here: classified on first use
  }
  recordTransfer(image, tid, call, t);
}

// sendmmsg, recvmmsg: one event, each message's length.
void multiMessageCall(TracedImage& image, pid_t tid, Kind kind, const CallSeen& call) {
  const unsigned count = static_cast<unsigned>(std::min<uint64_t>(call.entry.args[2], 1024));
  std::vector<struct mmsghdr> msgs(count);
  msgs.resize(readMemory(tid, call.entry.args[1], msgs.data(), count * sizeof(struct mmsghdr)) /
              sizeof(struct mmsghdr));
  Transfer t{kind, static_cast<int>(call.entry.args[0])};
  t.flags = static_cast<int>(call.entry.args[3]);
  const size_t done = call.result > 0 ? std::min<size_t>(static_cast<size_t>(call.result), msgs.size()) : 0;
  for (size_t k = 0; k < msgs.size(); ++k) {
    const std::vector<struct iovec> iov =
        readIovecs(tid, reinterpret_cast<uint64_t>(msgs[k].msg_hdr.msg_iov), msgs[k].msg_hdr.msg_iovlen);
    t.size += iovTotal(iov);
    if (k >= done || k >= 64) continue;
    t.messages.push_back(msgs[k].msg_len);
    uint64_t left = msgs[k].msg_len;
    for (const struct iovec& v : iov) {
      if (!left) break;
      const uint64_t take = std::min<uint64_t>(v.iov_len, left);
      t.iov.push_back({v.iov_base, take});
      t.moved += take;
      left -= take;
    }
  }
  recordTransfer(image, tid, call, t);
}

// An event about a socket (bind, listen, connect ...): on channels only.
void socketEvent(TracedImage& image, pid_t tid, Kind kind, int fd, const CallSeen& call, uint64_t size = 0,
                 uint32_t flags = 0, const std::string& address = {}) {
  const TracedImage::Fd& d = image.descriptor(fd);
  if (d.cls != FdClass::Channel) return;
  log::EventFields e = eventOf(kind, fd, call);
  e.channel = d.channel;
  e.size = size;
  e.flags = flags;
  if (!address.empty()) {
    e.address = address.data();
    e.address_len = address.size();
  }
  image.append(tid, e);
}

void socketCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  log::EventFields e = eventOf(Kind::Socket, -1, call);
  e.flags = static_cast<uint32_t>(call.entry.args[1]);
  if (call.result >= 0) {
    image.forget(static_cast<int>(call.result));
    e.channel = image.created(static_cast<int>(call.result), log::ChannelOrigin::Created).channel;
  }
  image.append(tid, e);
}

void acceptCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const int listening = static_cast<int>(a[0]);
  if (image.descriptor(listening).cls != FdClass::Channel) return;
  log::EventFields e = eventOf(Kind::Accept, listening, call);
  e.flags = call.entry.nr == SYS_accept4 ? static_cast<uint32_t>(a[3]) : 0;
  std::string address;
  if (call.result >= 0) {
    const int fd = static_cast<int>(call.result);
    image.forget(fd);
    e.channel = image.created(fd, log::ChannelOrigin::Accepted).channel;
    address = addressAt(tid, a[1], lengthAt(tid, a[2]));
  } else {
    e.channel = image.descriptor(listening).channel;
  }
  e.address = address.empty() ? nullptr : address.data();
  e.address_len = address.size();
  image.append(tid, e);
}

// getsockopt(SO_ERROR): how a connect in progress ended, an input the
// interposer records as a CONNECT with its outcome.
void connectOutcome(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  if (a[1] != SOL_SOCKET || a[2] != SO_ERROR) return;
  int32_t value = 0;
  if (call.result == 0 && lengthAt(tid, a[4]) >= sizeof value) readMemory(tid, a[3], &value, sizeof value);
  // A connect in progress that has ended well: its peer is known now.
  if (call.result == 0 && value == 0) image.refresh(static_cast<int>(a[0]));
  socketEvent(image, tid, Kind::Connect, static_cast<int>(a[0]), call, static_cast<uint32_t>(value),
              log::kFlagConnectOutcome);
}

}  // namespace

bool recordSocketCall(TracedImage& image, pid_t tid, const CallSeen& call) {
  const uint64_t* a = call.entry.args;
  const int fd = static_cast<int>(a[0]);
  const uint64_t moved = call.result > 0 ? static_cast<uint64_t>(call.result) : 0;
  switch (call.entry.nr) {
    case SYS_sendto: {
      Transfer t{a[4] ? Kind::Sendto : Kind::Send,
                 fd,
                 {{reinterpret_cast<void*>(a[1]), a[2]}},
                 a[2],
                 moved,
                 static_cast<int>(a[3]),
                 addressAt(tid, a[4], a[5])};
      recordTransfer(image, tid, call, t);
      return true;
    }
    case SYS_recvfrom: {
      Transfer t{a[4] ? Kind::Recvfrom : Kind::Recv,
                 fd,
                 {{reinterpret_cast<void*>(a[1]), a[2]}},
                 a[2],
                 moved,
                 static_cast<int>(a[3])};
      if (call.result >= 0) t.address = addressAt(tid, a[4], lengthAt(tid, a[5]));
      recordTransfer(image, tid, call, t);
      return true;
    }
    case SYS_sendmsg:
    case SYS_recvmsg:
      messageCall(image, tid, call.entry.nr == SYS_sendmsg ? Kind::Sendmsg : Kind::Recvmsg, call);
      return true;
    case SYS_sendmmsg:
    case SYS_recvmmsg:
      multiMessageCall(image, tid, call.entry.nr == SYS_sendmmsg ? Kind::Sendmmsg : Kind::Recvmmsg, call);
      return true;
    case SYS_socket:
      socketCall(image, tid, call);
      return true;
    case SYS_bind:
      if (call.result == 0) image.refresh(fd);
      socketEvent(image, tid, Kind::Bind, fd, call, 0, 0, addressAt(tid, a[1], a[2]));
      return true;
    case SYS_listen:
      socketEvent(image, tid, Kind::Listen, fd, call,
                  static_cast<uint64_t>(std::max<int64_t>(0, static_cast<int>(a[1]))));
      return true;
    case SYS_connect:
      if (call.result == 0 || call.result == -EINPROGRESS) image.refresh(fd);
      socketEvent(image, tid, Kind::Connect, fd, call, 0, 0, addressAt(tid, a[1], a[2]));
      return true;
    case SYS_accept:
    case SYS_accept4:
      acceptCall(image, tid, call);
      return true;
    case SYS_shutdown:
      socketEvent(image, tid, Kind::Shutdown, fd, call, 0, static_cast<uint32_t>(a[1]));
      return true;
    case SYS_getsockopt:
      connectOutcome(image, tid, call);
      return true;
    default:
      return false;
  }
}

}  // namespace radar::fallback
