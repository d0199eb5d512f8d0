#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader
#include "log/reader.h"

#include "log/check.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "log/wire.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::log {
namespace {
// The kept big buffers (allocateBig): a few, by rounded size.
struct BigBuffers {
#if defined(__SANITIZE_ADDRESS__)
  static constexpr int kKept = 0;  // a use after free stays visible to ASan
#else
  static constexpr int kKept = 8;
#endif
  static constexpr size_t kMaxKeptBytes = size_t{1} << 30;
  std::mutex lock;
  void* block[kKept + 1] = {};
  size_t size[kKept + 1] = {};
  size_t kept_bytes = 0;
};
BigBuffers& bigBuffers() {
  static BigBuffers* b = new BigBuffers;  // never destroyed: freed into at exit
  return *b;
}
size_t roundedBig(size_t bytes) { return std::bit_ceil(bytes); }
}  // namespace

void* allocateBig(size_t bytes) {
  const size_t rounded = roundedBig(bytes);
  BigBuffers& b = bigBuffers();
  {
    std::lock_guard<std::mutex> hold(b.lock);
    for (int k = 0; k < BigBuffers::kKept; ++k)
      if (b.block[k] && b.size[k] == rounded) {
        void* p = b.block[k];
        b.block[k] = nullptr;
        b.kept_bytes -= rounded;
        return p;
      }
  }
  return ::operator new(rounded);
}

void freeBig(void* p, size_t bytes) {
  const size_t rounded = roundedBig(bytes);
  BigBuffers& b = bigBuffers();
  {
    std::lock_guard<std::mutex> hold(b.lock);
    if (b.kept_bytes + rounded <= BigBuffers::kMaxKeptBytes)
      for (int k = 0; k < BigBuffers::kKept; ++k)
        if (!b.block[k]) {
          b.block[k] = p;
          b.size[k] = rounded;
          b.kept_bytes += rounded;
          return;
        }
  }
  ::operator delete(p);
}

