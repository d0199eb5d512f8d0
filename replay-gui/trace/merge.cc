#include "trace/merge.h"

#include "check.h"

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
#include <limits>
#include <map>
#include <numeric>
#include <thread>
#include <unordered_map>

#include "address.h"
#include "trace/clocks.h"
#include "crc32c.h"
#include "trace/findings.h"

namespace radar::trace {
namespace {

using log::Category;
using log::ChannelType;

bool isStreamType(ChannelType t) {
  return t == ChannelType::Pipe || t == ChannelType::Fifo || t == ChannelType::UnixStream ||
         t == ChannelType::UnixSeqpacket || t == ChannelType::Tcp || t == ChannelType::Terminal ||
         t == ChannelType::CharacterDevice || t == ChannelType::Other;
}
bool isDatagramType(ChannelType t) {
  return t == ChannelType::Udp || t == ChannelType::UnixDgram || t == ChannelType::OtherSocket;
}
// Pipes and FIFOs carry one stream from all writers to all readers.
bool isOneSided(ChannelType t) { return t == ChannelType::Pipe || t == ChannelType::Fifo; }
// A terminal or a device talks to the outside both ways: what a process
// writes there is not what it (or another) reads.
bool isDevice(ChannelType t) {
  return t == ChannelType::Terminal || t == ChannelType::CharacterDevice || t == ChannelType::Other;
}

std::string hexKey(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Two socket addresses name the same socket: same family and port, and the
// same host unless the receiver is bound to any address.
bool sameAddress(const std::string& to, const std::string& bound) {
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

Edge makeEdge(uint32_t from, Edge::Why why, uint32_t to, uint64_t bytes) {
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
  StepTimer() : on_(std::getenv("RADAR_MERGE_TIMING") != nullptr) { reset(); }
  void operator()(const char* name) {
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
                 std::chrono::duration<double, std::milli>(last_ - then).count(), faults_ - faults_then,
                 rss / 1024.0, peak / 1024.0);
  }

 private:
  void reset() {
    last_ = std::chrono::steady_clock::now();
    struct rusage ru {};
    ::getrusage(RUSAGE_SELF, &ru);
    faults_ = ru.ru_minflt;
  }
  bool on_;
  std::chrono::steady_clock::time_point last_;
  long faults_ = 0;
};

// An array read once from the front, about to be thrown away: the pages
// already read can go back to the kernel. The merge copies its biggest arrays
// into a new order, and this keeps both copies from being resident at once.
// Only whole pages are given back, 64 KiB at least at a time.
class ReadArray {
 public:
  explicit ReadArray(const void* front) : released_((address(front) + kPage - 1) & ~(kPage - 1)) {}
  // Everything before `upto` has been read for the last time.
  void release(const void* upto) {
    const uintptr_t end = address(upto) & ~(kPage - 1);
    if (end < released_ + 16 * kPage) return;
    ::madvise(reinterpret_cast<void*>(released_), end - released_, MADV_DONTNEED);
    released_ = end;
  }

 private:
  static constexpr uintptr_t kPage = 4096;
  static uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }
  uintptr_t released_;
};

// Faults in the pages of an array being written front to back, a few MiB
// ahead of the writer, on another core. A merge writes hundreds of MiB of
// fresh memory, and where page faults are slow (virtual machines whose host
// backs guest memory lazily) they cost as much as the work itself; this
// takes them off the merge's own thread. MADV_POPULATE_WRITE faults pages in
// without writing to them, so racing the writer is harmless; on kernels
// without it (before 5.14) the helper just stops.
class FaultAhead {
 public:
  FaultAhead(const void* begin, size_t bytes)
      : done_(address(begin) & ~(kPage - 1)), end_(address(begin) + bytes), cursor_(address(begin)) {
    if (bytes >= kStep) thread_ = std::thread([this] { run(); });
  }
  ~FaultAhead() {
    stop_.store(true, std::memory_order_relaxed);
    if (thread_.joinable()) thread_.join();
  }
  // Everything before `cursor` has been written.
  void at(const void* cursor) { cursor_.store(address(cursor), std::memory_order_relaxed); }

 private:
  static constexpr uintptr_t kPage = 4096, kStep = uintptr_t{2} << 20, kLead = uintptr_t{4} << 20;
  static uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }
  void run() {
    while (!stop_.load(std::memory_order_relaxed) && done_ < end_) {
      const uintptr_t target = std::min(end_, cursor_.load(std::memory_order_relaxed) + kLead);
      if (done_ >= target) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        continue;
      }
      const uintptr_t to = std::min({target, (done_ + kStep) & ~(kStep - 1), end_});
      if (::madvise(reinterpret_cast<void*>(done_), to - done_, MADV_POPULATE_WRITE) != 0) return;
      done_ = to;
    }
  }
  uintptr_t done_;
  const uintptr_t end_;
  std::atomic<uintptr_t> cursor_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Copies the events to the places the linearization gives them, on another
// core, a window of positions behind it: the ordering then touches neither
// the output nor the pages the copy fills. The input's pages are given back
// as the copy passes them (once the ordering says it will not read them
// again) and the output's are faulted in just before the copy writes them,
// so that the two arrays together stay about the size of one.
class Placer {
 public:
  Placer(const BigArray<Event>& events, Event* out, const uint32_t* position,
         const std::vector<std::pair<uint32_t, uint32_t>>& ranges, uint32_t total)
      : events_(events.data()), out_(out), position_(position), processes_(static_cast<uint32_t>(ranges.size())),
        total_(total), window_(std::max<uint32_t>(uint32_t{1} << 16, processes_ * 64)),
        windows_((total + window_ - 1) / window_) {
    next_.resize((size_t{windows_} + 1) * processes_);
    for (uint32_t p = 0; p < processes_; ++p) {
      next_[p] = ranges[p].first;
      done_.emplace_back(events_ + ranges[p].first);
    }
    if (windows_) thread_ = std::thread([this] { run(); });
  }
  ~Placer() {
    stop_.store(true, std::memory_order_relaxed);
    published_.fetch_add(1, std::memory_order_release);
    published_.notify_one();
    if (thread_.joinable()) thread_.join();
  }
  uint32_t window() const { return window_; }
  uint32_t windows() const { return windows_; }
  // The positions of the next window are decided; next[p] is process p's
  // first event not placed yet.
  void ordered(const std::vector<uint32_t>& next) {
    const uint32_t w = published_.load(std::memory_order_relaxed);
    std::copy(next.begin(), next.end(), next_.begin() + (size_t{w} + 1) * processes_);
    published_.store(w + 1, std::memory_order_release);
    published_.notify_one();
  }
  // Positions before this are in the output.
  uint32_t placed() const { return placed_.load(std::memory_order_acquire); }
  // The ordering will not read the input events placed before `end` again.
  void readBefore(uint32_t end) { readable_.store(end, std::memory_order_release); }
  // Waits for the copy to finish.
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    for (uint32_t w = 0; w < windows_; ++w) {
      for (uint32_t seen; (seen = published_.load(std::memory_order_acquire)) <= w;) published_.wait(seen);
      if (stop_.load(std::memory_order_relaxed)) return;
      const uint32_t begin = w * window_, end = std::min(total_, begin + window_);
      faultIn(out_ + begin, size_t{end - begin} * sizeof(Event));
      const uint32_t* from = &next_[size_t{w} * processes_];
      const uint32_t* to = from + processes_;
      for (uint32_t p = 0; p < processes_; ++p)
        for (uint32_t i = from[p]; i < to[p]; ++i) out_[position_[i]] = events_[i];
      placed_.store(end, std::memory_order_release);
      // Give back the input of the windows the ordering no longer reads.
      const uint32_t gone = readable_.load(std::memory_order_acquire) / window_;
      if (gone > released_) {
        released_ = gone;
        const uint32_t* upto = &next_[size_t{gone} * processes_];
        for (uint32_t p = 0; p < processes_; ++p) done_[p].release(events_ + upto[p]);
      }
    }
  }
  const Event* events_;
  Event* out_;
  const uint32_t* position_;
  const uint32_t processes_, total_, window_, windows_;
  // Window w's events of process p: [next_[w * processes_ + p], next_[(w + 1) * processes_ + p]).
  std::vector<uint32_t> next_;
  std::vector<ReadArray> done_;  // per process
  uint32_t released_ = 0;        // windows whose input was given back
  std::atomic<uint32_t> published_{0}, placed_{0}, readable_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The smallest of a few hundred keys that change one at a time: a winner
// tree over leaves 0..n-1, each node holding the (key, leaf) that wins below
// it. Changing a key replays one path, comparing with the siblings: their
// loads do not wait on each other, and (key, leaf) as one number makes each
// step one comparison and a conditional move, with ties going to the lower
// leaf (a binary heap pops and pushes, with unpredictable branches, for
// every event). kNever keeps a leaf out.
//
// Packed is uint64_t when every key fits in the bits above the leaf's,
// counted from `base` (fits(): a recording's times span days, in ns), and
// unsigned __int128 for any key.
template <class Packed>
class Tournament {
 public:
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  static constexpr bool kWide = sizeof(Packed) > sizeof(uint64_t);
  // Whether keys from `first` to `last` fit, with this many leaves.
  static bool fits(uint32_t leaves, int64_t first, int64_t last) {
    if (kWide) return true;
    if (first > last) return false;
    const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
    return span < (~uint64_t{0} >> leafBits(leaves)) - 1;
  }
  Tournament(uint32_t leaves, int64_t base)
      : shift_(kWide ? 32 : leafBits(leaves)),
        base_(kWide ? std::numeric_limits<int64_t>::min() : base),
        never_(Packed{~uint64_t{0} >> (kWide ? 0 : shift_)} << shift_) {
    while (size_ < leaves) size_ *= 2;
    node_.resize(2 * size_);
    for (uint32_t k = 0; k < size_; ++k) node_[size_ + k] = never_ | k;
    for (uint32_t k = size_ - 1; k >= 1; --k) node_[k] = std::min(node_[2 * k], node_[2 * k + 1]);
  }
  // The leaf with the smallest key.
  uint32_t top() const { return static_cast<uint32_t>(node_[1] & ((Packed{1} << shift_) - 1)); }
  bool empty() const { return node_[1] >= never_; }
  void set(uint32_t leaf, int64_t key) {
    // An event's time is never kNever (and, with 64 bits, within fits()).
    Packed cur = (key == kNever ? never_ : pack(std::min(key, kNever - 1))) | leaf;
    uint32_t k = size_ + leaf;
    node_[k] = cur;
    for (; k > 1; k /= 2) {
      const Packed sibling = node_[k ^ 1];
      cur = sibling < cur ? sibling : cur;
      node_[k / 2] = cur;
    }
  }

