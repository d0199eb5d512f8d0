#include "record/flight.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include <google/protobuf/text_format.h>

#include "log/finalize.h"
#include "log/format.h"
#include "log/kinds.h"
#include "log/reader.h"
#include "log/wire.h"
#include "record/recording.h"

namespace radar::record {
namespace {

constexpr uint32_t kSkippableFrame = log::kSkippableMagicBase;  // the gap after the carried frame
// A frame is read whole to find its channel definitions: one larger (a
// message of gigabytes, kept whole) makes its log one radar cannot keep.
constexpr uint64_t kLargestFrame = uint64_t{1} << 30;

// pread() or pwrite() of all `n` bytes at `at`, whatever interrupts them.
template <class Byte, class Call>
bool whole(Call call, int fd, Byte* p, size_t n, uint64_t at) {
  while (n) {
    const ssize_t done = call(fd, p, n, static_cast<off_t>(at));
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    p += done;
    at += static_cast<uint64_t>(done);
    n -= static_cast<size_t>(done);
  }
  return true;
}

bool readExactly(int fd, void* buf, size_t n, uint64_t at) {
  return whole(::pread, fd, static_cast<char*>(buf), n, at);
}

bool writeExactly(int fd, const void* buf, size_t n, uint64_t at) {
  return whole(::pwrite, fd, static_cast<const char*>(buf), n, at);
}

std::string skippable(uint32_t magic, uint64_t size) {
  std::string s(8, '\0');
  wire::storeLE32(s.data(), magic);
  wire::storeLE32(s.data() + 4, static_cast<uint32_t>(size));
  return s;
}

// The size of the zstd frame at `at`, from its block headers, or 0 when it
// does not end by `end` (the writer is still writing it) or is not one.
uint64_t zstdFrameSize(int fd, uint64_t at, uint64_t end) {
  uint8_t head[ZSTD_FRAMEHEADERSIZE_MAX];
  const uint64_t avail = end - at;
  const size_t want = avail < sizeof(head) ? static_cast<size_t>(avail) : sizeof(head);
  if (want < 6 || !readExactly(fd, head, want, at)) return 0;
  const size_t header = ZSTD_frameHeaderSize(head, want);
  if (ZSTD_isError(header)) return 0;
  const bool checksum = head[4] & 4;
  uint64_t pos = at + header;
  for (;;) {
    uint8_t b[3];
    if (pos + 3 > end || !readExactly(fd, b, 3, pos)) return 0;
    const uint32_t bh = b[0] | b[1] << 8 | b[2] << 16;
    const uint32_t type = (bh >> 1) & 3, size = bh >> 3;
    if (type == 3) return 0;  // reserved: not a frame
    pos += 3 + (type == 1 ? 1 : size);
    if (bh & 1) break;
  }
  pos += checksum ? 4 : 0;
  return pos <= end ? pos - at : 0;
}

// The fields of one record that say whether it is carried over, or tell
// an end --save-on looks for.
struct RecordFacts {
  log::Kind kind = log::Kind::Unspecified;
  bool has_counter = false;
  uint64_t counter = 0;
  int32_t status = 0, peer_pid = 0;
  std::vector<std::string_view> strings;
  std::string_view channel;  // ChannelInfo
};

bool factsOf(const uint8_t* p, const uint8_t* end, RecordFacts* f) {
  while (p < end) {
    uint64_t key = 0, v = 0;
    if (!wire::getVarint(p, end, key)) return false;
    const uint32_t field = static_cast<uint32_t>(key >> 3), type = key & 7;
    if (type == 0) {
      if (!wire::getVarint(p, end, v)) return false;
      if (field == 1) f->kind = static_cast<log::Kind>(v);
      if (field == 2) f->has_counter = true, f->counter = v;
      if (field == 16) f->peer_pid = static_cast<int32_t>(v);
      if (field == 17) f->status = static_cast<int32_t>(v);
    } else if (type == 2) {
      if (!wire::getVarint(p, end, v) || v > static_cast<uint64_t>(end - p)) return false;
      const std::string_view bytes(reinterpret_cast<const char*>(p), static_cast<size_t>(v));
      if (field == 21) f->strings.push_back(bytes);
      if (field == 24) f->channel = bytes;
      p += v;
    } else if (type == 5 || type == 1) {
      const size_t n = type == 5 ? 4 : 8;
      if (static_cast<size_t>(end - p) < n) return false;
      p += n;
    } else {
      return false;
    }
  }
  return true;
}

uint32_t channelNumber(std::string_view info) {
  const auto* p = reinterpret_cast<const uint8_t*>(info.data());
  const uint8_t* end = p + info.size();
  uint64_t key = 0, v = 0;
  if (wire::getVarint(p, end, key) && key == (1 << 3 | 0) && wire::getVarint(p, end, v))
    return static_cast<uint32_t>(v);
  return 0;
}

}  // namespace

FlightLog::~FlightLog() {
  if (fd_ >= 0) ::close(fd_);
}

FlightLog::Start FlightLog::start(std::string* error) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd_ < 0) {
    *error = path_ + ": " + std::strerror(errno);
    return Start::Unusable;
  }
  log::FileControl c{};
  uint8_t pointer[8];
  // The writer stores the control block's magic last, after the pointer:
  // a log without it yet is one being made.
  const bool read = readExactly(fd_, &c, sizeof(c), 8);
  static constexpr char kNone[sizeof(c.magic)] = {};
  auto unusable = [&](const std::string& why) {
    *error = path_ + ": " + why;
    ::close(fd_);
    fd_ = -1;
    return Start::Unusable;
  };
  // (The magic, the version and the tail's size are stored one after the
  // other: a log with one of them still 0 is being made.)
  if (!read || std::memcmp(c.magic, kNone, sizeof(c.magic)) == 0 || c.format_major == 0 || c.tail_capacity == 0) {
    ::close(fd_);
    fd_ = -1;
    return Start::NotYet;
  }
  if (std::memcmp(c.magic, log::kFileMagic, sizeof(c.magic)) != 0 || c.tail_capacity < log::kMinTailCapacity ||
      c.tail_capacity > log::kMaxTailCapacity)
    return unusable("not a radar log");
  pointer_ = log::kControlSize + uint64_t{c.tail_capacity};
  if (!readExactly(fd_, pointer, 8, pointer_) || wire::loadLE32(pointer) != log::kFlightMagicFrame ||
      wire::loadLE32(pointer + 4) != log::kFlightSlot - 8)
    return unusable("not a flight log, or one trimmed before (its writer had no flight slot)");
  live_start_ = frames_end_ = pointer_ + log::kFlightSlot;
  return Start::Ready;
}

