#include "trace/load.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "log/crc32c.h"
#include "log/mpi_event.h"
#include "log/reader.h"
#include "log/wire.h"

namespace radar::trace {
namespace {

// Events are numbered with 32 bits across the whole recording.
constexpr uint64_t kMaxEventsPerLog = uint64_t{1} << 30;

std::string baseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool isDatagramAddressKind(log::Kind k) {
  using log::Kind;
  return k == Kind::Sendto || k == Kind::Recvfrom || k == Kind::Sendmsg || k == Kind::Recvmsg;
}

// One log being read: its process, its endpoints (by the log's channel
// index), and where its events go.
struct LogJob {
  std::string path;
  uint32_t directory = 0;  // of those given
  uint32_t process = 0;
  uint64_t size = 0;
  uint32_t begin = 0, capacity = 0, count = 0;
  std::vector<Endpoint> endpoints;                            // in order of first definition
  std::vector<uint32_t> by_index;                             // log channel index -> endpoints[] (kNone: none)
  std::vector<uint32_t> data_sends, data_receives;            // per endpoints[]: see RawRecording
  std::map<uint32_t, std::string> addresses;                  // event index (global) -> address
  std::map<uint32_t, std::vector<uint32_t>> message_lengths;  // likewise
  std::map<uint32_t, uint64_t> counts;                        // likewise
  std::vector<std::pair<uint32_t, MpiCall>> mpi_calls;        // by offset from begin, in order
  std::vector<std::pair<uint32_t, SyncCall>> sync_calls;      // by index (global), in order
  int32_t mpi_rank = -1;                                      // MPI_Init's rank in MPI_COMM_WORLD
  std::vector<uint32_t> in_mpi_calls;                         // counters: Process::in_mpi_calls
  std::vector<uint32_t> threads;
  int64_t first_entry = std::numeric_limits<int64_t>::max(), last_return = std::numeric_limits<int64_t>::min();
  std::string damage;
  uint64_t same_bytes_sends = 0;  // sends kept once
  std::string bad_reference;      // the first of them whose reference does not hold
  bool overflow = false;
  Trace::SentBytes sent;  // LoadOptions::keep_sent_bytes
  std::vector<Process::UnseenUse> unseen;
  std::string title;                // written over its arguments, at exit ("postgres: checkpointer")
  std::vector<std::string> titles;  // those it gave itself while it ran (title NOTEs)
  bool flight = false;              // a flight log: it may begin after its process's first event
  uint64_t counter_base = 0;        // events before the oldest it kept
};

// A title a process wrote over its arguments, as a name: up to its first
// option or path ("nginx: master process nginx -p /srv" is "nginx: master
// process nginx"), at most 60 bytes.
std::string shortTitle(std::string_view title) {
  std::string out;
  for (size_t at = 0; at < title.size();) {
    const size_t end = std::min(title.find(' ', at), title.size());
    const std::string_view word = title.substr(at, end - at);
    if (!out.empty() && (word.starts_with('-') || word.starts_with('/'))) break;
    if (out.size() + 1 + word.size() > 60) break;
    if (!word.empty()) out += (out.empty() ? "" : " ") + std::string(word);
    at = end + 1;
  }
  return out.empty() ? std::string(title.substr(0, 60)) : out;
}

// A note that the process used what radar does not record.
void noteUnseen(const log::Record& r, LogJob& job) {
  log::Unseen what;
  if (r.strings.size() < 4 || r.strings[1] != log::kUnseenNote ||
      !log::unseenByName(std::string(r.strings[2]).c_str(), &what))
    return;
  for (const auto& u : job.unseen)
    if (u.what == what) return;  // once per mechanism (a log written twice over says it twice)
  job.unseen.push_back({what, std::string(r.strings[3]), job.count});
}

// A flight log whose oldest events were dropped: it starts at `counter`,
// counted from here as 1, and the ends defined so far were open before.
void startWindow(uint64_t counter, LogJob& job) {
  job.counter_base = counter - 1;
  for (Endpoint& e : job.endpoints) e.before_window = true;
}

// Where the stream stood when a flight log's window began on an end open
// before it: the offset its first kept send or receive there had.
void noteWindowOffset(const log::Record& r, const Event& ev, LogJob& job) {
  if (ev.endpoint == kNone || !r.has_offset) return;
  Endpoint& e = job.endpoints[ev.endpoint];
  uint64_t& offset = e.window_offset[log::categoryOf(r.kind) == log::Category::Send ? 0 : 1];
  if (e.before_window && offset == Endpoint::kNoOffset) offset = r.offset;
}

// A NOTE: a title the process gave itself, or what it used unseen.
void readNote(const log::Record& r, LogJob& job) {
  if (r.strings.size() >= 2 && r.strings[1] == log::kTitleNote) job.titles.push_back(shortTitle(r.strings[0]));
  noteUnseen(r, job);
}

// A channel end the log defines (or defines again, as it learns more).
void defineEndpoint(const log::Record& r, LogJob& job) {
  proto::ChannelInfo ci;
  if (!log::LogReader::parseChannel(r.channel_bytes, &ci)) return;
  if (ci.index() > (1u << 24)) return;  // absurd: the log is damaged
  if (ci.index() >= job.by_index.size()) job.by_index.resize(ci.index() + 1, kNone);
  uint32_t& slot = job.by_index[ci.index()];
  if (slot == kNone) {
    slot = static_cast<uint32_t>(job.endpoints.size());
    job.endpoints.emplace_back();
    job.data_sends.push_back(0);
    job.data_receives.push_back(0);
  }
  Endpoint& e = job.endpoints[slot];
  e.local_index = ci.index();
  e.type = static_cast<log::ChannelType>(ci.type());
  e.access = ci.access();
  e.external = ci.external();
  e.ino = ci.ino();
  e.peer_ino = ci.peer_ino();
  e.dev = ci.dev();
  e.local_address = ci.local_address();
  e.peer_address = ci.peer_address();
  e.path = ci.path();
  e.fd = ci.fd();
  e.inherited = ci.origin() == proto::INHERITED;
  e.created = ci.origin() == proto::CREATED;
  e.count = ci.count();
  if (e.type == log::ChannelType::MpiCommunicator) {
    e.mpi_rank = ci.mpi_rank();
    e.mpi_size = ci.mpi_size();
  }
}

// An MPI event's rank, tag and post, kept for MPI's matching.
void noteMpiCall(const log::Record& r, uint32_t index, LogJob& job) {
  const auto at = [&](size_t i) { return i < r.fds.size() ? r.fds[i] : 0; };
  if (r.kind == log::Kind::MpiInit) {
    if (!r.fds.empty()) job.mpi_rank = r.fds[0];
    return;
  }
  // Room for every event the log is expected to have left: pages are
  // touched only as calls fill them, where growing by doubling would copy
  // them all into fresh memory again and again.
  if (job.mpi_calls.empty() && job.begin + job.capacity > index)
    job.mpi_calls.reserve(job.begin + job.capacity - index);
  MpiCall call;
  call.peer = r.peer_pid;
  call.tag = r.status;
  if (r.kind == log::Kind::MpiIrecv) call.serial = static_cast<uint32_t>(r.result);
  if (r.kind == log::Kind::MpiRecv) {
    call.serial = static_cast<uint32_t>(at(3));
    call.any_source = at(0) == log::kMpiAnySource;
    call.any_tag = at(1) == log::kMpiAnyTag;
    call.asked_tag = at(1);
  }
  job.mpi_calls.emplace_back(index - job.begin, call);
}

// A synchronization's object and numbers, kept for the merge's edges.
void noteSyncCall(const log::Record& r, uint32_t index, LogJob& job) {
  SyncCall call;
  // An object is 8 bytes (its address) or 32 (its place in a shared file:
  // device, inode, offset; then its address).
  call.shared = r.address.size() == 4 * sizeof(uint64_t);
  if (!call.shared && r.address.size() != sizeof(uint64_t)) return;  // no object: no order
  std::memcpy(call.object, r.address.data(), call.shared ? sizeof(call.object) : sizeof(uint64_t));
  call.number = r.offset;
  call.since = r.size;
  call.parties = static_cast<uint32_t>(std::max(r.status, 0));
  job.sync_calls.emplace_back(index, call);
}

// What a send or receive moved: its size, its hash, a peek, an end of
// file, a datagram's address, an eventfd's count.
void fillData(const log::Record& r, uint32_t index, Event& ev, LogJob& job) {
  const log::Kind k = r.kind;
  if (ev.endpoint != kNone && !(ev.flags & kEventFailed))
    ++(log::categoryOf(k) == log::Category::Send ? job.data_sends : job.data_receives)[ev.endpoint];
  const uint64_t moved = r.bytesMoved();
  ev.value = static_cast<uint32_t>(moved > 0xffffffffu ? 0xffffffffu : moved);
  if (log::isMultiMessage(k) && !(ev.flags & kEventFailed)) {
    std::vector<uint32_t>& lengths = job.message_lengths[index];
    for (uint64_t n : r.lengths) lengths.push_back(static_cast<uint32_t>(std::min<uint64_t>(n, 0xffffffffu)));
  }
  if (log::categoryOf(k) == log::Category::Receive) {
    if ((r.flags & MSG_PEEK) && !log::isMultiMessage(k)) {
      // A peek moves nothing, but it saw `result` bytes: the matching
      // ties them to their sends without consuming them.
      ev.flags |= kEventPeek;
      if (r.result > 0 && !r.error)
        ev.value = static_cast<uint32_t>(std::min<uint64_t>({static_cast<uint64_t>(r.result), r.size, 0xffffffffu}));
    }
    const bool queue = k == log::Kind::MqReceive || k == log::Kind::Msgrcv;  // an empty message is no end
    if (r.result == 0 && !r.error && r.size && !queue) ev.flags |= kEventEof;
    if (r.has_hash) {
      ev.hash = r.hash;
      ev.flags |= kEventHasHash;
    }
  } else if (moved && !log::isMultiMessage(k)) {
    // A send's hash too: the matching checks which sends a receive's
    // bytes came from where several processes share a stream.
    if (r.payload.size() == moved) {
      ev.hash = crc32c(0, r.payload.data(), r.payload.size());
      ev.flags |= kEventHasHash;
    } else if (r.has_hash) {
      ev.hash = r.hash;
      ev.flags |= kEventHasHash;
    }
  }
  if (isDatagramAddressKind(k) && !r.address.empty()) job.addresses.emplace(index, std::string(r.address));
  const bool counter = ev.endpoint != kNone && log::isCounterType(job.endpoints[ev.endpoint].type);
  if (counter && moved == sizeof(uint64_t) && r.payload.size() == sizeof(uint64_t)) {
    uint64_t count;  // the kernel's: native byte order
    std::memcpy(&count, r.payload.data(), sizeof count);
    job.counts.emplace(index, count);
  }
}

// What an event other than a send or receive keeps in `value` and `result`.
void fillOther(const log::Record& r, Event& ev) {
  const log::Kind k = r.kind;
  if (log::isSyncKind(k)) {
    ev.value = (r.flags & 1) ? kSyncTried : 0;  // its object: the merge's
  } else if (k == log::Kind::SignalWait && r.error) {
    ev.value = r.error;  // none came: why (EAGAIN, the timeout)
    ev.result = 0;
  } else if (k == log::Kind::Kill || k == log::Kind::Signal || k == log::Kind::SignalWait) {
    ev.value = static_cast<uint32_t>(r.peer_pid);
    ev.result = r.signal;
  } else if (k == log::Kind::Wait) {
    ev.value = static_cast<uint32_t>(r.peer_pid);
    ev.result = r.status;
  } else if (k == log::Kind::Exit) {
    ev.result = r.status;
  } else if (k == log::Kind::System) {
    ev.result = r.status;
  } else if (k == log::Kind::Shutdown) {
    ev.value = r.flags;  // how: SHUT_RD, SHUT_WR, SHUT_RDWR
  } else if (k == log::Kind::MpiCollective) {
    ev.value = mpiCollectiveCode(r.strings.empty() ? std::string_view() : r.strings[0]);
  } else if (r.peer_pid) {
    ev.value = static_cast<uint32_t>(r.peer_pid);
    if (k == log::Kind::Vfork && r.strings.empty()) ev.result = 0;  // ended without an exec
  } else if (k == log::Kind::User) {
    ev.value = static_cast<uint32_t>(r.payload.size());
  } else if (k == log::Kind::Connect && (r.flags & log::kFlagConnectOutcome)) {
    // How a connect in progress ended (getsockopt(SO_ERROR)): its error.
    ev.flags |= kEventOutcome;
    ev.value = static_cast<uint32_t>(r.size);
    if (r.size) ev.flags |= kEventFailed;
  } else if ((k == log::Kind::Connect || k == log::Kind::ExecFailed) && (ev.flags & kEventFailed)) {
    ev.value = r.error;  // EINPROGRESS: the connection goes on in the kernel; why an exec failed
  }
}

// Where a record is in its log file: a frame's start, or the record's own
// place in the tail.
uint64_t fileOffset(const log::Location& at) {
  return at.frame_offset == log::Location::kTailFrame ? log::kControlSize + at.offset : at.frame_offset;
}

// A log holds what its process did from its first event on (a flight log:
// from the oldest it kept), counted one by one (radar's writer stops at the
// first event it loses). A gap is damage: the log is read up to it. Makes
// the record's counter the process's, and says whether it follows the last.
bool followsLast(log::Record& r, LogJob& job) {
  if (job.count == 0 && job.flight && r.counter > 1) startWindow(r.counter, job);
  r.counter -= job.counter_base;
  if (r.counter == job.count + 1) return true;
  const bool tail = r.location.frame_offset == log::Location::kTailFrame;
  job.damage =
      log::LogError{job.path, fileOffset(r.location),
                    "event counter " + std::to_string(r.counter) + " after " + std::to_string(job.count) +
                        (tail ? " (in the tail)" : " (in the frame at this offset)") + ": events " +
                        std::to_string(job.count + 1) + " to " + std::to_string(r.counter - 1) + " are missing"}
          .toString();
  return false;
}

// Whether the log reserves the flight recorder's pointer (log/format.h).
bool isFlightLog(const std::string& path, uint32_t tail_capacity) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  uint8_t magic[4] = {};
  const bool read = fd >= 0 && ::pread(fd, magic, 4, log::kControlSize + tail_capacity) == 4;
  if (fd >= 0) ::close(fd);
  return read && wire::loadLE32(magic) == log::kFlightMagicFrame;
}

// The counters a flight log's control block gives, as its kept events are
// counted (from 1 at the oldest kept).
void shiftCounters(uint64_t base, Process& p) {
  auto shift = [base](uint64_t& counter) { counter = counter > base ? counter - base : 0; };
  p.counter_base = base;
  shift(p.control.last_counter);
  shift(p.control.lost_from_counter);
  for (log::ThreadSlot& slot : p.control.threads) shift(slot.last_counter);
}

// A send kept once (log 1.15) names a receive of its own process: an
// earlier one that moved at least the bytes it refers to, and, when it
// refers to all of them, whose checksum is the send's. Both are in this log
// (a flight log may have dropped the receive: then nothing is known).
void checkReference(const log::Record& r, const RawRecording& raw, LogJob& job) {
  if (!job.bad_reference.empty() || r.same_as <= job.counter_base) return;
  const uint64_t counter = r.same_as - job.counter_base;
  const uint64_t moved = r.bytesMoved();
  std::string why;
  if (log::categoryOf(r.kind) != log::Category::Send) {
    why = "named by an event that sends nothing";
  } else if (counter >= r.counter) {
    why = "a later event";
  } else {
    const Event& got = raw.events[job.begin + counter - 1];
    if (log::categoryOf(got.eventKind()) != log::Category::Receive || (got.flags & (kEventFailed | kEventPeek)))
      why = "no receive";
    else if (r.same_from > got.value || moved > got.value - r.same_from)
      why = "a receive of fewer bytes";
    else if (!r.has_hash ||
             (r.same_from == 0 && moved == got.value && (got.flags & kEventHasHash) && got.hash != r.hash))
      why = "a receive of other bytes";
  }
  if (why.empty()) return;
  job.bad_reference = log::LogError{job.path, fileOffset(r.location),
                                    "its event " + std::to_string(r.counter + job.counter_base) + " (" +
                                        log::kindName(r.kind) + ") says it sent the bytes of its event " +
                                        std::to_string(r.same_as) + ", which is " + why + ": the log is damaged"}
                          .toString();
}

// `kept`: bytes of sends kept so far by all the logs' readings.
void readLog(LogJob& job, RawRecording& raw, std::atomic<uint64_t>& done_bytes, std::atomic<uint64_t>& kept,
             const LoadOptions& options) {
  log::LogError err;
  auto reader = log::LogReader::open(job.path, &err);
  if (!reader) {
    job.damage = err.toString();
    return;
  }
  const int32_t pid = reader->header().pid();
  job.threads.push_back(static_cast<uint32_t>(pid));
  job.flight = isFlightLog(job.path, reader->control().tail_capacity);
  // The slice its events go to, faulted in with one call rather than a page
  // fault every 85 events.
  faultIn(raw.events.data() + job.begin, size_t{job.capacity} * sizeof(Event));
  log::Record r;
  uint64_t last_report = 0;
  bool keep = options.keep_sent_bytes > 0;
  while (reader->next(r)) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) return;
    if (r.kind == log::Kind::Channel) {
      defineEndpoint(r, job);
      continue;
    }
    if (r.kind == log::Kind::Note) {
      readNote(r, job);
      continue;
    }
    if (r.kind == log::Kind::Exit && !r.strings.empty()) job.title = shortTitle(r.strings[0]);
    if (!r.counter) continue;  // other annotations
    if (!followsLast(r, job)) break;
    if (job.count == job.capacity) {
      job.overflow = true;
      break;
    }
    const uint32_t index = job.begin + job.count++;
    Event& ev = raw.events[index];
    ev.hash = 0;
    ev.value = 0;
    ev.entry_ns = r.entry_ns;
    job.first_entry = std::min(job.first_entry, r.entry_ns);
    ev.setDuration(r.return_ns - r.entry_ns);
    job.last_return = std::max(job.last_return, ev.returnNs());
    const uint64_t frame = r.location.frame_offset >> 0;
    ev.where = (frame == log::Location::kTailFrame ? (log::Location::kTailFrame >> 26) : frame) << 26 |
               (r.location.offset & ((1u << 26) - 1));
    ev.process = job.process;
    ev.counter = static_cast<uint32_t>(r.counter);
    ev.kind = static_cast<uint16_t>(r.kind);
    ev.result = static_cast<int32_t>(r.result);
    ev.flags = 0;
    if (r.error || r.result < 0) ev.flags |= kEventFailed;
    if (r.flags & log::kFlagNeverReturned) ev.result = kResultNeverReturned;
    // A send kept once has its bytes too (a receive's: Trace::sentPayload).
    if (!r.payload.empty() || (r.same_as && log::categoryOf(r.kind) == log::Category::Send))
      ev.flags |= kEventHasPayload;
    // The thread, as a small index.
    uint32_t t = 0;
    while (t < job.threads.size() && job.threads[t] != r.tid) ++t;
    if (t == job.threads.size()) job.threads.push_back(r.tid);
    ev.thread = static_cast<uint8_t>(t < 255 ? t : 255);
    ev.endpoint = kNone;
    if (r.channel && r.channel < job.by_index.size()) ev.endpoint = job.by_index[r.channel];  // made global later
    const log::Kind k = r.kind;
    if (log::isData(k)) {
      fillData(r, index, ev, job);
      if (job.counter_base) noteWindowOffset(r, ev, job);
    } else {
      fillOther(r, ev);
    }
    if (log::isMpiKind(k)) noteMpiCall(r, index, job);
    if (r.in_mpi_call) job.in_mpi_calls.push_back(ev.counter);
    if (log::isSyncKind(k)) noteSyncCall(r, index, job);
    if (r.same_as) {  // kept once: its bytes are a receive's (none here: Trace::sentPayload)
      job.same_bytes_sends += log::categoryOf(k) == log::Category::Send;
      checkReference(r, raw, job);
    } else if (keep && log::categoryOf(k) == log::Category::Send && (!r.payload.empty() || r.payload_omitted)) {
      // Kept whole or not at all: a send whose bytes the recording left
      // out in part, or beyond the budget, and the log's later ones are
      // read from the log.
      if (r.payload_omitted || kept.fetch_add(r.payload.size()) + r.payload.size() > options.keep_sent_bytes)
        keep = false;
      else
        job.sent.bytes.append(r.payload);
    }
    if (keep) job.sent.ends.push_back(job.sent.bytes.size());
    if (reader->position() - last_report > (1u << 20)) {
      done_bytes += reader->position() - last_report;
      last_report = reader->position();
    }
  }
  done_bytes += reader->fileSize() - last_report;
  if (reader->error()) job.damage = reader->error()->toString();

  Process& p = raw.processes[job.process];
  p.control = reader->control();
  p.in_mpi_calls = std::move(job.in_mpi_calls);
  if (job.counter_base) shiftCounters(job.counter_base, p);
}