 private:
  static int leafBits(uint32_t leaves) {
    int bits = 1;
    while ((uint64_t{1} << bits) < leaves) ++bits;
    return bits;
  }
  // The key's order as an unsigned number, above the leaf.
  Packed pack(int64_t key) const {
    return Packed{static_cast<uint64_t>(key) - static_cast<uint64_t>(base_)} << shift_;
  }
  const int shift_;
  const int64_t base_;
  const Packed never_;
  uint32_t size_ = 1;
  std::vector<Packed> node_;  // node_[1] the root, leaves at size_ + leaf
};

// A send or receive of a byte stream, as the matching sees it.
struct StreamItem {
  uint32_t index, bytes, process;
  bool peek;
};

class Merger {
 public:
  Merger(RawRecording& raw, Trace& t) : raw_(raw), t_(t) {}
  void run(StepTimer& step);

 private:
  void linkProcesses();
  void buildChannels();
  std::string unrecordedHolder(uint32_t endpoint) const;
  void matchStreams();
  // Returns the receives (by index into `receives`, after reordering) whose
  // bytes their content confirmed.
  std::vector<bool> orderByContent(std::vector<StreamItem>& sends, std::vector<StreamItem>& receives);
  void matchDatagrams();
  void otherEdges();
  void linearize();
  void endings();

  int64_t wallOf(uint32_t i, bool at_return) const {
    const Event& e = raw_.events[i];
    return (at_return ? e.returnNs() : e.entry_ns) + realtime_offset_[e.process];
  }
  uint32_t processOf(uint32_t i) const { return raw_.events[i].process; }
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
  BigArray<Edge> edges_;         // in raw indices until linearize()
  // The stream matching's edges, one array per thread: they come before
  // edges_ (the sort by target keeps that order within a target).
  std::vector<BigArray<Edge>> stream_edges_;
  std::vector<uint32_t> notable_;  // signals, waits, closes, ends of file, by index
  std::vector<uint8_t> side_;    // per endpoint: 0 or 1
  std::vector<uint32_t> starts_, owners_;  // process ranges by start, for owner()
  static constexpr uint32_t kOwnerBlockShift = 10;
  std::vector<uint32_t> owner_block_;       // per block of events: the last range starting at or before it
  std::vector<int64_t> realtime_offset_;   // per process (the Process structs are big and far apart)
  std::vector<uint32_t> exits_and_waits_;  // positions, for endings()
};

void Merger::run(StepTimer& step) {
  std::vector<std::pair<uint32_t, uint32_t>> by_start;
  for (uint32_t p = 0; p < raw_.ranges.size(); ++p)
    if (raw_.ranges[p].first < raw_.ranges[p].second) by_start.push_back({raw_.ranges[p].first, p});
  std::sort(by_start.begin(), by_start.end());
  for (const auto& [start, p] : by_start) {
    starts_.push_back(start);
    owners_.push_back(p);
  }
  // Events before the first range (none, but a damaged recording) count as
  // the first range's, as before.
  owner_block_.assign((raw_.events.size() >> kOwnerBlockShift) + 1, 0);
  for (uint32_t b = 0, k = 0; b < owner_block_.size(); ++b) {
    while (k + 1 < starts_.size() && starts_[k + 1] <= (b << kOwnerBlockShift)) ++k;
    owner_block_[b] = k;
  }
  for (const Process& p : raw_.processes) realtime_offset_.push_back(p.realtime_offset);
  linkProcesses();
  step("link");
  buildChannels();
  step("channels");
  matchStreams();
  step("streams");
  matchDatagrams();
  step("datagrams");
  otherEdges();
  std::map<uint32_t, std::string>().swap(raw_.addresses);
  std::map<uint32_t, std::vector<uint32_t>>().swap(raw_.message_lengths);
  step("other edges");
  linearize();
  step("linearize");
  t_.processes = std::move(raw_.processes);
  endings();
  step("endings");
}

uint32_t Merger::lastEventBefore(uint32_t p, int64_t ns) const {
  const auto [begin, end] = raw_.ranges[p];
  uint32_t lo = begin, hi = end;  // find the first event returning after ns
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (raw_.events[mid].returnNs() <= ns) lo = mid + 1;
    else hi = mid;
  }
  return lo == begin ? kNone : lo - 1;
}

// Who created whom: the header says which log and counter, except for
// processes started by system() or popen(), found by pid and time.
void Merger::linkProcesses() {
  auto& procs = raw_.processes;
  std::unordered_map<uint64_t, uint32_t> by_log;
  for (auto& p : procs) by_log[p.log_id] = p.index;
  for (auto& p : procs) {
    if (p.origin == log::Origin::Root) continue;
    uint32_t parent = kNone;
    if (p.parent_log_id) {
      auto it = by_log.find(p.parent_log_id);
      if (it != by_log.end()) parent = it->second;
    }
    if (parent == kNone && p.ppid && raw_.ranges[p.index].first < raw_.ranges[p.index].second) {
      // By pid and time: the image of the parent pid alive when this one started.
      const int64_t start = raw_.events[raw_.ranges[p.index].first].entry_ns;
      for (auto& q : procs) {
        if (q.pid != p.ppid || q.boot != p.boot || q.index == p.index) continue;
        const auto [b, e] = raw_.ranges[q.index];
        if (b == e || raw_.events[b].entry_ns > start) continue;
        if (parent == kNone || raw_.events[raw_.ranges[parent].first].entry_ns < raw_.events[b].entry_ns)
          parent = q.index;
      }
      if (parent != kNone) {
        const uint32_t before = lastEventBefore(parent, start);
        p.parent_counter = before == kNone ? 0 : raw_.events[before].counter;
      }
    }
    p.parent = parent;
    if (parent != kNone && p.origin == log::Origin::Execed) {
      procs[parent].next_image = p.index;
      procs[parent].end = Process::End::Execed;
    }
  }
}

// Channels: ends with the same identity. Sides: a socket connection has
// two (each socket); a pipe has one stream of bytes from all writers to
// all readers.
// The program an endpoint went on into, when radar could not record it:
// the endpoint's image exec'd, with the end still open, a program that left
// no log. "" otherwise.
std::string Merger::unrecordedHolder(uint32_t endpoint) const {
  const Endpoint& e = raw_.endpoints[endpoint];
  if (e.process == kNone) return "";
  const Process& p = raw_.processes[e.process];
  const auto [b, end] = raw_.ranges[e.process];
  if (p.next_image != kNone || b == end || raw_.events[end - 1].eventKind() != Kind::Exec) return "";
  // Still open at the exec: its descriptors, counted through dups and
  // closes (a shell dups a pipe onto 0 and closes the original).
  int open = 1;
  for (uint32_t i = b; i < end; ++i) {
    const Event& ev = raw_.events[i];
    if (ev.endpoint != endpoint || (ev.flags & kEventFailed)) continue;
    if (ev.eventKind() == Kind::Dup) ++open;
    if (ev.eventKind() == Kind::Close) --open;
  }
  if (open <= 0) return "";
  for (const auto& n : t_.unrecorded_notes)
    if (n.pid == p.pid) {
      const std::string program = n.executable.empty() ? p.name : n.executable.substr(n.executable.rfind('/') + 1);
      return program + "[" + std::to_string(p.pid) + "], " + n.what;
    }
  return p.label() + "'s next program, not recorded";
}

