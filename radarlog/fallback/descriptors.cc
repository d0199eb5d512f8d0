#include "fallback/descriptors.h"

#include <asm/ioctls.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fallback/remote.h"
#include "log/unix_peer.h"

namespace radar::fallback {
namespace {

using log::ChannelType;

int socketOption(int fd, int option) {
  int value = 0;
  socklen_t len = sizeof value;
  return ::getsockopt(fd, SOL_SOCKET, option, &value, &len) == 0 ? value : -1;
}

uint64_t unixPeer(uint64_t ino) {
  const int netlink = ::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (netlink < 0) return 0;
  const uint64_t peer = log::unixPeerInode(netlink, ino);
  ::close(netlink);
  return peer;
}

bool namedUnix(const sockaddr_storage& a, socklen_t len) { return a.ss_family == AF_UNIX && len > sizeof(sa_family_t); }

// A socket, as the interposer tells it (preload/channels.cc).
void describeSocket(int copy, DescribedFd& d) {
  d.domain = socketOption(copy, SO_DOMAIN);
  d.socket_type = socketOption(copy, SO_TYPE);
  d.protocol = std::max(0, socketOption(copy, SO_PROTOCOL));
  d.local_len = sizeof d.local;
  if (::getsockname(copy, reinterpret_cast<sockaddr*>(&d.local), &d.local_len) != 0) d.local_len = 0;
  d.peer_len = sizeof d.peer;
  const bool connected = ::getpeername(copy, reinterpret_cast<sockaddr*>(&d.peer), &d.peer_len) == 0;
  if (!connected) d.peer_len = 0;
  d.store_received = true;
  if (d.domain == AF_UNIX) {
    d.type = d.socket_type == SOCK_STREAM  ? ChannelType::UnixStream
             : d.socket_type == SOCK_DGRAM ? ChannelType::UnixDgram
                                           : ChannelType::UnixSeqpacket;
    const auto* named = namedUnix(d.local, d.local_len) ? reinterpret_cast<const sockaddr_un*>(&d.local)
                        : namedUnix(d.peer, d.peer_len) ? reinterpret_cast<const sockaddr_un*>(&d.peer)
                                                        : nullptr;
    d.store_received = named != nullptr;  // a named socket may have an outside peer
    if (named) d.path = named->sun_path[0] ? std::string(named->sun_path) : "@" + std::string(named->sun_path + 1);
    d.peer_ino = connected ? unixPeer(d.ino) : 0;
  } else if (d.domain == AF_INET || d.domain == AF_INET6) {
    d.type = d.socket_type == SOCK_STREAM  ? ChannelType::Tcp
             : d.socket_type == SOCK_DGRAM ? ChannelType::Udp
                                           : ChannelType::OtherSocket;
  } else {
    d.type = ChannelType::OtherSocket;
  }
}

// A character device: a terminal is a channel, /dev/null and /dev/zero
// nothing, any other device an output.
void describeDevice(int copy, const struct stat& st, pid_t pid, int fd, DescribedFd& d) {
  const unsigned maj = major(st.st_rdev), min = minor(st.st_rdev);
  if (maj == 1 && (min == 3 || min == 5 || min == 8 || min == 9)) {
    d.cls = FdClass::NotChannel;  // null, zero; random devices: not recorded here
    return;
  }
  struct termios t {};
  if (::ioctl(copy, TCGETS, &t) != 0) {
    d.cls = FdClass::Output;
    return;
  }
  d.type = ChannelType::Terminal;
  d.rdev = st.st_rdev;
  d.path = procLink(pid, "fd/" + std::to_string(fd));
  d.store_received = d.external = true;
}

// A regular file is an output, but for a POSIX message queue's descriptor
// (a file of the mqueue file system): a channel named as it was opened.
void describeFile(int copy, const struct stat& st, pid_t pid, int fd, DescribedFd& d) {
  constexpr long kMqueueMagic = 0x19800202;  // MQUEUE_MAGIC
  struct statfs fs {};
  if (!S_ISREG(st.st_mode) || ::fstatfs(copy, &fs) != 0 || fs.f_type != kMqueueMagic) {
    d.cls = FdClass::Output;
    return;
  }
  d.type = ChannelType::MessageQueue;
  d.path = procLink(pid, "fd/" + std::to_string(fd));
  d.store_received = true;  // anyone may open it
}

// A number after `key` in /proc's text (fdinfo), in `base`, and whether
// it is there (the kernel prints an eventfd's count in hex).
bool fieldAfter(const std::string& text, const char* key, uint64_t* value, int base = 10) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return false;
  *value = std::strtoull(text.c_str() + at + std::strlen(key), nullptr, base);
  return true;
}

// An anonymous inode: an eventfd is a channel, known across processes by
// the id the kernel gives it (as the interposer knows it); the rest (epoll,
// signalfd, timerfd ...) is not.
void describeAnonymous(pid_t pid, int fd, DescribedFd& d) {
  d.cls = FdClass::NotChannel;
  if (procLink(pid, "fd/" + std::to_string(fd)) != "anon_inode:[eventfd]") return;
  const std::string info = procFile(pid, ("fdinfo/" + std::to_string(fd)).c_str());
  uint64_t id = 0, semaphore = 0;
  if (!fieldAfter(info, "eventfd-id:", &id)) return;  // an older kernel: no identity to pair ends by
  fieldAfter(info, "eventfd-count:", &d.count, 16);
  fieldAfter(info, "eventfd-semaphore:", &semaphore);
  d.cls = FdClass::Channel;
  d.type = ChannelType::EventFd;
  d.ino = id;
  d.semaphore = semaphore != 0;
  d.store_received = true;  // a read takes a count: kept as the interposer keeps it
}

}  // namespace

