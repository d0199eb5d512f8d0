// Rules for this file: it runs inside recorded programs.
//   * no malloc/new, no stdio, no exceptions, no C++ runtime: only raw system
//     calls (sys.h) and memory mapped in open();
//   * a record becomes visible only when its length is stored, and the first
//     length byte is stored last: a process killed half-way leaves a zero
//     byte, which readers take as the end of the tail.
#define ZSTD_STATIC_LINKING_ONLY
#include "log/writer.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "log/sys.h"
#include "log/xxhash64.h"

#include "log/injected.h"  // last: compiled into the interposer too

namespace radar::log {
namespace {

constexpr size_t kRawBlockMax = 128 * 1024;  // zstd's largest block
constexpr uint32_t kPageSize = 4096;

void* mapAnonymous(size_t len) {
  long p = sys::mmapAside(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p < 0 && p > -4096 ? nullptr : reinterpret_cast<void*>(p);
}

void barrier() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Stores a record's length in front of its already-written body, first byte
// last (see the rules above). What must hold is the order in which the
// stores reach memory, as seen after the process dies: release fences give
// it (on x86, whose stores are never reordered, they only stop the compiler).
void publishLength(uint8_t* at, uint64_t len) {
  uint8_t bytes[10];
  uint8_t* end = wire::putVarint(bytes, len);
  size_t n = static_cast<size_t>(end - bytes);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  for (size_t i = n; i-- > 1;) at[i] = bytes[i];
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(at, bytes[0], __ATOMIC_RELEASE);
}

// Zeros written over [off, off + len) of the log: its blocks reserved as
// fallocate would (a full disk says so here, not as SIGBUS at a store into
// the mapping, on file systems that delay allocation or write in place:
// ext4, XFS, tmpfs), and the pages put in the page cache, so that a store
// into them faults with nothing to read; the file system allocates the
// blocks when it writes the pages back, or never, for those given back at
// close. 0 or -errno.
long writeZeros(int fd, uint64_t off, uint64_t len) {
  static const uint8_t zeros[kPageSize] = {};
  struct iovec iov[16];
  for (struct iovec& v : iov) v = {const_cast<uint8_t*>(zeros), sizeof(zeros)};
  while (len) {
    const uint64_t chunk = len < sizeof(iov) / sizeof(iov[0]) * kPageSize ? len : 16 * kPageSize;
    const int count = static_cast<int>((chunk + kPageSize - 1) / kPageSize);
    iov[count - 1].iov_len = chunk - uint64_t{kPageSize} * (count - 1);
    const long w = sys::pwritev(fd, iov, count, off);
    iov[count - 1].iov_len = kPageSize;
    if (w == -EINTR) continue;
    if (w <= 0) return w < 0 ? w : -ENOSPC;
    off += static_cast<uint64_t>(w);
    len -= static_cast<uint64_t>(w);
  }
  return 0;
}

// The new log file at its full size (`total` mapped, and `slot` more), its
// first `first` bytes written (reserved), mapped: the mapping's address, or
// -errno. Blocks behind the tail are reserved as the tail fills
// (reserve()): a store into a mapped page that the file system cannot back
// would be SIGBUS in the program.
long sizeAndMap(int fd, size_t total, size_t slot, size_t first) {
  long r = sys::ftruncate(fd, total + slot);
  if (r == 0) r = writeZeros(fd, 0, first);
  if (r < 0) return r;
  const long m = sys::mmapAside(total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m < 0 && m > -4096) return m;
  // The tail is written a page at a time, never read first: a fault must
  // not read ahead pages a short-lived process never comes to.
  sys::madvise(reinterpret_cast<void*>(m), total, MADV_RANDOM);
  return m;
}

}  // namespace

int LogWriter::open(const char* path, const HeaderFields& header, const WriterOptions& options, int given_fd) {
  size_t path_len = std::strlen(path);
  if (path_len >= sizeof(path_)) {
    if (given_fd >= 0) sys::close(given_fd);
    return -ENAMETOOLONG;
  }
  std::memcpy(path_, path, path_len + 1);

  uint32_t cap = options.tail_capacity;
  if (cap < kMinTailCapacity) cap = kMinTailCapacity;
  if (cap > kMaxTailCapacity) cap = kMaxTailCapacity;
  cap = (cap + kPageSize - 1) / kPageSize * kPageSize;
  const size_t total = kControlSize + cap;
  const size_t slot = options.flight ? kFlightSlot : 0;

  // Growing the file past RLIMIT_FSIZE would raise SIGXFSZ in the program.
  struct rlimit64 lim {};
  if (sys::prlimit(0, RLIMIT_FSIZE, nullptr, &lim) == 0 && lim.rlim_cur != RLIM64_INFINITY &&
      lim.rlim_cur < total + slot) {
    if (given_fd >= 0) sys::close(given_fd);
    return -EFBIG;
  }

  long fd = given_fd >= 0 ? given_fd : sys::openat(AT_FDCWD, path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return static_cast<int>(fd);
  if (options.fd_floor > 0) {
    long moved = sys::dupAtOrAbove(static_cast<int>(fd), options.fd_floor);
    sys::close(static_cast<int>(fd));
    if (moved < 0) return static_cast<int>(moved);
    fd = moved;
  }
  const size_t first = kControlSize + (cap < kFirstReserve ? cap : kFirstReserve);
  const long m = sizeAndMap(static_cast<int>(fd), total, slot, first);
  if (m < 0) {
    sys::close(static_cast<int>(fd));
    return static_cast<int>(m);
  }
  struct stat st {};
  sys::fstat(static_cast<int>(fd), &st);

  fd_ = static_cast<int>(fd);
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  map_ = reinterpret_cast<uint8_t*>(m);
  map_len_ = total;
  tail_ = map_ + kControlSize;
  tail_capacity_ = cap;
  tail_used_ = 0;
  tail_reserved_ = static_cast<uint32_t>(first - kControlSize);
  file_end_ = total + slot;
  if (slot) {
    uint8_t skip[8];
    wire::storeLE32(skip, kFlightMagicFrame);
    wire::storeLE32(skip + 4, static_cast<uint32_t>(slot - 8));
    if (sys::pwrite(static_cast<int>(fd), skip, sizeof(skip), total) != sizeof(skip)) {
      sys::munmap(reinterpret_cast<void*>(m), total);
      sys::close(static_cast<int>(fd));
      return -EIO;
    }
  }
  level_ = options.compression_level;
  big_record_ = options.big_record ? options.big_record : cap / 8;
  if (big_record_ > cap / 4) big_record_ = cap / 4;
  cctx_ = nullptr;  // made at the first flush that compresses
  pid_ = header.pid;
  next_counter_ = 1;
  write_failed_ = false;
  lost_events_ = lost_from_ = 0;
  lost_errno_ = 0;

  wire::storeLE32(map_, kFileMagicFrame);
  wire::storeLE32(map_ + 4, static_cast<uint32_t>(total - 8));
  control_ = reinterpret_cast<FileControl*>(map_ + 8);
  std::memcpy(control_->magic, kFileMagic, sizeof(kFileMagic));
  control_->format_major = kFormatMajor;
  control_->format_minor = kFormatMinor;
  control_->tail_capacity = cap;
  control_->thread_slot_count = kThreadSlots;
  startFrame();
  __atomic_store_n(&control_->tail_first_counter, next_counter_, __ATOMIC_RELEASE);

  EventFields e;
  e.kind = Kind::Header;
  e.header = &header;
  append(e);
  return 0;
}

void LogWriter::startFrame() {
  ++frame_;
  counter_in_frame_ = false;
  prev_tid_ = static_cast<uint32_t>(pid_);
  prev_return_ns_ = 0;
}

bool LogWriter::reserve(size_t end) {
  if (end <= tail_reserved_) return true;
  if (end > tail_capacity_) return false;
  size_t want = tail_reserved_ + kReserveStep;
  while (want < end) want += kReserveStep;
  if (want > tail_capacity_) want = tail_capacity_;
  // Written into only if it is still our file, and never past
  // RLIMIT_FSIZE (a write there is SIGXFSZ, even inside the file's size).
  struct rlimit64 lim {};
  int rc = checkFd();
  if (!rc && sys::prlimit(0, RLIMIT_FSIZE, nullptr, &lim) == 0 && lim.rlim_cur != RLIM64_INFINITY &&
      kControlSize + want > lim.rlim_cur)
    rc = -EFBIG;
  if (!rc) rc = static_cast<int>(writeZeros(fd_, kControlSize + tail_reserved_, want - tail_reserved_));
  if (rc) {
    write_failed_ = true;
    if (!lost_errno_) lost_errno_ = -rc;
    return false;
  }
  tail_reserved_ = static_cast<uint32_t>(want);
  return true;
}

bool LogWriter::makeCompressor() {
  if (cctx_) return true;
  const ZSTD_compressionParameters params = ZSTD_getCParams(level_, tail_capacity_, 0);
  const size_t cctx_len = ZSTD_estimateCStreamSize_usingCParams(params);
  const size_t out_cap = ZSTD_compressBound(tail_capacity_);
  void* mem = mapAnonymous(cctx_len);
  void* out = mapAnonymous(out_cap);
  ZSTD_CCtx* cctx = mem ? ZSTD_initStaticCCtx(mem, cctx_len) : nullptr;
  if (!cctx || !out) {
    if (mem) sys::munmap(mem, cctx_len);
    if (out) sys::munmap(out, out_cap);
    return false;
  }
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  cctx_ = cctx;
  cctx_mem_ = mem;
  cctx_mem_len_ = cctx_len;
  out_ = static_cast<uint8_t*>(out);
  out_cap_ = out_cap;
  return true;
}

LogWriter::ChannelState* LogWriter::channelState(uint32_t index) {
  if (index >= channel_cap_) {
    size_t want = channel_cap_ ? channel_cap_ : 1024;
    while (want <= index) want *= 2;
    auto* grown = static_cast<ChannelState*>(mapAnonymous(want * sizeof(ChannelState)));
    if (!grown) return nullptr;
    // The old table let go of only once the new one is in place: a fork by
    // another thread in between leaves its child a table it has.
    ChannelState* const old = channels_;
    const size_t old_cap = channel_cap_;
    if (old) std::memcpy(grown, old, old_cap * sizeof(ChannelState));
    channels_ = grown;
    channel_cap_ = want;
    if (old) sys::munmap(old, old_cap * sizeof(ChannelState));
  }
  return &channels_[index];
}

Explicit LogWriter::decide(const EventFields& e, uint64_t counter) const {
  Explicit x;
  if (!isCounted(e.kind)) return x;  // annotations carry no counter, thread or times
  x.counter = !counter_in_frame_;
  x.counter_value = counter;
  x.tid_value = e.tid ? e.tid : static_cast<uint32_t>(pid_);
  x.tid = x.tid_value != prev_tid_;
  x.entry_delta_ns = e.entry_ns - prev_return_ns_;
  if (e.has_offset && e.channel) {
    const int dir = categoryOf(e.kind) == Category::Send ? 0 : 1;
    const ChannelState* cs = e.channel < channel_cap_ ? &channels_[e.channel] : nullptr;
    x.offset = !cs || cs->frame[dir] != frame_ || cs->next_offset[dir] != e.offset;
  }
  if (isSyncKind(e.kind)) x.offset = e.has_offset;  // the object's number
  return x;
}

void LogWriter::advance(const EventFields& e, uint64_t counter) {
  if (!isCounted(e.kind)) return;
  counter_in_frame_ = true;
  prev_tid_ = e.tid ? e.tid : static_cast<uint32_t>(pid_);
  prev_return_ns_ = e.return_ns;
  if (e.has_offset && e.channel) {
    if (ChannelState* cs = channelState(e.channel)) {
      const int dir = categoryOf(e.kind) == Category::Send ? 0 : 1;
      cs->frame[dir] = frame_;
      cs->next_offset[dir] = e.offset + bytesMoved(e.kind, e.result, e.flags, e.lengths, e.length_count);
    }
  }
  __atomic_store_n(&control_->last_counter, counter, __ATOMIC_RELAXED);
}

// Most records are plain events (a send, a receive, a lock): encoded in one
// pass, straight into the tail, after one byte left for the length, which is
// all most records need (a longer one moves the fields up: nothing is left
// behind the record, where the next one's length goes and zero means "end").
bool LogWriter::appendSimple(const EventFields& e, uint64_t counter) {
  constexpr size_t kLongestLength = 4;  // varint of a body below 256 MiB
  const size_t worst = kLongestLength + 232 + e.address_len + e.payload_len;
  if (tail_used_ + worst > tail_capacity_ || worst > big_record_) return false;
  if (!reserve(tail_used_ + worst)) return false;
  const Explicit x = decide(e, counter);
  uint8_t* at = tail_ + tail_used_;
  wire::BufferSink sink{at + 1};
  encodeEventPrefix(sink, e, x);
  const size_t prefix = static_cast<size_t>(sink.p - (at + 1));
  const size_t body = prefix + e.payload_len;
  const size_t len_size = wire::varintSize(body);
  if (len_size != 1) std::memmove(at + len_size, at + 1, prefix);
  gatherPayload(at + len_size + prefix, e.payload, e.payload_iov_count, e.payload_len);
  publishLength(at, body);
  tail_used_ += static_cast<uint32_t>(len_size + body);
  RADAR_INJECTED_CHECK(tail_used_ <= tail_capacity_);
  return true;
}

uint64_t LogWriter::append(const EventFields& e) {
  if (!control_) return 0;
  const bool counted = isCounted(e.kind);
  const uint64_t counter = counted ? next_counter_ : 0;
  if (lost_events_) {
    // Once one event is lost, the rest is too: a log is always a prefix of
    // what happened, and the control block says where it ends.
    markLost(lost_errno_, counter);
    if (counted) ++next_counter_;
    return 0;
  }
  const bool simple =
      counted && !e.fd_count && !e.string_count && !e.ready_count && !e.length_count && !e.header && !e.channel_info;
  if (simple && appendSimple(e, counter)) {
    advance(e, counter);
    ++next_counter_;
    return counter;
  }
  if (!counted && (e.entry_ns || e.return_ns)) {
    EventFields annotation = e;  // annotations carry no times
    annotation.entry_ns = annotation.return_ns = 0;
    return appendGeneral(annotation, counter);
  }
  return appendGeneral(e, counter);
}

uint64_t LogWriter::appendGeneral(const EventFields& e, uint64_t counter) {
  const bool counted = isCounted(e.kind);
  Explicit x = decide(e, counter);
  wire::SizeSink size;
  encodeEventPrefix(size, e, x);
  size_t body = size.n + e.payload_len;
  size_t record = wire::varintSize(body) + body;

  bool stored = false;
  bool own_frame = false;
  if (record > big_record_) {
    own_frame = true;
    if (tail_used_ && flush() != 0) {
      // The tail cannot be emptied: this record has nowhere to go.
    } else {
      x = decide(e, counter);
      wire::SizeSink again;
      encodeEventPrefix(again, e, x);
      stored = writeOwnFrame(e, x, again.n, again.n + e.payload_len) == 0;
    }
  } else {
    if (tail_used_ + record > tail_capacity_ && flush() == 0) {
      x = decide(e, counter);
      wire::SizeSink again;
      encodeEventPrefix(again, e, x);
      body = again.n + e.payload_len;
      record = wire::varintSize(body) + body;
    }
    if (tail_used_ + record <= tail_capacity_) {
      stored = appendToTail(e, x, body - e.payload_len, body);
    }
  }

  if (!stored) {
    markLost(lost_errno_ ? lost_errno_ : ENOSPC, counter);
    if (counted) ++next_counter_;
    return 0;
  }
  advance(e, counter);
  if (counted) ++next_counter_;
  if (own_frame) startFrame();  // the tail continues as a new frame
  return counter;
}

bool LogWriter::appendToTail(const EventFields& e, const Explicit& x, size_t prefix, size_t body) {
  uint8_t* at = tail_ + tail_used_;
  const size_t len_size = wire::varintSize(body);
  if (!reserve(tail_used_ + len_size + body)) return false;
  wire::BufferSink sink{at + len_size};
  encodeEventPrefix(sink, e, x);
  uint8_t* p = gatherPayload(sink.p, e.payload, e.payload_iov_count, e.payload_len);
  if (static_cast<size_t>(p - at) != len_size + body || sink.p != at + len_size + prefix) {
    return false;  // cannot happen: both passes encode the same fields
  }
  publishLength(at, body);
  tail_used_ += static_cast<uint32_t>(len_size + body);
  RADAR_INJECTED_CHECK(tail_used_ <= tail_capacity_);
  return true;
}

// A record too large for the tail becomes its own zstd frame made of raw
// (uncompressed) blocks, written straight from the caller's buffers: bulk
// payloads cost one copy into the page cache and no compression.
int LogWriter::writeOwnFrame(const EventFields& e, const Explicit& x, size_t prefix, size_t body) {
  // Metadata that precedes the payload; small except for HEADER records,
  // whose environment can be large.
  uint8_t small[512];
  const size_t head_len = wire::varintSize(body) + prefix;
  uint8_t* head = small;
  if (head_len > sizeof(small)) {
    head = static_cast<uint8_t*>(mapAnonymous(head_len));
    if (!head) return -ENOMEM;
  }
  uint8_t* p = wire::putVarint(head, body);
  wire::BufferSink sink{p};
  encodeEventPrefix(sink, e, x);

  // The content: the metadata, then the payload buffers cut at payload_len.
  constexpr size_t kMaxSegments = 64;
  Iov segments[kMaxSegments];
  size_t count = 0;
  segments[count++] = {head, head_len};
  size_t left = e.payload_len;
  for (size_t i = 0; i < e.payload_iov_count && left; ++i) {
    const size_t n = e.payload[i].len < left ? e.payload[i].len : left;
    if (!n) continue;
    if (count == kMaxSegments) {
      left = 1;  // more buffers than we take: refuse rather than cut
      break;
    }
    segments[count++] = {e.payload[i].base, n};
    left -= n;
  }
  const int status = left ? -EINVAL : writeRawFrame(segments, count, head_len + e.payload_len);
  if (head != small) sys::munmap(head, head_len);
  if (status) return status;
  // The tail now continues after this record.
  __atomic_store_n(&control_->tail_first_counter, isCounted(e.kind) ? next_counter_ + 1 : next_counter_,
                   __ATOMIC_RELEASE);
  return 0;
}

// Appends a zstd frame of raw blocks holding the concatenated segments.
int LogWriter::writeRawFrame(const Iov* segments, size_t count, uint64_t content) {
  const size_t blocks = content ? (content + kRawBlockMax - 1) / kRawBlockMax : 1;
  const uint64_t frame_size = 4 + 1 + 8 + blocks * 3 + content + 4;
  if (int rc = checkFd()) return rc;
  struct rlimit64 lim {};
  if (sys::prlimit(0, RLIMIT_FSIZE, nullptr, &lim) == 0 && lim.rlim_cur != RLIM64_INFINITY &&
      file_end_ + frame_size > lim.rlim_cur) {
    write_failed_ = true;
    lost_errno_ = EFBIG;
    return -EFBIG;
  }
  uint8_t frame_header[13];
  wire::storeLE32(frame_header, kZstdMagic);
  frame_header[4] = 0xE4;  // 8-byte content size, single segment, checksum
  std::memcpy(frame_header + 5, &content, 8);
  // Readers verify every frame's content against this checksum.
  Xxh64 hash;
  {
    uint64_t left = content;
    for (size_t i = 0; i < count && left; ++i) {
      const size_t n = segments[i].len < left ? segments[i].len : left;
      hash.update(segments[i].base, n);
      left -= n;
    }
  }
  uint8_t checksum[4];
  wire::storeLE32(checksum, static_cast<uint32_t>(hash.digest()));

  constexpr int kMaxIov = 64;
  struct iovec iov[kMaxIov];
  uint8_t block_headers[kMaxIov][3];
  int n = 0;
  size_t pending = 0;
  int status = 0;
  auto flushIov = [&]() {
    if (status || n == 0) return;
    status = writeAtEnd(iov, n, pending);
    n = 0;
    pending = 0;
  };
  iov[n++] = {frame_header, sizeof(frame_header)};
  pending += sizeof(frame_header);
  size_t seg = 0, seg_offset = 0;
  uint64_t remaining = content;
  for (size_t b = 0; b < blocks && !status; ++b) {
    const size_t block = remaining < kRawBlockMax ? remaining : kRawBlockMax;
    remaining -= block;
    if (n + 2 > kMaxIov) flushIov();
    const uint32_t bh = static_cast<uint32_t>(block << 3) | (b + 1 == blocks ? 1u : 0u);
    uint8_t* h = block_headers[n];
    h[0] = static_cast<uint8_t>(bh);
    h[1] = static_cast<uint8_t>(bh >> 8);
    h[2] = static_cast<uint8_t>(bh >> 16);
    iov[n++] = {h, 3};
    pending += 3;
    for (size_t want = block; want && !status;) {
      if (seg >= count) {
        status = -EINVAL;  // the segments hold less than `content`
        break;
      }
      const size_t avail = segments[seg].len - seg_offset;
      const size_t take = avail < want ? avail : want;
      if (n + 1 > kMaxIov) flushIov();
      iov[n++] = {const_cast<uint8_t*>(static_cast<const uint8_t*>(segments[seg].base)) + seg_offset, take};
      pending += take;
      want -= take;
      seg_offset += take;
      if (seg_offset == segments[seg].len) {
        ++seg;
        seg_offset = 0;
      }
    }
  }
  if (n + 1 > kMaxIov) flushIov();
  iov[n++] = {checksum, sizeof(checksum)};
  pending += sizeof(checksum);
  flushIov();
  if (status) {
    write_failed_ = true;
    lost_errno_ = -status;
  }
  return status;
}

int LogWriter::checkFd() {
  // The program may have closed our descriptor behind our back (a raw
  // close_range, say) and got the number back for a file of its own: never
  // write into that. Reopen the log by name instead.
  struct stat st {};
  if (fd_ >= 0 && sys::fstat(fd_, &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_) return 0;
  long fd = sys::openat(AT_FDCWD, path_, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return static_cast<int>(fd);
  if (sys::fstat(static_cast<int>(fd), &st) != 0 || st.st_dev != dev_ || st.st_ino != ino_) {
    sys::close(static_cast<int>(fd));
    return -ESTALE;
  }
  if (fd_ > 0) {
    long moved = sys::fcntl(static_cast<int>(fd), F_DUPFD_CLOEXEC, fd_);
    if (moved >= 0) {
      sys::close(static_cast<int>(fd));
      fd = moved;
    }
  }
  fd_ = static_cast<int>(fd);
  return 0;
}

int LogWriter::writeAtEnd(const struct iovec* iov, int count, size_t total) {
  struct iovec local[64];
  if (count > 64) return -EINVAL;
  std::memcpy(local, iov, sizeof(struct iovec) * count);
  struct iovec* v = local;
  size_t left = total;
  while (left) {
    long w = sys::pwritev(fd_, v, count, file_end_);
    if (w == -EINTR) continue;
    if (w < 0) return static_cast<int>(w);
    if (w == 0) return -EIO;
    file_end_ += static_cast<uint64_t>(w);
    left -= static_cast<size_t>(w);
    size_t done = static_cast<size_t>(w);
    while (count && done >= v->iov_len) {
      done -= v->iov_len;
      ++v;
      --count;
    }
    if (count) {
      v->iov_base = static_cast<uint8_t*>(v->iov_base) + done;
      v->iov_len -= done;
    }
  }
  return 0;
}

int LogWriter::flush() {
  if (!control_) return -EBADF;
  if (tail_used_ == 0) return 0;
  if (write_failed_) return -(lost_errno_ ? lost_errno_ : EIO);
  int status = 0;
  __atomic_store_n(&control_->tail_frame_at, file_end_, __ATOMIC_RELEASE);
  if (tail_used_ < kRawFlushBelow || !makeCompressor()) {
    // A small tail (a short-lived process closing its log) is not worth
    // setting up a compressor for.
    const Iov whole{tail_, tail_used_};
    status = writeRawFrame(&whole, 1, tail_used_);
  } else {
    // A frame takes a few hundred microseconds to compress. The writer's
    // holder is what every other thread of the process waits for: a storm
    // of signals whose handlers record must not stretch that further.
    sys::HeldSignals held;
    status = checkFd();
    size_t n = 0;
    if (!status) {
      n = ZSTD_compress2(cctx_, out_, out_cap_, tail_, tail_used_);
      if (ZSTD_isError(n)) status = -EIO;
    }
    struct rlimit64 lim {};
    if (!status && sys::prlimit(0, RLIMIT_FSIZE, nullptr, &lim) == 0 && lim.rlim_cur != RLIM64_INFINITY &&
        file_end_ + n > lim.rlim_cur)
      status = -EFBIG;
    if (!status) {
      struct iovec v = {out_, n};
      status = writeAtEnd(&v, 1, n);
    }
  }
  if (status) {
    // The records stay readable in the tail; nothing more can be stored
    // once it is full.
    write_failed_ = true;
    lost_errno_ = -status;
    __atomic_store_n(&control_->lost_errno, static_cast<uint32_t>(lost_errno_), __ATOMIC_RELAXED);
    return status;
  }
  // The frame is in the file: empty the tail. A reader that finds both (we
  // were killed in between) drops the tail's copy: tail_frame_at says where
  // its frame is.
  __atomic_store_n(&control_->tail_first_counter, 0, __ATOMIC_RELEASE);
  barrier();
  std::memset(tail_, 0, tail_used_);
  tail_used_ = 0;
  barrier();
  startFrame();
  __atomic_store_n(&control_->tail_first_counter, next_counter_, __ATOMIC_RELEASE);
  __atomic_store_n(&control_->tail_frame_at, 0, __ATOMIC_RELEASE);
  return 0;
}

void LogWriter::markLost(int err, uint64_t counter) {
  ++lost_events_;
  if (!lost_from_ && counter) lost_from_ = counter;
  if (!lost_errno_) lost_errno_ = err;
  if (!control_) return;
  __atomic_store_n(&control_->lost_events, lost_events_, __ATOMIC_RELAXED);
  if (lost_from_) __atomic_store_n(&control_->lost_from_counter, lost_from_, __ATOMIC_RELAXED);
  __atomic_store_n(&control_->lost_errno, static_cast<uint32_t>(lost_errno_), __ATOMIC_RELAXED);
  __atomic_or_fetch(&control_->state, kStateIncomplete, __ATOMIC_RELEASE);
}

void LogWriter::close() {
  if (!control_) return;
  if (flush() == 0) {
    __atomic_or_fetch(&control_->state, kStateClosed, __ATOMIC_RELEASE);
    // The tail is empty: give its blocks back (the size stays): those
    // reserved, as the tail never goes past them; in our file only.
    if (checkFd() == 0) sys::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, kControlSize, tail_reserved_);
  }
  abandon();
}

void LogWriter::abandon() {
  if (map_) sys::munmap(map_, map_len_);
  if (cctx_mem_) sys::munmap(cctx_mem_, cctx_mem_len_);
  if (out_) sys::munmap(out_, out_cap_);
  if (channels_) sys::munmap(channels_, channel_cap_ * sizeof(ChannelState));
  if (fd_ >= 0) sys::close(fd_);  // a forked child closes only its own copy
  map_ = nullptr;
  control_ = nullptr;
  tail_ = nullptr;
  cctx_ = nullptr;
  cctx_mem_ = nullptr;
  out_ = nullptr;
  channels_ = nullptr;
  channel_cap_ = 0;
  fd_ = -1;
}

}  // namespace radar::log