void Merger::buildChannels() {
  auto& eps = raw_.endpoints;
  std::map<std::string, uint32_t> by_key;
  std::unordered_map<std::string, std::vector<uint32_t>> unix_by_peer;  // boot|peer_ino -> endpoints
  for (uint32_t i = 0; i < eps.size(); ++i) {
    const Endpoint& e = eps[i];
    if ((e.type == ChannelType::UnixStream || e.type == ChannelType::UnixSeqpacket ||
         e.type == ChannelType::UnixDgram) && e.peer_ino)
      unix_by_peer[std::to_string(raw_.processes[e.process].boot) + "|" + hexKey(e.peer_ino)].push_back(i);
  }
  std::vector<std::string> side_identity(eps.size());
  side_.assign(eps.size(), 0);
  std::map<ChannelType, int> numbers;
  for (uint32_t i = 0; i < eps.size(); ++i) {
    Endpoint& e = eps[i];
    const std::string boot = std::to_string(raw_.processes[e.process].boot);
    std::string key, identity;
    switch (e.type) {
      case ChannelType::Pipe:
      case ChannelType::Fifo:
      case ChannelType::Terminal:
      case ChannelType::CharacterDevice:
      case ChannelType::Other:
        key = "F|" + boot + "|" + hexKey(e.dev) + "|" + hexKey(e.ino);
        break;
      case ChannelType::UnixStream:
      case ChannelType::UnixSeqpacket:
      case ChannelType::UnixDgram: {
        uint64_t peer = e.peer_ino;
        if (!peer) {  // the other side may know us
          auto it = unix_by_peer.find(boot + "|" + hexKey(e.ino));
          if (it != unix_by_peer.end()) peer = eps[it->second.front()].ino;
        }
        identity = hexKey(e.ino);
        key = peer ? "U|" + boot + "|" + hexKey(std::min(e.ino, peer)) + "|" + hexKey(std::max(e.ino, peer))
                   : "U|" + boot + "|" + hexKey(e.ino);
        if (!e.peer_ino) e.peer_ino = peer;
        break;
      }
      case ChannelType::Tcp:
        identity = e.local_address;
        key = e.peer_address.empty()
                  ? "T|" + boot + "|" + hexKey(e.ino)
                  : "T|" + std::min(e.local_address, e.peer_address) + "|" + std::max(e.local_address, e.peer_address);
        break;
      default:  // UDP and other datagram sockets: one channel per socket
        identity = hexKey(e.ino);
        key = "S|" + boot + "|" + hexKey(e.ino);
        break;
    }
    side_identity[i] = identity;
    auto [it, fresh] = by_key.try_emplace(key, static_cast<uint32_t>(t_.channels.size()));
    if (fresh) {
      Channel c;
      c.index = it->second;
      c.type = e.type;
      t_.channels.push_back(c);
    }
    Channel& c = t_.channels[it->second];
    e.channel = c.index;
    c.endpoints.push_back(i);
    if (e.external) c.external = true;
  }
  // Sides and names.
  for (Channel& c : t_.channels) {
    std::vector<std::string> ids;
    for (uint32_t ep : c.endpoints) {
      auto found = std::find(ids.begin(), ids.end(), side_identity[ep]);
      if (found == ids.end()) {
        ids.push_back(side_identity[ep]);
        found = ids.end() - 1;
      }
      side_[ep] = static_cast<uint8_t>(std::min<size_t>(found - ids.begin(), 1));
    }
    const Endpoint& e = eps[c.endpoints.front()];
    // Socket pairs of every type share one numbering: two called
    // "socketpair 1" would be one to a reader.
    const bool unix_socket = c.type == ChannelType::UnixStream || c.type == ChannelType::UnixSeqpacket ||
                             c.type == ChannelType::UnixDgram;
    const int n = ++numbers[unix_socket ? ChannelType::UnixStream : c.type];
    switch (c.type) {
      case ChannelType::Pipe: c.name = "pipe " + std::to_string(n); break;
      case ChannelType::Fifo: c.name = "fifo " + e.path; break;
      case ChannelType::Terminal:
        c.name = "terminal" + (e.path.empty() ? "" : " " + e.path);
        c.external = true;
        c.external_peer = "terminal";
        break;
      case ChannelType::UnixStream:
      case ChannelType::UnixSeqpacket:
      case ChannelType::UnixDgram:
        c.name = e.path.empty() ? "socketpair " + std::to_string(n) : "unix socket " + e.path;
        if (ids.size() >= 2 && !e.path.empty()) {
          // One connection of many to a named socket: named after the
          // process that connected (its end has no name of its own).
          for (uint32_t ep : c.endpoints)
            if (log::formatAddress(eps[ep].local_address).empty() && eps[ep].process != kNone) {
              c.name += " \u2190 " + raw_.processes[eps[ep].process].label();
              break;
            }
        }
        if (ids.size() < 2 && !e.path.empty()) {
          c.external = true;
          c.external_peer = e.path;
        }
        break;
      case ChannelType::Tcp: {
        const std::string a = log::formatAddress(e.local_address), b = log::formatAddress(e.peer_address);
        c.name = b.empty() ? "tcp " + a : "tcp " + a + " - " + b;
        if (ids.size() < 2 && !b.empty()) {
          c.external = true;
          c.external_peer = b;
        }
        break;
      }
      case ChannelType::Udp: c.name = "udp " + log::formatAddress(e.local_address); break;
      default: c.name = std::string(log::channelTypeName(c.type)) + " " + std::to_string(n); break;
    }
    if (!c.external) {
      // A channel some of whose ends were inherited from outside the
      // recording (radar record's own stdin, stdout) leads outside.
      for (uint32_t ep : c.endpoints)
        if (eps[ep].external) {
          c.external = true;
          c.external_peer = "outside the recording";
        }
    }
    if (!c.external) {
      // An end carried into a program radar could not record (statically
      // linked, set-user-ID, a Go program ...): what went through the
      // channel may have gone to or come from that program, which is named.
      for (uint32_t ep : c.endpoints)
        if (const std::string who = unrecordedHolder(ep); !who.empty()) {
          c.external = true;
          c.external_peer = who;
          break;
        }
    }
  }
  // Two connections from one process to one socket: numbered, so that
  // every channel's name selects it alone.
  std::map<std::string, int> seen;
  for (Channel& c : t_.channels)
    if (const int k = ++seen[c.name]; k > 1) c.name += " (" + std::to_string(k) + ")";
}