namespace {

// A frame may not claim more content than this; real logs stay far below
// (a frame holds one tail's worth of records, or one large message).
constexpr uint64_t kMaxFrameContent = uint64_t{1} << 30;
constexpr size_t kMaxBlock = 128 * 1024;
// Frames of at least this much content holding one record are read without
// their payload in Payloads::SkipLarge (loadFrameWithoutPayload).
constexpr uint64_t kLargeRecord = 16 * 1024;
constexpr size_t kTailFirstRead = 16 * 1024;  // then 4 times more while records go on

// Byte buffers are resized through these two. With an allocator of its own
// (Bytes does not zero what it allocates), a vector that grows copies its
// elements one at a time: for frames of hundreds of KiB read block by block,
// 4 % of all the instructions of checking a recording.
//
// Both leave room to double, as a vector's growth does: frames differ a
// little in size, and an exact fit would allocate again for most of them.
//
// For bytes about to be overwritten whole: nothing is copied.
void resizeForOverwrite(Bytes& b, size_t n) {
  if (n > b.capacity()) {
    const size_t room = std::max(n, 2 * b.capacity());
    b.clear();
    b.reserve(room);
  }
  b.resize(n);
}
// Keeps what b holds.
void growKeeping(Bytes& b, size_t n) {
  if (n > b.capacity()) {
    Bytes bigger;
    bigger.reserve(std::max(n, 2 * b.capacity()));
    bigger.resize(b.size());
    if (!b.empty()) std::memcpy(bigger.data(), b.data(), b.size());
    b.swap(bigger);
  }
  b.resize(n);
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

// Skips an unknown field. Returns false on an impossible wire type or when
// the field runs past `end`.
bool skipField(const uint8_t*& p, const uint8_t* end, uint32_t wire_type) {
  uint64_t v;
  switch (wire_type) {
    case wire::kVarint:
      return wire::getVarint(p, end, v);
    case wire::kFixed64:
      if (end - p < 8) return false;
      p += 8;
      return true;
    case wire::kLengthDelimited:
      if (!wire::getVarint(p, end, v) || v > static_cast<uint64_t>(end - p)) return false;
      p += v;
      return true;
    case wire::kFixed32:
      if (end - p < 4) return false;
      p += 4;
      return true;
    default:
      return false;
  }
}

// The fields of an Event as they are on the wire, before the compactness
// rules are applied.
struct WireEvent {
  bool has_counter = false, has_tid = false, has_offset = false;
  uint64_t counter = 0, offset = 0, duration = 0;
  uint32_t tid = 0;
  int64_t entry_delta = 0;
};

bool decodeReady(const uint8_t* p, const uint8_t* end, ReadyFd& r) {
  r = {};
  while (p < end) {
    uint64_t key, v;
    if (!wire::getVarint(p, end, key)) return false;
    const uint32_t f = static_cast<uint32_t>(key >> 3), t = key & 7;
    if (t == wire::kVarint && f >= 1 && f <= 3) {
      if (!wire::getVarint(p, end, v)) return false;
      if (f == field::kReadyFd) r.fd = static_cast<int32_t>(v);
      if (f == field::kReadyEvents) r.events = static_cast<uint32_t>(v);
      if (f == field::kReadyData) r.data = v;
    } else if (!skipField(p, end, t)) {
      return false;
    }
  }
  return true;
}

// Decodes one Event body. `base` is the start of the content, for payload
// locations. Returns an empty string or why the bytes are not an Event.
// A record's fields as no field sets them.
void clearRecord(Record& r, WireEvent& w) {
  r.kind = Kind::Unspecified;
  r.fd = 0;
  r.channel = 0;
  r.size = 0;
  r.result = 0;
  r.error = r.flags = 0;
  r.has_hash = false;
  r.hash = 0;
  r.payload_omitted = 0;
  r.payload = {};
  r.payload_location.offset = 0;
  r.peer_pid = r.status = r.signal = 0;
  r.address = {};
  r.fds.clear();
  r.strings.clear();
  r.ready.clear();
  r.lengths.clear();
  r.header_bytes = {};
  r.channel_bytes = {};
  r.has_timeout = false;
  r.timeout_ms = 0;
  r.same_as = r.same_from = 0;
  w = {};
}

// One varint field, by number (an unknown one is a newer field: skipped).
inline void varintField(uint32_t f, uint64_t v, Record& r, WireEvent& w, bool& has_kind) {
  switch (f) {
    case field::kKind:
      r.kind = static_cast<Kind>(v);
      has_kind = true;
      break;
    case field::kCounter:
      w.has_counter = true;
      w.counter = v;
      break;
    case field::kTid:
      w.has_tid = true;
      w.tid = static_cast<uint32_t>(v);
      break;
    case field::kEntryDelta:
      w.entry_delta = wire::unzigzag(v);
      break;
    case field::kDuration:
      w.duration = v;
      break;
    case field::kFd:
      r.fd = static_cast<int32_t>(v);
      break;
    case field::kChannel:
      r.channel = static_cast<uint32_t>(v);
      break;
    case field::kOffset:
      w.has_offset = true;
      w.offset = v;
      break;
    case field::kSize:
      r.size = v;
      break;
    case field::kResult:
      r.result = wire::unzigzag(v);
      break;
    case field::kError:
      r.error = static_cast<uint32_t>(v);
      break;
    case field::kFlags:
      r.flags = static_cast<uint32_t>(v);
      break;
    case field::kPayloadOmitted:
      r.payload_omitted = v;
      break;
    case field::kPeerPid:
      r.peer_pid = static_cast<int32_t>(v);
      break;
    case field::kStatus:
      r.status = static_cast<int32_t>(v);
      break;
    case field::kSignal:
      r.signal = static_cast<int32_t>(v);
      break;
    case field::kFds:
      r.fds.push_back(static_cast<int32_t>(v));
      break;
    case field::kLengths:
      r.lengths.push_back(v);
      break;
    case field::kTimeout:
      r.has_timeout = true;
      r.timeout_ms = static_cast<int32_t>(wire::unzigzag(v));
      break;
    case field::kSameAs:
      r.same_as = v;
      break;
    case field::kSameFrom:
      r.same_from = v;
      break;
    default:
      break;  // a newer field
  }
}

// One length-delimited field, its bytes [d, p); an error's text, or "".
inline const char* bytesField(uint32_t f, const uint8_t* d, const uint8_t* p, const uint8_t* base, Record& r) {
  const std::string_view bytes(reinterpret_cast<const char*>(d), static_cast<size_t>(p - d));
  switch (f) {
    case field::kPayload:
      r.payload = bytes;
      r.payload_location.offset = static_cast<uint32_t>(d - base);
      break;
    case field::kAddress:
      r.address = bytes;
      break;
    case field::kStrings:
      r.strings.push_back(bytes);
      break;
    case field::kHeader:
      r.header_bytes = bytes;
      break;
    case field::kChannelInfo:
      r.channel_bytes = bytes;
      break;
    case field::kFds:
      for (const uint8_t* q = d; q < p;) {
        uint64_t x;
        if (!wire::getVarint(q, p, x)) return "bad packed fds";
        r.fds.push_back(static_cast<int32_t>(x));
      }
      break;
    case field::kLengths:
      for (const uint8_t* q = d; q < p;) {
        uint64_t x;
        if (!wire::getVarint(q, p, x)) return "bad packed lengths";
        r.lengths.push_back(x);
      }
      break;
    case field::kReady: {
      ReadyFd ready;
      if (!decodeReady(d, p, ready)) return "bad ready entry";
      r.ready.push_back(ready);
      break;
    }
    default:
      break;
  }
  return "";
}

// The writer puts the common fields first, in field order: each is read
// here with one well-predicted test of its tag, where the field loop would
// jump through its switch for every field. False on a truncated varint.
inline bool readCommonFields(const uint8_t*& p, const uint8_t* end, Record& r, WireEvent& w, bool& has_kind) {
  bool truncated = false;
  auto common = [&](uint32_t f, uint64_t& out) {
    if (p >= end || *p != wire::tag(f, wire::kVarint)) return false;
    ++p;
    if (wire::getVarint(p, end, out)) return true;
    truncated = true;
    p = end;
    return false;
  };
  uint64_t got;
  if (common(field::kKind, got)) {
    r.kind = static_cast<Kind>(got);
    has_kind = true;
  }
  if (common(field::kCounter, got)) {
    w.has_counter = true;
    w.counter = got;
  }
  if (common(field::kTid, got)) {
    w.has_tid = true;
    w.tid = static_cast<uint32_t>(got);
  }
  if (common(field::kEntryDelta, got)) w.entry_delta = wire::unzigzag(got);
  if (common(field::kDuration, got)) w.duration = got;
  if (common(field::kFd, got)) r.fd = static_cast<int32_t>(got);
  if (common(field::kChannel, got)) r.channel = static_cast<uint32_t>(got);
  if (common(field::kOffset, got)) {
    w.has_offset = true;
    w.offset = got;
  }
  if (common(field::kSize, got)) r.size = got;
  if (common(field::kResult, got)) r.result = wire::unzigzag(got);
  if (common(field::kError, got)) r.error = static_cast<uint32_t>(got);
  if (common(field::kFlags, got)) r.flags = static_cast<uint32_t>(got);
  if (p < end && *p == wire::tag(field::kHash, wire::kFixed32) && end - p >= 5) {
    r.has_hash = true;
    r.hash = wire::loadLE32(p + 1);
    p += 5;
  }
  return !truncated;
}

const char* decodeEvent(const uint8_t* p, const uint8_t* end, const uint8_t* base, Record& r, WireEvent& w) {
  clearRecord(r, w);
  bool has_kind = false;
  // Whatever comes after the common fields, or in another order, the loop reads.
  if (!readCommonFields(p, end, r, w, has_kind)) return "truncated varint";
  while (p < end) {
    uint64_t key;
    if (!wire::getVarint(p, end, key)) return "truncated field key";
    const uint32_t f = static_cast<uint32_t>(key >> 3);
    const uint32_t t = key & 7;
    uint64_t v = 0;
    if (t == wire::kVarint) {
      if (!wire::getVarint(p, end, v)) return "truncated varint";
      varintField(f, v, r, w, has_kind);
    } else if (t == wire::kLengthDelimited) {
      if (!wire::getVarint(p, end, v)) return "truncated length";
      if (v > static_cast<uint64_t>(end - p)) return "field runs past the end of the record";
      const uint8_t* d = p;
      p += v;
      if (const char* error = bytesField(f, d, p, base, r); *error) return error;
    } else if (t == wire::kFixed32) {
      if (end - p < 4) return "truncated fixed32";
      if (f == field::kHash) {
        r.has_hash = true;
        r.hash = wire::loadLE32(p);
      }
      p += 4;
    } else if (!skipField(p, end, t)) {
      return "invalid wire type";
    }
  }
  if (!has_kind || r.kind == Kind::Unspecified) return "record has no kind";
  if (isSyncKind(r.kind)) r.fd = -1;  // not stored since format 1.10
  r.in_mpi_call = (r.flags & kFlagInMpiCall) && canMarkInMpiCall(r.kind, r.flags);
  if (r.in_mpi_call) r.flags &= ~kFlagInMpiCall;
  return "";
}

}  // namespace

std::string LogError::toString() const { return path + ": offset " + std::to_string(offset) + ": " + message; }

LogReader::~LogReader() {
  if (fd_ >= 0) ::close(fd_);
  if (dctx_) ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_));
}