// What a log's reading learned of some of its events (addresses, message
// lengths, counts), by their places in the recording (`shift` from the
// reading's).
void adoptEventFacts(LogJob& job, uint32_t shift, RawRecording& raw) {
  for (auto& [index, address] : job.addresses) raw.addresses.insert_or_assign(index + shift, std::move(address));
  for (auto& [index, lengths] : job.message_lengths)
    raw.message_lengths.insert_or_assign(index + shift, std::move(lengths));
  for (auto& [index, count] : job.counts) raw.counts.insert_or_assign(index + shift, count);
  // By their offsets in the process's events, which stay as they move.
  if (raw.mpi_calls.size() <= job.process) raw.mpi_calls.resize(job.process + 1);
  raw.mpi_calls[job.process] = std::move(job.mpi_calls);
  for (const auto& [index, call] : job.sync_calls) raw.sync_calls.emplace_back(index + shift, call);
  std::vector<std::pair<uint32_t, SyncCall>>().swap(job.sync_calls);
}

// The words the titles a process gave itself all begin with: what stays
// while a state at the end changes ("nginx: worker process" and "... is
// shutting down"; PostgreSQL's backend by user, database and client, then
// "authentication", "idle", "SELECT"). The first title where they share no
// word.
std::string titleName(std::vector<std::string> titles, const std::string& at_exit) {
  if (!at_exit.empty()) titles.push_back(at_exit);
  if (titles.empty()) return "";
  auto words = [](const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  };
  std::vector<std::string> common = words(titles[0]);
  for (const std::string& t : titles) {
    const std::vector<std::string> these = words(t);
    size_t n = 0;
    while (n < common.size() && n < these.size() && common[n] == these[n]) ++n;
    common.resize(n);
  }
  if (common.empty()) return titles[0];
  std::string name = common[0];
  for (size_t i = 1; i < common.size(); ++i) name += " " + common[i];
  return name;
}