// Reads the frame at `at` (ending by `end`): its size, and the records a
// later reader needs if it is dropped. `whole` is false when the writer has
// not finished it.
bool FlightLog::readFrame(uint64_t at, uint64_t end, Frame* frame, bool* whole, std::string* error) {
  *whole = false;
  uint8_t magic[4];
  if (end - at < 8 || !readExactly(fd_, magic, 4, at)) return true;
  if (wire::loadLE32(magic) != log::kZstdMagic) {
    *error = path_ + ": offset " + std::to_string(at) + ": expected a zstd frame";
    return false;
  }
  const uint64_t size = zstdFrameSize(fd_, at, end);
  if (!size) return true;
  if (size > kLargestFrame) {
    *error = path_ + ": offset " + std::to_string(at) + ": a frame of " + std::to_string(size) +
             " bytes, too large to read for its channels";
    return false;
  }
  std::string compressed(size, '\0');
  if (!readExactly(fd_, compressed.data(), size, at)) return true;
  const unsigned long long content = ZSTD_getFrameContentSize(compressed.data(), size);
  if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN || content > kLargestFrame) {
    *error = path_ + ": offset " + std::to_string(at) + ": a frame without its size";
    return false;
  }
  std::string records(content, '\0');
  const size_t n = ZSTD_decompress(records.data(), records.size(), compressed.data(), size);
  if (ZSTD_isError(n) || n != content) {
    *error = path_ + ": offset " + std::to_string(at) + ": corrupt zstd frame";
    return false;
  }
  frame->offset = at;
  frame->size = size;
  keepRecords(records, frame);
  uint64_t counter = 0;
  noteEnds(reinterpret_cast<const uint8_t*>(records.data()),
           reinterpret_cast<const uint8_t*>(records.data()) + records.size(), &counter);
  *whole = true;
  return true;
}