// Byte streams: the bytes sent on one side are the bytes received on the
// other (a pipe: from all writers to all readers). Sends and receives are
// put in order, their offsets accumulated, and every receive is matched to
// the sends whose bytes it got.
void Merger::matchStreams() {
  const auto& eps = raw_.endpoints;
  const size_t streams = t_.channels.size() * 2;
  // What the loop over millions of events needs, per endpoint, small.
  enum : uint8_t { kSkip, kDevice, kStream };
  struct Route {
    uint8_t what;
    uint32_t send_stream, receive_stream;
  };
  std::vector<Route> routes(eps.size());
  for (uint32_t k = 0; k < eps.size(); ++k) {
    const Channel& c = t_.channels[eps[k].channel];
    Route& r = routes[k];
    r.what = isDevice(c.type) ? kDevice : isStreamType(c.type) ? kStream : kSkip;
    const uint32_t side = isOneSided(c.type) ? 0 : side_[k];
    r.send_stream = c.index * 2 + side;
    r.receive_stream = c.index * 2 + (isOneSided(c.type) ? side : side ^ 1);
  }
  // The events of each stream, sends and receives apart, as indices (CSR:
  // stream st's sends are members[begin[st]..begin[st + 1]], its receives
  // members[begin[streams + st]..]). What matching reads is copied out one
  // stream at a time: the events themselves are spread over memory, and
  // copying every stream's at once would be the merge's peak of memory.
  //
  // Two threads share the work: each fills the members of the processes in
  // its half of the events, then they take streams in turn, each with its
  // own edges (a receive's edges all come from its one stream, so after the
  // linearization's sort by target the result does not depend on which
  // thread took which stream).
  const uint32_t n = static_cast<uint32_t>(raw_.events.size());
  uint32_t mid = n;  // the second half starts with a process
  for (uint32_t k = 0; k < starts_.size(); ++k)
    if (starts_[k] >= n / 2) {
      mid = starts_[k];
      break;
    }
  std::vector<uint64_t> begin(2 * streams + 1, 0), second_half(2 * streams, 0);
  for (uint32_t k = 0; k < eps.size(); ++k) {
    if (routes[k].what != kStream) continue;
    const uint32_t send = routes[k].send_stream, receive = streams + routes[k].receive_stream;
    begin[send + 1] += raw_.data_sends[k];
    begin[receive + 1] += raw_.data_receives[k];
    if (raw_.ranges[eps[k].process].first >= mid) {
      second_half[send] += raw_.data_sends[k];
      second_half[receive] += raw_.data_receives[k];
    }
  }
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  const uint64_t total_receives = begin[2 * streams] - begin[streams];
  BigArray<uint32_t> members(begin[2 * streams]);
  faultIn(members.data(), members.size() * sizeof(uint32_t));  // all written below
  struct Sums {
    uint64_t sent = 0, received = 0, external = 0, matched = 0, ambiguous = 0;
  };
  struct Worker {
    Sums sums;
    BigArray<Edge> edges;
    std::vector<uint32_t> notable;  // for otherEdges()
    std::vector<std::pair<uint32_t, uint64_t>> received_in_part;
    std::exception_ptr failed;
  };
  Worker workers[2];
  auto fillMembers = [&](uint32_t from, uint32_t to, std::vector<uint64_t> fill, Sums& sums,
                         std::vector<uint32_t>& notable) {
    for (uint32_t i = from; i < to; ++i) {
      Event& ev = raw_.events[i];
      // While here: the few events otherEdges() looks at.
      const Kind kind = ev.eventKind();
      if (kind == Kind::Signal || kind == Kind::Wait || kind == Kind::Close || kind == Kind::Connect ||
          kind == Kind::Accept || (ev.flags & kEventEof))
        notable.push_back(i);
      if (ev.endpoint == kNone || !log::isData(ev.eventKind()) || (ev.flags & kEventFailed)) continue;
      const Route& r = routes[ev.endpoint];
      if (r.what == kSkip) continue;
      const bool send = log::categoryOf(ev.eventKind()) == Category::Send;
      if (r.what == kDevice) {
        ev.flags |= kEventExternal;
        if (send) {
          sums.sent += ev.value;
        } else {
          sums.received += ev.value;
          sums.external += ev.value;
        }
        continue;
      }
      members[fill[send ? r.send_stream : streams + r.receive_stream]++] = i;
    }
  };
  using Item = StreamItem;
  auto items = [&](uint64_t from, uint64_t to, std::vector<Item>& v) {
    v.clear();
    for (uint64_t k = from; k < to; ++k) {
      const uint32_t i = members[k];
      const Event& ev = raw_.events[i];
      v.push_back({i, ev.value, ev.process, (ev.flags & kEventPeek) != 0});
    }
  };
  // Events of several processes on one stream: in the order their calls
  // returned (the kernel moves the bytes during the call).
  // Several threads of one process are several writers too.
  auto order = [&](std::vector<Item>& v) {
    bool several = false;
    for (const Item& it : v)
      several |= it.process != v.front().process ||
                 raw_.events[it.index].thread != raw_.events[v.front().index].thread;
    if (several)
      std::stable_sort(v.begin(), v.end(),
                       [&](const Item& a, const Item& b) { return wallOf(a.index, true) < wallOf(b.index, true); });
    return several;
  };
  // Whether receive `r`, taking the stream's bytes from `from` on (in send
  // out[j] and the next), got the bytes those sends hold. Checked where both
  // sides' checksums are known and the receive took whole sends (most
  // message protocols); elsewhere the stream's order stands.
  enum class Content { Agrees, Differs, Unknown };
  auto checkContent = [&](const std::vector<Item>& out, const std::vector<uint64_t>& start, uint64_t from,
                          const Item& r) {
    auto hashed = [&](uint32_t i) { return (raw_.events[i].flags & kEventHasHash) != 0; };
    // The send holding byte `from`: the first whose end is past it (a
    // binary search: a scan from the first send made a long stream
    // quadratic).
    const size_t j = static_cast<size_t>(std::upper_bound(start.begin() + 1, start.end(), from) - (start.begin() + 1));
    if (!hashed(r.index) || j >= out.size() || start[j] != from) return Content::Unknown;
    uint32_t crc = 0;
    uint64_t end = from;
    for (size_t e = j; e < out.size() && end < from + r.bytes; ++e) {
      if (!hashed(out[e].index)) return Content::Unknown;
      const uint32_t send_crc = raw_.events[out[e].index].number;
      crc = e == j ? send_crc : crc32cCombine(crc, send_crc, out[e].bytes);  // one send: no combining
      end += out[e].bytes;
    }
    if (end != from + r.bytes) return Content::Unknown;
    return crc == raw_.events[r.index].number ? Content::Agrees : Content::Differs;
  };
  auto matchStream = [&](size_t st, Worker& w, std::vector<Item>& out, std::vector<Item>& in,
                         std::vector<uint64_t>& start) {
    Sums& sums = w.sums;
    items(begin[st], begin[st + 1], out);
    items(begin[streams + st], begin[streams + st + 1], in);
    const Channel& c = t_.channels[st / 2];
    const bool several_writers = order(out);
    const bool several_readers = order(in);
    std::vector<bool> confirmed;
    if (several_writers || several_readers) confirmed = orderByContent(out, in);
    // Where each send starts in the stream.
    start.assign(out.size() + 1, 0);
    for (size_t k = 0; k < out.size(); ++k) start[k + 1] = start[k] + out[k].bytes;
    sums.sent += start.back();
    size_t k = 0;  // first send not fully consumed
    uint64_t consumed = 0;
    for (size_t ri = 0; ri < in.size(); ++ri) {
      const Item& r = in[ri];
      const uint64_t bytes = r.bytes;
      if (!bytes) continue;
      if (!r.peek) sums.received += bytes;  // a peek's bytes are received later
      uint64_t from = consumed, left = bytes;
      size_t j = k;
      while (j < out.size() && start[j + 1] <= from) ++j;
      // (Where several writers or readers overlap, the order is by time
      // unless the content confirmed it: a mismatch there proves nothing.)
      // Not the bytes of the sends at this point of the stream: a writer
      // radar did not see (a raw system call, an unrecorded process) put
      // them there, if the next receive has the bytes these sends hold.
      // Else the checksum is what is wrong (pages given with vmsplice() and
      // changed later), and the stream's order stands: one bad checksum
      // must not shift every later receive off its sends.
      auto foreign = [&] {
        if (several_writers || several_readers || checkContent(out, start, from, r) != Content::Differs)
          return false;
        // A later receive (of the next few) with these sends' bytes: the
        // ones before it were someone else's.
        constexpr int kLookAhead = 16;
        size_t next = ri + 1;
        while (next < in.size() && (!in[next].bytes || in[next].peek)) ++next;
        int looked = 0;
        for (size_t later = next; later < in.size() && looked < kLookAhead; ++later) {
          if (!in[later].bytes || in[later].peek) continue;
          ++looked;
          if (checkContent(out, start, from, in[later]) == Content::Agrees) return true;
        }
        // The next receive taking the sends after these: this one took
        // them, and its checksum is what is wrong.
        if (next < in.size() && checkContent(out, start, from + bytes, in[next]) == Content::Agrees) return false;
        return true;  // no sign of either: as the checksums say
      };
      if (foreign()) {
        // They are nobody's here, and the sends wait for the receives whose
        // bytes they are.
        if (c.external) {
          raw_.events[r.index].flags |= kEventExternal;
          if (!r.peek) sums.external += bytes;
        } else if (!r.peek) {
          raw_.events[r.index].flags |= kEventUnmatched;
        }
        continue;
      }
      while (left && j < out.size()) {
        const uint64_t take = std::min(left, start[j + 1] - from);
        w.edges.push_back(makeEdge(out[j].index, Edge::Why::Message, r.index, take));
        from += take;
        left -= take;
        if (from == start[j + 1]) ++j;
      }
      if (!r.peek) sums.matched += bytes - left;
      if ((several_writers || several_readers) && !confirmed[ri] && !r.peek) sums.ambiguous += bytes - left;
      if (left) {
        // Bytes no recorded send produced: from outside, or lost.
        if (c.external) {
          raw_.events[r.index].flags |= kEventExternal;
          if (!r.peek) sums.external += left;
        } else if (!r.peek) {  // the receive that takes them is blamed, once
          raw_.events[r.index].flags |= kEventUnmatched;
        }
      }
      if (!r.peek) {
        consumed += bytes;
        k = j;
      }
    }
    if (c.external && start.back() > consumed)
      for (const Item& it : out) raw_.events[it.index].flags |= kEventExternal;
    // The receives (not the peeks) took the stream's first `consumed` bytes:
    // the sends within them were received whole, the one they end in, in part.
    for (size_t j = 0; j < out.size() && start[j] < consumed; ++j) {
      if (start[j + 1] <= consumed) raw_.events[out[j].index].flags |= kEventReceivedWhole;
      else w.received_in_part.emplace_back(out[j].index, consumed - start[j]);
    }
  };
  std::atomic<size_t> next_stream{0};
  std::atomic<int> filled{0};
  auto work = [&](int me) {
    Worker& w = workers[me];
    try {
      std::vector<uint64_t> fill(begin.begin(), begin.end() - 1);
      if (me == 1)
        for (size_t st = 0; st < 2 * streams; ++st) fill[st] += begin[st + 1] - begin[st] - second_half[st];
      fillMembers(me == 0 ? 0 : mid, me == 0 ? mid : n, std::move(fill), w.sums, w.notable);
      // Matching needs every member of a stream: wait for the other half.
      filled.fetch_add(1, std::memory_order_acq_rel);
      while (filled.load(std::memory_order_acquire) < 2) std::this_thread::yield();
      w.edges.reserve(total_receives + total_receives / 4);
      std::vector<Item> out, in;
      std::vector<uint64_t> start;
      for (size_t st; (st = next_stream.fetch_add(1)) < streams;) {
        if (begin[st] == begin[st + 1] && begin[streams + st] == begin[streams + st + 1]) continue;
        matchStream(st, w, out, in, start);
      }
    } catch (...) {
      w.failed = std::current_exception();
      filled.fetch_add(2);  // never leave the other waiting
    }
  };
  {
    std::thread helper(work, 1);
    work(0);
    helper.join();
  }
  for (Worker& w : workers)
    if (w.failed) std::rethrow_exception(w.failed);
  BigArray<uint32_t>().swap(members);
  for (Worker& w : workers) {
    t_.bytes_sent += w.sums.sent;
    t_.bytes_received += w.sums.received;
    t_.bytes_external += w.sums.external;
    t_.bytes_matched += w.sums.matched;
    t_.bytes_ambiguous += w.sums.ambiguous;
    stream_edges_.push_back(std::move(w.edges));
    notable_.insert(notable_.end(), w.notable.begin(), w.notable.end());  // the halves in order
    t_.received_in_part.insert(t_.received_in_part.end(), w.received_in_part.begin(), w.received_in_part.end());
  }
}

