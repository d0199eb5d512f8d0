// LogWriter: appends records to one log file, crash-safely.
//
// Records go into the tail, a region of the file mapped into this process:
// once append() returns, the record is in the page cache and survives the
// process being killed. A full tail is compressed into one zstd frame and
// appended to the file; large records bypass the tail and are written at
// once as their own uncompressed frame.
//
// After open() the writer never allocates: everything it needs is mapped
// once. It makes only raw system calls (sys.h). It is not thread-safe: the
// recorder serialises calls.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

#include "log/encode.h"
#include "log/fields.h"
#include "log/format.h"

struct ZSTD_CCtx_s;

namespace radar::log {
inline constexpr uint32_t kFirstReserve = 16 * 1024;  // tail blocks reserved when a log starts
inline constexpr uint32_t kReserveStep = 64 * 1024;   // and then at a time
inline constexpr uint32_t kRawFlushBelow = 4096;      // smaller tails are stored uncompressed
}  // namespace radar::log

namespace radar::log {

struct WriterOptions {
  uint32_t tail_capacity = kDefaultTailCapacity;
  int compression_level = 1;
  uint32_t big_record = 0;  // records larger than this get their own frame; 0: tail_capacity / 8
  int fd_floor = 0;         // move the descriptor to at least this number (0: leave it)
  bool flight = false;      // reserve the flight recorder's slot after the tail (format.h)
};

class LogWriter {
 public:
  LogWriter() = default;
  LogWriter(const LogWriter&) = delete;
  LogWriter& operator=(const LogWriter&) = delete;
  // No destructor on purpose: the recorder keeps writers in static storage
  // and decides itself when a log is closed (see close() and abandon()).

  // Creates `path` (it must not exist), maps its tail and writes the header
  // record. Returns 0 or -errno. `fd`, when given, is the new empty file at
  // `path`, made by radar record for a process that may not create it
  // (log/log_handout.h); the writer takes it over, or closes it on failure.
  int open(const char* path, const HeaderFields& header, const WriterOptions& options = {}, int fd = -1);

  // Appends one record. Returns the counter given to a counted event, or 0
  // for annotations and for events that could not be stored (see lost*()).
  uint64_t append(const EventFields& event);

  // Compresses the tail into a frame now. Returns 0 or -errno.
  int flush();
  // Flushes, marks the log closed and releases everything.
  void close();
  // In a forked child: releases this process's copy of the writer (its
  // mappings and its copy of the descriptor) without touching the file,
  // which still belongs to the parent.
  void abandon();

  bool isOpen() const { return control_ != nullptr; }
  int fd() const { return fd_; }
  // The recorder moves the descriptor out of the program's way.
  void setFd(int fd) { fd_ = fd; }
  uint64_t nextCounter() const { return next_counter_; }
  uint64_t lastCounter() const { return next_counter_ - 1; }
  FileControl* control() { return control_; }
  uint64_t fileSize() const { return file_end_; }
  uint64_t lostEvents() const { return lost_events_; }
  uint64_t lostFromCounter() const { return lost_from_; }
  int lostErrno() const { return lost_errno_; }
  const char* path() const { return path_; }

 private:
  struct ChannelState {
    // Per direction, so that an offset is implied only by a record of the
    // same (channel, direction) in the same frame: a reader decoding one
    // frame alone gets it right.
    uint32_t frame[2];        // frame_ when next_offset[dir] was last set
    uint64_t next_offset[2];  // [0] sends, [1] receives
  };

  Explicit decide(const EventFields& e, uint64_t counter) const;
  bool appendSimple(const EventFields& e, uint64_t counter);
  bool reserve(size_t tail_end);
  bool makeCompressor();
  int writeRawFrame(const Iov* segments, size_t count, uint64_t content);
  uint64_t appendGeneral(const EventFields& e, uint64_t counter);
  bool appendToTail(const EventFields& e, const Explicit& x, size_t prefix, size_t body);
  int writeOwnFrame(const EventFields& e, const Explicit& x, size_t prefix, size_t body);
  void advance(const EventFields& e, uint64_t counter);
  void startFrame();
  int writeAtEnd(const struct iovec* iov, int count, size_t total);
  int checkFd();
  void markLost(int err, uint64_t counter);
  ChannelState* channelState(uint32_t index);

  int fd_ = -1;
  uint64_t dev_ = 0, ino_ = 0;
  char path_[4096] = {};
  uint8_t* map_ = nullptr;
  size_t map_len_ = 0;
  FileControl* control_ = nullptr;
  uint8_t* tail_ = nullptr;
  uint32_t tail_capacity_ = 0;
  uint32_t tail_used_ = 0;
  uint32_t tail_reserved_ = 0;  // tail bytes whose blocks are allocated
  uint64_t file_end_ = 0;
  uint32_t big_record_ = 0;
  int level_ = 1;

  ZSTD_CCtx_s* cctx_ = nullptr;
  void* cctx_mem_ = nullptr;
  size_t cctx_mem_len_ = 0;
  uint8_t* out_ = nullptr;
  size_t out_cap_ = 0;
  ChannelState* channels_ = nullptr;
  size_t channel_cap_ = 0;

  // Frame state for the compactness rules (radarlog.proto).
  uint32_t frame_ = 1;
  bool counter_in_frame_ = false;
  uint32_t prev_tid_ = 0;
  int64_t prev_return_ns_ = 0;

  uint64_t next_counter_ = 1;
  int32_t pid_ = 0;
  bool write_failed_ = false;
  uint64_t lost_events_ = 0;
  uint64_t lost_from_ = 0;
  int lost_errno_ = 0;
};

}  // namespace radar::log