// A process that gave itself titles is named by what they share (above).
// An MPI rank is named by its rank too ("ring rank 2").
void nameProcess(const LogJob& job, Process& p) {
  if (const std::string name = titleName(job.titles, job.title); !name.empty()) p.recorded_name = name;
  const std::string rank = " rank " + std::to_string(job.mpi_rank);
  if (job.mpi_rank >= 0 && !p.recorded_name.ends_with(rank)) p.recorded_name += rank;  // read twice: once
  p.mpi_rank = job.mpi_rank;
}

}  // namespace

std::string processName(const std::vector<std::string>& argv, const std::string& executable) {
  static const char* const interpreters[] = {"python", "python3", "perl", "ruby",  "node",
                                             "bash",   "sh",      "dash", "tclsh", "lua"};
  const std::string exe = baseName(executable);
  // A title a program gave itself over its arguments (nginx's "nginx:
  // master process /usr/sbin/nginx -c /etc/nginx/nginx.conf"), as its
  // children inherit it at fork, before they set their own ("nginx: worker
  // process", which the log does not see): named by the program, as ps
  // names it by its command, not by the last word after a '/' of the title.
  // ("/opt/My App/tool" is a path, not a title.)
  const size_t space = argv.empty() ? std::string::npos : argv[0].find(' ');
  if (space != std::string::npos && argv[0].rfind('/', space) == std::string::npos && !exe.empty()) return exe;
  std::string program = argv.empty() || argv[0].empty() ? exe : baseName(argv[0]);
  for (const char* i : interpreters) {
    const std::string name(i);
    const bool is_interpreter =
        exe == name || (exe.rfind(name, 0) == 0 && exe.size() > name.size() &&
                        (std::isdigit(static_cast<unsigned char>(exe[name.size()])) || exe[name.size()] == '.'));
    if (!is_interpreter) continue;
    // `python3 script.py args`: the script is what the user thinks of.
    for (size_t a = 1; a < argv.size(); ++a) {
      if (argv[a].empty() || argv[a][0] == '-') {
        // Code on the command line (python -c, perl -e, node -e): no script.
        if (argv[a] == "-c" || argv[a] == "-m" || argv[a] == "-e" || argv[a] == "-E" || argv[a] == "-p" ||
            argv[a] == "--eval" || argv[a] == "--print")
          break;
        continue;
      }
      return baseName(argv[a]);
    }
    break;
  }
  return program.empty() ? exe : program;
}

