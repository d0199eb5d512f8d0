// Descriptors and channel identities (rules: see hooks.cc).
//
// Every descriptor the program uses is classified once: a channel (pipe,
// FIFO, socket, terminal) gets a CHANNEL record with the identity the merge
// needs to pair its ends across processes; anything else (regular files,
// /dev/null, eventfds ...) is remembered as "not a channel" so that its
// reads and writes cost one table lookup. The table is invalidated when a
// descriptor is closed, duplicated over, or created by a call we hook, and
// when a forked child starts its own log.
#include <asm/ioctls.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <termios.h>

#include <cerrno>
#include <cstring>

#include "log/sys.h"
#include "log/unix_peer.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {
namespace {

using log::ChannelFields;
using log::ChannelOrigin;
using log::ChannelType;

// Table entry: channel index | class << 32 | flags << 36 | log_gen << 40.
// kEventFd: an eventfd this image made; kSharedEventFd: one it got from
// elsewhere (its parent, an exec'd image), whose uses are said (unseen.h).
enum Class : uint64_t {
  kUnknown = 0,
  kNotChannel = 1,
  kChannel = 2,
  kRandom = 3,
  kSignalFd = 4,
  kEventFd = 5,
  kSharedEventFd = 6,
  kOutput = 7  // a regular file or a device: writes recorded as OUTPUT
};
constexpr long kMqueueMagic = 0x19800202;  // the mqueue file system's f_type (mq_overview(7))
constexpr uint64_t kFlagStoreReceived = 1, kFlagPeerUnknown = 2, kFlagExternal = 4;
constexpr int kChunkBits = 12;
constexpr int kChunkSize = 1 << kChunkBits;
constexpr int kChunks = 256;  // descriptors below 1M are cached; others are classified each time

std::atomic<uint64_t>* g_chunks[kChunks];

uint64_t makeEntry(uint32_t index, uint64_t cls, uint64_t flags) {
  return uint64_t{index} | cls << 32 | flags << 36 | uint64_t{g_process.log_gen & 0xFFFFFF} << 40;
}
uint32_t entryIndex(uint64_t e) { return static_cast<uint32_t>(e); }
uint64_t entryClass(uint64_t e) { return (e >> 32) & 0xF; }
uint64_t entryFlags(uint64_t e) { return (e >> 36) & 0xF; }
bool entryCurrent(uint64_t e) { return entryClass(e) != kUnknown && (e >> 40) == (g_process.log_gen & 0xFFFFFF); }

std::atomic<uint64_t>* slotFor(int fd, bool create) {
  if (fd < 0) return nullptr;
  const unsigned chunk = static_cast<unsigned>(fd) >> kChunkBits;
  if (chunk >= kChunks) return nullptr;
  std::atomic<uint64_t>* c = __atomic_load_n(&g_chunks[chunk], __ATOMIC_ACQUIRE);
  if (!c) {
    if (!create) return nullptr;
    long m = sys::mmapAside(kChunkSize * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0 && m > -4096) return nullptr;
    auto* fresh = reinterpret_cast<std::atomic<uint64_t>*>(m);
    std::atomic<uint64_t>* expected = nullptr;
    if (__atomic_compare_exchange_n(&g_chunks[chunk], &expected, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      c = fresh;
    } else {
      sys::munmap(fresh, kChunkSize * sizeof(uint64_t));
      c = expected;
    }
  }
  return &c[fd & (kChunkSize - 1)];
}

uint64_t load(int fd) {
  std::atomic<uint64_t>* s = slotFor(fd, false);
  if (!s) return 0;
  const uint64_t e = s->load(std::memory_order_acquire);
  return entryCurrent(e) ? e : 0;
}

void store(int fd, uint64_t e) {
  if (std::atomic<uint64_t>* s = slotFor(fd, true)) s->store(e, std::memory_order_release);
}

long getsockoptInt(int fd, int opt) {
  int v = 0;
  socklen_t len = sizeof(v);
  long r = sys::raw(SYS_getsockopt, fd, SOL_SOCKET, opt, reinterpret_cast<long>(&v), reinterpret_cast<long>(&len));
  return r < 0 ? r : v;
}

bool namedUnix(const sockaddr_storage& a, socklen_t len) { return a.ss_family == AF_UNIX && len > sizeof(sa_family_t); }

int ownNetlink() {
  if (const int nl = __atomic_load_n(&g_process.netlink_fd, __ATOMIC_ACQUIRE); nl >= 0) return nl;
  long fd = sys::raw(SYS_socket, AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return -1;
  if (g_process.fd_floor > 0) {
    long high = sys::dupAtOrAbove(static_cast<int>(fd), g_process.fd_floor);
    sys::close(static_cast<int>(fd));
    if (high < 0) return -1;
    fd = high;
  }
  // Another thread or a signal handler may have made one meanwhile: one is kept.
  int none = -1;
  if (!__atomic_compare_exchange_n(&g_process.netlink_fd, &none, static_cast<int>(fd), false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    sys::close(static_cast<int>(fd));
    return none;
  }
  return static_cast<int>(fd);
}

// The inode of the Unix socket connected to socket `ino`; 0 when unknown.
uint64_t unixPeerInode(uint64_t ino) {
  const int nl = ownNetlink();
  return nl < 0 ? 0 : log::unixPeerInode(nl, ino);
}

bool isExternal(uint64_t dev, uint64_t ino) {
  for (int i = 0; i < g_config.external_count; ++i)
    if (g_config.external[i].dev == dev && g_config.external[i].ino == ino) return true;
  return false;
}

// What a /proc/self/fd link names, in `out` ("" when unknown).
const char* linkTarget(const char* proc, char* out, size_t size) {
  const long m = sys::readlink(proc, out, size - 1);
  out[m > 0 ? m : 0] = 0;
  return out;
}

// A POSIX message queue is a file on the mqueue file system. The last
// device found to be another file system is remembered: most files a
// program writes live on one or two, and this runs on each one's first use.
std::atomic<uint64_t> g_not_mqueue_dev{~uint64_t{0}};
bool onMqueueFs(int fd, uint64_t dev) {
  if (g_not_mqueue_dev.load(std::memory_order_relaxed) == dev) return false;
  struct statfs fs {};
  if (sys::raw(SYS_fstatfs, fd, reinterpret_cast<long>(&fs)) != 0) return false;
  if (fs.f_type == kMqueueMagic) return true;
  g_not_mqueue_dev.store(dev, std::memory_order_relaxed);
  return false;
}

// What /proc/self/fdinfo says of eventfd `fd`: its id (the kernel's, unique
// among live eventfds: the identity its ends share across processes), its
// count and its mode. False where the kernel does not say (before 6.0).
struct EventFdInfo {
  uint64_t id = 0, count = 0;
  bool semaphore = false;
};
// A number after `name`, in `base` (the kernel prints the count in hex).
uint64_t fieldAfter(const char* text, const char* name, bool* found, unsigned base = 10) {
  const char* at = std::strstr(text, name);
  if (!at) return 0;
  at += std::strlen(name);
  while (*at == ' ' || *at == '\t') ++at;
  uint64_t v = 0;
  for (;; ++at) {
    const unsigned digit = *at >= '0' && *at <= '9'   ? static_cast<unsigned>(*at - '0')
                           : *at >= 'a' && *at <= 'f' ? static_cast<unsigned>(*at - 'a' + 10)
                                                      : base;
    if (digit >= base) break;
    v = v * base + digit;
  }
  *found = true;
  return v;
}
bool eventFdInfo(int fd, EventFdInfo* out) {
  char path[48] = "/proc/self/fdinfo/";
  sys::formatDecimal(path + 18, sizeof path - 18, static_cast<unsigned>(fd));
  const long f = sys::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (f < 0) return false;
  char text[512];
  const long n = sys::read(static_cast<int>(f), text, sizeof text - 1);
  sys::close(static_cast<int>(f));
  if (n <= 0) return false;
  text[n] = 0;
  bool has_id = false, unused = false;
  out->id = fieldAfter(text, "eventfd-id:", &has_id);
  out->count = fieldAfter(text, "eventfd-count:", &unused, 16);
  out->semaphore = fieldAfter(text, "eventfd-semaphore:", &unused) != 0;
  return has_id;
}

// An anonymous inode: a signalfd's reads are signals taken; an eventfd is a
// channel, known across processes by its id: `c` is filled and 0 returned.
// (Where the kernel gives no id, an eventfd not made here is said: unseen.)
uint64_t anonymousInode(int fd, ChannelOrigin origin, const char* proc, ChannelFields* c) {
  char link[64];
  const long m = sys::readlink(proc, link, sizeof(link) - 1);
  constexpr char kSignalFdLink[] = "anon_inode:[signalfd]";
  constexpr char kEventFdLink[] = "anon_inode:[eventfd]";
  if (m == sizeof(kSignalFdLink) - 1 && std::memcmp(link, kSignalFdLink, sizeof(kSignalFdLink) - 1) == 0)
    return makeEntry(0, kSignalFd, 0);
  if (m != sizeof(kEventFdLink) - 1 || std::memcmp(link, kEventFdLink, sizeof(kEventFdLink) - 1) != 0)
    return makeEntry(0, kNotChannel, 0);
  EventFdInfo info;
  if (!eventFdInfo(fd, &info)) return makeEntry(0, origin == ChannelOrigin::Created ? kEventFd : kSharedEventFd, 0);
  c->type = ChannelType::EventFd;
  c->ino = info.id;
  c->count = info.count;
  c->semaphore = info.semaphore;
  return 0;
}

// Classifies `fd` and, for a channel, records its CHANNEL definition under
// `index` (0: a new index). Returns the table entry (0 if fd is not open).
// A socket's kind, its addresses (kept in `local`, `peer` and `path`, which
// `c` points into) and its peer; the flags its channel state starts with.
uint64_t classifySocket(int fd, const struct stat& st, uint64_t peer_ino_hint, ChannelFields& c,
                        sockaddr_storage& local, sockaddr_storage& peer, char (&path)[256]) {
  uint64_t flags = 0;
  const long domain = getsockoptInt(fd, SO_DOMAIN);
  const long type = getsockoptInt(fd, SO_TYPE);
  const long protocol = getsockoptInt(fd, SO_PROTOCOL);
  c.domain = static_cast<int32_t>(domain);
  c.socket_type = static_cast<int32_t>(type);
  c.protocol = static_cast<int32_t>(protocol < 0 ? 0 : protocol);
  socklen_t llen = sizeof(local), plen = sizeof(peer);
  if (sys::raw(SYS_getsockname, fd, reinterpret_cast<long>(&local), reinterpret_cast<long>(&llen)) < 0) llen = 0;
  const bool connected =
      sys::raw(SYS_getpeername, fd, reinterpret_cast<long>(&peer), reinterpret_cast<long>(&plen)) == 0;
  if (!connected) plen = 0;
  c.local_address = &local;
  c.local_address_len = llen;
  c.peer_address = &peer;
  c.peer_address_len = plen;
  if (domain == AF_UNIX) {
    c.type = type == SOCK_STREAM  ? ChannelType::UnixStream
             : type == SOCK_DGRAM ? ChannelType::UnixDgram
                                  : ChannelType::UnixSeqpacket;
    const sockaddr_un* named = namedUnix(local, llen)  ? reinterpret_cast<sockaddr_un*>(&local)
                               : namedUnix(peer, plen) ? reinterpret_cast<sockaddr_un*>(&peer)
                                                       : nullptr;
    if (named) {
      flags |= kFlagStoreReceived;  // a named socket may have an outside peer
      if (named->sun_path[0]) {
        std::strncpy(path, named->sun_path, sizeof(path) - 1);
      } else {  // abstract: shown as @name
        path[0] = '@';
        std::strncpy(path + 1, named->sun_path + 1, sizeof(path) - 2);
      }
      c.path = path;
    }
    c.peer_ino = peer_ino_hint ? peer_ino_hint : connected ? unixPeerInode(st.st_ino) : 0;
    // Until the server accepts, a client's peer has no inode yet: ask
    // again on the next uses.
    if (!c.peer_ino && type != SOCK_DGRAM) flags |= kFlagPeerUnknown;
  } else if (domain == AF_INET || domain == AF_INET6) {
    c.type = type == SOCK_STREAM ? ChannelType::Tcp : type == SOCK_DGRAM ? ChannelType::Udp : ChannelType::OtherSocket;
    flags |= kFlagStoreReceived;
    if (!connected && type == SOCK_STREAM) flags |= kFlagPeerUnknown;
  } else {
    c.type = ChannelType::OtherSocket;
    flags |= kFlagStoreReceived;
  }
  return flags;
}

uint64_t classify(int fd, ChannelOrigin origin, uint32_t index, uint64_t peer_ino_hint) {
  struct stat st {};
  if (sys::fstat(fd, &st) < 0) return 0;
  ChannelFields c;
  c.fd = fd;
  c.origin = origin;
  c.dev = st.st_dev;
  c.ino = st.st_ino;
  char path[256] = {};
  sockaddr_storage local{}, peer{};
  uint64_t flags = 0;
  char proc[32] = "/proc/self/fd/";
  sys::formatDecimal(proc + 14, sizeof proc - 14, static_cast<unsigned>(fd));
  const long access = sys::fcntl(fd, F_GETFL);
  if (access >= 0) c.access = static_cast<uint32_t>(access & O_ACCMODE);

  switch (st.st_mode & S_IFMT) {
    case S_IFIFO: {
      // Anonymous pipes live on pipefs; a FIFO on the file system of its path.
      struct statfs fs {};
      const bool anonymous = sys::raw(SYS_fstatfs, fd, reinterpret_cast<long>(&fs)) == 0 && fs.f_type == PIPEFS_MAGIC;
      c.type = anonymous ? ChannelType::Pipe : ChannelType::Fifo;
      if (!anonymous) {
        c.path = linkTarget(proc, path, sizeof path);
        flags |= kFlagStoreReceived;  // anyone may open a FIFO
      }
      break;
    }
    case S_IFSOCK:
      flags |= classifySocket(fd, st, peer_ino_hint, c, local, peer, path);
      break;
    case S_IFCHR: {
      const unsigned maj = major(st.st_rdev), min = minor(st.st_rdev);
      if (maj == 1 && (min == 8 || min == 9)) return makeEntry(0, kRandom, 0);
      if (maj == 1 && (min == 3 || min == 5)) return makeEntry(0, kNotChannel, 0);  // /dev/null, /dev/zero
      uint8_t termios_buf[64];
      if (sys::raw(SYS_ioctl, fd, TCGETS, reinterpret_cast<long>(termios_buf)) < 0) return makeEntry(0, kOutput, 0);
      c.type = ChannelType::Terminal;
      c.rdev = st.st_rdev;
      c.path = linkTarget(proc, path, sizeof path);
      flags |= kFlagStoreReceived | kFlagExternal;
      break;
    }
    case 0:
      if (const uint64_t other = anonymousInode(fd, origin, proc, &c)) return other;
      flags |= kFlagStoreReceived;  // an eventfd's read: the count it took
      break;
    case S_IFBLK:
    case S_IFREG:
      if (!S_ISREG(st.st_mode) || !onMqueueFs(fd, st.st_dev)) return makeEntry(0, kOutput, 0);
      c.type = ChannelType::MessageQueue;  // named as it was opened ("/name")
      c.path = linkTarget(proc, path, sizeof path);
      flags |= kFlagStoreReceived;  // anyone may open it
      break;
    default:
      return makeEntry(0, kNotChannel, 0);
  }
  if (isExternal(c.dev, c.ino)) flags |= kFlagExternal | kFlagStoreReceived;
  c.external = flags & kFlagExternal;
  c.index = index ? index : g_process.channels.fetch_add(1, std::memory_order_relaxed) + 1;

  log::EventFields e;
  e.kind = Kind::Channel;
  e.channel_info = &c;
  e.flags = static_cast<uint32_t>(flags);  // read by commit() to set up the channel state
  commit(e);
  return makeEntry(c.index, kChannel, flags);
}

uint64_t lookupOrClassify(int fd, ChannelOrigin origin) {
  uint64_t e = load(fd);
  if (!e) {
    e = classify(fd, origin, 0, 0);
    if (e) store(fd, e);
  } else if (entryClass(e) == kChannel && (entryFlags(e) & kFlagPeerUnknown)) {
    // A socket whose peer was unknown when first seen: once it is known,
    // define the channel again. A few tries, then it stays unknown (a
    // listening socket, a peer that never accepts).
    ChannelState* cs = entryIndex(e) < g_process.channel_capacity ? &g_process.channel_table[entryIndex(e)] : nullptr;
    if (cs && cs->refresh_tries < 8) {
      ++cs->refresh_tries;
      sockaddr_storage peer{};
      socklen_t plen = sizeof(peer);
      struct stat st {};
      const bool connected =
          sys::raw(SYS_getpeername, fd, reinterpret_cast<long>(&peer), reinterpret_cast<long>(&plen)) == 0;
      const bool known =
          connected && (peer.ss_family != AF_UNIX || (sys::fstat(fd, &st) == 0 && unixPeerInode(st.st_ino)));
      if (known) {
        const uint64_t fresh = classify(fd, origin, entryIndex(e), 0);
        if (fresh) {
          store(fd, fresh);
          e = fresh;
        }
      }
    }
  }
  return e;
}

// Every descriptor open now but ours.
template <class Fn>
void forEachOpenDescriptor(Fn&& fn) {
  const long dir = sys::openat(AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (dir < 0) return;
  struct Dirent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
  };
  alignas(8) char buf[4096];
  for (;;) {
    const long n = sys::raw(SYS_getdents64, dir, reinterpret_cast<long>(buf), sizeof(buf));
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      const auto* d = reinterpret_cast<const Dirent64*>(buf + off);
      off += d->reclen;
      if (d->name[0] < '0' || d->name[0] > '9') continue;
      int fd = 0;
      for (const char* c = d->name; *c >= '0' && *c <= '9'; ++c) fd = fd * 10 + (*c - '0');
      if (fd == dir || isOwnFd(fd)) continue;
      fn(fd);
    }
  }
  sys::close(static_cast<int>(dir));
}

}  // namespace

size_t listOpenDescriptors(int32_t* out, size_t capacity) {
  size_t count = 0;
  forEachOpenDescriptor([&](int fd) {
    if (count < capacity) out[count] = fd;  // radar's own are left out (forEachOpenDescriptor)
    ++count;
  });
  return count;
}

void classifyOpenDescriptors(const int32_t* listed, size_t count) {
  // Listing /proc/self/fd costs every process image about as much as the
  // rest of its log's creation: the header's list serves when it is whole.
  if (listed) {
    for (size_t i = 0; i < count; ++i) lookupOrClassify(listed[i], ChannelOrigin::Inherited);
    return;
  }
  forEachOpenDescriptor([](int fd) { lookupOrClassify(fd, ChannelOrigin::Inherited); });
}

bool isChannel(int fd) { return entryClass(lookupOrClassify(fd, ChannelOrigin::Inherited)) == kChannel; }

// One look at the descriptor's class (isChannel() just classified it):
// a file's or device's write that wrote something is an OUTPUT (a failed or
// empty one is none: a re-run whose descriptor stands in for the file may
// fail where it did not); an eventfd from elsewhere is said.
ssize_t outputWritten(int fd, const Iov* iov, size_t count, uint64_t size, ssize_t r) {
  const uint64_t cls = entryClass(lookupOrClassify(fd, ChannelOrigin::Inherited));
  if (cls == kOutput && r > 0) {
    recordOutput(fd, iov, count, size, r);
  } else if (cls == kSharedEventFd) {
    const int saved_errno = errno;
    noteIfSharedEventFd(fd);
    errno = saved_errno;
  }
  return r;
}

void noteIfSharedEventFd(int fd) {
  if (__builtin_expect(entryClass(load(fd)) != kSharedEventFd, 1)) return;
  char detail[24] = "fd ";
  sys::formatDecimal(detail + 3, sizeof detail - 3, static_cast<unsigned>(fd));
  sayUnseen(log::Unseen::EventFd, detail);
}

// System V message queues have no descriptor: each queue id this image
// uses is a channel, defined on first use. A slot holds the image's log
// generation, the id and the channel's index; 64 queues per image are
// recorded (more are rare; their calls then go unrecorded).
namespace {
constexpr int kSysvQueues = 64;
std::atomic<uint64_t> g_sysv_queues[kSysvQueues];  // log_gen << 56 | id << 24 | index

uint64_t sysvSlot(uint32_t gen, int id, uint32_t index) {
  return uint64_t{gen & 0xFF} << 56 | uint64_t{static_cast<uint32_t>(id) & 0xFFFFFFFF} << 24 | (index & 0xFFFFFF);
}
// The CHANNEL record of System V queue `id`, under a new index.
uint32_t defineSysvQueue(int id) {
  ChannelFields c;
  c.fd = -1;
  c.origin = ChannelOrigin::Opened;
  c.type = ChannelType::SysvMessageQueue;
  c.ino = uint64_t{1} << 32 | static_cast<uint32_t>(id);
  char path[16];
  sys::formatDecimal(path, sizeof path, static_cast<unsigned>(id));
  c.path = path;
  c.index = g_process.channels.fetch_add(1, std::memory_order_relaxed) + 1;
  log::EventFields e;
  e.kind = Kind::Channel;
  e.channel_info = &c;
  commit(e);
  return c.index;
}
}  // namespace

uint32_t sysvQueueChannel(int id) {
  if (id < 0) return 0;
  const uint32_t gen = g_process.log_gen;
  const uint64_t mine = sysvSlot(gen, id, 0);
  uint32_t index = 0;  // ours, defined in the log before any slot names it
  for (int k = 0; k < kSysvQueues;) {
    uint64_t seen = g_sysv_queues[k].load(std::memory_order_acquire);
    if ((seen & ~uint64_t{0xFFFFFF}) == mine) return static_cast<uint32_t>(seen & 0xFFFFFF);
    if (seen && (seen >> 56) == (gen & 0xFF)) {  // another queue's, in this image
      ++k;
      continue;
    }
    if (!index) index = defineSysvQueue(id);
    // Lost to another thread (or a handler): look at the slot again.
    if (g_sysv_queues[k].compare_exchange_strong(seen, sysvSlot(gen, id, index), std::memory_order_acq_rel))
      return index;
  }
  return 0;
}

bool isOutputFile(int fd) { return entryClass(lookupOrClassify(fd, ChannelOrigin::Inherited)) == kOutput; }

bool isRandomDevice(int fd) { return entryClass(lookupOrClassify(fd, ChannelOrigin::Inherited)) == kRandom; }

bool isSignalFd(int fd) { return entryClass(lookupOrClassify(fd, ChannelOrigin::Inherited)) == kSignalFd; }

bool storesReceived(int fd) { return entryFlags(load(fd)) & kFlagStoreReceived; }

uint32_t channelOf(int fd) {
  const uint64_t e = load(fd);
  return entryClass(e) == kChannel ? entryIndex(e) : 0;
}

void onCreated(int fd, ChannelOrigin origin) {
  forget(fd);
  const uint64_t e = classify(fd, origin, 0, 0);
  if (e) store(fd, e);
}

void onPair(Kind kind, const int fds[2]) {
  struct stat a {
  }, b{};
  sys::fstat(fds[0], &a);
  sys::fstat(fds[1], &b);
  const bool sockets = kind == Kind::Socketpair;
  for (int i = 0; i < 2; ++i) {
    forget(fds[i]);
    const uint64_t peer = sockets ? (i == 0 ? b.st_ino : a.st_ino) : 0;
    const uint64_t e = classify(fds[i], ChannelOrigin::Created, 0, peer);
    if (e) store(fds[i], e);
  }
}

void onDup(int oldfd, int newfd) {
  if (oldfd == newfd) return;
  const uint64_t e = load(oldfd);
  if (e)
    store(newfd, e);
  else
    forget(newfd);
}

void onClose(int fd) { forget(fd); }

void forget(int fd) {
  if (std::atomic<uint64_t>* s = slotFor(fd, false)) s->store(0, std::memory_order_release);
}

uint64_t descriptorEntry(int fd) {
  std::atomic<uint64_t>* s = slotFor(fd, false);
  return s ? s->load(std::memory_order_acquire) : 0;
}

void forgetIfStill(int fd, uint64_t entry) {
  if (std::atomic<uint64_t>* s = slotFor(fd, false)) s->compare_exchange_strong(entry, 0, std::memory_order_acq_rel);
}

void refreshSocket(int fd) {
  const uint64_t e = load(fd);
  if (entryClass(e) != kChannel) {
    onCreated(fd, log::ChannelOrigin::Inherited);
    return;
  }
  const uint64_t fresh = classify(fd, ChannelOrigin::Created, entryIndex(e), 0);
  if (fresh) store(fd, fresh);
}

bool isOwnFd(int fd) {
  if (fd < 0) return false;
  return fd == g_process.writer.fd() || fd == g_process.netlink_fd;
}

int ownFds(int out[2]) {
  int n = 0;
  const int a = g_process.writer.fd(), b = g_process.netlink_fd;
  if (a >= 0) out[n++] = a;
  if (b >= 0) out[n++] = b;
  if (n == 2 && out[0] > out[1]) {
    out[0] = b;
    out[1] = a;
  }
  return n;
}

void onRangeClosed(unsigned first, unsigned last) {
  const int64_t t = monotonicNow();
  for (unsigned chunk = first >> kChunkBits; chunk < kChunks && chunk <= (last >> kChunkBits); ++chunk) {
    std::atomic<uint64_t>* c = __atomic_load_n(&g_chunks[chunk], __ATOMIC_ACQUIRE);
    if (!c) continue;
    for (int i = 0; i < kChunkSize; ++i) {
      const unsigned fd = (chunk << kChunkBits) | static_cast<unsigned>(i);
      if (fd < first || fd > last) continue;
      const uint64_t e = c[i].exchange(0, std::memory_order_acq_rel);
      if (!entryCurrent(e) || entryClass(e) != kChannel) continue;
      log::EventFields ev;
      ev.kind = Kind::Close;
      ev.fd = static_cast<int32_t>(fd);
      ev.channel = entryIndex(e);
      ev.entry_ns = ev.return_ns = t;
      commit(ev);
    }
  }
}

void evictOwnFd(int fd) {
  if (fd == g_process.netlink_fd) {
    sys::close(fd);
    g_process.netlink_fd = -1;
    return;
  }
  if (fd != g_process.writer.fd()) return;
  const int32_t owner = g_owner ? g_owner->pid : static_cast<int32_t>(sys::getpid());
  if (owner == 0) {
    // A child forked by other means than our hook, not yet on a log of its
    // own: the descriptor is its copy of its parent's log, and the writer's
    // lock may be held by a thread it does not have. The program's dup2
    // takes the number; the copy is forgotten, not closed later.
    g_process.writer.setFd(-1);
    return;
  }
  // A vfork child: its descriptors are its own, the writer its parent's.
  if (owner != static_cast<int32_t>(sys::getpid())) return;
  if (!lockWriter()) return;
  const long moved = sys::dupAtOrAbove(fd, g_process.fd_floor);
  if (moved >= 0) {
    g_process.writer.setFd(static_cast<int>(moved));
    sys::close(fd);
  }
  unlockWriter();
}

void resetChannelsForNewLog() {
  // Entries of the previous log become stale through log_gen; channel
  // indices start again.
  g_process.log_gen++;
  g_process.channels.store(0, std::memory_order_relaxed);
  g_process.unseen_said.store(0, std::memory_order_relaxed);
  if (g_process.channel_table)
    std::memset(g_process.channel_table, 0, g_process.channel_capacity * sizeof(ChannelState));
}

ChannelState* channelState(uint32_t index) {
  Process& p = g_process;
  if (index >= p.channel_capacity) {
    size_t want = p.channel_capacity ? p.channel_capacity : 256;
    while (want <= index) want *= 2;
    long m = sys::mmapAside(want * sizeof(ChannelState), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0 && m > -4096) return nullptr;
    auto* grown = reinterpret_cast<ChannelState*>(m);
    // The old table let go of only once the new one is in place: a fork by
    // another thread in between leaves its child a table it has.
    ChannelState* const old = p.channel_table;
    const size_t old_cap = p.channel_capacity;
    if (old) std::memcpy(grown, old, old_cap * sizeof(ChannelState));
    p.channel_table = grown;
    p.channel_capacity = want;
    if (old) sys::munmap(old, old_cap * sizeof(ChannelState));
  }
  return &p.channel_table[index];
}

}  // namespace radar::preload
