#include "fallback/uring.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "fallback/image.h"
#include "fallback/remote.h"
#include "fallback/syscalls.h"

namespace radar::fallback {
namespace {

// Newer than the kernel headers radar is built with.
constexpr uint32_t kSetupNoMmap = 1u << 14;            // IORING_SETUP_NO_MMAP: the program's memory
constexpr uint32_t kSetupRegisteredFdOnly = 1u << 15;  // IORING_SETUP_REGISTERED_FD_ONLY
constexpr uint32_t kSetupNoSqArray = 1u << 16;         // IORING_SETUP_NO_SQARRAY
constexpr uint32_t kEnterRegisteredRing = 1u << 4;     // IORING_ENTER_REGISTERED_RING
constexpr uint32_t kCqeNotification = 1u << 3;         // IORING_CQE_F_NOTIF
constexpr uint32_t kKnownSetupFlags = (1u << 17) - 1;  // IOPOLL .. NO_SQARRAY: layouts radar reads
constexpr uint32_t kRegisterResizeRings = 33;          // IORING_REGISTER_RESIZE_RINGS
constexpr uint32_t kRegisterByIndex = 1u << 31;        // IORING_REGISTER_USE_REGISTERED_RING

// What a request is to the recorder.
enum class Meaning {
  Recorded,  // the system call it stands for is recorded
  Ignored,   // nothing radar records (a timeout, a file's metadata ...)
  Unseen,    // it may move a channel's bytes in a way radar does not translate
};

bool isOneOf(uint8_t op, std::initializer_list<int> ops) { return std::find(ops.begin(), ops.end(), op) != ops.end(); }

// The system call a request stands for, in `regs` (its number and arguments
// as the syscall decoders read them); `why` when it is unseen.
Meaning asCall(const struct io_uring_sqe& s, SyscallRegs* regs, std::string* why) {
  const uint64_t fd = static_cast<uint64_t>(static_cast<int64_t>(s.fd));
  auto call = [&](long nr, std::initializer_list<uint64_t> args) {
    regs->nr = nr;
    std::copy(args.begin(), args.end(), regs->args);
    return Meaning::Recorded;
  };
  const bool transfer =
      isOneOf(s.opcode, {IORING_OP_READ, IORING_OP_READ_FIXED, IORING_OP_WRITE, IORING_OP_WRITE_FIXED, IORING_OP_READV,
                         IORING_OP_WRITEV, IORING_OP_SEND, IORING_OP_RECV, IORING_OP_SENDMSG, IORING_OP_RECVMSG,
                         IORING_OP_ACCEPT, IORING_OP_CONNECT, IORING_OP_SHUTDOWN, IORING_OP_EPOLL_CTL});
  if (transfer && (s.flags & IOSQE_FIXED_FILE)) return *why = "a request on a registered file", Meaning::Unseen;
  if (transfer && (s.flags & IOSQE_BUFFER_SELECT)) return *why = "a buffer the kernel chooses", Meaning::Unseen;
  const bool message = isOneOf(s.opcode, {IORING_OP_SEND, IORING_OP_RECV, IORING_OP_SENDMSG, IORING_OP_RECVMSG});
  if (message && (s.ioprio & ~IORING_RECVSEND_POLL_FIRST))
    return *why = "a send or receive with flags radar does not translate", Meaning::Unseen;
  switch (s.opcode) {
    case IORING_OP_READ:
    case IORING_OP_READ_FIXED:
      return call(SYS_read, {fd, s.addr, s.len});
    case IORING_OP_WRITE:
    case IORING_OP_WRITE_FIXED:
      return call(SYS_write, {fd, s.addr, s.len});
    case IORING_OP_READV:
      return call(SYS_readv, {fd, s.addr, s.len});
    case IORING_OP_WRITEV:
      return call(SYS_writev, {fd, s.addr, s.len});
    case IORING_OP_SEND:
      return call(SYS_sendto, {fd, s.addr, s.len, s.msg_flags, s.addr2, s.addr2 ? s.addr_len : 0u});
    case IORING_OP_RECV:
      return call(SYS_recvfrom, {fd, s.addr, s.len, s.msg_flags, 0, 0});
    case IORING_OP_SENDMSG:
      return call(SYS_sendmsg, {fd, s.addr, s.msg_flags});
    case IORING_OP_RECVMSG:
      return call(SYS_recvmsg, {fd, s.addr, s.msg_flags});
    case IORING_OP_ACCEPT:
      if (s.file_index) return *why = "an accept into a registered file", Meaning::Unseen;
      return call(SYS_accept4, {fd, s.addr, s.addr2, s.accept_flags});
    case IORING_OP_CONNECT:
      return call(SYS_connect, {fd, s.addr, s.off});
    case IORING_OP_SHUTDOWN:
      return call(SYS_shutdown, {fd, s.len});
    case IORING_OP_EPOLL_CTL:
      return call(SYS_epoll_ctl, {fd, s.len, s.off, s.addr});
    case IORING_OP_CLOSE:
      return s.file_index ? Meaning::Ignored : call(SYS_close, {fd});
    case IORING_OP_OPENAT:
    case IORING_OP_OPENAT2:
      return s.file_index ? Meaning::Ignored : call(SYS_openat, {fd, s.addr, s.open_flags});
    case IORING_OP_SOCKET:
      return s.file_index ? Meaning::Ignored : call(SYS_socket, {fd, s.off, s.len});
    case IORING_OP_SPLICE:
      return *why = "a splice", Meaning::Unseen;
    case IORING_OP_TEE:
      return *why = "a tee", Meaning::Unseen;
    case IORING_OP_SEND_ZC:
    case IORING_OP_SENDMSG_ZC:
      return *why = "a zero-copy send", Meaning::Unseen;
    case IORING_OP_URING_CMD:
      return *why = "a command to a device or socket", Meaning::Unseen;
    case IORING_OP_MSG_RING:
      return *why = "a message to another ring", Meaning::Unseen;
    default:
      if (s.opcode < IORING_OP_LAST) return Meaning::Ignored;
  }
  *why = "operation " + std::to_string(s.opcode) + ", newer than radar";
  return Meaning::Unseen;
}

// What the kernel copies from the program's memory when it takes a request
// of `regs`' call, as the decoders will read it: a vector, a message's
// header with its vector, name and control, an address, an epoll event.
std::vector<MemoryCopy> copiedAtSubmission(pid_t tid, const SyscallRegs& regs) {
  std::vector<MemoryCopy> out;
  auto copy = [&](uint64_t address, uint64_t len) {
    if (address && len) out.push_back({address, readBytes(tid, address, std::min<uint64_t>(len, 1 << 16))});
  };
  const uint64_t* a = regs.args;
  switch (regs.nr) {
    case SYS_readv:
    case SYS_writev:
      copy(a[1], std::min<uint64_t>(a[2], 1024) * sizeof(struct iovec));
      break;
    case SYS_sendmsg: {
      struct msghdr m {};
      if (readMemory(tid, a[1], &m, sizeof m) != sizeof m) break;
      copy(a[1], sizeof m);
      copy(reinterpret_cast<uint64_t>(m.msg_iov), std::min<uint64_t>(m.msg_iovlen, 1024) * sizeof(struct iovec));
      copy(reinterpret_cast<uint64_t>(m.msg_name), m.msg_namelen);
      copy(reinterpret_cast<uint64_t>(m.msg_control), m.msg_controllen);
      break;
    }
    case SYS_sendto:
    case SYS_connect:
      copy(regs.nr == SYS_sendto ? a[4] : a[1], regs.nr == SYS_sendto ? a[5] : a[2]);
      break;
    case SYS_epoll_ctl:
      copy(a[3], sizeof(struct epoll_event));
      break;
    default:
      break;
  }
  return out;
}

// Two requests in flight with one user_data can be told apart only when
// they are the same request.
bool sameRequest(const struct io_uring_sqe& a, const struct io_uring_sqe& b) {
  return a.opcode == b.opcode && a.fd == b.fd && a.addr == b.addr && a.len == b.len;
}

uint32_t readU32(pid_t tid, uint64_t address, bool* ok) {
  uint32_t v = 0;
  *ok = *ok && readMemory(tid, address, &v, sizeof v) == sizeof v;
  return v;
}

}  // namespace

void Rings::onCallDone(TracedImage& image, pid_t tid, const CallSeen& call, int64_t now_ns) {
  const uint64_t* a = call.entry.args;
  switch (call.entry.nr) {
    case SYS_io_uring_setup:
      if (call.result >= 0) setUp(image, tid, call);
      return;
    case SYS_mmap:
      if (call.result >= 0) mapped(call);
      return;
    case SYS_io_uring_enter:
      if (Ring* ring = entered(image, call)) {
        takeSubmissions(image, *ring, tid, call);
        if (ring->followed) completeRing(image, *ring, tid, now_ns, true);
      }
      return;
    case SYS_io_uring_register:
      if ((a[1] & ~uint64_t{kRegisterByIndex}) == kRegisterResizeRings && call.result == 0)
        for (auto& [fd, ring] : rings_) lose(image, ring, "a ring resized");
      return;
    case SYS_close:
      if (call.result == 0) closed(image, static_cast<int>(a[0]));
      return;
    case SYS_close_range:
      if (call.result == 0 && !(a[2] & 4))  // (CLOSE_RANGE_CLOEXEC closes nothing now)
        for (auto it = rings_.lower_bound(static_cast<int>(std::min<uint64_t>(a[0], INT32_MAX)));
             it != rings_.end() && static_cast<uint64_t>(it->first) <= a[1];)
          closed(image, (it++)->first);
      return;
    case SYS_dup2:
    case SYS_dup3:
      if (call.result >= 0 && a[0] != a[1]) closed(image, static_cast<int>(a[1]));
      return;
    default:
      return;
  }
}

// A ring's descriptor closed. The ring lives on while it is mapped (and a
// program may go on entering it by a registered index): requests still
// in flight are no longer followed, and said so.
void Rings::closed(TracedImage& image, int fd) {
  auto it = rings_.find(fd);
  if (it == rings_.end()) return;
  if (!it->second.pending.empty()) lose(image, it->second, "a ring whose descriptor was closed while in use");
  rings_.erase(it);
}

void Rings::forked(TracedImage& image) {
  for (auto& [fd, ring] : rings_) lose(image, ring, "a ring shared with a child it forked");
}

void Rings::setUp(TracedImage& image, pid_t tid, const CallSeen& call) {
  const int fd = static_cast<int>(call.result);
  Ring& ring = rings_[fd];
  in_flight_ -= ring.pending.size();  // (a number used again: what it was is gone)
  ring = Ring{};
  if (readMemory(tid, call.entry.args[1], &ring.params, sizeof ring.params) != sizeof ring.params)
    return lose(image, ring, "its parameters could not be read");
  const uint32_t flags = ring.params.flags;
  if (flags & IORING_SETUP_SQPOLL) return lose(image, ring, "a ring the kernel polls");
  if (flags & ~kKnownSetupFlags) return lose(image, ring, "a ring set up with flags newer than radar");
  if (flags & kSetupRegisteredFdOnly) return lose(image, ring, "a ring known only by a registered index");
  if (flags & kSetupNoMmap) {  // the program's own memory: the rings in one area, the entries in another
    ring.sq_ring = ring.cq_ring = ring.params.cq_off.resv2;
    ring.sqes = ring.params.sq_off.resv2;
  }
}

void Rings::mapped(const CallSeen& call) {
  auto it = rings_.find(static_cast<int>(call.entry.args[4]));
  if (it == rings_.end()) return;
  Ring& ring = it->second;
  const uint64_t at = static_cast<uint64_t>(call.result);
  switch (call.entry.args[5]) {
    case IORING_OFF_SQ_RING:
      ring.sq_ring = at;
      if (ring.params.features & IORING_FEAT_SINGLE_MMAP) ring.cq_ring = at;
      return;
    case IORING_OFF_CQ_RING:
      ring.cq_ring = at;
      return;
    case IORING_OFF_SQES:
      ring.sqes = at;
      return;
    default:
      return;
  }
}

// The ring an io_uring_enter names, if it is followed.
Rings::Ring* Rings::entered(TracedImage& image, const CallSeen& call) {
  if (call.entry.args[3] & kEnterRegisteredRing) {
    // By its registered index: the process's only ring, or none known.
    if (rings_.size() == 1) return rings_.begin()->second.followed ? &rings_.begin()->second : nullptr;
    for (auto& [fd, ring] : rings_) lose(image, ring, "a ring entered by a registered index");
    if (rings_.empty()) image.sayUnseen(log::Unseen::IoUring, "a ring entered by a registered index");
    return nullptr;
  }
  auto it = rings_.find(static_cast<int>(call.entry.args[0]));
  if (it == rings_.end()) {
    // Made before radar followed this image (inherited, or before an attach).
    Ring& ring = rings_[static_cast<int>(call.entry.args[0])];
    lose(image, ring, "a ring made before radar followed the process");
    return nullptr;
  }
  return it->second.followed ? &it->second : nullptr;
}

// The requests the kernel took from the submission queue since the last
// look: between the head radar saw then and the kernel's head now.
void Rings::takeSubmissions(TracedImage& image, Ring& ring, pid_t tid, const CallSeen& call) {
  if (!ring.sq_ring || !ring.sqes) return lose(image, ring, "a ring not mapped where radar could see it");
  const struct io_sqring_offsets& sq = ring.params.sq_off;
  bool ok = true;
  const uint32_t head = readU32(tid, ring.sq_ring + sq.head, &ok);
  const uint32_t taken = head - ring.sq_head, entries = ring.params.sq_entries;
  if (!ok || taken > entries || !entries) return lose(image, ring, "its submission queue could not be read");
  const size_t sqe_size = ring.params.flags & IORING_SETUP_SQE128 ? 128 : 64;
  for (uint32_t i = ring.sq_head; i != head; ++i) {
    const uint32_t slot = i & (entries - 1);
    uint32_t index = slot;
    if (!(ring.params.flags & kSetupNoSqArray)) index = readU32(tid, ring.sq_ring + sq.array + 4 * slot, &ok);
    Request r{};
    r.tid = tid;
    r.submitted_ns = call.entry_ns;
    if (!ok || index >= entries || readMemory(tid, ring.sqes + index * sqe_size, &r.sqe, sizeof r.sqe) != sizeof r.sqe)
      return lose(image, ring, "its submission queue could not be read");
    take(image, ring, std::move(r));
    if (!ring.followed) return;
  }
  ring.sq_head = head;
}

void Rings::take(TracedImage& image, Ring& ring, Request r) {
  SyscallRegs regs;
  std::string why;
  const Meaning meaning = asCall(r.sqe, &regs, &why);
  if (meaning == Meaning::Unseen) return lose(image, ring, why);
  if (r.sqe.flags & IOSQE_CQE_SKIP_SUCCESS) {  // no completion to wait for, if it succeeds
    if (meaning == Meaning::Recorded) lose(image, ring, "a request with no completion when it succeeds");
    return;
  }
  const auto same = ring.pending.equal_range(r.sqe.user_data);
  for (auto it = same.first; it != same.second; ++it)
    if (!sameRequest(it->second.sqe, r.sqe)) return lose(image, ring, "requests in flight with one user_data");
  if (meaning == Meaning::Recorded) r.copied = copiedAtSubmission(r.tid, regs);
  ring.pending.emplace(r.sqe.user_data, std::move(r));
  ++in_flight_;
}

void Rings::complete(TracedImage& image, pid_t tid, int64_t now_ns) {
  for (auto& [fd, ring] : rings_)
    if (ring.followed && !ring.pending.empty()) completeRing(image, ring, tid, now_ns, false);
}

// The completions posted since the last look, each recorded as its
// request's call; read from the ring's memory, where they stay until the
// kernel reuses their slots. One whose request was not seen taken is
// skipped at an io_uring_enter's exit (nothing radar followed submitted
// it), and waited for at any other look.
void Rings::completeRing(TracedImage& image, Ring& ring, pid_t tid, int64_t now_ns, bool at_enter) {
  if (!ring.cq_ring) return lose(image, ring, "a ring not mapped where radar could see it");
  const struct io_cqring_offsets& cq = ring.params.cq_off;
  bool ok = true;
  const uint32_t tail = readU32(tid, ring.cq_ring + cq.tail, &ok), entries = ring.params.cq_entries;
  if (!ok) return;  // unmapped: the program is done with it
  if (tail - ring.cq_tail > entries || !entries)
    return lose(image, ring, "more completions between two looks than the ring holds");
  const size_t cqe_size = ring.params.flags & IORING_SETUP_CQE32 ? 32 : 16;
  for (; ring.cq_tail != tail; ++ring.cq_tail) {
    struct io_uring_cqe cqe {};
    const uint64_t at = ring.cq_ring + cq.cqes + (ring.cq_tail & (entries - 1)) * cqe_size;
    if (readMemory(tid, at, &cqe, sizeof cqe) != sizeof cqe) return lose(image, ring, "a completion could not be read");
    if (cqe.flags & kCqeNotification) continue;  // a zero-copy send's buffer given back
    auto it = ring.pending.find(cqe.user_data);
    if (it == ring.pending.end()) {
      if (at_enter) continue;
      return;
    }
    Request r = it->second;
    if (!(cqe.flags & IORING_CQE_F_MORE)) {  // (a multishot request stays)
      ring.pending.erase(it);
      --in_flight_;
    }
    record(image, tid, r, cqe, now_ns);
  }
}

// A request recorded as the call it stands for, read as the kernel saw its
// arguments, and told as its submitting thread's (read through the
// stopped thread when that one has ended since).
void Rings::record(TracedImage& image, pid_t tid, const Request& r, const struct io_uring_cqe& cqe, int64_t now_ns) {
  CallSeen call;
  std::string why;
  if (asCall(r.sqe, &call.entry, &why) != Meaning::Recorded) return;
  call.entry.stop = SyscallRegs::Exit;
  call.result = cqe.res;
  call.entry_ns = r.submitted_ns;
  call.return_ns = now_ns;
  const bool submitter_here = ::syscall(SYS_tgkill, image.pid(), r.tid, 0) == 0;
  const MemoryAsItWas as_submitted(r.copied);
  recordCall(image, submitter_here ? r.tid : tid, call);
}

void Rings::lose(TracedImage& image, Ring& ring, const std::string& why) {
  if (ring.followed) image.sayUnseen(log::Unseen::IoUring, why);
  ring.followed = false;
  in_flight_ -= ring.pending.size();
  ring.pending.clear();
}

}  // namespace radar::fallback