// The logs of one directory belong to one recording: a log whose recording
// id is not its directory's (recording.txt's, else the one most of its logs
// carry) was copied in from another recording, and would be told as a
// process of this one. Refused, unless merge_unrelated (then a warning).
bool checkRecordingIds(const std::vector<LogJob>& jobs, const std::vector<std::string>& log_ids,
                       std::vector<std::string> dir_ids, bool merge_unrelated, RawRecording& raw, std::string* error) {
  std::vector<std::map<std::string, uint32_t>> votes(dir_ids.size());
  for (size_t k = 0; k < jobs.size(); ++k)
    if (!log_ids[k].empty()) ++votes[jobs[k].directory][log_ids[k]];
  for (size_t d = 0; d < dir_ids.size(); ++d) {
    if (!dir_ids[d].empty() || votes[d].empty()) continue;
    dir_ids[d] = std::max_element(votes[d].begin(), votes[d].end(), [](const auto& a, const auto& b) {
                   return a.second < b.second;
                 })->first;
  }
  raw.directory_ids = dir_ids;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const std::string& mine = dir_ids[jobs[k].directory];
    if (log_ids[k].empty() || mine.empty() || log_ids[k] == mine) continue;
    const std::string what = jobs[k].path +
                             " is a log of another recording (its recording id is not its "
                             "directory's: copied in from elsewhere?)";
    if (!merge_unrelated) {
      *error = what + "; it is not merged into this story (--merge-unrelated merges it all the same)";
      return false;
    }
    raw.warnings.push_back(what + "; merged as --merge-unrelated asks");
  }
  return true;
}