// Keeps the frame's header, channel definitions and notes: what the records
// after it may need once it is gone.
void FlightLog::keepRecords(const std::string& content, Frame* frame) {
  const auto* p = reinterpret_cast<const uint8_t*>(content.data());
  const uint8_t* end = p + content.size();
  while (p < end) {
    const uint8_t* start = p;
    uint64_t len = 0;
    if (!wire::getVarint(p, end, len) || len == 0 || len > static_cast<uint64_t>(end - p)) return;
    RecordFacts f;
    const bool ok = factsOf(p, p + len, &f);
    p += len;
    if (!ok) return;
    const std::string whole(reinterpret_cast<const char*>(start), static_cast<size_t>(p - start));
    if (f.kind == log::Kind::Header && header_.empty())
      header_ = whole;
    else if (f.kind == log::Kind::Channel || f.kind == log::Kind::Note)
      frame->carried.push_back(whole);
  }
}

// The exits and reaped children among the records p..end (a frame's, or
// the tail's) after the last ones told.
void FlightLog::noteEnds(const uint8_t* p, const uint8_t* end, uint64_t* last) {
  uint64_t& counter = *last;
  while (p < end) {
    uint64_t len = 0;
    if (!wire::getVarint(p, end, len) || len == 0 || len > static_cast<uint64_t>(end - p)) return;
    RecordFacts f;
    const bool ok = factsOf(p, p + len, &f);
    p += len;
    if (!ok) return;
    if (!log::isCounted(f.kind)) continue;
    counter = f.has_counter ? f.counter : counter + 1;
    if (counter <= told_to_) continue;
    told_to_ = counter;
    if (f.kind == log::Kind::Exit) ends_.push_back({false, 0, f.status});
    if (f.kind == log::Kind::Wait && f.peer_pid > 0) ends_.push_back({true, f.peer_pid, f.status});
  }
}

// The tail's records written since the last look, for the ends they tell.
bool FlightLog::scanTail() {
  uint64_t first = 0;
  if (!readExactly(fd_, &first, 8, 8 + offsetof(log::FileControl, tail_first_counter)) || !first) return true;
  if (first != tail_first_ || frames_end_ != tail_frames_end_) {  // a new tail since: read it from its start
    tail_frames_end_ = frames_end_;
    tail_first_ = first;
    tail_read_ = 0;
    tail_counter_ = first - 1;
  }
  const uint64_t capacity = pointer_ - log::kControlSize;
  if (tail_read_ >= capacity) return true;
  std::string tail(capacity - tail_read_, '\0');
  if (::pread(fd_, tail.data(), tail.size(), static_cast<off_t>(log::kControlSize + tail_read_)) <= 0) return false;
  // A record's first length byte is stored last: the first zero ends them.
  const auto* p = reinterpret_cast<const uint8_t*>(tail.data());
  const uint8_t* end = p;
  const uint8_t* limit = p + tail.size();
  for (uint64_t len = 0; end < limit && *end;) {
    const uint8_t* q = end;
    if (!wire::getVarint(q, limit, len) || len > static_cast<uint64_t>(limit - q)) break;
    end = q + len;
  }
  noteEnds(p, end, &tail_counter_);
  tail_read_ += static_cast<uint64_t>(end - p);
  return true;
}