bool LogReader::fail(DecodeState& s, uint64_t offset, std::string message) {
  if (!s.error) s.error = LogError{path_, offset, std::move(message)};
  s.done = true;
  return false;
}

// Reads through a window of the file: frames are read header, block
// header, block ... and most logs are small, so one pread serves many.
bool LogReader::readAt(uint64_t offset, void* buf, size_t n) {
  const bool skipped = skip_large_payloads_ && offset > window_start_ + window_.size();
  const size_t kWindow = skipped ? kAfterSkipWindow : window_size_;
  if (offset >= window_start_ && offset + n <= window_start_ + window_.size()) {
    std::memcpy(buf, window_.data() + (offset - window_start_), n);
    return true;
  }
  if (n < kWindow && offset < file_size_) {
    const uint64_t want = file_size_ - offset < kWindow ? file_size_ - offset : kWindow;
    resizeForOverwrite(window_, want);
    if (readDirect(offset, window_.data(), want)) {
      window_start_ = offset;
      if (offset + n <= offset + want) {
        std::memcpy(buf, window_.data(), n);
        return true;
      }
    } else {
      window_.clear();
    }
  }
  return readDirect(offset, buf, n);
}

bool LogReader::readDirect(uint64_t offset, void* buf, size_t n) {
  auto* out = static_cast<uint8_t*>(buf);
  while (n) {
    ssize_t r = ::pread(fd_, out, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    out += r;
    offset += static_cast<uint64_t>(r);
    n -= static_cast<size_t>(r);
  }
  return true;
}

std::unique_ptr<LogReader> LogReader::open(const std::string& path, LogError* error, Payloads payloads) {
  std::unique_ptr<LogReader> r(new LogReader);
  r->path_ = path;
  if (payloads == Payloads::SkipLarge) {
    r->skip_large_payloads_ = true;
    r->window_size_ = kSkippingWindow;
  }
  auto bad = [&](uint64_t offset, std::string message) {
    if (error) *error = LogError{path, offset, std::move(message)};
    return nullptr;
  };
  r->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (r->fd_ < 0) return bad(0, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(r->fd_, &st) != 0) return bad(0, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return bad(0, "not a regular file");
  r->file_size_ = static_cast<uint64_t>(st.st_size);
  if (r->file_size_ == 0) return bad(0, "empty file (the recording process could not write it)");

  uint8_t head[8 + sizeof(FileControl)] = {};
  const size_t have = r->file_size_ < sizeof(head) ? r->file_size_ : sizeof(head);
  // Directly: a window here would read the tail region after it, mostly
  // empty (readTail reads what it holds).
  if (!r->readDirect(0, head, have)) return bad(0, std::string("cannot read: ") + std::strerror(errno));
  if (have < 8 + 16 || wire::loadLE32(head) != kFileMagicFrame ||
      std::memcmp(head + 8, kFileMagic, sizeof(kFileMagic)) != 0)
    return bad(0, "not a radar log (bad magic)");
  FileControl c;
  std::memcpy(&c, head + 8, sizeof(c));
  if (c.format_major > kFormatMajor)
    return bad(16, "log format " + std::to_string(c.format_major) + "." + std::to_string(c.format_minor) +
                       " is newer than this radar reads (" + std::to_string(kFormatMajor) + ".x); use a newer radar");
  if (c.format_major == 0) return bad(16, "log format version 0 is invalid");
  if (have < sizeof(head)) return bad(have, "file ends inside its control block");
  if (c.tail_capacity < kMinTailCapacity || c.tail_capacity > kMaxTailCapacity || c.tail_capacity % 4096 != 0)
    return bad(20, "absurd tail capacity " + std::to_string(c.tail_capacity));
  if (wire::loadLE32(head + 4) != kControlSize + c.tail_capacity - 8)
    return bad(4, "control frame size does not match the tail capacity");

  ControlState& cs = r->control_;
  cs.format_major = c.format_major;
  cs.format_minor = c.format_minor;
  cs.tail_capacity = c.tail_capacity;
  cs.closed = c.state & kStateClosed;
  cs.incomplete = c.state & kStateIncomplete;
  cs.finalized = c.state & kStateFinalized;
  cs.lost_from_counter = c.lost_from_counter;
  cs.lost_events = c.lost_events;
  cs.lost_errno = static_cast<int>(c.lost_errno);
  cs.last_counter = c.last_counter;
  const uint32_t slots = c.thread_slot_count < kThreadSlots ? c.thread_slot_count : kThreadSlots;
  for (uint32_t i = 0; i < slots; ++i)
    if (c.threads[i].tid) cs.threads.push_back(c.threads[i]);

  r->frames_start_ = kControlSize + uint64_t{c.tail_capacity};
  r->pos_ = r->frames_start_;
  r->frames_end_ = r->file_size_ < r->frames_start_ ? r->file_size_ : r->frames_start_;
  r->dctx_ = ZSTD_createDCtx();
  r->header_ = std::make_unique<proto::Header>();

  Record first;
  if (!r->decodeNext(r->seq_, first)) {
    if (r->seq_.error) {
      if (error) *error = *r->seq_.error;
      return nullptr;
    }
    return bad(r->frames_start_, "log has no header record");
  }
  if (first.kind != Kind::Header || !parseHeader(first.header_bytes, r->header_.get()))
    return bad(r->frames_start_, "first record is not a valid header");
  // The header opened the first frame, whose compactness rules imply the
  // main thread (header.pid) until a record names another.
  if (!r->seq_.carried.counter_known) r->seq_.carried.prev_tid = static_cast<uint32_t>(r->header_->pid());
  if (r->header_->format_major() > kFormatMajor)
    return bad(r->frames_start_, "header declares format " + std::to_string(r->header_->format_major()) +
                                     ", newer than this radar reads; use a newer radar");
  return r;
}

bool LogReader::parseHeader(std::string_view bytes, proto::Header* out) {
  return out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

bool LogReader::parseChannel(std::string_view bytes, proto::ChannelInfo* out) {
  return out->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

// A frame's header and extent, from its block headers (its size is not
// stored anywhere else). Returns false with why = "truncated" when the file
// ends inside the frame.
struct LogReader::FrameShape {
  ZSTD_frameHeader header;
  size_t size = 0;           // of the whole frame in the file
  bool raw = true;           // every block stored uncompressed
  uint64_t raw_content = 0;  // the blocks' sizes added up
  uint32_t first_block = 0;  // the first block's size
};

bool LogReader::frameShape(uint64_t offset, FrameShape* shape, std::string* why) {
  uint8_t hdr[ZSTD_FRAMEHEADERSIZE_MAX];
  const uint64_t left = file_size_ - offset;
  const size_t hn = left < sizeof(hdr) ? static_cast<size_t>(left) : sizeof(hdr);
  if (!readAt(offset, hdr, hn)) {
    *why = "cannot read";
    return false;
  }
  ZSTD_frameHeader& fh = shape->header;
  const size_t need = ZSTD_getFrameHeader(&fh, hdr, hn);
  if (ZSTD_isError(need)) {
    *why = std::string("bad frame header: ") + ZSTD_getErrorName(need);
    return false;
  }
  if (need > 0) {
    *why = "truncated";
    return false;
  }
  if (fh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN && fh.frameContentSize > kMaxFrameContent) {
    *why =
        "frame declares " + std::to_string(fh.frameContentSize) + " bytes of content, more than a log frame can hold";
    return false;
  }
  // The blocks' headers first, for the frame's size; then the frame in one
  // read. (Read block by block, a 100 MB frame grew its buffer ten times,
  // copying and faulting in 2.5 times its size, and went through the
  // read-ahead window twice.) Past the window's reach the headers are read
  // alone, not with the blocks between them.
  uint64_t at = offset + fh.headerSize;
  for (bool first = true;; first = false) {
    uint8_t bh[3];
    if (at + 3 > file_size_) {
      *why = "truncated";
      return false;
    }
    if (!(at - offset < window_size_ ? readAt(at, bh, 3) : readDirect(at, bh, 3))) {
      *why = "cannot read";
      return false;
    }
    const uint32_t h = bh[0] | (bh[1] << 8) | (bh[2] << 16);
    const bool last = h & 1;
    const uint32_t type = (h >> 1) & 3;
    const uint32_t size = h >> 3;
    if (type == 3) {
      *why = "reserved block type";
      return false;
    }
    if (size > kMaxBlock) {
      *why = "block of " + std::to_string(size) + " bytes exceeds zstd's maximum";
      return false;
    }
    const uint32_t stored = type == 1 ? 1 : size;  // RLE blocks store one byte
    if (at + 3 + stored > file_size_) {
      *why = "truncated";
      return false;
    }
    if (at + 3 + stored - offset > kMaxFrameContent + kMaxBlock) {
      *why = "frame too large";
      return false;
    }
    shape->raw = shape->raw && type == 0;
    shape->raw_content += size;
    if (first) shape->first_block = size;
    at += 3 + stored;
    if (last) break;
  }
  // What a frame declares is bounded by what radar writes: a frame of raw
  // blocks (a big record's own) holds exactly their bytes, any other is a
  // compressed tail, no larger than the log's tail. (Else a damaged header
  // could have a few bytes ask for a gigabyte.)
  if (fh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN &&
      (shape->raw ? fh.frameContentSize != shape->raw_content : fh.frameContentSize > control_.tail_capacity)) {
    *why = "frame declares " + std::to_string(fh.frameContentSize) + " bytes of content, " +
           (shape->raw ? "not the " + std::to_string(shape->raw_content) + " its blocks hold"
                       : "more than a log's tail of " + std::to_string(control_.tail_capacity) + " bytes");
    return false;
  }
  if (fh.checksumFlag) {
    if (at + 4 > file_size_) {
      *why = "truncated";
      return false;
    }
    at += 4;
  }
  shape->size = static_cast<size_t>(at - offset);
  return true;
}

// Reads the zstd frame at `offset` and decompresses it. Returns false with
// why = "truncated" when the file ends inside the frame.
bool LogReader::decompressFrameAt(uint64_t offset, Bytes* content, size_t* frame_size, std::string* why,
                                  const FrameShape* known) {
  FrameShape shape;
  if (known) {
    shape = *known;
  } else if (!frameShape(offset, &shape, why)) {
    return false;
  }
  const ZSTD_frameHeader& fh = shape.header;
  *frame_size = shape.size;
  resizeForOverwrite(scratch_, *frame_size);
  if (!readAt(offset, scratch_.data(), *frame_size)) {
    *why = "cannot read";
    return false;
  }

  auto* dctx = static_cast<ZSTD_DCtx*>(dctx_);
  if (fh.frameContentSize != ZSTD_CONTENTSIZE_UNKNOWN) {
    resizeForOverwrite(*content, fh.frameContentSize);
    const size_t n = ZSTD_decompressDCtx(dctx, content->data(), content->size(), scratch_.data(), scratch_.size());
    if (ZSTD_isError(n)) {
      *why = ZSTD_getErrorName(n);
      return false;
    }
    if (n != fh.frameContentSize) {
      *why = "content size does not match the frame header";
      return false;
    }
    return true;
  }
  // Content size not declared (not written by radar): stream it.
  content->clear();
  ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
  ZSTD_inBuffer in{scratch_.data(), scratch_.size(), 0};
  uint8_t chunk[64 * 1024];
  for (;;) {
    ZSTD_outBuffer out{chunk, sizeof(chunk), 0};
    const size_t ret = ZSTD_decompressStream(dctx, &out, &in);
    if (ZSTD_isError(ret)) {
      *why = ZSTD_getErrorName(ret);
      return false;
    }
    const size_t had = content->size();
    growKeeping(*content, had + out.pos);
    if (out.pos) std::memcpy(content->data() + had, chunk, out.pos);
    if (content->size() > kMaxFrameContent) {
      *why = "frame content too large";
      return false;
    }
    if (ret == 0) return true;
    if (in.pos == in.size && out.pos < out.size) {
      *why = "frame ends early";
      return false;
    }
  }
}

// A frame of raw blocks that holds one large record, read as that record
// with an empty payload: its other fields are read from the frame's first
// bytes, the payload's are not read at all. False, with nothing read, for
// any other frame (which is then read whole, and any damage found there).
bool LogReader::loadFrameWithoutPayload(uint64_t offset, const FrameShape& shape, Bytes* content,
                                        uint32_t* payload_at) {
  const ZSTD_frameHeader& fh = shape.header;
  if (!shape.raw || fh.frameType != ZSTD_frame || fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN ||
      fh.frameContentSize < kLargeRecord || shape.raw_content != fh.frameContentSize)
    return false;
  // The record's fields other than the payload come first and are small
  // (a header record, whose environment may be large, has no payload).
  uint8_t head[1024];
  const size_t n = std::min<size_t>(sizeof(head), shape.first_block);
  if (!readAt(offset + fh.headerSize + 3, head, n)) return false;
  const uint8_t* p = head;
  const uint8_t* const end = head + n;
  uint64_t len;
  if (!wire::getVarint(p, end, len) || static_cast<uint64_t>(p - head) + len != fh.frameContentSize) return false;
  const uint8_t* const fields = p;
  // The payload must be the record's last field: everything else is then
  // in `head`.
  const uint64_t record_end = fh.frameContentSize;  // in content offsets
  while (p < end) {
    const uint8_t* const field_start = p;
    uint64_t key;
    if (!wire::getVarint(p, end, key)) return false;
    const uint32_t type = key & 7;
    if (type != wire::kLengthDelimited) {
      if (!skipField(p, end, type)) return false;
      continue;
    }
    uint64_t v;
    if (!wire::getVarint(p, end, v)) return false;
    const uint64_t data_at = static_cast<uint64_t>(p - head);
    if ((key >> 3) == field::kPayload && v == record_end - data_at) {
      // The same record with a payload of no bytes; its location is where
      // the payload is in the frame.
      *payload_at = static_cast<uint32_t>(data_at);
      const size_t kept = static_cast<size_t>(field_start - fields);
      const size_t tag = static_cast<size_t>(wire::varintSize(key));
      const size_t body = kept + tag + 1;
      resizeForOverwrite(*content, wire::varintSize(body) + body);
      uint8_t* out = wire::putVarint(content->data(), body);
      std::memcpy(out, fields, kept);
      out = wire::putVarint(out + kept, key);
      *out = 0;
      return true;
    }
    if (v > static_cast<uint64_t>(end - p)) return false;
    p += v;
  }
  return false;
}

// A frame (or the tail) starts: the compactness rules imply no counter, the
// main thread (header.pid) and times from 0 again; a new frame id.
void LogReader::startFrame(Carried& c, const proto::Header* header) {
  c.counter_known = false;
  c.prev_tid = header && header->pid() ? static_cast<uint32_t>(header->pid()) : 0;
  c.prev_return_ns = 0;
  ++c.frame_id;
}

bool LogReader::loadNextFrame() {
  while (pos_ < file_size_) {
    uint8_t magic[8];
    const uint64_t left = file_size_ - pos_;
    if (left < 4) {
      interrupted_frame_ = true;
      return false;
    }
    readAt(pos_, magic, left < 8 ? static_cast<size_t>(left) : 8);
    const uint32_t m = wire::loadLE32(magic);
    if ((m & kSkippableMagicMask) == kSkippableMagicBase) {
      if (left < 8 || 8 + uint64_t{wire::loadLE32(magic + 4)} > left) {
        interrupted_frame_ = true;
        return false;
      }
      pos_ += 8 + uint64_t{wire::loadLE32(magic + 4)};
      frames_end_ = pos_;
      continue;
    }
    if (m != kZstdMagic) return fail(seq_, pos_, "expected a zstd frame, found magic " + hex32(m));
    size_t frame_size = 0;
    std::string why;
    FrameShape shape;
    const FrameShape* known = nullptr;
    bool ok = true, skipped = false;
    uint32_t payload_at = 0;
    if (skip_large_payloads_) {
      ok = frameShape(pos_, &shape, &why);
      known = &shape;
      skipped = ok && loadFrameWithoutPayload(pos_, shape, &seq_.content, &payload_at);
      if (skipped) frame_size = shape.size;
    }
    if (ok && !skipped) ok = decompressFrameAt(pos_, &seq_.content, &frame_size, &why, known);
    seq_.skipped_payload_at = skipped ? payload_at : 0;
    if (!ok) {
      if (why == "truncated") {
        interrupted_frame_ = true;
        return false;
      }
      return fail(seq_, pos_, "corrupt zstd frame: " + why);
    }
    seq_.frame = pos_;
    seq_.base = 0;
    seq_.cursor = 0;
    seq_.in_tail = false;
    startFrame(seq_.carried, header_.get());
    pos_ += frame_size;
    frames_end_ = pos_;
    return true;
  }
  return false;
}

// The tail holds the records written after the last frame. It continues the
// log only if it is not in a frame already: the process may have died after
// writing the tail as a frame but before emptying it. The frame's offset,
// noted before it was written, says so when that frame was read whole (and
// a log of format 1.10 or before, its first counter: smaller than the
// frames' last one, unless every record of the tail was uncounted).
bool LogReader::loadTail() {
  const uint64_t tail_offset = kControlSize;
  uint64_t first = 0, frame_at = 0;
  // Read directly: a live writer changes these bytes.
  if (!readDirect(8 + offsetof(FileControl, tail_first_counter), &first, sizeof(first))) first = 0;
  if (!readDirect(8 + offsetof(FileControl, tail_frame_at), &frame_at, sizeof(frame_at))) frame_at = 0;
  const uint64_t interrupted_at = pos_;
  auto interruptedError = [&]() {
    return fail(seq_, interrupted_at, "truncated zstd frame (the file ends inside it)");
  };
  if (first == 0 || (frame_at && frame_at < frames_end_)) return interrupted_frame_ ? interruptedError() : false;
  if (first <= seq_.carried.last_counter) return interrupted_frame_ ? interruptedError() : false;
  if (first > seq_.carried.last_counter + 1) {
    if (interrupted_frame_) return interruptedError();
    return fail(seq_, tail_offset,
                "events " + std::to_string(seq_.carried.last_counter + 1) + " to " + std::to_string(first - 1) +
                    " are missing before the tail");
  }
  if (file_size_ <= tail_offset) return fail(seq_, file_size_, "file ends before its tail");
  if (!readTail(seq_.content)) return fail(seq_, tail_offset, "cannot read the tail");
  if (interrupted_frame_)
    notes_.push_back("the frame at offset " + std::to_string(interrupted_at) +
                     " was cut short when the recording process stopped; its records were "
                     "recovered from the tail");
  seq_.frame = Location::kTailFrame;
  seq_.skipped_payload_at = 0;
  seq_.base = tail_offset;
  seq_.cursor = 0;
  seq_.in_tail = true;
  startFrame(seq_.carried, header_.get());
  return true;
}

// The tail's bytes, read only as far as its records go: a record's length is
// never 0, so a zero where the next record would start ends them. A tail is
// 256 KiB of which a short-lived process fills a few hundred bytes, and
// `radar record` reads the tail of every log a process left open at its exec.
bool LogReader::readTail(Bytes& content) {
  uint64_t avail = file_size_ > kControlSize ? file_size_ - kControlSize : 0;
  if (avail > control_.tail_capacity) avail = control_.tail_capacity;
  content.clear();
  size_t have = 0;
  size_t want = static_cast<size_t>(std::min<uint64_t>(avail, kTailFirstRead));
  uint64_t walk = 0;  // where the next record starts
  for (;;) {
    growKeeping(content, want);
    if (!readDirect(kControlSize + have, content.data() + have, want - have)) return false;
    have = want;
    while (walk < have) {
      const uint8_t* p = content.data() + walk;
      if (*p == 0) {
        content.resize(static_cast<size_t>(walk) + 1);  // the zero stays: it ends the records
        return true;
      }
      uint64_t len;
      if (!wire::getVarint(p, content.data() + have, len)) break;  // cut by the read, or damaged
      const uint64_t at = static_cast<uint64_t>(p - content.data());
      walk = len < avail - at ? at + len : avail;  // a length past the end: the decoder says so
    }
    if (have == avail) return true;
    want = static_cast<size_t>(std::min<uint64_t>(avail, std::max<uint64_t>(4 * uint64_t{have}, walk + 16)));
  }
}

bool LogReader::next(Record& record) { return decodeNext(seq_, record); }

// The next record of `s`; at the end of its content, the sequential reader
// goes on to the next frame, then the tail; random access stops there.
bool LogReader::decodeNext(DecodeState& s, Record& r) {
  Carried& c = s.carried;
  for (;;) {
    if (s.done) return false;
    if (s.cursor >= s.content.size() || (s.in_tail && s.content[s.cursor] == 0)) {
      if (s.in_tail || &s != &seq_) {
        s.done = true;
        return false;
      }
      if (!s.frames_done) {
        if (loadNextFrame()) continue;
        if (s.done) return false;
        s.frames_done = true;
      }
      if (!loadTail()) {
        s.done = true;
        return false;
      }
      continue;
    }
    // One record: varint length, then the Event.
    const uint8_t* base = s.content.data();
    const uint8_t* p = base + s.cursor;
    const uint8_t* end = base + s.content.size();
    const uint64_t where = s.in_tail ? s.base + s.cursor : s.frame;
    auto at = [&](const std::string& what) {
      return s.in_tail ? what
                       : what + " (in the frame at this offset, byte " + std::to_string(s.cursor) + " of its content)";
    };
    uint64_t len;
    if (!wire::getVarint(p, end, len)) return fail(s, where, at("truncated record length"));
    if (len == 0) return fail(s, where, at("zero record length"));
    if (len > static_cast<uint64_t>(end - p)) {
      if (s.in_tail) return fail(s, where, "truncated record (the file ends inside it)");
      return fail(s, where,
                  at("record length " + std::to_string(len) + " exceeds the " + std::to_string(end - p) +
                     " bytes left in the frame"));
    }
    WireEvent w;
    const char* why = decodeEvent(p, p + len, base, r, w);
    if (*why) return fail(s, where, at(std::string("bad record: ") + why));
    r.location = {s.frame, static_cast<uint32_t>(s.cursor)};
    if (s.skipped_payload_at) r.payload_location.offset = s.skipped_payload_at;  // the frame's, not the stand-in's
    s.cursor = static_cast<size_t>(p + len - base);
    RADAR_CHECK(s.cursor <= s.content.size());  // the length was checked against the frame
    r.payload_location.frame_offset = s.frame;

    if (!isCounted(r.kind)) {
      r.counter = 0;
      r.tid = 0;
      r.entry_ns = r.return_ns = 0;
      r.has_offset = false;
      r.offset = 0;
      return true;
    }
    if (w.has_counter) {
      if (w.counter <= c.last_counter)
        return fail(
            s, where,
            at("event counter " + std::to_string(w.counter) + " does not follow " + std::to_string(c.last_counter)));
      r.counter = w.counter;
    } else {
      if (!c.counter_known) return fail(s, where, at("first event of a frame has no counter"));
      r.counter = c.last_counter + 1;
    }
    c.counter_known = true;
    RADAR_CHECK(r.counter > c.last_counter);  // counters only grow within a log
    c.last_counter = r.counter;
    r.tid = w.has_tid ? w.tid : c.prev_tid;
    c.prev_tid = r.tid;
    // Clocks read by a recorder are below 2^62 ns (146 years): a time past
    // that is damage, and would overflow every reader's arithmetic.
    if (__builtin_add_overflow(c.prev_return_ns, w.entry_delta, &r.entry_ns) || r.entry_ns < 0 ||
        r.entry_ns >= kMaxTimeNs || w.duration >= static_cast<uint64_t>(kMaxTimeNs - r.entry_ns))
      return fail(s, where, at("absurd time"));
    r.return_ns = r.entry_ns + static_cast<int64_t>(w.duration);
    c.prev_return_ns = r.return_ns;
    r.has_offset = isData(r.kind) && r.channel != 0;
    r.offset = 0;
    if (isSyncKind(r.kind) && w.has_offset) r.offset = w.offset;  // the object's number
    if (r.has_offset) {
      if (r.channel >= s.offsets.size()) {
        if (r.channel > (1u << 24)) return fail(s, where, at("absurd channel index"));
        s.offsets.resize(r.channel + 1);
      }
      ChannelOffsets& co = s.offsets[r.channel];
      const int dir = categoryOf(r.kind) == Category::Send ? 0 : 1;
      if (w.has_offset) {
        r.offset = w.offset;
      } else if (co.frame == c.frame_id) {
        r.offset = co.next[dir];
      } else {
        return fail(s, where, at("first use of a channel in a frame has no offset"));
      }
      co.frame = c.frame_id;
      co.next[dir] = r.offset + r.bytesMoved();
    }
    return true;
  }
}

bool LogReader::readRecord(const Location& where, Record* out, LogError* error) {
  auto bad = [&](std::string why) {
    if (error) *error = LogError{path_, where.frame_offset, std::move(why)};
    return false;
  };
  // Decoded from the start of the record's frame, so that its compact
  // fields (implied counter, thread, times, offsets) are right; or, for a
  // later record of the frame read last, from where that one began. The
  // tail read last serves too, for the records it holds: a live writer may
  // have added more since, read with the tail again.
  DecodeState& s = random_;
  const bool resume = resume_.valid && resume_.frame == where.frame_offset && resume_.next <= where.offset &&
                      (where.frame_offset != Location::kTailFrame ||
                       (s.in_tail && where.offset < s.content.size() && s.content[where.offset] != 0));
  bool ok = true;
  std::string why;
  if (resume) {
    s.cursor = resume_.next;
    s.carried = resume_.carried;
    // The record there moved its channel's offset on: back to its start.
    if (resume_.channel) {
      if (resume_.channel >= s.offsets.size()) s.offsets.resize(resume_.channel + 1);
      s.offsets[resume_.channel].frame = s.carried.frame_id;
      s.offsets[resume_.channel].next[resume_.direction] = resume_.offset;
    }
  } else {
    if (where.frame_offset == Location::kTailFrame) {
      ok = readTail(s.content);
      why = "cannot read the tail";
      s.base = kControlSize;
      s.in_tail = true;
    } else {
      size_t frame_size = 0;
      ok = where.frame_offset < file_size_ && decompressFrameAt(where.frame_offset, &s.content, &frame_size, &why);
      s.base = 0;
      s.in_tail = false;
    }
    s.cursor = 0;
    s.carried = Carried{};
    startFrame(s.carried, header_.get());
    s.carried.frame_id = ++random_frame_ids_;
  }
  resume_.valid = false;
  if (ok) {
    s.frame = where.frame_offset;
    s.done = false;
    s.error.reset();
    ok = false;
    Resume before;
    while (s.cursor < s.content.size() && !(s.in_tail && s.content[s.cursor] == 0)) {
      const size_t at = s.cursor;
      // The state before each record: the next call may ask for this one again.
      before.next = at;
      before.carried = s.carried;
      if (!decodeNext(s, *out)) break;
      if (at == where.offset) {
        ok = true;
        break;
      }
      if (at > where.offset) break;
    }
    if (!ok) why = s.error ? s.error->message : "no record starts at this offset";
    if (ok) {
      resume_ = before;
      resume_.valid = true;
      resume_.frame = where.frame_offset;
      resume_.channel = out->has_offset ? out->channel : 0;
      resume_.direction = categoryOf(out->kind) == Category::Send ? 0 : 1;
      resume_.offset = out->offset;
    }
  }
  if (!ok) return bad("cannot re-read the record: " + why);
  return true;
}

bool LogReader::readPayload(const Location& where, size_t length, std::string* out, LogError* error) {
  auto bad = [&](std::string why) {
    if (error) *error = LogError{path_, where.frame_offset, std::move(why)};
    return false;
  };
  if (where.frame_offset == Location::kTailFrame) {
    if (uint64_t{where.offset} + length > control_.tail_capacity) return bad("payload outside the tail");
    out->resize(length);
    if (!readDirect(kControlSize + where.offset, out->data(), length))
      return bad("cannot read the payload from the tail");
    return true;
  }
  if (where.frame_offset != cached_frame_) {
    size_t frame_size = 0;
    std::string why;
    cached_frame_ = ~uint64_t{0};
    if (where.frame_offset >= file_size_ || !decompressFrameAt(where.frame_offset, &cached_content_, &frame_size, &why))
      return bad("cannot decompress the frame holding the payload: " + why);
    cached_frame_ = where.frame_offset;
  }
  if (uint64_t{where.offset} + length > cached_content_.size()) return bad("payload outside its frame");
  out->assign(reinterpret_cast<const char*>(cached_content_.data()) + where.offset, length);
  return true;
}

std::vector<std::string> listLogs(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  constexpr std::string_view kSuffix = ".rlog";
  while (dirent* e = ::readdir(d)) {
    const std::string_view name = e->d_name;
    if (name.size() >= kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix)
      out.push_back(dir + "/" + e->d_name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace radar::log
