// The merge's stages, one class: merge.cc runs them in order (links,
// channels, streams, datagrams, counters, other edges, linearization, endings), each
// stage in a file of its own (merge_*.cc, linearize.cc). Private to
// replay-gui/trace: everything else calls merge() (merge.h).
#pragma once

#include "log/check.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "log/address.h"
#include "log/crc32c.h"
#include "trace/clocks.h"
#include "trace/findings.h"

#include "trace/merge.h"
#include "trace/placer.h"
#include "trace/tournament.h"

namespace radar::trace::merging {

using log::Category;
using log::ChannelType;

using log::isCounterType;
using log::isDatagramType;
using log::isDevice;
using log::isOneSided;
using log::isQueueType;
using log::isStreamType;
using log::isUnixSocket;

// A process ended as a wait reaped it: killed by a signal, or exited with
// a status where nothing else said how it ended. True for the latter.
inline bool endAsReaped(Process& p, int status) {
  if (WIFSIGNALED(status)) {
    p.end = Process::End::Signaled;
    p.end_code = WTERMSIG(status);
    p.core_dumped = WCOREDUMP(status);
    return false;
  }
  if (!WIFEXITED(status) || p.end != Process::End::Unknown) return false;
  p.end = Process::End::Exited;
  p.end_code = WEXITSTATUS(status);
  return true;
}

// Positions [b, e), for a range-for.
struct PositionRange {
  struct Position {
    uint32_t i;
    uint32_t operator*() const { return i; }
    Position& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const Position& o) const { return i != o.i; }
  };
  uint32_t b, e;
  Position begin() const { return {b}; }
  Position end() const { return {e}; }
};

// The descriptors of the ends in `open` still open after the events at
// `positions` of one process: counted from what `open` says, through dups
// and closes (a shell dups a pipe onto 0 and closes the original).
template <typename Positions>
void countOpenEnds(const BigArray<Event>& events, const Positions& positions, std::map<uint32_t, int>* open) {
  for (uint32_t i : positions) {
    const Event& ev = events[i];
    if (ev.endpoint == kNone || (ev.flags & kEventFailed)) continue;
    auto it = open->find(ev.endpoint);
    if (it == open->end()) continue;
    if (ev.eventKind() == log::Kind::Dup) ++it->second;
    if (ev.eventKind() == log::Kind::Close) --it->second;
  }
}