// The logs of the directories (or single logs) given, each once, and each
// directory's recording id, from its recording.txt ("" where none).
bool listLogJobs(const std::vector<std::string>& dirs, RawRecording& raw, std::vector<LogJob>* jobs,
                 std::vector<std::string>* dir_ids, std::string* error) {
  // A recording given twice (the same directory under two names, a copy of
  // it, a log also inside a directory given) would be merged with itself:
  // every message twice, and processes that "never ended".
  std::map<std::pair<dev_t, ino_t>, std::string> seen_files;
  // recording id and part (its recorder's host, pid and start: `radar
  // record --join` on other hosts gives one id to several parts) -> directory
  std::map<std::string, std::string> seen_ids;
  auto once = [&](const std::string& path, const struct stat& st) {
    auto [it, fresh] = seen_files.emplace(std::pair{st.st_dev, st.st_ino}, path);
    if (!fresh) *error = "the same recording is given twice: " + it->second + " and " + path;
    return fresh;
  };
  for (const std::string& dir : dirs) {
    dir_ids->emplace_back();
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
      *error = dir + ": no such file or directory";
      return false;
    }
    if (!once(dir, st)) return false;
    raw.directories.push_back(dir);
    std::vector<std::string> paths;
    if (S_ISDIR(st.st_mode)) {
      paths = log::listLogs(dir);
      if (paths.empty()) raw.problems.push_back({dir, "no logs (*.rlog) in this directory"});
      std::ifstream meta(dir + "/recording.txt");
      if (meta) {
        std::stringstream text;
        text << meta.rdbuf();
        proto::Recording rec;
        if (google::protobuf::TextFormat::ParseFromString(text.str(), &rec)) {
          if (!rec.recording_id().empty()) {
            dir_ids->back() = rec.recording_id();
            const std::string part = rec.recording_id() + "|" + rec.host_name() + "|" + std::to_string(rec.root_pid()) +
                                     "|" + std::to_string(rec.start_realtime_ns());
            auto [it, fresh] = seen_ids.emplace(part, dir);
            if (!fresh) {
              *error = "the same recording is given twice: " + it->second + " and " + dir + " (a copy of it)";
              return false;
            }
          }
          raw.recordings.push_back(std::move(rec));
        } else
          raw.problems.push_back({dir + "/recording.txt", "cannot parse it; ignored"});
      }
    } else {
      paths.push_back(dir);
    }
    for (const auto& p : paths) {
      struct stat log_st {};
      if (::stat(p.c_str(), &log_st) == 0 && !once(p, log_st)) return false;
      jobs->push_back({p, static_cast<uint32_t>(dir_ids->size() - 1)});
    }
  }
  return true;
}