bool FlightLog::scan(std::string* error) {
  log::FileControl c;
  struct stat st {};
  if (!readExactly(fd_, &c, sizeof(c), 8) || ::fstat(fd_, &st) != 0) {
    *error = path_ + ": " + std::strerror(errno);
    return false;
  }
  // A frame the writer is writing now ends the frames that are sure.
  const uint64_t frame_at = __atomic_load_n(&c.tail_frame_at, __ATOMIC_RELAXED);
  uint64_t end = static_cast<uint64_t>(st.st_size);
  if (frame_at && frame_at < end) end = frame_at;
  while (frames_end_ < end) {
    Frame f;
    bool whole = false;
    if (!readFrame(frames_end_, end, &f, &whole, error)) return false;
    if (!whole) break;
    frames_end_ += f.size;
    frames_.push_back(std::move(f));
  }
  scanTail();
  return true;
}

bool FlightLog::trim(uint64_t keep, std::string* error) {
  if (done_) return true;
  if (fd_ < 0 && unusable_.empty()) {
    const Start started = start(&unusable_);
    if (started == Start::NotYet) return true;  // the next look
  }
  if (!unusable_.empty()) {
    *error = unusable_;
    return false;
  }
  uint32_t state = 0;
  readExactly(fd_, &state, 4, 8 + offsetof(log::FileControl, state));
  if (!scan(error)) return false;
  bool ok = true;
  if (frames_end_ - live_start_ > keep && frames_.size() >= 2) {
    const uint64_t goal = keep / 4 * 3;
    size_t n = 0;
    uint64_t left = frames_end_ - live_start_;
    while (n + 1 < frames_.size() && left > goal) left -= frames_[n++].size;
    ok = drop(n, error);
  }
  if (state & (log::kStateClosed | log::kStateFinalized)) {
    // Its process closed it, and it was read to its end: its descriptor
    // goes (a server may start thousands of processes).
    done_ = true;
    punchPending();
    ::close(fd_);
    fd_ = -1;
    frames_.clear();
  }
  return ok;
}

namespace {

constexpr uint64_t kHalfSlot = (log::kFlightSlot - 8) / 2;  // a carried frame's room: two, used in turn
constexpr uint64_t kRelayEvery = uint64_t{1} << 31;         // skippable frames say their size in 32 bits
constexpr uint64_t kLongestHop = 8 + uint64_t{0xFFFFFFFF};

// The skippable frames that lead from `from` to `to` across what readers
// skip: one at `from`, then one at each of `relays`.
std::vector<std::pair<uint64_t, std::string>> hops(uint64_t from, const std::vector<uint64_t>& relays, uint64_t to) {
  std::vector<std::pair<uint64_t, std::string>> out;
  uint64_t at = from;
  for (uint64_t next : relays) {
    out.emplace_back(at, skippable(kSkippableFrame, next - at - 8));
    at = next;
  }
  out.emplace_back(at, skippable(kSkippableFrame, to - at - 8));
  return out;
}

std::string compressed(const std::string& content) {
  std::string frame(ZSTD_compressBound(content.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
  const size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), content.data(), content.size());
  ZSTD_freeCCtx(cctx);
  frame.resize(ZSTD_isError(n) ? 0 : n);
  return frame;
}

}  // namespace

std::vector<uint64_t> flightRelays(uint64_t frames_at, int half, uint64_t kept_from) {
  std::vector<uint64_t> relays;
  for (uint64_t g = frames_at + (half ? kRelayEvery / 2 : 0); g + 8 <= kept_from; g += kRelayEvery) relays.push_back(g);
  return relays;
}