inline std::string hexKey(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Two socket addresses name the same socket: same family and port, and the
// same host unless the receiver is bound to any address.
inline bool sameAddress(const std::string& to, const std::string& bound) {
  if (to == bound) return true;
  if (to.size() < 4 || bound.size() < 4) return false;
  sa_family_t f1, f2;
  std::memcpy(&f1, to.data(), sizeof(f1));
  std::memcpy(&f2, bound.data(), sizeof(f2));
  if (f1 != f2 || (f1 != AF_INET && f1 != AF_INET6)) return false;
  if (std::memcmp(to.data() + 2, bound.data() + 2, 2) != 0) return false;  // port
  if (f1 == AF_INET && bound.size() >= 8)
    return std::memcmp(bound.data() + 4, "\0\0\0\0", 4) == 0 ||
           (to.size() >= 8 && std::memcmp(to.data() + 4, bound.data() + 4, 4) == 0);
  if (f1 == AF_INET6 && bound.size() >= 24) {
    static const char zero[16] = {};
    return std::memcmp(bound.data() + 8, zero, 16) == 0 ||
           (to.size() >= 24 && std::memcmp(to.data() + 8, bound.data() + 8, 16) == 0);
  }
  return false;
}

// No IP address to compare: none recorded, or a socket not bound yet (port
// 0: the kernel binds it at its first send).
inline bool unboundAddress(const std::string& a) {
  if (a.size() < 4) return true;
  sa_family_t family;
  std::memcpy(&family, a.data(), sizeof family);
  return (family == AF_INET || family == AF_INET6) && a[2] == 0 && a[3] == 0;
}

inline Edge makeEdge(uint32_t from, Edge::Why why, uint32_t to, uint64_t bytes) {
  Edge e;
  e.from = from;
  e.why = why;
  e.to = to;
  e.bytes = static_cast<uint32_t>(bytes);
  return e;
}

// RADAR_MERGE_TIMING=1 prints what each step costs: time, and the memory
// it touched for the first time (page faults are most of the cost of a big
// merge on some virtual machines).
class StepTimer {
 public:
  // `done`: told each step's number as it ends (a progress line).
  explicit StepTimer(std::function<void(int step)> done = {})
      : on_(std::getenv("RADAR_MERGE_TIMING") != nullptr), done_(std::move(done)) {
    reset();
  }
  void operator()(const char* name) {
    ++steps_;
    if (done_) done_(steps_);
    if (!on_) return;
    const auto then = last_;
    const long faults_then = faults_;
    reset();
    // Resident now and at most so far (VmRSS, VmHWM), in KiB.
    long rss = 0, peak = 0;
    if (FILE* f = std::fopen("/proc/self/status", "r")) {
      char line[128];
      while (std::fgets(line, sizeof(line), f)) {
        std::sscanf(line, "VmHWM: %ld", &peak);
        std::sscanf(line, "VmRSS: %ld", &rss);
      }
      std::fclose(f);
    }
    std::fprintf(stderr, "merge: %-12s %8.1f ms %8ld page faults, resident %6.1f MiB, peak %6.1f MiB\n", name,
                 std::chrono::duration<double, std::milli>(last_ - then).count(), faults_ - faults_then, rss / 1024.0,
                 peak / 1024.0);
  }

 private:
  void reset() {
    last_ = std::chrono::steady_clock::now();
    struct rusage ru {};
    ::getrusage(RUSAGE_SELF, &ru);
    faults_ = ru.ru_minflt;
  }
  bool on_;
  std::function<void(int)> done_;
  int steps_ = 0;
  std::chrono::steady_clock::time_point last_;
  long faults_ = 0;
};

// A send or receive of a byte stream, as the matching sees it.
struct StreamItem {
  uint32_t index, bytes, process;
  bool peek;
};

// A synchronization event with the number it took on its object.
struct SyncNumbered {
  uint64_t number;
  uint32_t position;
  const SyncCall* call;
};

class ContentOrder;
class Linearizer;
class StreamMatch;
class DatagramPass;

class Merger {
  friend class ContentOrder;  // orderByContent's search (merge_streams.cc)
  friend class Linearizer;    // linearize (linearize.cc)
  friend class StreamMatch;   // matchStreams (merge_streams.cc)
  friend class DatagramPass;  // one pass of matchDatagrams (merge_datagrams.cc)

 public:
  Merger(RawRecording& raw, Trace& t) : raw_(raw), t_(t) {}
  void run(StepTimer& step);

 private:
  void linkProcesses();
  void buildChannels();
  void nameChannel(Channel& c, int n, bool two_sides);
  std::string unrecordedHolder(uint32_t endpoint) const;
  void findOutsidePeer(Channel& c) const;
  void matchStreams();
  // Returns the receives (by index into `receives`, after reordering) whose
  // bytes their content confirmed.
  std::vector<bool> orderByContent(std::vector<StreamItem>& sends, std::vector<StreamItem>& receives);
  void matchDatagrams();
  std::vector<uint32_t> eventFdGenerations();
  void matchCounters();
  void matchCounter(const Channel& c, std::vector<uint32_t>& writes, std::vector<uint32_t>& reads);
  void matchMpi();
  void matchSync();  // merge_sync.cc
  void matchSyncObject(uint32_t first, const std::vector<SyncNumbered>& ops);
  void matchBarrier(const std::vector<SyncNumbered>& ops);
  void matchMpiCollectives(const std::vector<std::vector<uint32_t>>& by_endpoint);
  uint32_t arrivalAt(uint32_t collective) const;
  bool fromSender(uint32_t receive, uint32_t send) const;
  uint32_t queueEnd(uint32_t endpoint) const;
  void orderQueueReceives(std::vector<std::vector<uint32_t>>* receives) const;
  bool learnAddresses(size_t first_edge);
  void otherEdges();
  struct Notable;
  Notable notableEvents() const;
  void creationEdges();
  using PidImages = std::unordered_map<int64_t, std::vector<uint32_t>>;
  void signalEdges(const std::vector<uint32_t>& signals, const PidImages& by_pid);
  void waitEdges(const std::vector<uint32_t>& waits, const PidImages& by_pid);
  void connectEdges(const std::vector<uint32_t>& accepts, const std::vector<std::vector<uint32_t>>& connects);
  void eofEdges(const std::vector<uint32_t>& eofs, const std::vector<std::vector<uint32_t>>& closes);
  void eofFromAnotherMachine(uint32_t eof, const std::vector<uint32_t>& ends_let_go, bool all_let_go);
  uint32_t signalSource(uint32_t signal, const std::vector<uint32_t>& images) const;
  bool killReaches(int32_t to, uint32_t target) const;
  void alignHostClocks();
  void shiftClocks();
  void linearize();
  void noteContradictions(const std::vector<uint32_t>& contradicted, const BigArray<uint32_t>& position,
                          const BigArray<Edge>& edges, const std::vector<uint32_t>& late);
  void endings();

  int64_t wallOf(uint32_t i, bool at_return) const {
    const Event& e = raw_.events[i];
    return (at_return ? e.returnNs() : e.entry_ns) + realtime_offset_[e.process];
  }
  uint32_t processOf(uint32_t i) const { return raw_.events[i].process; }
  // Whether event i began after event j returned, by a clock both
  // processes read: CLOCK_MONOTONIC on one machine, but the wall clock
  // between time namespaces (whose offsets move the monotonic clock, not
  // the wall clock: the processes' realtime offsets differ by them). False
  // between machines, which share no clock.
  bool beganAfterReturnOf(uint32_t i, uint32_t j) const {
    const uint32_t p = processOf(i), q = processOf(j);
    if (raw_.processes[p].boot != raw_.processes[q].boot) return false;
    if (std::llabs(realtime_offset_[p] - realtime_offset_[q]) < kOneClockSlackNs)
      return raw_.events[i].entry_ns > raw_.events[j].returnNs();
    return wallOf(i, false) > wallOf(j, true);
  }
  // The loader gives processes on one monotonic clock one realtime offset
  // (oneClockPerBoot); those of logs without a boot id differ by the waits
  // between their two clock reads, milliseconds at most.
  static constexpr int64_t kOneClockSlackNs = 10'000'000;
  // The same from the process ranges: no access to the event (a cache miss
  // each, for the millions of edges).
  // A table by blocks of events says where to start looking: ranges hold
  // thousands of events, so the first guess is nearly always right.
  uint32_t owner(uint32_t i) const {
    uint32_t k = owner_block_[i >> kOwnerBlockShift];
    while (k + 1 < starts_.size() && starts_[k + 1] <= i) ++k;
    return owners_[k];
  }
  // The last event of process p that returned at or before `ns` (same
  // host clock), or kNone.
  uint32_t lastEventBefore(uint32_t p, int64_t ns) const;

  RawRecording& raw_;
  Trace& t_;
  BigArray<Edge> edges_;  // in raw indices until linearize()
  // The stream matching's edges, one array per thread: they come before
  // edges_ (the sort by target keeps that order within a target).
  std::vector<BigArray<Edge>> stream_edges_;
  std::vector<uint32_t> notable_;          // signals, waits, closes, ends of file, by index
  std::vector<uint8_t> side_;              // per endpoint: 0 or 1
  std::vector<int64_t> counter_since_;     // per endpoint, eventfds': when it appeared (eventFdGenerations)
  std::vector<uint32_t> starts_, owners_;  // process ranges by start, for owner()
  static constexpr uint32_t kOwnerBlockShift = 10;
  std::vector<uint32_t> owner_block_;      // per block of events: the last range starting at or before it
  std::vector<int64_t> realtime_offset_;   // per process (the Process structs are big and far apart)
  std::vector<uint32_t> exits_and_waits_;  // positions, for endings()
};

}  // namespace radar::trace::merging
