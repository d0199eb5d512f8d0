#include "trace/trace.h"

#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "log/mpi_event.h"
#include "log/reader.h"
#include "radar/proto/radarlog.pb.h"
#include "trace/clocks.h"

namespace radar::trace {

namespace {
constexpr size_t kPage = 4096;
constexpr size_t kBigArray = size_t{4} << 20;
}  // namespace

Trace::Trace() = default;
Trace::~Trace() = default;

void* allocateBigArray(size_t bytes) {
  if (bytes < kBigArray) {
    if (void* p = std::malloc(bytes ? bytes : 1)) return p;
    throw std::bad_alloc();
  }
  void* p = nullptr;
  if (::posix_memalign(&p, kPage, bytes) != 0) throw std::bad_alloc();
  return p;
}

void freeBigArray(void* p, size_t) { std::free(p); }

void faultIn(void* p, size_t bytes) {
  const uintptr_t from = reinterpret_cast<uintptr_t>(p);
  const uintptr_t first = (from + kPage - 1) & ~(kPage - 1), last = (from + bytes) & ~(kPage - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
}

namespace {
std::string seconds(int64_t ns) {
  char text[40];
  std::snprintf(text, sizeof text, "%+.6f s", static_cast<double>(ns) / 1e9);
  return text;
}
}  // namespace

std::string Trace::describeHostClock(uint32_t boot) const {
  const HostClock& c = host_clocks.at(boot);
  const std::string whose = c.host + "'s clock: ";
  if (c.against == kNone)
    return whose + (c.aligned ? "the one the others are lined up with"
                              : "not lined up with the others': no message joins its processes to another host's, "
                                "so its times are as it read them");
  constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  const std::string allowed = c.low_ns == -kUnbounded   ? "at most " + seconds(c.high_ns)
                              : c.high_ns == kUnbounded ? "at least " + seconds(c.low_ns)
                                                        : seconds(c.low_ns) + " to " + seconds(c.high_ns);
  const std::string why = " (the " + std::to_string(c.edges) + " message" + (c.edges == 1 ? "" : "s") +
                          " between them allow" + (c.edges == 1 ? "s " : " ") + allowed +
                          (c.low_ns > c.high_ns ? ": they disagree" : "") + ")";
  const std::string& other = host_clocks[c.against].host;
  return whose +
         (c.shift_ns ? "moved by " + seconds(c.shift_ns) + " to line up with " + other + "'s"
                     : "agrees with " + other + "'s as read") +
         why;
}

std::string Trace::label(uint32_t process) const {
  const Process& p = processes[process];
  const std::string& name = processName(process);
  // The images of one pid are one exec chain: look along it both ways.
  bool shared = false;
  size_t steps = 0;
  for (uint32_t q = p.next_image; !shared && q < processes.size() && steps++ < processes.size();
       q = processes[q].next_image)
    shared = processes[q].pid == p.pid && processName(q) == name;
  for (uint32_t q = process; !shared && processes[q].origin == log::Origin::Execed &&
                             processes[q].parent < processes.size() && steps++ < 2 * processes.size();) {
    q = processes[q].parent;
    shared = processes[q].pid == p.pid && processName(q) == name;
  }
  return name + "[" + std::to_string(p.pid) + (shared ? "." + std::to_string(p.generation) : "") +
         (several_hosts ? "@" + p.host : "") + "]";
}

std::string Process::recordedLabel() const { return recorded_name + "[" + std::to_string(pid) + "]"; }

uint8_t Process::threadIndex(uint32_t tid) const {
  const auto at = std::find(threads.begin(), threads.end(), tid);
  return at == threads.end() ? 0 : static_cast<uint8_t>(std::min<ptrdiff_t>(at - threads.begin(), 254));
}

const char* severityName(Finding::Severity s) {
  switch (s) {
    case Finding::Severity::Error:
      return "error";
    case Finding::Severity::Warning:
      return "warning";
    case Finding::Severity::Note:
      return "note";
  }
  return "warning";
}

const char* findingKindName(Finding::Kind k) {
  switch (k) {
    case Finding::Kind::NeverReceived:
      return "never-received";
    case Finding::Kind::NoSender:
      return "no-sender";
    case Finding::Kind::Abnormal:
      return "abnormal-end";
    case Finding::Kind::NeverEnded:
      return "never-ended";
    case Finding::Kind::Deadlock:
      return "deadlock";
    case Finding::Kind::LostEvents:
      return "lost-events";
    case Finding::Kind::Damaged:
      return "damaged-log";
    case Finding::Kind::Unrecorded:
      return "not-recorded";
    case Finding::Kind::Contradiction:
      return "contradiction";
    case Finding::Kind::MpiMismatch:
      return "collective-mismatch";
    case Finding::Kind::WildcardRace:
      return "wildcard-race";
    case Finding::Kind::LockOrder:
      return "lock-order";
    case Finding::Kind::LockDeadlock:
      return "lock-deadlock";
    case Finding::Kind::MpiStuck:
      return "stuck-in-collective";
  }
  return "finding";
}

uint32_t mpiCollectiveCode(std::string_view operation) { return log::mpiCollectiveCode(operation); }

const char* mpiCollectiveName(uint32_t code) {
  return code >= 1 && code <= std::size(log::kMpiCollectives) ? log::kMpiCollectives[code - 1] : "a collective";
}

std::pair<const Edge*, const Edge*> Trace::incoming(uint32_t position) const {
  auto lo = std::lower_bound(edges.begin(), edges.end(), position, [](const Edge& e, uint32_t v) { return e.to < v; });
  auto hi = lo;
  while (hi != edges.end() && hi->to == position) ++hi;
  return {edges.data() + (lo - edges.begin()), edges.data() + (hi - edges.begin())};
}

int64_t Trace::wallTime(uint32_t position) const {
  const Event& e = events[position];
  return e.entry_ns + processes[e.process].realtime_offset;
}

const Clocks& Trace::clocks() const {
  std::call_once(lazy_->clocks_once, [&] { lazy_->clocks = std::make_shared<Clocks>(*this); });
  return *lazy_->clocks;
}

std::span<const uint32_t> Trace::messagesFrom(uint32_t send) const {
  std::call_once(lazy_->sends_once, [&] {
    auto& begin = lazy_->send_begin;
    auto& list = lazy_->send_edges;
    begin.assign(events.size() + 1, 0);
    for (const Edge& e : edges)
      if (e.why == Edge::Why::Message) ++begin[e.from + 1];
    for (size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
    list.resize(begin.back());
    std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
    for (uint32_t i = 0; i < edges.size(); ++i)
      if (edges[i].why == Edge::Why::Message) list[fill[edges[i].from]++] = i;
  });
  const auto& begin = lazy_->send_begin;
  if (send + 1 >= begin.size()) return {};
  return std::span<const uint32_t>(lazy_->send_edges).subspan(begin[send], begin[send + 1] - begin[send]);
}

uint32_t Trace::createdAt(uint32_t process) const {
  const Process& p = processes[process];
  if (p.first_event != kNone) {
    // The merge's creation edge into its first event.
    for (auto [b, e] = incoming(p.first_event); b != e; ++b)
      if (b->why == Edge::Why::Create) return b->from;
    return kNone;
  }
  // No event of its own (blocked at once, then killed): found as the merge
  // finds the others' (merge_edges.cc).
  if (p.parent == kNone || p.parent >= processes.size()) return kNone;
  if (processes[p.parent].next_image == process) return kNone;  // an exec's image
  const EventList parent = counter_events[p.parent];
  const uint32_t k = creatingEvent(p.parent_counter, static_cast<uint32_t>(parent.size()), p.pid,
                                   [&](uint32_t i) -> const Event& { return events[parent[i]]; });
  return k == kNone ? kNone : parent[k];
}

bool Trace::happensBefore(uint32_t a, uint32_t b) const { return clocks().happensBefore(a, b); }

std::string Trace::channelLabel(uint32_t channel) const {
  return channel < channels.size() ? channelName(channel) : std::string("an unknown channel");
}

log::LogReader* Trace::openReader(std::vector<std::unique_ptr<log::LogReader>>& set, uint32_t process,
                                  std::string* error) const {
  if (set.size() < processes.size()) set.resize(processes.size());
  auto& reader = set[process];
  if (reader) return reader.get();
  // Keep a bounded number of logs open: recordings can have thousands, and
  // each open log holds a frame (a quarter of a megabyte). A pass over the
  // whole story reads every process in turn: below the bound nothing is
  // closed; beyond it, one log at a time, picked at random (closing them
  // all, or the least recently used, would reopen every log at every turn).
  static const size_t kMaxOpen = [] {
    rlimit r{};
    const size_t fds = ::getrlimit(RLIMIT_NOFILE, &r) == 0 ? static_cast<size_t>(r.rlim_cur) : 1024;
    return std::clamp<size_t>(fds / 4, 64, 1024);
  }();
  size_t open = 0;
  for (const auto& r : set) open += r != nullptr;
  if (open >= kMaxOpen) {
    evict_seed_ = evict_seed_ * 6364136223846793005ull + 1442695040888963407ull;
    size_t victim = static_cast<size_t>(evict_seed_ >> 33) % open;
    for (auto& r : set)
      if (r && !victim--) {
        r.reset();
        break;
      }
  }
  log::LogError err;
  reader = log::LogReader::open(processes[process].log_path, &err);
  if (!reader && error) *error = err.toString();
  return reader.get();
}

bool Trace::record(uint32_t position, log::Record* out, std::string* payload, std::vector<std::string>* strings,
                   std::string* error) const {
  const Event& ev = events[position];
  log::LogReader* reader = openReader(readers_, ev.process, error);
  if (!reader) return false;
  const uint64_t frame = ev.frame();
  log::Location where{ev.isTail() ? log::Location::kTailFrame : frame, ev.frameOffset()};
  log::LogError err;
  if (!reader->readRecord(where, out, &err)) {
    if (error) *error = err.toString();
    return false;
  }
  if (payload) payload->assign(out->payload);
  if (strings) {
    strings->clear();
    for (auto s : out->strings) strings->emplace_back(s);
  }
  return true;
}

bool Trace::payload(uint32_t position, std::string* out, std::string* error, uint64_t* omitted) const {
  std::string_view bytes;
  if (!payloadView(position, &bytes, error, omitted)) return false;
  out->assign(bytes);
  return true;
}

bool Trace::payloadView(uint32_t position, std::string_view* out, std::string* error, uint64_t* omitted) const {
  if (omitted) *omitted = 0;
  const Event& ev = events[position];
  if (log::categoryOf(ev.eventKind()) == log::Category::Send) {
    uint64_t left_out = 0;
    if (!sentPayload(position, out, &left_out, error)) return false;
    if (omitted) *omitted = left_out;
    return true;
  }
  log::Record r;
  if (!record(position, &r, &received_bytes_, nullptr, error)) return false;
  *out = received_bytes_;
  if (!received_bytes_.empty() || log::categoryOf(ev.eventKind()) != log::Category::Receive || r.payload_omitted) {
    if (omitted) *omitted = r.payload_omitted;
    return true;
  }
  // A receive whose bytes only the senders' logs hold: the matched pieces,
  // in stream order.
  for (const ReceivedPiece& piece : receivedPieces(position)) {
    std::string_view bytes;
    uint64_t left_out = 0;
    if (!sentPayload(piece.send, &bytes, &left_out, error)) return false;
    const uint64_t kept = piece.skip < bytes.size() ? std::min<uint64_t>(piece.bytes, bytes.size() - piece.skip) : 0;
    if (omitted) *omitted += piece.bytes - kept;
    if (kept) received_bytes_.append(bytes.substr(static_cast<size_t>(piece.skip), static_cast<size_t>(kept)));
  }
  *out = received_bytes_;
  return true;
}

std::vector<Trace::ReceivedPiece> Trace::receivedPieces(uint32_t receive) const {
  std::vector<ReceivedPiece> pieces;
  for (auto [b, e] = incoming(receive); b != e; ++b) {
    if (b->why != Edge::Why::Message) continue;
    uint64_t skip = 0;
    if (pieces.empty())  // bytes of its send that earlier receives took
      for (uint32_t k : messagesFrom(b->from)) {
        const Edge& other = edges[k];
        if (other.to < receive && !(events[other.to].flags & kEventPeek)) skip += other.bytes;
      }
    pieces.push_back({static_cast<uint32_t>(b->from), skip, b->bytes});
  }
  return pieces;
}

uint64_t Trace::unseenBytes(uint32_t receive) const {
  const Event& ev = events[receive];
  if (!(ev.flags & kEventUnmatched) || (ev.flags & kEventHasPayload)) return 0;
  uint64_t matched = 0;
  for (auto [b, e] = incoming(receive); b != e; ++b)
    if (b->why == Edge::Why::Message) matched += b->bytes;
  return matched < ev.value ? ev.value - matched : 0;
}

bool Trace::sentPayload(uint32_t send, std::string_view* out, uint64_t* omitted, std::string* error) const {
  const Event& ev = events[send];
  if (processes[ev.process].same_bytes_sends && sameSend(send)) return sameBytes(send, out, omitted, error);
  return storedPayload(send, out, omitted, error);
}

bool Trace::storedPayload(uint32_t send, std::string_view* out, uint64_t* omitted, std::string* error) const {
  const Event& ev = events[send];
  const uint64_t k = ev.counter;  // from 1
  // Kept at load (a send kept once has an empty place there: read its log).
  if (ev.process < sent_bytes.size() && k >= 1 && k <= sent_bytes[ev.process].ends.size() &&
      (sent_bytes[ev.process].ends[k - 1] > (k > 1 ? sent_bytes[ev.process].ends[k - 2] : 0) || !ev.value)) {
    const SentBytes& s = sent_bytes[ev.process];
    const uint64_t begin = k > 1 ? s.ends[k - 2] : 0;
    *out = std::string_view(s.bytes).substr(begin, s.ends[k - 1] - begin);
    *omitted = 0;  // kept only while the recording left nothing out
    return true;
  }
  if (!cachedSend(send, error)) return false;
  *out = cached_send_record_.payload;
  *omitted = cached_send_record_.payload_omitted;
  return true;
}

bool Trace::cachedSend(uint32_t send, std::string* error) const {
  if (cached_send_ == send) return true;
  cached_send_ = kNone;
  const Event& ev = events[send];
  // Its own readers: record() must not overwrite the bytes behind the view.
  log::LogReader* reader = openReader(send_readers_, ev.process, error);
  if (!reader) return false;
  const log::Location where{ev.isTail() ? log::Location::kTailFrame : ev.frame(), ev.frameOffset()};
  log::LogError err;
  if (!reader->readRecord(where, &cached_send_record_, &err)) {
    if (error) *error = err.toString();
    return false;
  }
  cached_send_ = send;
  return true;
}

}  // namespace radar::trace