log::ChannelFields DescribedFd::channelFields(uint32_t index, int fd, log::ChannelOrigin origin) const {
  log::ChannelFields c;
  c.index = index;
  c.type = type;
  c.origin = origin;
  c.fd = fd;
  c.dev = dev;
  c.ino = ino;
  c.peer_ino = peer_ino;
  c.local_address = &local;
  c.local_address_len = local_len;
  c.peer_address = &peer;
  c.peer_address_len = peer_len;
  c.path = path.empty() ? nullptr : path.c_str();
  c.access = access;
  c.external = external;
  c.domain = domain;
  c.socket_type = socket_type;
  c.protocol = protocol;
  c.rdev = rdev;
  c.count = count;
  c.semaphore = semaphore;
  return c;
}

DescribedFd describeDescriptor(pid_t pid, int fd, const ExternalFiles& external) {
  DescribedFd d;
  const int copy = duplicateDescriptor(pid, fd);
  if (copy < 0) {
    if (errno != EBADF && errno != ESRCH) d.refused = errno;  // (EBADF: not open)
    return d;
  }
  struct stat st {};
  if (::fstat(copy, &st) != 0) {
    ::close(copy);
    return d;
  }
  d.cls = FdClass::Channel;
  d.dev = st.st_dev;
  d.ino = st.st_ino;
  // The access mode is the tracee's: a copy shares its open file.
  const int flags = ::fcntl(copy, F_GETFL);
  if (flags >= 0) d.access = static_cast<uint32_t>(flags & O_ACCMODE);
  switch (st.st_mode & S_IFMT) {
    case S_IFIFO: {
      struct statfs fs {};
      const bool anonymous = ::fstatfs(copy, &fs) == 0 && fs.f_type == PIPEFS_MAGIC;
      d.type = anonymous ? ChannelType::Pipe : ChannelType::Fifo;
      if (!anonymous) {
        d.path = procLink(pid, "fd/" + std::to_string(fd));
        d.store_received = true;  // anyone may open a FIFO
      }
      break;
    }
    case S_IFSOCK:
      describeSocket(copy, d);
      break;
    case S_IFCHR:
      describeDevice(copy, st, pid, fd, d);
      break;
    case S_IFREG:
    case S_IFBLK:
      describeFile(copy, st, pid, fd, d);
      break;
    default:
      describeAnonymous(pid, fd, d);
  }
  ::close(copy);
  if (d.cls == FdClass::Channel &&
      std::find(external.begin(), external.end(), std::make_pair(d.dev, d.ino)) != external.end())
    d.external = d.store_received = true;
  return d;
}

}  // namespace radar::fallback