// What the frames dropped so far, and the oldest `count` frames kept, hold
// that later records need.
void FlightLog::carryFrom(size_t count, std::map<uint32_t, std::string>* channels,
                          std::vector<std::string>* notes) const {
  *channels = channels_;
  *notes = notes_;
  for (size_t k = 0; k < count; ++k)
    for (const std::string& record : frames_[k].carried) {
      RecordFacts f;
      const auto* p = reinterpret_cast<const uint8_t*>(record.data());
      const uint8_t* end = p + record.size();
      uint64_t len = 0;
      wire::getVarint(p, end, len);
      factsOf(p, end, &f);
      if (f.kind == log::Kind::Channel)
        (*channels)[channelNumber(f.channel)] = record;
      else if (std::find(notes->begin(), notes->end(), record) == notes->end())
        notes->push_back(record);
    }
}

// Drops the oldest `count` frames. The carried frame goes into the half of
// the slot no reader looks at, followed by skippable frames to the oldest
// frame kept: relays every 2 GiB where frames were dropped before (on a
// grid of their own for each half, so that the relays readers follow now
// are never written over), then the pointer moves to it. What readers no
// longer look at is given back at the next trim: a reader that took the
// old way a moment ago still finds it.
bool FlightLog::drop(size_t count, std::string* error) {
  if (header_.empty()) {
    *error = path_ + ": its first frame holds no header";
    return false;
  }
  std::map<uint32_t, std::string> channels;
  std::vector<std::string> notes;
  carryFrom(count, &channels, &notes);
  std::string content = header_;
  for (const auto& [number, record] : channels) content += record;
  for (const std::string& note : notes) content += note;
  const std::string frame = compressed(content);
  const uint64_t new_start = frames_[count].offset;
  const int half = carry_half_ == 0 ? 1 : 0;
  const uint64_t slot_start = pointer_ + 8, at = slot_start + half * kHalfSlot, frames_at = pointer_ + log::kFlightSlot;
  if (frame.empty() || frame.size() + 8 > kHalfSlot) {
    *error = path_ + ": what must be carried over (" + std::to_string(content.size()) + " bytes) does not fit";
    return false;
  }
  const std::vector<uint64_t> relays = flightRelays(frames_at, half, live_start_);
  const uint64_t last = relays.empty() ? at + frame.size() : relays.back();
  if (new_start - last > kLongestHop) {
    *error = path_ + ": a frame too large to drop (" + std::to_string(new_start - live_start_) + " bytes)";
    return false;
  }
  punchPending();
  bool written = writeExactly(fd_, frame.data(), frame.size(), at);
  for (const auto& [where, header] : hops(at + frame.size(), relays, new_start))
    written = written && writeExactly(fd_, header.data(), 8, where);
  const std::string pointer = skippable(log::kFlightMagicFrame, at - slot_start);
  if (!written || !writeExactly(fd_, pointer.data() + 4, 4, pointer_ + 4)) {
    *error = path_ + ": " + std::strerror(errno);
    return false;
  }
  // Given back at the next trim: the other half, and what was dropped but
  // the relays.
  pending_.clear();
  pending_.emplace_back(slot_start + (1 - half) * kHalfSlot, slot_start + (2 - half) * kHalfSlot);
  uint64_t from = frames_at;
  for (uint64_t g : relays) {
    pending_.emplace_back(from, g);
    from = g + 8;
  }
  pending_.emplace_back(from, new_start);
  for (size_t k = 0; k < count; ++k) dropped_ += frames_[k].size;
  frames_.erase(frames_.begin(), frames_.begin() + static_cast<ptrdiff_t>(count));
  channels_ = std::move(channels);
  notes_ = std::move(notes);
  carry_half_ = half;
  live_start_ = new_start;
  return true;
}

void FlightLog::punchPending() {
  for (const auto& [from, to] : pending_)
    if (to > from)
      ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from),
                  static_cast<off_t>(to - from));
  pending_.clear();
}