// Several processes (or threads) writing or reading one stream: the order
// of their calls by time is only a guess where the calls overlap (the
// kernel moved the bytes at some moment inside each call). The content
// hashes decide: a receive's bytes must be those of the sends it covers, so
// where the time order gives other bytes, an order of the overlapping calls
// that gives the right ones is looked for -- sends of each writer and
// receives of each reader keep their own order. A send's hash covers it
// whole, so a reader's consecutive receives are checked together until
// they end where a send ends (a 4-byte length, then the message it
// announces); what cannot be checked keeps the time order.
std::vector<bool> Merger::orderByContent(std::vector<StreamItem>& out, std::vector<StreamItem>& in) {
  constexpr size_t kWindow = 256;     // overlapping calls considered together
  constexpr size_t kMaxGroup = 8;     // a reader's receives checked together
  constexpr uint32_t kMaxTries = 20000;
  // For the whole stream: past it, the rest keeps the order of time (a
  // storm of overlapping calls must not make the merge take minutes).
  constexpr uint64_t kMaxStreamTries = 2'000'000;
  uint64_t stream_tries = 0;
  auto hashed = [&](const StreamItem& it) { return (raw_.events[it.index].flags & kEventHasHash) != 0; };
  auto actor = [&](const StreamItem& it) { return uint64_t{it.process} << 8 | raw_.events[it.index].thread; };

  size_t head = 0;      // first send not fully received
  uint64_t offset = 0;  // bytes of out[head] received
  std::vector<size_t> path, group;
  std::vector<bool> used, confirmed(in.size(), false);
  std::vector<uint64_t> actors_ahead;
  // Sends (from `head`, whole) whose bytes are `bytes` long with this hash.
  auto findSends = [&](uint64_t bytes, uint32_t target) {
    const size_t end = std::min(out.size(), head + kWindow);
    used.assign(end - head, false);
    path.clear();
    uint32_t tries = 0;
    auto search = [&](auto&& self, uint64_t so_far, uint32_t crc) -> bool {
      if (++tries > kMaxTries || ++stream_tries > kMaxStreamTries) return false;
      // out[k] may come next if it began before every send still ahead of
      // it returned, and no earlier send of its writer is still ahead.
      int64_t first_return = std::numeric_limits<int64_t>::max();
      std::vector<uint64_t>& ahead = actors_ahead;
      ahead.clear();
      for (size_t k = head; k < end; ++k) {
        if (used[k - head]) continue;
        const uint64_t who = actor(out[k]);
        const bool ok = hashed(out[k]) && wallOf(out[k].index, false) <= first_return &&
                        std::find(ahead.begin(), ahead.end(), who) == ahead.end();
        first_return = std::min(first_return, wallOf(out[k].index, true));
        ahead.push_back(who);
        if (!ok) continue;
        const uint64_t total = so_far + out[k].bytes;
        if (total > bytes) continue;
        const uint32_t next = crc32cCombine(crc, raw_.events[out[k].index].number, out[k].bytes);
        used[k - head] = true;
        path.push_back(k);
        const std::vector<uint64_t> saved = ahead;
        if (total == bytes ? next == target : self(self, total, next)) return true;
        ahead = saved;
        path.pop_back();
        used[k - head] = false;
      }
      return false;
    };
    return search(search, 0, 0);
  };

  for (size_t i = 0; i < in.size(); ++i) {
    // Once the stream's budget is spent, the search is not started again:
    // the window below costs per receive even when every search gives up.
    if (offset == 0 && head < out.size() && !confirmed[i] && stream_tries <= kMaxStreamTries) {
      // The receives that may come next: in[i], and later ones that overlap
      // every receive before them.
      int64_t first_return = std::numeric_limits<int64_t>::max();
      std::vector<uint64_t> readers_ahead;
      for (size_t j = i; j < in.size() && j < i + kWindow; ++j) {
        // in[j] may come next if it began before every receive ahead of it
        // returned, and its reader has none ahead of it.
        const uint64_t who = actor(in[j]);
        const bool may = wallOf(in[j].index, false) <= first_return &&
                         std::find(readers_ahead.begin(), readers_ahead.end(), who) == readers_ahead.end();
        first_return = std::min(first_return, wallOf(in[j].index, true));
        readers_ahead.push_back(who);
        if (!may) continue;
        if (in[j].peek || !in[j].bytes || !hashed(in[j])) {
          if (j == i) break;  // nothing to check: the time order stands
          continue;
        }
        // in[j], then the same reader's next receives, until their bytes
        // are whole sends with the same hash.
        group.assign(1, j);
        uint64_t bytes = in[j].bytes;
        uint32_t crc = raw_.events[in[j].index].number;
        bool found = findSends(bytes, crc);
        for (size_t k = j + 1; !found && k < in.size() && group.size() < kMaxGroup; ++k) {
          if (actor(in[k]) != actor(in[j])) continue;
          if (in[k].peek || !in[k].bytes || !hashed(in[k])) break;
          group.push_back(k);
          crc = crc32cCombine(crc, raw_.events[in[k].index].number, in[k].bytes);
          bytes += in[k].bytes;
          found = findSends(bytes, crc);
        }
        if (!found) continue;
        // These receives, with these sends, come next.
        std::vector<StreamItem> receives;
        for (size_t k : group) receives.push_back(in[k]);
        for (size_t k = i; k < in.size() && k <= group.back(); ++k)
          if (std::find(group.begin(), group.end(), k) == group.end()) receives.push_back(in[k]);
        std::copy(receives.begin(), receives.end(), in.begin() + i);
        for (size_t k = 0; k < group.size(); ++k) confirmed[i + k] = true;
        std::vector<StreamItem> sends;
        for (size_t k : path) sends.push_back(out[k]);
        for (size_t k = head; k < head + used.size(); ++k)
          if (!used[k - head]) sends.push_back(out[k]);
        std::copy(sends.begin(), sends.end(), out.begin() + head);
        break;
      }
    }
    // Take in[i]'s bytes.
    if (in[i].peek) continue;
    uint64_t left = in[i].bytes;
    while (left && head < out.size()) {
      const uint64_t take = std::min<uint64_t>(left, out[head].bytes - offset);
      left -= take;
      offset += take;
      if (offset == out[head].bytes) {
        ++head;
        offset = 0;
      }
    }
  }
  return confirmed;
}

// Datagrams: each receive is the oldest unmatched datagram sent to its
// socket with the same length (and checksum, when both are known).
void Merger::matchDatagrams() {
  const auto& eps = raw_.endpoints;
  // Most recordings have none: no pass over their events then.
  bool datagrams = false;
  for (uint32_t k = 0; k < eps.size(); ++k)
    datagrams |= isDatagramType(eps[k].type) && (raw_.data_sends[k] || raw_.data_receives[k]);
  if (!datagrams) return;
  // Where a datagram goes: the socket bound to its address, or the
  // connected peer.
  // One datagram: a send, or one message of a sendmmsg.
  struct Datagram {
    uint32_t send;
    uint32_t part;  // its message in a sendmmsg (0 otherwise)
    uint32_t bytes;
  };
  std::vector<std::vector<Datagram>> queue(eps.size());  // per receiving endpoint: sends
  std::map<std::pair<uint32_t, std::string>, std::vector<uint32_t>> cache;
  auto destinations = [&](uint32_t i, std::vector<uint32_t>* out) {
    const Event& ev = raw_.events[i];
    const Endpoint& from = eps[ev.endpoint];
    auto addr = raw_.addresses.find(i);
    const std::pair<uint32_t, std::string> key{ev.endpoint, addr == raw_.addresses.end() ? "" : addr->second};
    auto hit = cache.find(key);
    if (hit != cache.end()) {
      *out = hit->second;
      return;
    }
    for (uint32_t j = 0; j < eps.size(); ++j) {
      const Endpoint& to = eps[j];
      if (j == ev.endpoint || !isDatagramType(to.type)) continue;
      if (raw_.processes[to.process].boot != raw_.processes[from.process].boot &&
          to.type != ChannelType::Udp)
        continue;
      bool match = false;
      if (addr != raw_.addresses.end() && !addr->second.empty())
        match = !to.local_address.empty() && sameAddress(addr->second, to.local_address);
      else if (from.peer_ino)
        match = to.ino == from.peer_ino;
      else if (!from.peer_address.empty())
        match = !to.local_address.empty() && sameAddress(from.peer_address, to.local_address);
      if (match) out->push_back(j);
    }
    cache.emplace(key, *out);
  };
  // The messages of an event: those of a sendmmsg/recvmmsg, else the one.
  auto messages = [&](uint32_t i, std::vector<uint32_t>* out) {
    out->clear();
    auto multi = raw_.message_lengths.find(i);
    if (multi != raw_.message_lengths.end()) *out = multi->second;
    else out->push_back(raw_.events[i].value);
  };
  std::vector<uint32_t> parts;
  std::vector<std::vector<uint32_t>> receives(eps.size());
  bool any = false;
  for (uint32_t i = 0; i < raw_.events.size(); ++i) {
    const Event& ev = raw_.events[i];
    if (ev.endpoint == kNone || !log::isData(ev.eventKind()) || (ev.flags & kEventFailed)) continue;
    if (!isDatagramType(eps[ev.endpoint].type)) continue;
    any = true;
    if (log::categoryOf(ev.eventKind()) == Category::Send) {
      t_.bytes_sent += ev.value;
      std::vector<uint32_t> to;
      destinations(i, &to);
      // Several sockets of one identity (a socket shared after fork) are
      // one destination: keep the first of each inode.
      std::vector<uint64_t> seen;
      for (uint32_t j : to)
        if (std::find(seen.begin(), seen.end(), eps[j].ino) == seen.end()) {
          seen.push_back(eps[j].ino);
          // Queue on every endpoint of that socket identity.
          messages(i, &parts);
          for (uint32_t k : t_.channels[eps[j].channel].endpoints)
            if (eps[k].ino == eps[j].ino)
              for (uint32_t part = 0; part < parts.size(); ++part) queue[k].push_back({i, part, parts[part]});
        }
      if (to.empty()) raw_.events[i].flags |= kEventExternal;
    } else {
      receives[ev.endpoint].push_back(i);
    }
  }
  if (!any) return;
  // A datagram is received once: a send's flag, or for a sendmmsg, its
  // messages taken so far.
  std::vector<uint8_t> used(raw_.events.size(), 0);
  std::map<uint32_t, std::vector<uint8_t>> used_parts;
  auto isUsed = [&](const Datagram& d) {
    if (!raw_.message_lengths.count(d.send)) return used[d.send] != 0;
    auto it = used_parts.find(d.send);
    return it != used_parts.end() && d.part < it->second.size() && it->second[d.part];
  };
  auto take = [&](const Datagram& d) {
    auto multi = raw_.message_lengths.find(d.send);
    if (multi == raw_.message_lengths.end()) {
      used[d.send] = 1;
      raw_.events[d.send].flags |= kEventReceivedWhole;  // same length
      return;
    }
    std::vector<uint8_t>& taken = used_parts[d.send];
    taken.resize(multi->second.size(), 0);
    taken[d.part] = 1;
    if (std::all_of(taken.begin(), taken.end(), [](uint8_t u) { return u != 0; }))
      raw_.events[d.send].flags |= kEventReceivedWhole;
  };
  for (uint32_t ep = 0; ep < eps.size(); ++ep) {
    auto& q = queue[ep];
    // By the time each send began: a datagram cannot be received before its
    // send began, which is what stops the search below. (A send's return
    // can come long after the receive: a signal handler run on its way out
    // of the kernel, or a preemption, is part of the call's time.)
    std::stable_sort(q.begin(), q.end(),
                     [&](const Datagram& a, const Datagram& b) { return wallOf(a.send, false) < wallOf(b.send, false); });
    size_t head = 0;
    for (uint32_t r : receives[ep]) {
      Event& rev = raw_.events[r];
      const bool peek = rev.flags & kEventPeek;  // ties bytes to their send, moves none
      if (!peek) t_.bytes_received += rev.value;
      messages(r, &parts);
      for (uint32_t bytes : parts) {
        bool found = false;
        for (size_t k = head; k < q.size() && k < head + 256; ++k) {
          const Datagram& d = q[k];
          if (d.bytes != bytes || isUsed(d)) continue;
          if (wallOf(d.send, false) > wallOf(r, true)) break;
          // Two messages of one sendmmsg taken by one recvmmsg: one edge.
          if (!edges_.empty() && edges_.back().from == d.send && edges_.back().to == r &&
              edges_.back().why == Edge::Why::Message)
            edges_.back().bytes += bytes;
          else
            edges_.push_back(makeEdge(d.send, Edge::Why::Message, r, bytes));
          if (!peek) {
            take(d);
            t_.bytes_matched += bytes;
          }
          found = true;
          while (head < q.size() && isUsed(q[head])) ++head;
          break;
        }
        if (!found) {
          rev.flags |= kEventExternal;
          if (!peek) t_.bytes_external += bytes;
        }
      }
    }
  }
}

