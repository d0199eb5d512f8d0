#include "fallback/uring.h"

#include <sys/syscall.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "fallback/events.h"
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
  if (transfer && (s.flags & IOSQE_CQE_SKIP_SUCCESS))
    return *why = "a request with no completion when it succeeds", Meaning::Unseen;
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
  switch (call.entry.nr) {
    case SYS_io_uring_setup:
      if (call.result >= 0) setUp(image, tid, call);
      return;
    case SYS_mmap:
      if (call.result >= 0 || call.result < -4095) mapped(call);
      return;
    case SYS_io_uring_enter:
      if (Ring* ring = entered(image, call)) {
        takeSubmissions(image, *ring, tid, call);
        completeRing(image, *ring, tid, now_ns);
      }
      return;
    case SYS_close:
      if (call.result == 0 && rings_.count(static_cast<int>(call.entry.args[0]))) {
        in_flight_ -= rings_[static_cast<int>(call.entry.args[0])].pending.size();
        rings_.erase(static_cast<int>(call.entry.args[0]));
      }
      return;
    default:
      return;
  }
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
    take(image, ring, r);
    if (!ring.followed) return;
  }
  ring.sq_head = head;
}

void Rings::take(TracedImage& image, Ring& ring, const Request& r) {
  SyscallRegs regs;
  std::string why;
  if (asCall(r.sqe, &regs, &why) == Meaning::Unseen) return lose(image, ring, why);
  const auto same = ring.pending.equal_range(r.sqe.user_data);
  for (auto it = same.first; it != same.second; ++it)
    if (!sameRequest(it->second.sqe, r.sqe)) return lose(image, ring, "requests in flight with one user_data");
  auto taken = ring.pending.emplace(r.sqe.user_data, r);
  if (r.sqe.opcode == IORING_OP_READV || r.sqe.opcode == IORING_OP_WRITEV)
    taken->second.iov = readIovecs(r.tid, r.sqe.addr, r.sqe.len);
  ++in_flight_;
}

void Rings::complete(TracedImage& image, pid_t tid, int64_t now_ns) {
  for (auto& [fd, ring] : rings_)
    if (ring.followed && !ring.pending.empty()) completeRing(image, ring, tid, now_ns);
}

// The completions posted since the last look, each recorded as its
// request's call; read from the ring's memory, where they stay until the
// kernel reuses their slots.
void Rings::completeRing(TracedImage& image, Ring& ring, pid_t tid, int64_t now_ns) {
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
    if (it == ring.pending.end()) continue;  // a request radar did not see submitted
    const Request r = it->second;
    if (!(cqe.flags & IORING_CQE_F_MORE)) {  // (a multishot request stays)
      ring.pending.erase(it);
      --in_flight_;
    }
    record(image, r, cqe, now_ns);
  }
}

void Rings::record(TracedImage& image, const Request& r, const struct io_uring_cqe& cqe, int64_t now_ns) {
  CallSeen call;
  std::string why;
  if (asCall(r.sqe, &call.entry, &why) != Meaning::Recorded) return;
  call.entry.stop = SyscallRegs::Exit;
  call.result = cqe.res;
  call.entry_ns = r.submitted_ns;
  call.return_ns = now_ns;
  if (r.sqe.opcode != IORING_OP_READV && r.sqe.opcode != IORING_OP_WRITEV) return recordCall(image, r.tid, call);
  // As the readv or writev it stands for (syscalls.cc), with its vector as submitted.
  Transfer t{r.sqe.opcode == IORING_OP_READV ? log::Kind::Readv : log::Kind::Writev, r.sqe.fd, r.iov};
  for (const struct iovec& v : r.iov) t.size += v.iov_len;
  t.moved = cqe.res > 0 ? std::min<uint64_t>(static_cast<uint64_t>(cqe.res), t.size) : 0;
  recordTransfer(image, r.tid, call, t);
}

void Rings::lose(TracedImage& image, Ring& ring, const std::string& why) {
  if (ring.followed) image.sayUnseen(log::Unseen::IoUring, why);
  ring.followed = false;
  in_flight_ -= ring.pending.size();
  ring.pending.clear();
}

}  // namespace radar::fallback