// A process image as its log's header describes it (its index and events
// are the loader's to fill).
Process processOfHeader(const proto::Header& h, const std::string& path, std::vector<std::string>* boots) {
  Process p;
  p.pid = h.pid();
  p.generation = h.generation();
  p.log_id = h.log_id();
  p.log_path = path;
  p.host = h.host_name();
  auto boot = std::find(boots->begin(), boots->end(), h.boot_id());
  p.boot = static_cast<uint32_t>(boot - boots->begin());
  if (boot == boots->end()) boots->push_back(h.boot_id());
  p.executable = h.executable();
  p.argv.assign(h.argv().begin(), h.argv().end());
  for (const std::string& variable : h.environment())
    if (variable.starts_with("RADAR_")) p.radar_variables.push_back(variable);
  p.recorded_name = processName(p.argv, p.executable);
  p.origin = static_cast<log::Origin>(h.origin());
  p.parent_counter = h.parent_counter();
  p.parent_log_id = h.parent_log_id();
  p.ppid = h.ppid();
  // A clock outside what any machine reads (a damaged or crafted header)
  // gives no offset rather than an overflow.
  auto sane = [](int64_t ns) { return ns >= 0 && ns < log::kMaxTimeNs; };
  p.realtime_offset = sane(h.realtime_ns()) && sane(h.monotonic_ns()) ? h.realtime_ns() - h.monotonic_ns() : 0;
  return p;
}