// Process creation, signals, exits reaped by wait(), end of file.
void Merger::otherEdges() {
  auto& procs = raw_.processes;
  std::unordered_map<int64_t, std::vector<uint32_t>> by_pid;  // boot << 32 | pid -> images
  for (auto& p : procs) by_pid[int64_t{p.boot} << 32 | static_cast<uint32_t>(p.pid)].push_back(p.index);

  for (auto& p : procs) {
    const auto [b, e] = raw_.ranges[p.index];
    if (p.parent == kNone || b == e) continue;
    const auto [pb, pe] = raw_.ranges[p.parent];
    if (pb == pe) continue;
    // The parent's event with that counter (counters are dense: index).
    // (Counter 0: before the parent's first event.)
    uint32_t from = kNone;
    if (p.parent_counter >= 1 && p.parent_counter <= pe - pb) from = pb + static_cast<uint32_t>(p.parent_counter) - 1;
    else if (p.parent_counter > pe - pb) from = pe - 1;
    // The child saw the parent's counter before the call that made it was
    // recorded (fork and posix_spawn are recorded when they return; vfork
    // has an event before it): that call, next in the parent, is what the
    // child comes after.
    // (A signal handler's events may come between.)
    const uint32_t first = from == kNone ? pb : from + 1;
    for (uint32_t next = first; next < pe && next < first + 16; ++next) {
      const Event& call = raw_.events[next];
      const Kind k = call.eventKind();
      if ((k == Kind::Fork || k == Kind::Spawn) &&
          (call.result == p.pid || static_cast<int64_t>(call.value) == p.pid)) {
        from = next;
        break;
      }
    }
    if (from == kNone) continue;
    edges_.push_back(makeEdge(from, Edge::Why::Create, b, 0));
  }

  // The few events the rules below look at (matchStreams() picked them out
  // while it read every event).
  std::vector<uint32_t> signals, waits, eofs, accepts;
  std::vector<std::vector<uint32_t>> closes(t_.channels.size()), connects(t_.channels.size());
  for (uint32_t i : notable_) {
    const Event& ev = raw_.events[i];
    switch (ev.eventKind()) {
      case Kind::Signal:
        if (ev.value) signals.push_back(i);
        break;
      case Kind::Wait:
        if (ev.value && !(ev.flags & kEventFailed)) waits.push_back(i);
        break;
      case Kind::Close:
        if (ev.endpoint != kNone) closes[raw_.endpoints[ev.endpoint].channel].push_back(i);
        break;
      case Kind::Connect:  // one that failed with EINPROGRESS goes on in the kernel; other failures do not
        if (ev.endpoint != kNone && !isConnectOutcome(ev) && (!(ev.flags & kEventFailed) || ev.value == EINPROGRESS))
          connects[raw_.endpoints[ev.endpoint].channel].push_back(i);
        break;
      case Kind::Accept:
        if (ev.endpoint != kNone && !(ev.flags & kEventFailed)) accepts.push_back(i);
        break;
      default:
        break;
    }
    if ((ev.flags & kEventEof) && ev.endpoint != kNone) eofs.push_back(i);
  }

  // A signal delivered to a handler comes from the kill() that sent it.
  for (uint32_t i : signals) {
    const Event& ev = raw_.events[i];
    const Process& target = procs[ev.process];
    auto it = by_pid.find(int64_t{target.boot} << 32 | ev.value);
    if (it == by_pid.end()) continue;
    uint32_t best = kNone;
    for (uint32_t q : it->second) {
      const auto [qb, qe] = raw_.ranges[q];
      for (uint32_t k = qb; k < qe; ++k) {
        const Event& kill = raw_.events[k];
        if (kill.eventKind() != Kind::Kill || kill.result != ev.result) continue;
        const int32_t to = static_cast<int32_t>(kill.value);
        if (to != target.pid && to != 0 && to != -1 && to != -target.pid) continue;
        if (kill.entry_ns > ev.returnNs()) continue;
        if (best == kNone || raw_.events[best].entry_ns < kill.entry_ns) best = k;
      }
    }
    if (best != kNone && best != i) edges_.push_back(makeEdge(best, Edge::Why::Signal, i, 0));
  }

  // wait() returns after the child's last event.
  for (uint32_t i : waits) {
    const Event& ev = raw_.events[i];
    auto it = by_pid.find(int64_t{procs[ev.process].boot} << 32 | ev.value);
    if (it == by_pid.end()) continue;
    uint32_t last = kNone;
    for (uint32_t q : it->second) {
      const auto [qb, qe] = raw_.ranges[q];
      if (qb == qe || raw_.events[qb].entry_ns > ev.returnNs()) continue;
      if (last == kNone || raw_.events[qe - 1].entry_ns > raw_.events[last].entry_ns) last = qe - 1;
    }
    if (last != kNone && processOf(last) != ev.process) edges_.push_back(makeEdge(last, Edge::Why::Exit, i, 0));
  }

  // accept() returns the connection a connect() asked for: the connecting
  // socket's end and the accepted one are the two sides of one channel.
  for (uint32_t a : accepts) {
    const Event& accept = raw_.events[a];
    const Endpoint& mine = raw_.endpoints[accept.endpoint];
    for (uint32_t k : connects[mine.channel]) {
      const Event& connect = raw_.events[k];
      if (connect.endpoint == accept.endpoint || raw_.endpoints[connect.endpoint].ino == mine.ino) continue;
      // The same machine's clock: the connect began before the accept returned.
      if (raw_.processes[connect.process].boot == raw_.processes[accept.process].boot &&
          connect.entry_ns > accept.returnNs())
        continue;
      edges_.push_back(makeEdge(k, Edge::Why::Connect, a, 0));
    }
  }

  // End of file on a pipe or stream socket comes after the writers closed
  // their ends: by close() (which began before the end of file was read:
  // the reader can wake before the close returns), or by ending while they
  // held one.
  std::vector<uint8_t> closed_endpoint(raw_.endpoints.size(), 0);
  for (const auto& list : closes)
    for (uint32_t c : list) closed_endpoint[raw_.events[c].endpoint] = 1;
  for (uint32_t i : eofs) {
    const Event& ev = raw_.events[i];
    const Endpoint& reader = raw_.endpoints[ev.endpoint];
    auto writes = [&](const Endpoint& writer) {
      return isOneSided(writer.type) ? writer.access != 0 /* not O_RDONLY */ : writer.ino != reader.ino;
    };
    for (uint32_t c : closes[reader.channel]) {
      const Event& close = raw_.events[c];
      if (close.process == ev.process || !writes(raw_.endpoints[close.endpoint])) continue;
      if (raw_.processes[close.process].boot != raw_.processes[ev.process].boot) continue;
      if (close.entry_ns <= ev.returnNs()) edges_.push_back(makeEdge(c, Edge::Why::Eof, i, 0));
    }
    for (uint32_t e : t_.channels[reader.channel].endpoints) {
      const Endpoint& writer = raw_.endpoints[e];
      if (writer.process == ev.process || closed_endpoint[e] || !writes(writer)) continue;
      const auto [b, end] = raw_.ranges[writer.process];
      if (b == end || raw_.processes[writer.process].boot != raw_.processes[ev.process].boot) continue;
      const Event& last = raw_.events[end - 1];
      if (last.eventKind() == Kind::Exit && last.entry_ns <= ev.returnNs())
        edges_.push_back(makeEdge(end - 1, Edge::Why::Eof, i, 0));
    }
  }
}

