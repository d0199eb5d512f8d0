// radar record --flight SIZE: every log keeps about its last SIZE bytes.
//
// The recorded processes write their logs as always (each reserves a slot
// after its tail: log/format.h). radar record drops a log's oldest frames
// once its frames hold more than SIZE, carrying over what later records
// still need -- the header, the definitions of the channels, the notes --
// into one frame of their own that reading starts at. Every step leaves a
// log any reader reads: the new carried frame is written where no reader
// looks, then one store to the pointer frame switches to it; the dropped
// frames' blocks are given back at the next trim (docs/log-format.md).
//
// A freeze copies every log as it is at that moment into a directory of
// its own: a recording every command reads, whose processes' first events
// are the oldest their logs still held.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "radar/proto/radarlog.pb.h"

namespace radar::record {

// One log kept short. Not thread-safe: radar record's keeper owns it.
class FlightLog {
 public:
  explicit FlightLog(std::string path) : path_(std::move(path)) {}
  ~FlightLog();
  FlightLog(const FlightLog&) = delete;
  FlightLog& operator=(const FlightLog&) = delete;

  // Reads the frames written since the last call; when they hold more than
  // `keep` bytes, drops the oldest down to about 3/4 of it (the newest
  // frame always stays). False with *error when the log cannot be kept
  // (not a flight log, damaged, or what must be carried over does not fit):
  // it is then left as it is and grows.
  bool trim(uint64_t keep, std::string* error);
  // The ends this log has told since the last call (--save-on): its
  // process's exit, or a child it reaped.
  struct End {
    bool reaped = false;  // a child: `status` is a raw wait status; else an exit status
    int32_t pid = 0;      // the child reaped (0: the log's own process)
    int32_t status = 0;
  };
  std::vector<End> takeEnds() { return std::move(ends_); }
  uint64_t framesKept() const { return frames_end_ - live_start_; }
  uint64_t droppedBytes() const { return dropped_; }
  const std::string& path() const { return path_; }

 private:
  struct Frame {
    uint64_t offset = 0, size = 0;
    std::vector<std::string> carried;  // its records a later reader still needs
  };
  enum class Start { Ready, NotYet, Unusable };
  Start start(std::string* error);
  bool scan(std::string* error);
  bool readFrame(uint64_t at, uint64_t end, Frame* frame, bool* whole, std::string* error);
  void keepRecords(const std::string& content, Frame* frame);
  void noteEnds(const uint8_t* p, const uint8_t* end, uint64_t* counter);
  bool scanTail();
  void carryFrom(size_t count, std::map<uint32_t, std::string>* channels, std::vector<std::string>* notes) const;
  bool drop(size_t frames, std::string* error);
  void punchPending();

  std::string path_;
  int fd_ = -1;
  uint64_t pointer_ = 0;  // file offset of the pointer frame (after the tail)
  int carry_half_ = -1;   // the half of the slot the carried frame is in (-1: nothing dropped yet)
  std::vector<std::pair<uint64_t, uint64_t>> pending_;  // what readers skip, given back at the next trim
  uint64_t live_start_ = 0;                             // the oldest frame kept
  uint64_t frames_end_ = 0;                             // where the frames read so far end
  uint64_t dropped_ = 0;                                // bytes of frames dropped so far
  std::vector<Frame> frames_;                           // the frames kept, oldest first
  std::string header_;                                  // the header record, whole (its length first)
  std::map<uint32_t, std::string> channels_;            // channel definitions of dropped frames, by number
  std::vector<std::string> notes_;                      // their notes (a title, what radar does not see)
  std::vector<End> ends_;
  uint64_t told_to_ = 0;  // the counter of the last event noteEnds() looked at
  // The tail read so far: its first counter, the bytes of its records
  // read, and the counter of the last of them.
  uint64_t tail_first_ = 0, tail_read_ = 0, tail_counter_ = 0;
  uint64_t tail_frames_end_ = 0;  // frames_end_ then: a tail made a frame since starts anew
  std::string unusable_;          // why the log cannot be kept ("": it can)
  bool done_ = false;             // closed, and read to its end: nothing more will come
};

// Where the skippable frames leading from a carried frame (in `half` of
// the slot) to the frames kept stand, in what was dropped before
// `kept_from`: one every 2 GiB (a skippable frame's size has 32 bits), on a
// grid of its own for each half, so that a trim never writes over the way
// readers take until it switches.
std::vector<uint64_t> flightRelays(uint64_t frames_at, int half, uint64_t kept_from);

// Every log of a flight recording, new ones as they appear.
class FlightKeeper {
 public:
  FlightKeeper(std::string dir, uint64_t keep) : dir_(std::move(dir)), keep_(keep) {}
  // An end a log told: its file name, and the end.
  struct LogEnd {
    std::string log;
    FlightLog::End end;
  };
  // One look at every log. Logs that cannot be kept are said once each.
  void trimAll(std::vector<std::string>* problems, std::vector<LogEnd>* ends);

 private:
  std::string dir_;
  uint64_t keep_;
  std::map<std::string, std::unique_ptr<FlightLog>> logs_;  // by file name
  std::map<std::string, bool> said_;
};

// Copies every log of `dir` as it is now into the new directory `into`
// (made here, 0700), finalized, with `recording` (recording.txt) marked
// frozen at this moment: a flight recording's, or any recording's while
// its program runs. False with *error when nothing usable was made.
bool freezeRecording(const std::string& dir, const std::string& into, proto::Recording recording, std::string* error);

// The directory the next freeze of `dir` goes into: DIR/PREFIX-N, N one
// more than the last (flight-N for the flight recorder's freezes,
// snapshot-N for radar record --do snapshot's).
std::string nextFreezeDirectory(const std::string& dir, const std::string& prefix = "flight");

}  // namespace radar::record