void FlightKeeper::trimAll(std::vector<std::string>* problems, std::vector<LogEnd>* ends) {
  for (const std::string& path : log::listLogs(dir_)) {
    const std::string name = path.substr(path.rfind('/') + 1);
    std::unique_ptr<FlightLog>& log = logs_[name];
    if (!log) log = std::make_unique<FlightLog>(path);
    std::string error;
    if (!log->trim(keep_, &error) && !said_[name]) {
      said_[name] = true;
      if (problems) problems->push_back(error);
    }
    for (const FlightLog::End& end : log->takeEnds())
      if (ends) ends->push_back({name, end});
  }
}

namespace {

// Copies the bytes of `in` that hold data in [from, to) to `out`: the
// dropped frames are holes, and stay holes.
bool copyData(int in, int out, uint64_t from, uint64_t to, std::string& buf) {
  for (off_t at = static_cast<off_t>(from); static_cast<uint64_t>(at) < to;) {
    const off_t data = ::lseek(in, at, SEEK_DATA);
    if (data < 0 || static_cast<uint64_t>(data) >= to) return true;  // no data after it
    const off_t hole = std::min<off_t>(::lseek(in, data, SEEK_HOLE), static_cast<off_t>(to));
    for (off_t p = data; p < hole;) {
      const size_t n = static_cast<size_t>(std::min<off_t>(hole - p, static_cast<off_t>(buf.size())));
      const ssize_t r = ::pread(in, buf.data(), n, p);
      if (r <= 0 || !writeExactly(out, buf.data(), static_cast<size_t>(r), static_cast<uint64_t>(p))) return false;
      p += r;
    }
    at = hole;
  }
  return true;
}

// What says where a log's writer and trimmer are.
struct Marks {
  uint64_t first = 0, frame_at = 0;  // the tail's first counter; the frame being written from it
  uint64_t kept_from = 0;            // a flight log's oldest frame kept: each trim moves it on
  bool operator==(const Marks&) const = default;
};

// Where reading a flight log goes to its oldest frame kept, followed as a
// reader does: the pointer, the carried frame, the skippable frames after
// it. 0 for a log of no flight recording.
uint64_t keptFrom(int fd, uint64_t pointer_at) {
  struct stat st {};
  uint8_t head[8];
  if (::fstat(fd, &st) != 0 || !readExactly(fd, head, 8, pointer_at) || wire::loadLE32(head) != log::kFlightMagicFrame)
    return 0;
  const auto size = static_cast<uint64_t>(st.st_size);
  uint64_t at = pointer_at + 8 + wire::loadLE32(head + 4);
  if (at == pointer_at + log::kFlightSlot) return at;  // nothing dropped yet
  at += zstdFrameSize(fd, at, size);                   // the carried frame
  for (int hop = 0;
       hop < 1 << 16 && at + 8 <= size && readExactly(fd, head, 8, at) && wire::loadLE32(head) == kSkippableFrame;
       ++hop)
    at += 8 + uint64_t{wire::loadLE32(head + 4)};
  return at;
}

bool readMarks(int fd, uint64_t pointer_at, Marks* m) {
  m->kept_from = keptFrom(fd, pointer_at);
  return readExactly(fd, &m->first, 8, 8 + offsetof(log::FileControl, tail_first_counter)) &&
         readExactly(fd, &m->frame_at, 8, 8 + offsetof(log::FileControl, tail_frame_at));
}

// Copies a log its process may be writing and radar record trimming. The
// control block and the tail are copied while no frame is made of the tail;
// then the frames, as far as they go. A frame made since holds records the
// copied tail holds too, and a reader keeps one copy of them (the tail
// continues the frames only where it starts after their last counter); a
// trim since (the oldest frame kept moved on) starts the copy again.
bool copyLogAsItIs(int in, int out, std::string* why) {
  uint32_t capacity = 0;
  if (!readExactly(in, &capacity, 4, 8 + offsetof(log::FileControl, tail_capacity)) ||
      capacity < log::kMinTailCapacity || capacity > log::kMaxTailCapacity) {
    *why = "not a radar log";
    return false;
  }
  const uint64_t frames_at = log::kControlSize + uint64_t{capacity};
  std::string buf(1 << 20, '\0');
  for (int attempt = 0; attempt < 1000; ++attempt) {
    Marks before, tail_copied, after;
    // (A frame being made of the tail, frame_at, is fine: a reader keeps
    // the tail unless it finds that frame whole.)
    if (!readMarks(in, frames_at, &before)) break;
    if (::ftruncate(out, 0) != 0 || !copyData(in, out, 0, frames_at, buf) || !readMarks(in, frames_at, &tail_copied))
      break;
    if (!(tail_copied == before)) continue;
    struct stat st {};
    if (::fstat(in, &st) != 0) break;
    const auto size = static_cast<uint64_t>(st.st_size);
    if (::ftruncate(out, static_cast<off_t>(size)) != 0 || !copyData(in, out, frames_at, size, buf) ||
        !readMarks(in, frames_at, &after))
      break;
    if (after.kept_from == before.kept_from) return true;
  }
  *why = "it could not be copied whole (it kept changing, or could not be read)";
  return false;
}

bool copyLogAsItIs(const std::string& from, const std::string& to, std::string* error) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in < 0) {
    *error = from + ": " + std::strerror(errno);
    return false;
  }
  const int out = ::open(to.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (out < 0) {
    *error = to + ": " + std::strerror(errno);
    ::close(in);
    return false;
  }
  std::string why;
  const bool ok = copyLogAsItIs(in, out, &why);
  if (!ok) {
    *error = from + ": " + why;
    ::unlink(to.c_str());
  }
  ::close(in);
  ::close(out);
  return ok;
}

}  // namespace

