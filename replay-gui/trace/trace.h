// The merged story of a recording: processes, channels, events in one
// causal order, and which send delivered the bytes of which receive. Plain
// data (no Qt), built by the loader and the merge (merge.h), read by the
// narrative, the checks, the statistics, the GUI and the driver.
//
// Payloads stay on disk: an event says where its record is, and
// Trace::record() and Trace::payload() fetch them on demand.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "log/kinds.h"
#include "log/record.h"
#include "log/unseen.h"

namespace radar::proto {
class Header;
class ChannelInfo;
}  // namespace radar::proto

namespace radar::log {
class LogReader;  // the loader's (trace.cc, load.cc): no other stage opens a log
}  // namespace radar::log

namespace radar::trace {

using log::Kind;

inline constexpr uint32_t kNone = ~0u;

// Storage for the millions of events and edges. resize() leaves elements
// uninitialized (the loader and the merge write every field): touching
// fresh memory is much of what a big merge costs. Arrays of 4 MiB and more
// are page-aligned and stay on 4 KiB pages: the merge gives back the pages
// of its inputs as it reads past them, and 4 KiB faults of its outputs get
// those very pages again, still warm, where huge pages would need fresh
// 2 MiB blocks (see docs/performance.md).
void* allocateBigArray(size_t bytes);
void freeBigArray(void* p, size_t bytes);
// Maps the whole pages of [p, p + bytes) in one call (MADV_POPULATE_WRITE),
// for an array about to be written all over: cheaper than a page fault per
// 4 KiB. Contents are kept; a kernel without it (before 5.14) skips it.
void faultIn(void* p, size_t bytes);

template <class T>
struct BigArrayAllocator : log::UninitializedAllocator<T> {  // resize() leaves elements uninitialized
  BigArrayAllocator() = default;
  template <class U>
  BigArrayAllocator(const BigArrayAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocateBigArray(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { freeBigArray(p, n * sizeof(T)); }
};
template <class T>
using BigArray = std::vector<T, BigArrayAllocator<T>>;

// One process image: one log.
struct Process {
  uint32_t index = 0;
  int32_t pid = 0;
  uint32_t generation = 0;  // exec count
  uint64_t log_id = 0;
  std::string log_path;
  std::string host;   // host name
  uint32_t boot = 0;  // index into Trace::boots (channel identities are per boot)
  std::string executable;
  std::vector<std::string> argv;
  // The RADAR_* variables of its environment (radar run names a port's
  // descriptors there); the rest of the environment stays in the log.
  std::vector<std::string> radar_variables;
  std::string recorded_name;  // its program, or the script an interpreter runs; shown: Trace::processName()
  int32_t mpi_rank = -1;      // its rank in MPI_COMM_WORLD, when it called MPI_Init (recorded by radar's MPI layer)
  // Its events made inside its MPI calls (log::kFlagInMpiCall), by counter:
  // the MPI library's (markMpiLibrary).
  std::vector<uint32_t> in_mpi_calls;
  log::Origin origin = log::Origin::Unspecified;
  uint32_t parent = kNone;      // process that created this image (or the image before an exec)
  uint64_t parent_log_id = 0;   // as the header says
  uint64_t parent_counter = 0;  // the parent's counter at that moment
  // A flight recording: how many of its first events its log no longer
  // held (counters here count from the oldest kept, as 1).
  uint64_t counter_base = 0;
  // Sends its log keeps once (log 1.15): their bytes are a receive's.
  uint64_t same_bytes_sends = 0;
  int32_t ppid = 0;
  int64_t realtime_offset = 0;   // realtime_ns - monotonic_ns for this host
  uint32_t first_event = kNone;  // by position in Trace::events
  uint32_t last_event = kNone;
  uint32_t event_count = 0;
  // How it ended: exited (status), killed (signal), exec'd into `next_image`,
  // or unknown (still running or killed when the recording stopped).
  enum class End : uint8_t { Unknown, Exited, Signaled, Execed } end = End::Unknown;
  int end_code = 0;  // exit status or signal number
  bool core_dumped = false;
  // Exited by its reaped status, but its log has no EXIT: it exec'd or
  // exited through a raw system call, unseen (what followed is unrecorded).
  bool ended_unseen = false;
  uint32_t next_image = kNone;
  std::vector<uint32_t> threads;  // thread ids seen (first: the main thread)
  log::ControlState control;      // lost events, what threads were in at the end
  std::string damage;             // why reading the log stopped early, if it did
  bool external = false;          // stands for something outside the recording
  // An image radar could not record (external too): a program a recorded
  // image exec'd into and that left no log. Why ("not recorded: statically
  // linked"); it has no events, and holds the channel ends it got at the exec.
  std::string not_recorded;
  // What it used that radar does not record (log/unseen.h), in the order
  // it began: after its event `after_counter` (0: before its first).
  struct UnseenUse {
    log::Unseen what;
    std::string detail;
    uint64_t after_counter = 0;
  };
  std::vector<UnseenUse> unseen;
  std::string recordedLabel() const;  // "name[pid]" by the recorded name; shown: Trace::label()
  // The Event::thread of a thread id (an unknown one: the main thread's;
  // past 254 threads, 254).
  uint8_t threadIndex(uint32_t tid) const;
};

// One end of a channel in one process image (a CHANNEL definition).
struct Endpoint {
  uint32_t process = kNone;
  uint32_t local_index = 0;  // the log's channel index
  uint32_t channel = kNone;  // Trace::channels
  log::ChannelType type = log::ChannelType::Unspecified;
  uint32_t access = 0;  // O_RDONLY / O_WRONLY / O_RDWR (pipes, FIFOs)
  bool external = false;
  bool inherited = false;  // open when the image started (ChannelOrigin INHERITED)
  bool created = false;    // made by the image (ChannelOrigin CREATED)
  uint64_t count = 0;      // an eventfd's count when its end was defined
  int32_t mpi_rank = -1;   // an MPI communicator: this process's rank in it, and its size
  int32_t mpi_size = 0;
  uint64_t ino = 0, peer_ino = 0, dev = 0;
  std::string local_address, peer_address;  // struct sockaddr bytes
  std::string path;
  int32_t fd = -1;
  // A flight recording (radar record --flight): an end its process had
  // before the oldest event its log kept, and the stream offsets its
  // first kept send [0] and receive [1] on it had (kNoOffset: none kept).
  static constexpr uint64_t kNoOffset = ~uint64_t{0};
  bool before_window = false;
  uint64_t window_offset[2] = {kNoOffset, kNoOffset};
};

// A channel: a pipe, a FIFO, a socket connection, a datagram socket...
// with the endpoints of every process that used it.
struct Channel {
  uint32_t index = 0;
  log::ChannelType type = log::ChannelType::Unspecified;
  std::string recorded_name;  // "pipe 3", "unix socket /tmp/s", "tcp 127.0.0.1:80"; shown: Trace::channelName()
  std::vector<uint32_t> endpoints;
  bool external = false;      // an end is outside the recording (terminal, outside peer)
  std::string external_peer;  // who that is, as far as known ("terminal /dev/pts/1", an address)
};

// One event, compact: the merge keeps millions in memory (48 bytes each).
// The full record (strings, addresses, payload ...) is re-read from the
// log by Trace::record().
struct Event {        // no member initializers: loading leaves fresh memory untouched
  int64_t entry_ns;   // CLOCK_MONOTONIC of the process's host
  uint64_t where;     // the record in its log: frame offset << 26 | offset in frame
  uint32_t duration;  // see durationNs(): ns, or us above 2^31 ns
  uint32_t process;
  uint32_t counter;  // the process's local event counter
  union {
    uint32_t number;  // RADAR's global event number (Lamport time), once the merge numbered the events
    uint32_t hash;    // before: a data event's CRC-32C of the bytes it moved, with kEventHasHash
  };
  uint32_t endpoint;  // Trace::endpoints (channel events), kNone
  int32_t result;     // the call's; for the second VFORK event, 0 when the child ended without an exec
  uint32_t value;     // data events: bytes moved; process events: the other pid; a failed connect, exec or
                      // wait for a signal: errno
  uint16_t kind;      // log::Kind
  uint8_t thread;     // index into the process's threads (255: beyond)
  uint8_t flags;      // kEvent* below

  Kind eventKind() const { return static_cast<Kind>(kind); }
  int64_t returnNs() const { return entry_ns + durationNs(); }
  int64_t durationNs() const {
    return duration & 0x80000000u ? int64_t{duration & 0x7fffffffu} * 1000 : int64_t{duration};
  }
  void setDuration(int64_t ns) {
    if (ns < 0) ns = 0;
    if (ns < 0x80000000LL)
      duration = static_cast<uint32_t>(ns);
    else if (ns / 1000 < 0x80000000LL)
      duration = 0x80000000u | static_cast<uint32_t>(ns / 1000);
    else
      duration = 0xffffffffu;  // 35 minutes and more
  }
  uint64_t frame() const { return where >> 26; }
  uint32_t frameOffset() const { return static_cast<uint32_t>(where & ((1u << 26) - 1)); }
  bool isTail() const { return frame() == (log::Location::kTailFrame >> 26); }
};
static_assert(sizeof(Event) == 48);
// Event::flags, one bit each (kEventHasHash and kEventOutcome share theirs:
// one is of data events, the other of CONNECT).
enum EventFlag : uint8_t {
  kEventFailed = 1,      // the call returned an error
  kEventHasPayload = 2,  // its record holds payload bytes
  kEventEof = 4,         // a receive that returned 0
  kEventUnmatched = 8,   // received bytes with no recorded sender
  kEventPeek = 16,
  kEventExternal = 32,  // to or from outside the recording
  // Data events: Event::hash is known (until the merge numbers the events;
  // Trace::hashes keeps it with LoadOptions::keep_hashes).
  kEventHasHash = 64,
  // CONNECT only: getsockopt(SO_ERROR), how a connect ended (value: its errno).
  kEventOutcome = 64,
  kEventReceivedWhole = 128,  // a send whose bytes were all received (peeks aside)
};
// Event::result of a call that never returned: its thread ended in it
// (cancelled); kEventFailed is set too.
inline constexpr int32_t kResultNeverReturned = std::numeric_limits<int32_t>::min();
inline bool isConnectOutcome(const Event& e) {
  return e.eventKind() == log::Kind::Connect && (e.flags & kEventOutcome);
}

// Which of a parent's events created its child `pid`, the child having
// seen the parent's counter `parent_counter` (0: before its first event):
// the fork or spawn just after that counter (they are recorded when they
// return, after the child saw it; a signal handler's events may come
// between), else the event at the counter (vfork has an event before it).
// The parent's `count` events in its log's order are `at(0)` ... `at(count
// - 1)`; the answer is such an index, or kNone.
template <class At>
uint32_t creatingEvent(uint64_t parent_counter, uint32_t count, int32_t pid, At&& at) {
  if (count == 0) return kNone;
  uint32_t from = kNone;
  if (parent_counter >= 1 && parent_counter <= count)
    from = static_cast<uint32_t>(parent_counter) - 1;
  else if (parent_counter > count)
    from = count - 1;
  const uint32_t first = from == kNone ? 0 : from + 1;
  for (uint32_t next = first; next < count && next < first + 16; ++next) {
    const Event& call = at(next);
    const log::Kind k = call.eventKind();
    if ((k == log::Kind::Fork || k == log::Kind::Spawn) &&
        (call.result == pid || static_cast<int64_t>(call.value) == pid))
      return next;
  }
  return from;
}

// An edge into an event from another process: the send whose bytes a
// receive got, the event that created a process, a kill delivered as a
// signal, an exit reaped by a wait. Edges of one event are contiguous.
// Messages within one process (between its threads, or a self-pipe) are
// edges too. The story puts a process's events in an order that has them
// forward (the sending thread's calls first where the logs say otherwise),
// so the process's own order implies them; only where the logs contradict
// themselves (counted in placed_by_time) may one point backwards.
struct Edge {
  // Collective: an MPI collective's rank waited for another's arrival (from
  // the other's event before the collective to its own).
  // Sync: a release (unlock, post, signal) let an acquisition go on
  // (radar record --sync); a barrier's party waited for another's arrival.
  enum class Why : uint32_t { Message, Create, Signal, Exit, Eof, Connect, Collective, Sync };
  uint32_t from : 29;  // event position (fewer than 2^29 events)
  Why why : 3;
  uint32_t to;
  uint32_t bytes;  // Message: bytes of `from` that `to` received
};
static_assert(sizeof(Edge) == 12);

// The positions of one process's events: a slice of one array for all
// processes, or of a process's own copy (see Trace::process_events).
class EventList {
 public:
  EventList() = default;
  EventList(const uint32_t* data, size_t size) : data_(data), size_(size) {}
  const uint32_t* begin() const { return data_; }
  const uint32_t* end() const { return data_ + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  uint32_t operator[](size_t k) const { return data_[k]; }
  uint32_t at(size_t k) const {
    if (k >= size_) throw std::out_of_range("EventList::at");
    return data_[k];
  }
  uint32_t front() const { return data_[0]; }
  uint32_t back() const { return data_[size_ - 1]; }

 private:
  const uint32_t* data_ = nullptr;
  size_t size_ = 0;
};

// A synchronization event's Event::value (radar record --sync): its object,
// numbered by the merge (1, 2 ...; 0: none known), and whether it only
// tried (a try never waits: it takes no part in a deadlock).
inline constexpr uint32_t kSyncTried = 0x80000000u;
inline uint32_t syncObjectOf(const Event& e) { return e.value & ~kSyncTried; }

struct Finding {
  enum class Kind : uint8_t {
    NeverReceived,  // bytes sent and never received (in flight or queued at the end)
    NoSender,       // bytes received with no recorded send
    Abnormal,       // a process killed by a signal or crashed
    NeverEnded,     // a process still running (or killed) when the recording stopped
    Deadlock,       // a wait-for cycle among processes blocked at the end
    LostEvents,     // a log that could not be written completely
    Damaged,        // a log that could not be read completely
    Unrecorded,     // a process the recording does not have
    Contradiction,  // the logs' orders contradict each other: an event told before one it follows
    MpiMismatch,    // MPI ranks that call different collectives, or not as many, on one communicator
    WildcardRace,   // MPI receives from any source whose message another rank's could have been
    MpiStuck,       // an MPI rank still in a collective that another rank left, or had not come to
    LockOrder,      // two threads took two locks in opposite orders: they can deadlock
    LockDeadlock,   // threads left waiting for locks each other holds, round a cycle
  };
  Kind kind;
  // How much it matters, first to last: an error is a fault of the program
  // or a gap in its story (a deadlock, a crash, a damaged log); a warning
  // is worth a look; a note is explained by something the story holds
  // (a process killed by another's recorded kill()): its `cause`.
  enum class Severity : uint8_t { Error, Warning, Note };
  Severity severity = Severity::Warning;
  uint32_t cause = kNone;  // the event that explains it, where the story holds one
  // Ids only: its text is told on demand (trace::describe), by the names
  // shown then, so that a network description's names need no new search.
  std::vector<uint32_t> processes;
  std::vector<uint32_t> channels;
  std::vector<uint32_t> events;  // where to look (positions)
  uint64_t bytes = 0;
  // Deadlock: who waits for whom, on which channel, around the cycle.
  struct Wait {
    uint32_t waiter, holder, channel;
  };
  std::vector<Wait> waits_for;
  // What its text needs beyond the ids and the trace:
  int32_t pid = 0;               // Unrecorded: the process created that has no log (0: the image's next program)
  uint32_t problem = kNone;      // Damaged: the log that could not be read at all (Trace::problems)
  bool by_message = false;       // Contradiction: its first pair of events is a send and its receive;
                                 // MpiStuck: the other rank left the collective (else it had not come)
  uint32_t value = 0;            // MpiMismatch, MpiStuck: the first rank's collective (mpiCollectiveCode)
  uint32_t other_value = kNone;  // MpiMismatch: the other rank's, when it called one there
  uint32_t nth = 0;              // MpiMismatch: the collective's place on its communicator (1: the first);
                                 // WildcardRace: how many receives race (the first's events are given)
};

const char* findingKindName(Finding::Kind k);
const char* severityName(Finding::Severity s);  // "error", "warning", "note"

// MPI's collectives by a small code (Event::value of an MPI_COLLECTIVE
// event): 0 for one radar does not know.
uint32_t mpiCollectiveCode(std::string_view operation);
const char* mpiCollectiveName(uint32_t code);

struct LoadProblem {
  std::string path;
  std::string message;
};

class Trace {
 public:
  Trace();
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  std::vector<Process> processes;
  std::vector<Endpoint> endpoints;
  std::vector<Channel> channels;
  // Names a network description gives (netdesc::Binding::apply): an overlay
  // over the recorded names, laid after the merge, which neither writes nor
  // reads it. Empty, or one per process and per channel ("": none).
  struct Names {
    std::vector<std::string> processes, channels;
  };
  Names described;
  // The names people are shown: the described one, else the recorded one.
  const std::string& processName(uint32_t process) const {
    return process < described.processes.size() && !described.processes[process].empty()
               ? described.processes[process]
               : processes[process].recorded_name;
  }
  // "name[pid]"; "name[pid.generation]" where another image of the same
  // pid is shown with the same name (a program that exec'd itself);
  // "name[pid@host]" where the trace has several hosts.
  std::string label(uint32_t process) const;
  const std::string& channelName(uint32_t channel) const {
    return channel < described.channels.size() && !described.channels[channel].empty()
               ? described.channels[channel]
               : channels[channel].recorded_name;
  }
  BigArray<Event> events;  // in the linear order (position = index)
  BigArray<Edge> edges;    // sorted by `to`, then `from`
  // Per process: its events' positions in the story's order (ascending).
  // That is the order of the log's counters, except in a process whose
  // threads sent each other messages: a thread's call can be logged after
  // the call of another thread that got its bytes, and the story puts the
  // send first (see linearize()).
  std::vector<EventList> process_events;
  // Per process: its events' positions in counter order.
  std::vector<EventList> counter_events;
  BigArray<uint32_t> process_event_positions;  // what counter_events point into (in the logs' order)
  BigArray<uint32_t> reordered_positions;      // what the process_events of reordered processes point into
  // With LoadOptions::keep_hashes, by position: a data event's CRC-32C of
  // the bytes it moved, where its flags have kEventHasHash; else
  // empty.
  BigArray<uint32_t> hashes;
  // With LoadOptions::keep_sent_bytes, per process: the bytes of its sends
  // in memory, so that a pass over every message (the pcapng export) need
  // not decompress and decode the logs a second time. Its events by
  // counter: event k's bytes end at ends[k-1] (the sends' only); events
  // from ends.size() + 1 on were not kept (the budget ran out, or the
  // recording left bytes out).
  struct SentBytes {
    std::string bytes;
    std::vector<uint64_t> ends;
  };
  std::vector<SentBytes> sent_bytes;
  std::vector<Finding> findings;
  std::vector<LoadProblem> problems;  // logs that could not be used, or only in part
  // What a person should know about how the recordings were put together
  // (recordings given together that share no channel).
  std::vector<std::string> warnings;
  // The directories given, grouped by the channels between them; empty
  // unless there are two or more groups.
  std::vector<std::vector<std::string>> unrelated_groups;
  std::vector<std::string> boots;
  // Each machine's wall clock (one a boot) when the story spans machines:
  // how far its times were moved to line up with the first machine's, and
  // what the messages between them allow (each one received after it was
  // sent bounds the move from one side: an interval, as NTP's).
  struct HostClock {
    std::string host;
    int64_t shift_ns = 0;
    int64_t low_ns = -std::numeric_limits<int64_t>::max();  // ±max: unbounded that side
    int64_t high_ns = std::numeric_limits<int64_t>::max();
    uint64_t edges = 0;        // causal edges between it and `against`
    uint32_t against = kNone;  // the clock it was aligned with (kNone: the first, or none)
    bool aligned = false;      // false: nothing joins it to the first clock; its times are as it read them
  };
  std::vector<HostClock> host_clocks;  // by boot; empty for one machine
  // "b's clock: moved by -3.000000 s to line up with a's (the 2 messages
  // between them allow -3.000060 s to -2.999940 s)"
  std::string describeHostClock(uint32_t boot) const;
  // Processes of more than one host (by host name: containers and network
  // namespaces on one machine are hosts of their own too): each label says
  // its host.
  bool several_hosts = false;
  // By position: made by the MPI library itself (inside a rank's MPI call,
  // or on a thread it started: mpi_library.h), hidden from the story by
  // default. Empty when no process is an MPI rank.
  std::vector<bool> mpi_library;
  bool byMpiLibrary(uint32_t position) const { return position < mpi_library.size() && mpi_library[position]; }
  std::vector<std::string> directories;
  // A freeze of a flight recording (radar dump-flight): when it was taken
  // (CLOCK_REALTIME ns; 0: not one). Its processes ran on after it.
  int64_t frozen_at_ns = 0;
  // Read while radar record was still making it (LoadOptions::running_at_ns):
  // frozen_at_ns is when. What comes next is "not yet", not "never".
  bool running = false;
  // Network descriptions the recordings carry (radar run, radar record
  // --net): their text and the path they were read from.
  struct CarriedNetwork {
    std::string text, path;
  };
  std::vector<CarriedNetwork> networks;
  // The programs that ran, by content, as radar record found them.
  struct RecordedExecutable {
    std::string path;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t xxh64 = 0;
  };
  std::vector<RecordedExecutable> executables;
  // What radar record found about processes that left no log (by pid):
  // "not recorded: statically linked" ...
  struct UnrecordedNote {
    int32_t pid = 0;
    std::string executable, what;
  };
  std::vector<UnrecordedNote> unrecorded_notes;

  // Statistics of the matching.
  uint64_t bytes_sent = 0, bytes_received = 0, bytes_matched = 0;
  uint64_t bytes_external = 0;   // received from outside the recording
  uint64_t bytes_ambiguous = 0;  // matched by time among overlapping writers or readers, unconfirmed by content
  // A flight recording: received bytes sent where its logs do not reach
  // (before the sender's oldest kept event, or after its log was frozen).
  uint64_t bytes_outside_window = 0;
  // Events of multi-threaded processes placed by time where their threads'
  // order and the messages disagree (see linearize()).
  uint64_t placed_by_time = 0;
  // Where the logs contradict each other: an event the merge had to tell
  // before an event of another process that it follows (a receive before
  // the send whose bytes it got), since the logs' orders made a cycle.
  struct Contradiction {
    uint32_t event;  // position, told first
    uint32_t after;  // position of the event it follows, told later
    Edge::Why why;
  };
  std::vector<Contradiction> contradictions;
  // Sends received in part, by position: the bytes received. Others were
  // received whole (kEventReceivedWhole) or not at all.
  std::vector<std::pair<uint32_t, uint64_t>> received_in_part;
  // MPI receives from any source that another rank's send could have
  // matched as well, by position: the receive, the send it got, and the
  // other rank's first send it could have got (a finding when that send
  // does not follow the receive).
  struct MpiRace {
    uint32_t receive, got, other;
  };
  std::vector<MpiRace> mpi_races;

  // Incoming edges of an event (from other processes).
  std::pair<const Edge*, const Edge*> incoming(uint32_t position) const;
  // The event that created process image `process` (its parent's fork or
  // spawn), kNone when there is none (the first process, an exec's image,
  // a parent not recorded). A child exists from then on, events or not.
  uint32_t createdAt(uint32_t process) const;
  // Where an event is in its process's story: process_events[process][k].
  uint32_t indexInProcess(uint32_t position) const {
    const Event& e = events[position];
    const EventList& mine = process_events[e.process];
    if (e.counter >= 1 && e.counter - 1 < mine.size() && mine[e.counter - 1] == position) return e.counter - 1;
    return static_cast<uint32_t>(std::lower_bound(mine.begin(), mine.end(), position) - mine.begin());
  }
  // The event of `process` with this counter (as its log numbers them), or kNone.
  uint32_t positionOfCounter(uint32_t process, uint64_t counter) const {
    const EventList& mine = counter_events[process];
    return counter >= 1 && counter <= mine.size() ? mine[counter - 1] : kNone;
  }
  // The event before it in its process's story, or kNone.
  uint32_t localPredecessor(uint32_t position) const {
    const uint32_t k = indexInProcess(position);
    return k ? process_events[events[position].process][k - 1] : kNone;
  }

  // The message edges out of a send (indices into `edges`), in the order
  // its bytes were received. The index behind it is made on first use.
  std::span<const uint32_t> messagesFrom(uint32_t send) const;

  // The pieces of sends a receive got, in stream order: the send, how many
  // of its bytes earlier receives had taken (the first piece may start
  // inside its send; the others start at their send's start), and how many
  // this receive took.
  struct ReceivedPiece {
    uint32_t send;
    uint64_t skip, bytes;
  };
  std::vector<ReceivedPiece> receivedPieces(uint32_t receive) const;
  // Bytes of a receive that no recorded send gave it and that it did not
  // keep itself: written unseen (a raw system call, io_uring, a process
  // radar did not record). 0 for anything else.
  uint64_t unseenBytes(uint32_t receive) const;
  // An end that was open before radar attach started recording its process
  // (radar record --dormant): what went through it then was not seen, and
  // where its stream stood is not known, so its bytes are not matched.
  bool beganBeforeAttach(uint32_t endpoint) const {
    return endpoint < endpoints.size() && endpoints[endpoint].inherited &&
           processes[endpoints[endpoint].process].origin == log::Origin::Attached;
  }
  // An end open before the oldest event its process's flight log kept
  // (radar record --flight): what went through it before is gone.
  bool beganBeforeWindow(uint32_t endpoint) const {
    return endpoint < endpoints.size() && endpoints[endpoint].before_window;
  }
  bool channelBeganBeforeWindow(uint32_t channel) const {
    if (channel >= channels.size()) return false;
    for (uint32_t e : channels[channel].endpoints)
      if (endpoints[e].before_window) return true;
    return false;
  }

  // The full record of an event, re-read from its log.
  bool record(uint32_t position, log::Record* out, std::string* payload, std::vector<std::string>* strings,
              std::string* error) const;
  // The bytes an event moved: its own payload, or, for a receive whose
  // bytes only the sender's log holds, those of the matched sends.
  // `omitted`, when given, counts the bytes the event moved that the
  // recording did not keep (radar record --payload-limit).
  bool payload(uint32_t position, std::string* out, std::string* error, uint64_t* omitted = nullptr) const;
  // The same without a copy: `out` is valid until the next call of
  // payload(), payloadView() or record() on this trace.
  bool payloadView(uint32_t position, std::string_view* out, std::string* error, uint64_t* omitted = nullptr) const;

  // Time on a common scale (realtime of the event's host, ns): when the
  // call began, and when it returned.
  int64_t wallTime(uint32_t position) const;
  int64_t wallReturnTime(uint32_t position) const { return wallTime(position) + events[position].durationNs(); }

  // "does a happen before b?" (see clocks.h)
  bool happensBefore(uint32_t a, uint32_t b) const;

  std::string channelLabel(uint32_t channel) const;

  uint32_t channelOf(uint32_t position) const {
    const uint32_t e = events[position].endpoint;
    return e == kNone ? kNone : endpoints[e].channel;
  }

  // The clocks behind happensBefore(), made on first use (they cost a pass
  // over the trace that listing or checking events does not need).
  const class Clocks& clocks() const;

 private:
  mutable std::vector<std::unique_ptr<log::LogReader>> readers_;  // one per process, opened on demand
  mutable uint64_t evict_seed_ = 1;                               // which open log to close (openReader)
  // The last send payloadView() read: a big message read in many pieces is
  // read from its log once, not once per piece (nor once more for itself).
  // Its bytes stay in the record buffer of a reader of its own, not copied.
  mutable uint32_t cached_send_ = kNone;
  mutable std::vector<std::unique_ptr<log::LogReader>> send_readers_;  // one per process, as readers_
  mutable log::Record cached_send_record_;
  mutable std::string received_bytes_;                       // a receive's bytes, behind the last view of them
  bool cachedSend(uint32_t send, std::string* error) const;  // reads it into cached_send_record_
  // Sends kept once (log 1.15: the bytes of a receive of their own
  // process), each as the pieces of bytes that other events' records hold
  // (sends that kept theirs, receives from outside): worked out once, in the
  // order of the story, so that a send at the end of a long pipeline, or of
  // a long exchange of the same bytes back and forth, is read in one step.
  struct SamePiece {
    uint32_t event;  // kNone: bytes the recording does not have
    uint64_t skip, bytes;
  };
  struct SameSend {
    uint32_t send;
    uint32_t hash;  // the send's CRC-32C, which the bytes put together must have
    uint64_t first_piece;
  };
  mutable bool same_resolved_ = false;
  mutable std::vector<SameSend> same_sends_;  // by position
  mutable std::vector<SamePiece> same_pieces_;
  mutable std::vector<uint32_t> same_referring_;  // every send kept once, by position
  mutable std::string same_bytes_;                // behind the last view sameBytes() gave:
  mutable uint32_t same_bytes_send_ = kNone;      // this send's bytes
  mutable uint64_t same_bytes_omitted_ = 0;
  void resolveSameBytes() const;
  const SameSend* sameSend(uint32_t send) const;
  void appendSamePieces(uint32_t send, uint32_t receive, uint64_t from, uint64_t moved) const;
  static void appendSlice(const SamePiece* begin, const SamePiece* end, uint64_t from, uint64_t n,
                          std::vector<SamePiece>* out);
  bool sameBytes(uint32_t send, std::string_view* out, uint64_t* omitted, std::string* error) const;
  // A send's bytes as recorded, from sent_bytes or else its log (then valid
  // until the next cachedSend()); *omitted: those the recording left out.
  bool sentPayload(uint32_t send, std::string_view* out, uint64_t* omitted, std::string* error) const;
  // The same for a send that keeps its own bytes (or left them out).
  bool storedPayload(uint32_t send, std::string_view* out, uint64_t* omitted, std::string* error) const;
  log::LogReader* openReader(std::vector<std::unique_ptr<log::LogReader>>& set, uint32_t process,
                             std::string* error) const;
  // Made on first use, once even when threads ask together (the replay
  // window's loader and views).
  struct Lazy {
    std::once_flag clocks_once, sends_once;
    std::shared_ptr<const class Clocks> clocks;
    // Message edges by sending event (CSR: begin[send]..begin[send + 1]
    // index `edges`).
    std::vector<uint32_t> send_begin, send_edges;
  };
  std::unique_ptr<Lazy> lazy_ = std::make_unique<Lazy>();
};

}  // namespace radar::trace