namespace {

// A log's header and size, read before its records (`error` empty: opened).
struct OpenedLog {
  proto::Header header;
  uint64_t last_counter = 0, size = 0;
  uint64_t allocated = 0;  // bytes on disk: a flight log's dropped frames are holes
  std::string error;
};

// First pass: headers and sizes, so that every log's events land straight
// in their place in one vector (no copy of millions of events later).
// Opening a log decompresses its first frame: the threads share that.
std::vector<OpenedLog> openLogs(const std::vector<LogJob>& jobs, int threads) {
  std::vector<OpenedLog> opened(jobs.size());
  std::atomic<size_t> next{0};
  auto open = [&]() {
    for (size_t k; (k = next.fetch_add(1)) < jobs.size();) {
      log::LogError err;
      auto reader = log::LogReader::open(jobs[k].path, &err);
      if (!reader) {
        opened[k].error = err.toString();
        continue;
      }
      opened[k].header = reader->header();
      opened[k].last_counter = reader->control().last_counter;
      opened[k].size = reader->fileSize();
      // A flight log's dropped frames are holes: its disk space, not its
      // size, bounds its events.
      struct stat st {};
      opened[k].allocated = opened[k].size;
      if (isFlightLog(jobs[k].path, reader->control().tail_capacity) && ::stat(jobs[k].path.c_str(), &st) == 0)
        opened[k].allocated = std::min<uint64_t>(opened[k].size, static_cast<uint64_t>(st.st_blocks) * 512);
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < std::min<int>(threads, static_cast<int>(jobs.size())); ++t) helpers.emplace_back(open);
  open();
  for (auto& t : helpers) t.join();
  return opened;
}

// The logs that opened become processes, each with room for its events;
// the others are problems. False, with `error`, when none opened.
bool admitLogs(std::vector<LogJob>& jobs, const std::vector<OpenedLog>& opened, const std::vector<std::string>& dirs,
               RawRecording& raw, std::vector<LogJob>* usable, uint64_t* total_events, uint64_t* total_bytes,
               std::string* error) {
  for (size_t k = 0; k < jobs.size(); ++k) {
    LogJob& job = jobs[k];
    if (!opened[k].error.empty()) {
      raw.problems.push_back({job.path, opened[k].error});
      continue;
    }
    Process p = processOfHeader(opened[k].header, job.path, &raw.boots);
    p.index = static_cast<uint32_t>(raw.processes.size());
    raw.processes.push_back(std::move(p));
    job.process = raw.processes.back().index;
    job.size = opened[k].size;
    // The control block says how many events there are (a writer killed
    // between storing a record and counting it leaves one more: such a log
    // is read again at the end, see below). It is only the file's claim:
    // room is made for no more events than its bytes could hold (radar's
    // records compress to two and a half bytes at best; room is made for
    // eight a byte), and a log holding more after all is read again.
    job.capacity = static_cast<uint32_t>(std::min<uint64_t>(
        {opened[k].last_counter, std::min(opened[k].size, opened[k].allocated) * 8 + 1024, kMaxEventsPerLog}));
    *total_events += job.capacity;
    *total_bytes += job.size;
    usable->push_back(std::move(job));
  }
  if (usable->empty()) {
    *error = dirs.empty() ? "no recording given" : "no readable log in " + dirs[0];
    for (const auto& p : raw.problems) *error += "\n  " + p.path + ": " + p.message;
    return false;
  }
  return true;
}

// One wall clock per machine. Processes of one boot share CLOCK_MONOTONIC
// (but for time namespaces, which move it by their offsets: seconds, as a
// rule), and each read it beside CLOCK_REALTIME at its own start; one
// preempted between the two reads got an offset too small by as long as
// it waited (milliseconds on a loaded machine), which would misorder its
// calls against the others'. The largest offset of those on one clock is
// the closest; offsets further apart than any such wait are other clocks.
void oneClockPerBoot(RawRecording& raw) {
  constexpr int64_t kLongestWaitNs = 500'000'000;
  std::vector<std::pair<int64_t, uint32_t>> by_offset;  // of processes of a known boot
  for (const Process& p : raw.processes)
    if (!raw.boots[p.boot].empty()) by_offset.push_back({p.realtime_offset, p.index});
  std::sort(by_offset.begin(), by_offset.end(), [&](const auto& a, const auto& b) {
    const uint32_t boot_a = raw.processes[a.second].boot, boot_b = raw.processes[b.second].boot;
    return boot_a != boot_b ? boot_a < boot_b : a.first < b.first;
  });
  for (size_t begin = 0, end; begin < by_offset.size(); begin = end) {
    const uint32_t boot = raw.processes[by_offset[begin].second].boot;
    for (end = begin + 1; end < by_offset.size() && raw.processes[by_offset[end].second].boot == boot &&
                          by_offset[end].first - by_offset[end - 1].first <= kLongestWaitNs;
         ++end) {
    }
    for (size_t k = begin; k < end; ++k) raw.processes[by_offset[k].second].realtime_offset = by_offset[end - 1].first;
  }
}

// Second pass, in parallel: the records. Big logs first, spread over the
// threads. False when cancelled.
bool readLogs(std::vector<LogJob>& usable, RawRecording& raw, const LoadOptions& options, uint64_t total_bytes,
              std::atomic<uint64_t>& done_bytes, std::atomic<uint64_t>& kept) {
  std::vector<LogJob*> order;
  for (auto& j : usable) order.push_back(&j);
  std::sort(order.begin(), order.end(), [](LogJob* a, LogJob* b) { return a->size > b->size; });
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i; (i = next.fetch_add(1)) < order.size();) readLog(*order[i], raw, done_bytes, kept, options);
  };
  const int threads = std::max(1, std::min<int>(options.threads, static_cast<int>(order.size())));
  std::vector<std::thread> pool;
  std::mutex mutex;
  std::condition_variable finished;
  int running = options.progress ? threads : threads - 1;
  auto worker = [&]() {
    work();
    std::lock_guard<std::mutex> lock(mutex);
    if (--running == 0) finished.notify_all();
  };
  for (int t = options.progress ? 0 : 1; t < threads; ++t) pool.emplace_back(worker);
  if (options.progress) {
    // The calling thread reports while the others read.
    std::unique_lock<std::mutex> lock(mutex);
    while (running > 0)
      if (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; }))
        options.progress(done_bytes.load(), total_bytes);
  } else {
    work();
  }
  for (auto& t : pool) t.join();
  if (options.progress) options.progress(done_bytes.load(), total_bytes);
  return !(options.cancel && options.cancel->load());
}
// Its sends kept once, and a reference that does not hold: a problem of
// the log, not damage (it was read to its end).
void adoptReferences(const LogJob& job, Process& p, RawRecording& raw) {
  p.same_bytes_sends = job.same_bytes_sends;
  if (!job.bad_reference.empty()) raw.problems.push_back({job.path, job.bad_reference});
}

// Each log's events to the front of its slice, slices together.
void compactLogs(std::vector<LogJob>& usable, RawRecording& raw, const LoadOptions& options) {
  uint32_t write = 0;
  raw.ranges.assign(raw.processes.size(), {0, 0});
  if (options.keep_sent_bytes) raw.sent_bytes.resize(raw.processes.size());
  raw.mpi_calls.assign(raw.processes.size(), {});
  for (LogJob& job : usable) {
    if (write != job.begin) {
      std::move(raw.events.begin() + job.begin, raw.events.begin() + job.begin + job.count, raw.events.begin() + write);
    }
    // Endpoints become global.
    const uint32_t base = static_cast<uint32_t>(raw.endpoints.size());
    for (Endpoint& e : job.endpoints) {
      e.process = job.process;
      raw.endpoints.push_back(std::move(e));
    }
    raw.data_sends.insert(raw.data_sends.end(), job.data_sends.begin(), job.data_sends.end());
    raw.data_receives.insert(raw.data_receives.end(), job.data_receives.begin(), job.data_receives.end());
    for (uint32_t i = write; i < write + job.count; ++i)
      if (raw.events[i].endpoint != kNone) raw.events[i].endpoint += base;
    adoptEventFacts(job, write - job.begin, raw);
    Process& p = raw.processes[job.process];
    p.threads = job.threads;
    p.unseen = std::move(job.unseen);
    nameProcess(job, p);
    p.damage = job.damage;
    if (!job.damage.empty()) raw.problems.push_back({job.path, job.damage});
    adoptReferences(job, p, raw);
    raw.ranges[job.process] = {write, write + job.count};
    write += job.count;
    if (options.keep_sent_bytes) raw.sent_bytes[job.process] = std::move(job.sent);
  }
  raw.events.resize(write);  // no shrink_to_fit: it would copy millions of events
}

