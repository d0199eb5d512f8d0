// LogReader: streams the records of one log file in constant memory.
//
// Reading stops at the first damage (bad magic, newer version, corrupt or
// truncated frame, absurd length, truncated record): every complete record
// before it is returned, and error() names the file, the byte offset and
// what is wrong. Payloads can stay on disk: each record says where its
// payload is (payloadLocation) and readPayload() fetches it later.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "log/fields.h"
#include "log/format.h"
#include "log/kinds.h"
#include "log/record.h"

namespace radar::proto {
class Header;
class ChannelInfo;
}  // namespace radar::proto

namespace radar::log {

class LogReader {
 public:
  // Opens a log and reads its header. Returns null with *error set when the
  // file cannot be used at all.
  //
  // With Payloads::SkipLarge, next() gives a frame that holds one large
  // record (a big message, written as its own uncompressed frame) without
  // its payload: the record's other fields as always, an empty `payload`,
  // and the bytes neither read nor checked against the frame's checksum
  // (damage there goes unseen). `payload_location` is where the bytes are:
  // readPayload() fetches them, readRecord() reads the frame whole. For
  // readers that want only the events (radar record's summary) of logs of
  // many megabytes.
  enum class Payloads { Read, SkipLarge };
  static std::unique_ptr<LogReader> open(const std::string& path, LogError* error, Payloads payloads = Payloads::Read);
  ~LogReader();

  const std::string& path() const { return path_; }
  const proto::Header& header() const { return *header_; }
  const ControlState& control() const { return control_; }
  uint64_t fileSize() const { return file_size_; }

  // The next counted event or annotation after the header; false at the end
  // of the log or at damage (then error() is set).
  bool next(Record& record);
  const std::optional<LogError>& error() const { return seq_.error; }
  // Things worth knowing that are not damage (e.g. an interrupted write
  // whose records were recovered from the tail).
  const std::vector<std::string>& notes() const { return notes_; }
  // Bytes of the file consumed so far (for progress reports).
  uint64_t position() const { return pos_; }
  // After reading to the end: where the last complete frame ends, whether a
  // frame was cut short there, and how many tail bytes hold records (0 if
  // the tail was empty or repeated a frame).
  uint64_t framesEnd() const { return frames_end_; }
  bool interruptedFrame() const { return interrupted_frame_; }
  uint64_t tailUsed() const { return seq_.in_tail ? seq_.cursor : 0; }
  // The tail's records as next() read them (compacted from here, not read again).
  std::span<const uint8_t> tailRecords() const {
    return seq_.in_tail ? std::span<const uint8_t>(seq_.content.data(), seq_.cursor) : std::span<const uint8_t>();
  }
  bool atEnd() const { return seq_.done; }  // next() has returned false

  // Fetches `length` payload bytes at `where`. Returns false with *error set
  // when the file changed or is damaged there.
  bool readPayload(const Location& where, size_t length, std::string* out, LogError* error);

  // Re-reads one record found earlier (Record::location). Its views point
  // into `out`'s own storage until the next call. Records of one frame
  // asked for in order cost one decompression of the frame; a record
  // before the last one asked for decodes its frame from the start.
  bool readRecord(const Location& where, Record* out, LogError* error);

  static bool parseHeader(std::string_view bytes, proto::Header* out);
  static bool parseChannel(std::string_view bytes, proto::ChannelInfo* out);

 private:
  LogReader() = default;
  struct DecodeState;
  bool fail(DecodeState& s, uint64_t offset, std::string message);
  bool readAt(uint64_t offset, void* buf, size_t n);
  bool readDirect(uint64_t offset, void* buf, size_t n);
  bool readTail(Bytes& content);
  bool loadNextFrame();
  bool loadTail();
  bool decodeNext(DecodeState& s, Record& r);
  struct FrameShape;
  bool frameShape(uint64_t offset, FrameShape* shape, std::string* why);
  bool decompressFrameAt(uint64_t offset, Bytes* content, size_t* frame_size, std::string* why,
                         const FrameShape* known = nullptr);
  bool loadFrameWithoutPayload(uint64_t offset, const FrameShape& shape, Bytes* content, uint32_t* payload_at);

  int fd_ = -1;
  std::string path_;
  uint64_t file_size_ = 0;
  uint64_t frames_start_ = 0;
  uint64_t pos_ = 0;  // next frame's file offset
  uint64_t frames_end_ = 0;
  ControlState control_;
  std::unique_ptr<proto::Header> header_;
  std::vector<std::string> notes_;

  struct ChannelOffsets {
    uint32_t frame = 0;
    uint64_t next[2] = {0, 0};
  };
  // What the compactness rules carry from one record to the next.
  struct Carried {
    bool counter_known = false;
    uint64_t last_counter = 0;  // across the whole log, read in order
    uint32_t prev_tid = 0;
    int64_t prev_return_ns = 0;
    uint32_t frame_id = 0;
  };
  // Where decoding is, as a value: the sequential reader has one (seq_),
  // random access (readRecord) another (random_), so that neither disturbs
  // the other.
  struct DecodeState {
    Bytes content;  // being parsed: a frame's or the tail's
    size_t cursor = 0;
    uint64_t frame = 0;  // file offset of its frame, or Location::kTailFrame
    uint64_t base = 0;   // file offset of content[0] when it is the tail
    bool in_tail = false;
    bool done = false;
    bool frames_done = false;  // the sequential reader has passed the last frame
    Carried carried;
    std::vector<ChannelOffsets> offsets;
    std::optional<LogError> error;
    // Non-zero while `content` stands in for a frame read without its
    // payload: where that payload is in the frame's content.
    uint32_t skipped_payload_at = 0;
  };
  DecodeState seq_;
  static void startFrame(Carried& carried, const proto::Header* header);
  bool interrupted_frame_ = false;  // a truncated frame at the end of the file

  // Random access cache: the last frame decompressed by readPayload().
  uint64_t cached_frame_ = ~uint64_t{0};
  Bytes cached_content_;
  Bytes scratch_;
  void* dctx_ = nullptr;
  // readRecord()'s state: its content is what it decoded last (the record's
  // views point into it). To read the records of a frame in order it goes
  // on from where it stopped: `resume_` is the state just before the record
  // it returned last (the next call may ask for that one again).
  DecodeState random_;
  struct Resume {
    bool valid = false;
    uint64_t frame = 0;
    size_t next = 0;       // offset of the record returned
    Carried carried;       // before it
    uint32_t channel = 0;  // its channel (0: none), direction and offset
    int direction = 0;
    uint64_t offset = 0;
  } resume_;
  uint32_t random_frame_ids_ = 0;  // frame ids of random access, apart from the sequential reader's
  Bytes window_;                   // a read-ahead window of the file
  uint64_t window_start_ = 0;
  // Skipping payloads, the window stays small: a wide one would read the
  // payloads skipped. Just past a payload skipped, smaller still: the next
  // frame is likely another large one, of which only the head is read.
  static constexpr size_t kReadWindow = 256 * 1024, kSkippingWindow = 8 * 1024, kAfterSkipWindow = 2 * 1024;
  size_t window_size_ = kReadWindow;
  bool skip_large_payloads_ = false;
};

// The logs (*.rlog) of a recording directory, sorted by name; none when
// the directory cannot be read.
std::vector<std::string> listLogs(const std::string& dir);

}  // namespace radar::log