// A deterministic topological order: processes' events in counter order
// (but for their threads' messages, below), an event only after everything
// it depends on, ties broken by wall time
// (then log id and counter, so that the order is the same everywhere).
// RADAR's number: one more than the largest number of what it depends on.
//
// Events of a process are contiguous and edges are sorted by target, so a
// cursor per process finds each event's incoming edges. A process whose next
// event waits for an event not yet placed is parked on that event's process
// until it gets there.
void Merger::linearize() {
  // Events in processes' ranges (a log read twice leaves a hole behind).
  uint32_t total = 0;
  for (const auto& [b, e] : raw_.ranges) total += e - b;
  const uint32_t n = static_cast<uint32_t>(raw_.events.size());
  auto& events = raw_.events;
  // By target; for one target, in the order the matcher found the pieces
  // (stream order: what Trace::payload() puts together).
  // A counting sort: stable, and linear in events + edges.
  // The sort's table of where each target's edges go becomes, once done
  // with, the position of each event: its pages are faulted in once.
  BigArray<uint32_t> position(n + 1);
  faultIn(position.data(), position.size() * sizeof(uint32_t));  // all written now: one call, not a fault per page
  {
    BigArray<uint32_t>& first = position;
    std::fill(first.begin(), first.end(), 0);
    stream_edges_.push_back(std::move(edges_));
    size_t count = 0;
    for (const auto& part : stream_edges_) {
      for (const Edge& e : part) ++first[e.to + 1];
      count += part.size();
    }
    std::partial_sum(first.begin(), first.end(), first.begin());
    BigArray<Edge> sorted(count);
    for (auto& part : stream_edges_) {
      ReadArray done(part.data());
      for (size_t k = 0; k < part.size(); ++k) {
        sorted[first[part[k].to]++] = part[k];
        if (k % 65536 == 0) done.release(part.data() + k);
      }
      BigArray<Edge>().swap(part);
    }
    stream_edges_.clear();
    edges_.swap(sorted);
  }

  const uint32_t processes = static_cast<uint32_t>(raw_.processes.size());
  // next[p]: process p's first event (in the logs' order) not placed yet;
  // cursor[p]: its first edge.
  std::vector<uint32_t> next(processes), cursor(processes);
  for (uint32_t p = 0; p < processes; ++p) {
    next[p] = raw_.ranges[p].first;
    cursor[p] = static_cast<uint32_t>(std::lower_bound(edges_.begin(), edges_.end(), next[p],
                                                       [](const Edge& e, uint32_t v) { return e.to < v; }) -
                                      edges_.begin());
  }
  position.resize(n);
  std::fill(position.begin(), position.end(), kNone);
  // Ties in time go by log id, through each process's rank in that order
  // (a process has one head at a time, so the rank decides between heads).
  std::vector<uint32_t> rank(processes);
  {
    std::vector<uint32_t> by_log(processes);
    std::iota(by_log.begin(), by_log.end(), 0u);
    std::sort(by_log.begin(), by_log.end(), [&](uint32_t a, uint32_t b) {
      return raw_.processes[a].log_id != raw_.processes[b].log_id ? raw_.processes[a].log_id < raw_.processes[b].log_id
                                                                  : a < b;
    });
    for (uint32_t r = 0; r < processes; ++r) rank[by_log[r]] = r;
  }
  // A process's log has its calls in the order they were logged, after
  // they returned: between threads that is not a causal order. When an
  // event needs one of its process's later events first (the bytes a
  // thread read were written by another thread whose call returned later),
  // the writing thread's calls up to that one are pulled ahead of it. They
  // all returned before the reading call did (the bytes were written while
  // they ran), so the story stays in real time too. pulled[p]: events to
  // place before next[p], the next one last.
  std::vector<std::vector<uint32_t>> pulled(processes);
  std::vector<uint32_t> pulls(processes, 0);  // since p last placed an event: a bound against cycles
  std::vector<uint32_t> ahead(processes, 0);  // events placed past next[p]
  bool reordered = false;                    // some event was placed before an earlier one of its process
  auto head = [&](uint32_t p) {
    auto& list = pulled[p];
    while (!list.empty() && position[list.back()] != kNone) list.pop_back();
    return list.empty() ? next[p] : list.back();
  };
  auto firstEdge = [&](uint32_t p, uint32_t i) {
    if (i == next[p]) return cursor[p];
    return static_cast<uint32_t>(std::lower_bound(edges_.begin(), edges_.end(), i,
                                                  [](const Edge& e, uint32_t v) { return e.to < v; }) -
                                 edges_.begin());
  };
  // Pulls the events of `source`'s thread up to it ahead of p's head.
  auto pull = [&](uint32_t p, uint32_t source, uint32_t i) {
    constexpr uint32_t kMaxPullSpan = 1u << 16;  // farther: the logs' order stands (placed by time)
    const uint8_t thread = events[source].thread;
    if (thread == events[i].thread || thread == 255 || source - next[p] > kMaxPullSpan || ++pulls[p] > 64)
      return false;
    auto& list = pulled[p];
    for (uint32_t j = source + 1; j-- > next[p];)
      if (position[j] == kNone && events[j].thread == thread) list.push_back(j);
    return true;
  };
  // The ready heads, one leaf per process in rank order: the first in
  // time wins, ties go to the lower rank.
  std::vector<uint32_t> by_rank(processes);
  for (uint32_t p = 0; p < processes; ++p) by_rank[rank[p]] = p;
  // parked[q]: processes waiting for q to place the event they name.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> parked(processes);
  std::vector<uint8_t> forced(processes, 0);  // released by the cycle breaker
  // Whether process p's head can be placed now; if not, p waits.
  // The general case: p has events pulled ahead, or its head needs one.
  auto isReadyPulling = [&](uint32_t p) __attribute__((noinline)) {
    for (;;) {
      const uint32_t i = head(p);
      if (i >= raw_.ranges[p].second) return false;
      if (forced[p]) return true;
      bool again = false;
      for (uint32_t k = firstEdge(p, i); k < edges_.size() && edges_[k].to == i; ++k) {
        const uint32_t from = edges_[k].from;
        if (position[from] != kNone) continue;
        const uint32_t q = owner(from);
        if (q != p) {
          parked[q].push_back({from, p});
          return false;
        }
        if (pull(p, from, i)) {
          again = true;
          break;
        }
      }
      if (!again) return true;
    }
  };
  auto isReady = [&](uint32_t p) {
    if (!pulled[p].empty()) return isReadyPulling(p);
    const uint32_t i = next[p];
    if (i >= raw_.ranges[p].second) return false;
    if (forced[p]) return true;
    for (uint32_t k = cursor[p]; k < edges_.size() && edges_[k].to == i; ++k) {
      const uint32_t from = edges_[k].from;
      if (position[from] != kNone) continue;
      const uint32_t q = owner(from);
      if (q != p) {
        parked[q].push_back({from, p});
        return false;
      }
      return isReadyPulling(p);  // one of its own later events first
    }
    return true;
  };
  // Follows what each process waits for from process `start`.
  auto cycleHasThreads = [&](uint32_t start) {
    uint32_t q = start;
    for (uint32_t steps = 0; steps <= processes; ++steps) {
      if (raw_.processes[q].threads.size() > 1) return true;
      const uint32_t i = head(q);
      uint32_t waits_for = kNone;
      for (uint32_t k = firstEdge(q, i); k < edges_.size() && edges_[k].to == i; ++k)
        if (position[edges_[k].from] == kNone && owner(edges_[k].from) != q) {
          waits_for = owner(edges_[k].from);
          break;
        }
      if (waits_for == kNone || waits_for == start) return false;
      q = waits_for;
    }
    return false;
  };
  // Each event's number goes into its slot of the input; a Placer copies
  // the events to their positions behind the ordering. Pages of the edges
  // that a process has moved past are given back at once.
  BigArray<Event> out;
  out.resize(total);  // not touched: the Placer faults it in window by window
  BigArray<Edge> edges_out;
  edges_out.reserve(edges_.size());
  std::vector<uint32_t> late;  // edges from events placed after their target (broken cycles)
  std::vector<ReadArray> edges_done;
  for (uint32_t p = 0; p < processes; ++p) edges_done.emplace_back(edges_.data() + cursor[p]);
  std::vector<uint32_t> placed_count(processes, 0), last_number(processes, 0);
  std::vector<std::pair<uint32_t, size_t>> sources;  // the event's edges so far: raw source, index in edges_out
  FaultAhead edge_pages(edges_out.data(), edges_.size() * sizeof(Edge));
  Placer placer(events, out.data(), position.data(), raw_.ranges, total);
  // Positions before `in_output` are in `out`, and their input may be gone.
  uint32_t in_output = 0;
  uint32_t window_end = std::min(total, placer.window());  // where the Placer's next window ends
  uint32_t published = 0;                                   // windows handed to the Placer
  uint32_t broken = 0;
  auto order = [&](auto& ready) {
    // p's leaf: its head's time if it can be placed now.
    auto offer = [&](uint32_t p) {
      ready.set(rank[p], isReady(p) ? wallOf(pulled[p].empty() ? next[p] : pulled[p].back(), false) : ready.kNever);
    };
    for (uint32_t p = 0; p < processes; ++p) offer(p);
    for (uint32_t here = 0; here < total; ++here) {
      // A cycle through a process with threads whose head waits while
      // another process waits for a later event of another of its threads:
      // that thread's calls go first.
      for (uint32_t q = 0; q < processes && ready.empty(); ++q) {
        if (raw_.processes[q].threads.size() < 2) continue;
        const uint32_t h = head(q);
        if (h >= raw_.ranges[q].second) continue;
        uint32_t wanted = kNone;
        for (const auto& w : parked[q])
          if (position[w.first] == kNone && events[w.first].thread != events[h].thread) wanted = w.first;
        if (wanted != kNone && pull(q, wanted, h)) offer(q);
      }
      if (ready.empty()) {
        // A cycle in what the logs say (for instance bytes received before
        // the call that sent them returned, seen from another thread):
        // release the waiting head that comes first in time.
        uint32_t pick = kNone;
        for (uint32_t p = 0; p < processes; ++p) {
          const uint32_t i = head(p);
          if (i >= raw_.ranges[p].second) continue;
          if (pick == kNone || wallOf(i, false) < wallOf(pick, false)) pick = i;
        }
        const uint32_t p = processOf(pick);
        // Threads: a process's events are in the order its calls returned,
        // which is not a causal order between its threads. A cycle through a
        // multi-threaded process that pulling could not resolve is that, not
        // a contradiction.
        if (cycleHasThreads(p))
          ++t_.placed_by_time;
        else
          ++broken;
        for (auto& list : parked)
          list.erase(std::remove_if(list.begin(), list.end(),
                                    [&](const auto& w) { return w.second == p; }),
                     list.end());
        forced[p] = 1;
        offer(p);
        forced[p] = 0;
      }
      const uint32_t p = by_rank[ready.top()];
      const uint32_t i = pulled[p].empty() ? next[p] : head(p);
      const bool in_order = i == next[p];
      const auto range = raw_.ranges[p];
      RADAR_CHECK(i >= range.first && i < range.second && position[i] == kNone);  // each event placed once
      position[i] = here;
      Event& placed = events[i];
      uint32_t number = last_number[p];
      // One edge per (from, why), bytes summed. Within a process, only the
      // messages: its own order covers the rest.
      sources.clear();
      uint32_t k = in_order ? cursor[p] : firstEdge(p, i);
      for (; k < edges_.size() && edges_[k].to == i; ++k) {
        Edge e = edges_[k];
        const bool own = e.from >= range.first && e.from < range.second;  // owner(e.from) == p
        if (own && e.why != Edge::Why::Message) continue;
        const auto same = std::find_if(sources.begin(), sources.end(), [&](const auto& s) {
          return s.first == e.from && edges_out[s.second].why == e.why;
        });
        if (same != sources.end()) {
          edges_out[same->second].bytes += e.bytes;
          continue;
        }
        sources.emplace_back(static_cast<uint32_t>(e.from), edges_out.size());
        e.to = here;
        if (position[e.from] != kNone) {
          if (!own) {
            const uint32_t at = position[e.from];
            number = std::max(number, at < in_output ? out[at].number : events[e.from].number);
          }
          e.from = position[e.from];
        } else {
          if (own) ++t_.placed_by_time;  // a thread's message that pulling could not put first
          late.push_back(static_cast<uint32_t>(edges_out.size()));  // its source comes later
        }
        edges_out.push_back(e);
      }
      placed.number = last_number[p] = number + 1;
      if (placed.eventKind() == Kind::Exit || placed.eventKind() == Kind::Wait)
        exits_and_waits_.push_back(here);
      if (in_order) {
        cursor[p] = k;
        ++next[p];
        if (ahead[p]) {  // past those placed ahead already
          for (; next[p] < range.second && position[next[p]] != kNone; ++next[p]) --ahead[p];
          while (cursor[p] < edges_.size() && edges_[cursor[p]].to < next[p]) ++cursor[p];
        }
      } else {
        ++ahead[p];
        reordered = true;
      }
      pulls[p] = 0;
      // The process's events are read in order, but 100s of processes make
      // too many streams for the hardware prefetcher.
      __builtin_prefetch(&events[std::min(next[p] + 4, n - 1)]);
      __builtin_prefetch(&position[std::min(next[p] + 16, n - 1)], 1);
      if (!edges_.empty()) __builtin_prefetch(&edges_[std::min<size_t>(cursor[p] + 8, edges_.size() - 1)]);
      if (++placed_count[p] % 1024 == 0) edges_done[p].release(edges_.data() + cursor[p]);
      if (here % 16384 == 0) edge_pages.at(edges_out.data() + edges_out.size());
      // The Placer copies each process's events up to next[]: once one was
      // placed ahead of that, the rest is copied at the end.
      if (here + 1 == window_end && !reordered) {
        window_end = std::min(total, window_end + placer.window());
        placer.ordered(next);
        ++published;
        in_output = placer.placed();
        placer.readBefore(in_output);
      }
      // Wake those that waited for this event.
      auto& waiting = parked[p];
      for (size_t w = 0; w < waiting.size();) {
        if (waiting[w].first < next[p] || position[waiting[w].first] != kNone) {
          const uint32_t q = waiting[w].second;
          waiting[w] = waiting.back();
          waiting.pop_back();
          offer(q);
        } else {
          ++w;
        }
      }
      offer(p);
    }
  };
  if (Tournament<uint64_t>::fits(processes, raw_.wall_range.first, raw_.wall_range.second)) {
    Tournament<uint64_t> ready(processes, raw_.wall_range.first);
    order(ready);
  } else {
    Tournament<unsigned __int128> ready(processes, 0);
    order(ready);
  }
  for (uint32_t p = 0; p < processes; ++p) RADAR_CHECK(next[p] == raw_.ranges[p].second);  // every event placed
  for (; published < placer.windows(); ++published) placer.ordered(next);
  placer.join();
  for (uint32_t k : late) edges_out[k].from = position[edges_out[k].from];
  if (broken)
    raw_.problems.push_back({"", "the logs' order had " + std::to_string(broken) +
                                     " contradictions (a send seen received before it returned); "
                                     "they were resolved by time"});
  decltype(raw_.events)().swap(events);
  BigArray<Edge>().swap(edges_);
  t_.events = std::move(out);
  t_.edges = std::move(edges_out);
  // A process's events are contiguous in the logs' order and in counter
  // order there: its slice of `position` lists their positions.
  t_.process_event_positions = std::move(position);
}