// A log with more events than its control block said: read again, into
// the end of the array.
void readAgain(LogJob& job, RawRecording& raw, const LoadOptions& options, std::atomic<uint64_t>& done_bytes,
               std::atomic<uint64_t>& kept) {
  const uint32_t old_begin = raw.ranges[job.process].first, old_end = raw.ranges[job.process].second;
  LogJob again;
  // Twice the room each time: a log may hold far more than its first
  // reading had room for (see the capacity above).
  for (uint64_t room = uint64_t{old_end - old_begin} * 2 + 1024;; room *= 2) {
    again = LogJob{};
    again.path = job.path;
    again.process = job.process;
    again.begin = static_cast<uint32_t>(raw.events.size());
    again.capacity = static_cast<uint32_t>(std::min<uint64_t>(room, kMaxEventsPerLog));
    raw.events.resize(raw.events.size() + again.capacity);
    readLog(again, raw, done_bytes, kept, options);
    if (!again.overflow || again.capacity == kMaxEventsPerLog) break;
    raw.events.resize(again.begin);
  }
  if (again.overflow) again.damage = job.path + ": cannot be read consistently";
  const uint32_t base = static_cast<uint32_t>(raw.endpoints.size());
  for (Endpoint& e : again.endpoints) {
    e.process = job.process;
    raw.endpoints.push_back(std::move(e));
  }
  raw.data_sends.insert(raw.data_sends.end(), again.data_sends.begin(), again.data_sends.end());
  raw.data_receives.insert(raw.data_receives.end(), again.data_receives.begin(), again.data_receives.end());
  // The first reading's endpoints keep no events (their slice becomes a hole).
  for (uint32_t e = 0; e < base; ++e)
    if (raw.endpoints[e].process == job.process) raw.data_sends[e] = raw.data_receives[e] = 0;
  for (uint32_t i = again.begin; i < again.begin + again.count; ++i)
    if (raw.events[i].endpoint != kNone) raw.events[i].endpoint += base;
  adoptEventFacts(again, 0, raw);
  // The old slice stays as a hole of events nobody owns: mark it empty.
  for (uint32_t i = old_begin; i < old_end; ++i) raw.events[i].kind = 0;
  raw.ranges[job.process] = {again.begin, again.begin + again.count};
  if (options.keep_sent_bytes) raw.sent_bytes[job.process] = std::move(again.sent);
  raw.events.resize(again.begin + again.count);
  Process& p = raw.processes[job.process];
  p.threads = again.threads;
  p.damage = again.damage;
  p.unseen = std::move(again.unseen);
  nameProcess(again, p);
  // The second reading's damage, if any, replaces the first's.
  raw.problems.erase(std::remove_if(raw.problems.begin(), raw.problems.end(),
                                    [&](const LoadProblem& problem) { return problem.path == job.path; }),
                     raw.problems.end());
  if (!again.damage.empty()) raw.problems.push_back({job.path, again.damage});
  adoptReferences(again, p, raw);
  job.first_entry = again.first_entry;
  job.last_return = again.last_return;
}

// The wall-clock span of the whole recording.
void setWallRange(const std::vector<LogJob>& usable, RawRecording& raw) {
  __int128 first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  for (const LogJob& job : usable) {
    if (job.first_entry > job.last_return) continue;  // no events
    const int64_t offset = raw.processes[job.process].realtime_offset;
    first = std::min(first, __int128{job.first_entry} + offset);
    last = std::max(last, __int128{job.last_return} + offset);
  }
  if (first <= last && first >= std::numeric_limits<int64_t>::min() && last <= std::numeric_limits<int64_t>::max())
    raw.wall_range = {static_cast<int64_t>(first), static_cast<int64_t>(last)};
}

}  // namespace

bool loadLogs(const std::vector<std::string>& dirs, const LoadOptions& options, RawRecording* out, std::string* error) {
  RawRecording& raw = *out;
  std::vector<LogJob> jobs;
  std::vector<std::string> dir_ids;
  if (!listLogJobs(dirs, raw, &jobs, &dir_ids, error)) return false;
  const std::vector<OpenedLog> opened = openLogs(jobs, options.threads);
  {
    std::vector<std::string> log_ids(jobs.size());
    for (size_t k = 0; k < jobs.size(); ++k)
      if (opened[k].error.empty()) log_ids[k] = opened[k].header.recording_id();
    if (!checkRecordingIds(jobs, log_ids, std::move(dir_ids), options.merge_unrelated, raw, error)) return false;
  }
  uint64_t total_events = 0, total_bytes = 0;
  std::vector<LogJob> usable;
  if (!admitLogs(jobs, opened, dirs, raw, &usable, &total_events, &total_bytes, error)) return false;
  oneClockPerBoot(raw);
  if (total_events > std::numeric_limits<uint32_t>::max() - kMaxEventsPerLog) {
    *error =
        "the recording claims " + std::to_string(total_events) + " events: more than radar numbers (4 294 967 295)";
    return false;
  }
  raw.events.resize(total_events);  // uninitialized: readLog() writes every field
  uint32_t at = 0;
  for (LogJob& job : usable) {
    job.begin = at;
    at += job.capacity;
  }
  std::atomic<uint64_t> done_bytes{0}, kept{0};
  if (!readLogs(usable, raw, options, total_bytes, done_bytes, kept)) {
    *error = "cancelled";
    return false;
  }
  compactLogs(usable, raw, options);
  for (LogJob& job : usable)
    if (job.overflow) readAgain(job, raw, options, done_bytes, kept);
  setWallRange(usable, raw);
  return true;
}

std::vector<std::string> processNamesOf(const std::string& dir, size_t most_logs) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / "recording.txt", ec)) return names;
  size_t logs = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end && logs < most_logs; it.increment(ec)) {
    if (it->path().extension() != ".rlog" || !it->is_regular_file(ec)) continue;
    ++logs;
    log::LogError error;
    const auto reader = log::LogReader::open(it->path().string(), &error);
    if (!reader) continue;
    const auto& h = reader->header();
    names.push_back(processName({h.argv().begin(), h.argv().end()}, h.executable()));
  }
  return names;
}

}  // namespace radar::trace