bool freezeRecording(const std::string& dir, const std::string& into, proto::Recording recording, std::string* error) {
  if (::mkdir(into.c_str(), 0700) != 0) {
    *error = into + ": " + std::strerror(errno);
    return false;
  }
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  // Every log copied first, one right after the other, then each read
  // and compacted: the copies are as close together in time as they can be.
  std::vector<std::string> copies;
  for (const std::string& path : log::listLogs(dir)) {
    const std::string to = into + path.substr(path.rfind('/'));
    std::string why;
    if (copyLogAsItIs(path, to, &why))
      copies.push_back(to);
    else
      recording.add_problems()->set_what("not frozen: " + why);
  }
  const size_t copied = copies.size();
  for (const std::string& to : copies) {
    std::string why;
    log::LogError read_error;
    auto reader = log::LogReader::open(to, &read_error, log::LogReader::Payloads::SkipLarge);
    if (reader) {
      log::Record r;
      while (reader->next(r)) {
      }
      if (reader->error()) read_error = *reader->error();
      if (!reader->error()) log::finalizeLog(to, *reader, &why);
    }
    if (!reader || reader->error()) recording.add_problems()->set_what("frozen damaged: " + read_error.toString());
  }
  if (!copied) {
    ::rmdir(into.c_str());
    *error = dir + ": no log to freeze";
    return false;
  }
  recording.set_frozen(true);
  recording.set_end_realtime_ns(static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec);
  std::string text;
  google::protobuf::TextFormat::PrintToString(recording, &text);
  const int dir_fd = ::open(into.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool written = dir_fd >= 0 && writeFileAtomically(dir_fd, "recording.txt", text);
  if (dir_fd >= 0) ::close(dir_fd);
  if (!written) {
    *error = into + ": cannot write recording.txt";
    return false;
  }
  return true;
}

std::string nextFreezeDirectory(const std::string& dir, const std::string& prefix) {
  int last = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    const std::string format = prefix + "-%d%c";
    while (dirent* e = ::readdir(d)) {
      int n = 0;
      char rest = 0;
      if (std::sscanf(e->d_name, format.c_str(), &n, &rest) == 1 && n > last) last = n;
    }
    ::closedir(d);
  }
  return dir + "/" + prefix + "-" + std::to_string(last + 1);
}

}  // namespace radar::record