// Where each process starts and ends, and how it ended.
void Merger::endings() {
  // Sends received in part: by position now.
  for (auto& [send, bytes] : t_.received_in_part) send = t_.process_event_positions[send];
  std::sort(t_.received_in_part.begin(), t_.received_in_part.end());
  auto& procs = t_.processes;
  t_.process_events.assign(procs.size(), {});
  t_.counter_events.assign(procs.size(), {});
  // A process whose threads' events the story put in another order than
  // the log's gets its own list in the story's order.
  std::vector<uint32_t> reordered;
  size_t reordered_events = 0;
  for (auto& p : procs) {
    const auto [b, e] = raw_.ranges[p.index];
    if (b == e) continue;
    const EventList list(t_.process_event_positions.data() + b, e - b);
    t_.process_events[p.index] = t_.counter_events[p.index] = list;
    if (!std::is_sorted(list.begin(), list.end())) {
      reordered.push_back(p.index);
      reordered_events += list.size();
    }
  }
  t_.reordered_positions.resize(reordered_events);
  for (uint32_t at = 0; uint32_t p : reordered) {
    const EventList& by_counter = t_.counter_events[p];
    uint32_t* mine = t_.reordered_positions.data() + at;
    std::copy(by_counter.begin(), by_counter.end(), mine);
    std::sort(mine, mine + by_counter.size());
    t_.process_events[p] = EventList(mine, by_counter.size());
    at += static_cast<uint32_t>(by_counter.size());
  }
  for (auto& p : procs) {
    const EventList& list = t_.process_events[p.index];
    if (list.empty()) continue;
    p.first_event = list.front();
    p.last_event = list.back();
    p.event_count = static_cast<uint32_t>(list.size());
  }
  // An image whose last event is a successful exec, with no log after it,
  // went on into a program radar could not record.
  for (Process& p : procs)
    if (p.next_image == kNone && p.last_event != kNone && t_.events[p.last_event].eventKind() == Kind::Exec &&
        !(t_.events[p.last_event].flags & kEventFailed))
      p.end = Process::End::Execed;
  std::vector<uint32_t> waits;  // successful wait() calls, for the statuses they reaped
  for (uint32_t i : exits_and_waits_) {
    const Event& e = t_.events[i];
    Process& p = procs[e.process];
    if (e.eventKind() == Kind::Exit && p.end != Process::End::Execed) {
      p.end = Process::End::Exited;
      p.end_code = e.result & 0xff;
    }
    if (e.eventKind() == Kind::Wait && e.value && !(e.flags & kEventFailed)) waits.push_back(i);
  }
  std::unordered_map<int64_t, std::vector<uint32_t>> by_pid;
  for (auto& p : procs) by_pid[int64_t{p.boot} << 32 | static_cast<uint32_t>(p.pid)].push_back(p.index);
  // The last image of a pid takes the status its parent (or radar record) reaped.
  auto reaped = [&](uint32_t boot, int32_t pid, int status) {
    auto it = by_pid.find(int64_t{boot} << 32 | static_cast<uint32_t>(pid));
    if (it == by_pid.end()) return;
    uint32_t last = it->second.front();
    for (uint32_t q : it->second)
      if (procs[q].generation >= procs[last].generation) last = q;
    Process& p = procs[last];
    if (WIFSIGNALED(status)) {
      p.end = Process::End::Signaled;
      p.end_code = WTERMSIG(status);
      p.core_dumped = WCOREDUMP(status);
    } else if (WIFEXITED(status) && p.end == Process::End::Unknown) {
      p.end = Process::End::Exited;
      p.end_code = WEXITSTATUS(status);
      // (An image whose last event is its exec ended in a new program, whose
      // log is missing or unreadable: another finding.)
      // (Nor one whose log lost its end: damaged, or events lost.)
      p.ended_unseen = !p.external && !p.control.closed && p.last_event != kNone && p.damage.empty() &&
                       !p.control.incomplete && t_.events[p.last_event].eventKind() != Kind::Exec;
    }
  };
  for (uint32_t i : waits) {
    const Event& e = t_.events[i];
    reaped(procs[e.process].boot, static_cast<int32_t>(e.value), e.result);
  }
  for (const auto& rec : raw_.recordings)
    for (const auto& r : rec.reaped()) {
      for (uint32_t boot = 0; boot < t_.boots.size(); ++boot) reaped(boot, r.pid(), r.status());
    }
}

// Recordings given together (several hosts, or runs of one) that share no
// channel are shown side by side, but nothing in one is related to
// anything in the other: said, with the groups that are.
void warnUnrelatedRecordings(Trace& t) {
  const size_t n = t.directories.size();
  if (n < 2) return;
  auto recordingOf = [&](const Process& p) {
    for (size_t d = 0; d < n; ++d) {
      std::string dir = t.directories[d];
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      if (p.log_path == dir || (p.log_path.size() > dir.size() && p.log_path.compare(0, dir.size(), dir) == 0 &&
                                p.log_path[dir.size()] == '/'))
        return d;
    }
    return n;
  };
  std::vector<size_t> of(t.processes.size(), n);
  for (const Process& p : t.processes)
    if (!p.external) of[p.index] = recordingOf(p);
  std::vector<size_t> root(n);
  for (size_t d = 0; d < n; ++d) root[d] = d;
  auto find = [&](size_t d) {
    while (root[d] != d) d = root[d] = root[root[d]];
    return d;
  };
  for (const Channel& c : t.channels) {
    if (c.external) continue;  // a terminal both wrote to relates nothing
    size_t first = n;
    for (uint32_t e : c.endpoints) {
      const uint32_t p = t.endpoints[e].process;
      if (p == kNone || of[p] == n) continue;
      if (first == n) first = of[p];
      else root[find(of[p])] = find(first);
    }
  }
  std::map<size_t, std::vector<std::string>> groups;
  for (size_t d = 0; d < n; ++d) groups[find(d)].push_back(t.directories[d]);
  if (groups.size() < 2) return;
  std::string text = "the recordings given share no channel between these groups, so nothing in one group is "
                     "related to anything in another:";
  for (const auto& [r, dirs] : groups) {
    text += " {";
    for (size_t k = 0; k < dirs.size(); ++k) text += (k ? ", " : "") + dirs[k];
    text += "}";
  }
  t.warnings.push_back(text);
}

}  // namespace

std::unique_ptr<Trace> merge(RawRecording&& raw) {
  StepTimer step;
  auto t = std::make_unique<Trace>();
  t->boots = raw.boots;
  t->directories = raw.directories;
  for (const auto& rec : raw.recordings) {
    if (!rec.network().empty()) t->networks.push_back({rec.network(), rec.network_file()});
    for (const auto& e : rec.executables()) t->executables.push_back({e.path(), e.size(), e.mtime_ns(), e.xxh64()});
    for (const auto& p : rec.problems())
      if (p.pid() > 0) t->unrecorded_notes.push_back({p.pid(), p.executable(), p.what()});
  }
  Merger(raw, *t).run(step);
  t->endpoints = std::move(raw.endpoints);
  t->problems = std::move(raw.problems);
  warnUnrelatedRecordings(*t);
  findProblems(*t);
  step("findings");
  return t;
}

std::unique_ptr<Trace> loadTrace(const std::vector<std::string>& dirs, const LoadOptions& options,
                                 std::string* error) {
  RawRecording raw;
  StepTimer step;
  if (!loadLogs(dirs, options, &raw, error)) return nullptr;
  step("load");
  return merge(std::move(raw));
}

}  // namespace radar::trace
