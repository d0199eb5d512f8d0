// The merge's byte streams: every received byte matched to its send.
#include <fcntl.h>

#include "trace/merger.h"

namespace radar::trace::merging {

// Byte streams: the bytes sent on one side are the bytes received on the
// other (a pipe: from all writers to all readers). Sends and receives are
// put in order, their offsets accumulated, and every receive is matched to
// the sends whose bytes it got.
// Stream matching: each stream's receives take its bytes, in order, from
// its sends.
//
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
class StreamMatch {
 public:
  explicit StreamMatch(Merger& m)
      : m_(m), raw_(m.raw_), t_(m.t_), eps_(m.raw_.endpoints), streams_(m.t_.channels.size() * 2) {}

  void run() {
    makeRoutes();
    countMembers();
    {
      std::thread helper([this] { work(1); });
      work(0);
      helper.join();
    }
    for (Worker& w : workers_)
      if (w.failed) std::rethrow_exception(w.failed);
    BigArray<uint32_t>().swap(members_);
    for (Worker& w : workers_) {
      t_.bytes_sent += w.sums.sent;
      t_.bytes_received += w.sums.received;
      t_.bytes_external += w.sums.external;
      t_.bytes_matched += w.sums.matched;
      t_.bytes_ambiguous += w.sums.ambiguous;
      t_.bytes_outside_window += w.sums.outside_window;
      m_.stream_edges_.push_back(std::move(w.edges));
      m_.notable_.insert(m_.notable_.end(), w.notable.begin(), w.notable.end());  // the halves in order
      t_.received_in_part.insert(t_.received_in_part.end(), w.received_in_part.begin(), w.received_in_part.end());
    }
  }

 private:
  using Item = StreamItem;
  // What the loop over millions of events needs, per endpoint, small.
  // kBeforeAttach: an end open before radar attach (Trace::beganBeforeAttach).
  enum : uint8_t { kSkip, kDevice, kStream, kBeforeAttach };
  struct Route {
    uint8_t what;
    uint32_t send_stream, receive_stream;
  };
  struct Sums {
    uint64_t sent = 0, received = 0, external = 0, matched = 0, ambiguous = 0, outside_window = 0;
  };
  struct Worker {
    Sums sums;
    BigArray<Edge> edges;
    std::vector<uint32_t> notable;  // for otherEdges()
    std::vector<std::pair<uint32_t, uint64_t>> received_in_part;
    std::exception_ptr failed;
  };
  // One stream being matched: its sends (`out`, with where each starts in
  // the stream) and receives (`in`), and how far the receives took it.
  struct Stream {
    const Channel* channel = nullptr;
    std::vector<Item> out, in;
    std::vector<uint64_t> start;
    std::vector<bool> confirmed;
    bool several = false;  // writers or readers: the order is by time unless the content confirmed it
    size_t k = 0;          // first send not fully consumed
    uint64_t consumed = 0;
  };
  enum class Content { Agrees, Differs, Unknown };

  void makeRoutes() {
    routes_.resize(eps_.size());
    for (uint32_t k = 0; k < eps_.size(); ++k) {
      const Channel& c = t_.channels[eps_[k].channel];
      Route& r = routes_[k];
      r.what = isDevice(c.type) ? kDevice : isStreamType(c.type) ? kStream : kSkip;
      if (r.what == kStream && eps_[k].inherited && raw_.processes[eps_[k].process].origin == log::Origin::Attached)
        r.what = kBeforeAttach;
      const uint32_t side = isOneSided(c.type) ? 0 : m_.side_[k];
      r.send_stream = c.index * 2 + side;
      r.receive_stream = c.index * 2 + (isOneSided(c.type) ? side : side ^ 1);
      if (r.what != kStream) continue;
      // Who may write and read each stream, for a flight recording's window.
      if (windowed_.empty()) windowed_.assign(streams_, Holders{});
      const bool one_sided = isOneSided(c.type);
      if (!one_sided || eps_[k].access != O_RDONLY) ++windowed_[r.send_stream].writers;
      if (!one_sided || eps_[k].access != O_WRONLY) ++windowed_[r.receive_stream].readers;
      if (eps_[k].before_window) {
        windowed_[r.send_stream].windowed = windowed_[r.receive_stream].windowed = true;
        if (!one_sided || eps_[k].access != O_RDONLY) windowed_[r.send_stream].writer_windowed = true;
      }
    }
  }

  // Where each stream's sends and receives go in `members_`, and how many
  // of them the second half's processes have.
  void countMembers() {
    n_ = static_cast<uint32_t>(raw_.events.size());
    mid_ = n_;  // the second half starts with a process
    for (uint32_t k = 0; k < m_.starts_.size(); ++k)
      if (m_.starts_[k] >= n_ / 2) {
        mid_ = m_.starts_[k];
        break;
      }
    begin_.assign(2 * streams_ + 1, 0);
    second_half_.assign(2 * streams_, 0);
    for (uint32_t k = 0; k < eps_.size(); ++k) {
      if (routes_[k].what != kStream) continue;
      const uint32_t send = routes_[k].send_stream, receive = streams_ + routes_[k].receive_stream;
      begin_[send + 1] += raw_.data_sends[k];
      begin_[receive + 1] += raw_.data_receives[k];
      if (raw_.ranges[eps_[k].process].first >= mid_) {
        second_half_[send] += raw_.data_sends[k];
        second_half_[receive] += raw_.data_receives[k];
      }
    }
    std::partial_sum(begin_.begin(), begin_.end(), begin_.begin());
    total_receives_ = begin_[2 * streams_] - begin_[streams_];
    members_ = BigArray<uint32_t>(begin_[2 * streams_]);
    faultIn(members_.data(), members_.size() * sizeof(uint32_t));  // all written below
  }

  void fillMembers(uint32_t from, uint32_t to, std::vector<uint64_t> fill, Sums& sums, std::vector<uint32_t>& notable) {
    for (uint32_t i = from; i < to; ++i) {
      Event& ev = raw_.events[i];
      // While here: the few events otherEdges() looks at.
      const Kind kind = ev.eventKind();
      if (kind == Kind::Signal || kind == Kind::SignalWait || kind == Kind::Wait || kind == Kind::Close ||
          kind == Kind::Shutdown || kind == Kind::Connect || kind == Kind::Accept || (ev.flags & kEventEof))
        notable.push_back(i);
      if (ev.endpoint == kNone || !log::isData(ev.eventKind()) || (ev.flags & kEventFailed)) continue;
      const Route& r = routes_[ev.endpoint];
      if (r.what == kSkip) continue;
      const bool send = log::categoryOf(ev.eventKind()) == Category::Send;
      if (r.what == kBeforeAttach) {  // never matched: from outside, or unseen on the other side
        const bool outside = t_.channels[eps_[ev.endpoint].channel].external;
        (send ? sums.sent : sums.received) += ev.value;
        if (outside && !send) sums.external += ev.value;
        if (outside)
          ev.flags |= kEventExternal;
        else if (!send && ev.value > 0)
          ev.flags |= kEventUnmatched;
        continue;
      }
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
      members_[fill[send ? r.send_stream : streams_ + r.receive_stream]++] = i;
    }
  }

  void items(uint64_t from, uint64_t to, std::vector<Item>& v) const {
    v.clear();
    for (uint64_t k = from; k < to; ++k) {
      const uint32_t i = members_[k];
      const Event& ev = raw_.events[i];
      v.push_back({i, ev.value, ev.process, (ev.flags & kEventPeek) != 0});
    }
  }

  // Events of several processes on one stream: in the order their calls
  // returned (the kernel moves the bytes during the call). Several threads
  // of one process are several writers too.
  bool order(std::vector<Item>& v) const {
    bool several = false;
    for (const Item& it : v)
      several |= it.process != v.front().process || raw_.events[it.index].thread != raw_.events[v.front().index].thread;
    if (several)
      std::stable_sort(v.begin(), v.end(), [&](const Item& a, const Item& b) {
        return m_.wallOf(a.index, true) < m_.wallOf(b.index, true);
      });
    return several;
  }

  // Whether receive `r`, taking the stream's bytes from `from` on (in send
  // out[j] and the next), got the bytes those sends hold. Checked where both
  // sides' checksums are known and the receive took whole sends (most
  // message protocols); elsewhere the stream's order stands.
  Content checkContent(const Stream& s, uint64_t from, const Item& r) const {
    const std::vector<Item>& out = s.out;
    const std::vector<uint64_t>& start = s.start;
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
      const uint32_t send_crc = raw_.events[out[e].index].hash;
      crc = e == j ? send_crc : crc32cCombine(crc, send_crc, out[e].bytes);  // one send: no combining
      end += out[e].bytes;
    }
    if (end != from + r.bytes) return Content::Unknown;
    return crc == raw_.events[r.index].hash ? Content::Agrees : Content::Differs;
  }

  // Whether the bytes of the sends at this point of the stream are not
  // those receive in[ri] got: a writer radar did not see (a raw system
  // call, an unrecorded process) put them there, if the next receive has
  // the bytes these sends hold. Else the checksum is what is wrong (pages
  // given with vmsplice() and changed later), and the stream's order
  // stands: one bad checksum must not shift every later receive off its
  // sends. (Where several writers or readers overlap, the order is by time
  // unless the content confirmed it: a mismatch there proves nothing.)
  bool foreign(const Stream& s, size_t ri, uint64_t from) const {
    const std::vector<Item>& in = s.in;
    const Item& r = in[ri];
    const uint64_t bytes = r.bytes;
    if (s.several || checkContent(s, from, r) != Content::Differs) return false;
    // A later receive (of the next few) with these sends' bytes: the
    // ones before it were someone else's.
    constexpr int kLookAhead = 16;
    size_t next = ri + 1;
    while (next < in.size() && (!in[next].bytes || in[next].peek)) ++next;
    int looked = 0;
    for (size_t later = next; later < in.size() && looked < kLookAhead; ++later) {
      if (!in[later].bytes || in[later].peek) continue;
      ++looked;
      if (checkContent(s, from, in[later]) == Content::Agrees) return true;
    }
    // The next receive taking the sends after these: this one took
    // them, and its checksum is what is wrong.
    if (next < in.size() && checkContent(s, from + bytes, in[next]) == Content::Agrees) return false;
    return true;  // no sign of either: as the checksums say
  }

  // Bytes of receive r nobody recorded sending: from outside, or lost.
  void unaccounted(const Stream& s, const Item& r, uint64_t bytes, Sums& sums) {
    if (s.channel->external) {
      raw_.events[r.index].flags |= kEventExternal;
      if (!r.peek) sums.external += bytes;
    } else if (!r.peek) {  // the receive that takes them is blamed, once
      raw_.events[r.index].flags |= kEventUnmatched;
    }
  }

  // Receive in[ri] takes its bytes from the sends, an edge from each.
  void receive(Stream& s, size_t ri, Worker& w) {
    const Item& r = s.in[ri];
    const uint64_t bytes = r.bytes;
    if (!bytes) return;
    if (!r.peek) w.sums.received += bytes;  // a peek's bytes are received later
    uint64_t from = s.consumed, left = bytes;
    // A flight recording: bytes sent before the sender's window, whose
    // sends are gone. Nobody's fault, and no edge.
    const uint64_t before = from < s.start.front() ? std::min(left, s.start.front() - from) : 0;
    from += before;
    left -= before;
    if (!r.peek) w.sums.outside_window += before;
    size_t j = s.k;
    while (j < s.out.size() && s.start[j + 1] <= from) ++j;
    // (A receive that took bytes from before the window too cannot have
    // its content checked against the sends.)
    if (left && !before && foreign(s, ri, from)) {
      // They are nobody's here, and the sends wait for the receives whose
      // bytes they are.
      unaccounted(s, r, bytes, w.sums);
      return;
    }
    while (left && j < s.out.size()) {
      const uint64_t take = std::min(left, s.start[j + 1] - from);
      w.edges.push_back(makeEdge(s.out[j].index, Edge::Why::Message, r.index, take));
      from += take;
      left -= take;
      if (from == s.start[j + 1]) ++j;
    }
    // A freeze copies the logs one after the other: the sender's log was
    // copied before it sent the bytes no send of it explains.
    const uint64_t after = j >= s.out.size() && t_.frozen_at_ns ? left : 0;
    left -= after;
    if (!r.peek) w.sums.outside_window += after;
    const uint64_t matched = bytes - before - after - left;
    if (!r.peek) w.sums.matched += matched;
    if (s.several && !s.confirmed[ri] && !r.peek) w.sums.ambiguous += matched;
    if (left) unaccounted(s, r, left, w.sums);
    if (!r.peek) {
      s.consumed += bytes;
      s.k = j;
    }
  }

  void matchStream(size_t st, Worker& w, Stream& s) {
    items(begin_[st], begin_[st + 1], s.out);
    items(begin_[streams_ + st], begin_[streams_ + st + 1], s.in);
    s.channel = &t_.channels[st / 2];
    const bool several_writers = order(s.out);
    const bool several_readers = order(s.in);
    s.several = several_writers || several_readers;
    s.confirmed.clear();
    if (s.several) s.confirmed = m_.orderByContent(s.out, s.in);
    // Where each send starts in the stream, and where the receives start
    // taking its bytes: at 0, but where a flight recording's window began.
    uint64_t sent_from = 0, received_from = 0;
    if (!windowStart(st, s, &sent_from, &received_from)) {
      unknownStart(s, w);
      return;
    }
    s.start.assign(s.out.size() + 1, sent_from);
    for (size_t k = 0; k < s.out.size(); ++k) s.start[k + 1] = s.start[k] + s.out[k].bytes;
    w.sums.sent += s.start.back() - sent_from;
    s.k = 0;
    s.consumed = received_from;
    for (size_t ri = 0; ri < s.in.size(); ++ri) receive(s, ri, w);
    if (s.channel->external && s.start.back() > s.consumed)
      for (const Item& it : s.out) raw_.events[it.index].flags |= kEventExternal;
    // The receives (not the peeks) took the stream's first `consumed` bytes:
    // the sends within them were received whole, the one they end in, in part.
    for (size_t j = 0; j < s.out.size() && s.start[j] < s.consumed; ++j) {
      if (s.start[j + 1] <= s.consumed)
        raw_.events[s.out[j].index].flags |= kEventReceivedWhole;
      else
        w.received_in_part.emplace_back(s.out[j].index, s.consumed - s.start[j]);
    }
  }

  // A flight recording keeps each process's last events only. Where an end
  // open before its window sends or receives, the stream offset of its
  // first kept event says where that side stands. Offsets are each
  // process's own, so this holds only where one end sends and one
  // receives; false otherwise.
  bool windowStart(size_t st, const Stream& s, uint64_t* sent_from, uint64_t* received_from) const {
    if (windowed_.empty() || !windowed_[st].windowed) return true;
    // One end writes it and one reads it, whatever happened before the
    // window: another holder may have moved bytes then that no log keeps.
    if (windowed_[st].writers != 1 || windowed_[st].readers != 1) return false;
    auto side = [&](const std::vector<Item>& items, int dir, uint64_t* from) {
      if (items.empty()) return;
      const Endpoint& e = eps_[raw_.events[items.front().index].endpoint];
      if (e.before_window && e.window_offset[dir] != Endpoint::kNoOffset) *from = e.window_offset[dir];
    };
    side(s.out, 0, sent_from);
    side(s.in, 1, received_from);
    // Its one writer kept no send on it: whatever its reader got was sent
    // before the writer's window (any send after would be in its log).
    if (s.out.empty() && windowed_[st].writer_windowed) *sent_from = Endpoint::kNoOffset;
    return true;
  }

  // A stream of a flight recording whose start cannot be placed: its bytes
  // are told as each side saw them, never matched by guess.
  void unknownStart(const Stream& s, Worker& w) {
    for (const Item& it : s.out) w.sums.sent += it.bytes;
    for (const Item& it : s.in) {
      if (it.peek) continue;
      w.sums.received += it.bytes;
      if (s.channel->external) {
        w.sums.external += it.bytes;
        raw_.events[it.index].flags |= kEventExternal;
      } else {
        w.sums.outside_window += it.bytes;
      }
    }
    if (s.channel->external)
      for (const Item& it : s.out) raw_.events[it.index].flags |= kEventExternal;
  }

  // One of the two threads: its half of the members, then streams in turn.
  void work(int me) {
    Worker& w = workers_[me];
    try {
      std::vector<uint64_t> fill(begin_.begin(), begin_.end() - 1);
      if (me == 1)
        for (size_t st = 0; st < 2 * streams_; ++st) fill[st] += begin_[st + 1] - begin_[st] - second_half_[st];
      fillMembers(me == 0 ? 0 : mid_, me == 0 ? mid_ : n_, std::move(fill), w.sums, w.notable);
      // Matching needs every member of a stream: wait for the other half.
      filled_.fetch_add(1, std::memory_order_acq_rel);
      filled_.notify_all();
      for (int seen; (seen = filled_.load(std::memory_order_acquire)) < 2;) filled_.wait(seen);
      w.edges.reserve(total_receives_ + total_receives_ / 4);
      Stream s;
      for (size_t st; (st = next_stream_.fetch_add(1)) < streams_;) {
        if (begin_[st] == begin_[st + 1] && begin_[streams_ + st] == begin_[streams_ + st + 1]) continue;
        matchStream(st, w, s);
      }
    } catch (...) {
      w.failed = std::current_exception();
      filled_.fetch_add(2);  // never leave the other waiting
      filled_.notify_all();
    }
  }

  Merger& m_;
  RawRecording& raw_;
  Trace& t_;
  const std::vector<Endpoint>& eps_;
  const size_t streams_;
  std::vector<Route> routes_;
  // Per stream: the ends that may write and read it, and whether one was
  // open before its process's flight window (empty: none was).
  struct Holders {
    uint32_t writers = 0, readers = 0;
    bool windowed = false, writer_windowed = false;
  };
  std::vector<Holders> windowed_;
  uint32_t n_ = 0, mid_ = 0;
  std::vector<uint64_t> begin_, second_half_;
  uint64_t total_receives_ = 0;
  BigArray<uint32_t> members_;
  Worker workers_[2];
  std::atomic<size_t> next_stream_{0};
  std::atomic<int> filled_{0};
};

void Merger::matchStreams() { StreamMatch(*this).run(); }

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
class ContentOrder {
 public:
  ContentOrder(const Merger& m, std::vector<StreamItem>& out, std::vector<StreamItem>& in)
      : m_(m), out_(out), in_(in), confirmed_(in.size(), false) {}

  std::vector<bool> run() {
    for (size_t i = 0; i < in_.size(); ++i) {
      // Once the stream's budget is spent, the search is not started again:
      // the window below costs per receive even when every search gives up.
      if (offset_ == 0 && head_ < out_.size() && !confirmed_[i] && stream_tries_ <= kMaxStreamTries) reorderFrom(i);
      take(i);
    }
    return std::move(confirmed_);
  }

 private:
  static constexpr size_t kWindow = 256;  // overlapping calls considered together
  static constexpr size_t kMaxGroup = 8;  // a reader's receives checked together
  static constexpr uint32_t kMaxTries = 20000;
  // For the whole stream: past it, the rest keeps the order of time (a
  // storm of overlapping calls must not make the merge take minutes).
  static constexpr uint64_t kMaxStreamTries = 2'000'000;

  bool hashed(const StreamItem& it) const { return (m_.raw_.events[it.index].flags & kEventHasHash) != 0; }
  uint64_t actor(const StreamItem& it) const { return uint64_t{it.process} << 8 | m_.raw_.events[it.index].thread; }
  uint32_t hashOf(const StreamItem& it) const { return m_.raw_.events[it.index].hash; }

  // The receives that may come next: in[i], and later ones that overlap
  // every receive before them. The first whose bytes (with its reader's
  // next receives) are those of sends that may come next puts them, and
  // those sends, next.
  void reorderFrom(size_t i) {
    int64_t first_return = std::numeric_limits<int64_t>::max();
    std::vector<uint64_t> readers_ahead;
    for (size_t j = i; j < in_.size() && j < i + kWindow; ++j) {
      // in[j] may come next if it began before every receive ahead of it
      // returned, and its reader has none ahead of it.
      const uint64_t who = actor(in_[j]);
      const bool may = m_.wallOf(in_[j].index, false) <= first_return &&
                       std::find(readers_ahead.begin(), readers_ahead.end(), who) == readers_ahead.end();
      first_return = std::min(first_return, m_.wallOf(in_[j].index, true));
      readers_ahead.push_back(who);
      if (!may) continue;
      if (in_[j].peek || !in_[j].bytes || !hashed(in_[j])) {
        if (j == i) return;  // nothing to check: the time order stands
        continue;
      }
      if (groupFrom(j)) {
        putNext(i);
        return;
      }
    }
  }

  // in[j], then the same reader's next receives, until their bytes are
  // whole sends with the same hash (in `path_`).
  bool groupFrom(size_t j) {
    group_.assign(1, j);
    uint64_t bytes = in_[j].bytes;
    uint32_t crc = hashOf(in_[j]);
    bool found = findSends(bytes, crc);
    for (size_t k = j + 1; !found && k < in_.size() && group_.size() < kMaxGroup; ++k) {
      if (actor(in_[k]) != actor(in_[j])) continue;
      if (in_[k].peek || !in_[k].bytes || !hashed(in_[k])) break;
      group_.push_back(k);
      crc = crc32cCombine(crc, hashOf(in_[k]), in_[k].bytes);
      bytes += in_[k].bytes;
      found = findSends(bytes, crc);
    }
    return found;
  }

  // The group's receives, with the sends found for them, come next.
  void putNext(size_t i) {
    std::vector<StreamItem> receives;
    for (size_t k : group_) receives.push_back(in_[k]);
    for (size_t k = i; k < in_.size() && k <= group_.back(); ++k)
      if (std::find(group_.begin(), group_.end(), k) == group_.end()) receives.push_back(in_[k]);
    std::copy(receives.begin(), receives.end(), in_.begin() + i);
    for (size_t k = 0; k < group_.size(); ++k) confirmed_[i + k] = true;
    std::vector<StreamItem> sends;
    for (size_t k : path_) sends.push_back(out_[k]);
    for (size_t k = head_; k < head_ + used_.size(); ++k)
      if (!used_[k - head_]) sends.push_back(out_[k]);
    std::copy(sends.begin(), sends.end(), out_.begin() + head_);
  }

  // Sends (from head, whole) whose bytes are `bytes` long with this hash.
  bool findSends(uint64_t bytes, uint32_t target) {
    end_ = std::min(out_.size(), head_ + kWindow);
    used_.assign(end_ - head_, false);
    path_.clear();
    tries_ = 0;
    return search(bytes, target, 0, 0);
  }

  bool search(uint64_t bytes, uint32_t target, uint64_t so_far, uint32_t crc) {
    if (++tries_ > kMaxTries || ++stream_tries_ > kMaxStreamTries) return false;
    // out[k] may come next if it began before every send still ahead of
    // it returned, and no earlier send of its writer is still ahead.
    int64_t first_return = std::numeric_limits<int64_t>::max();
    std::vector<uint64_t>& ahead = actors_ahead_;
    ahead.clear();
    for (size_t k = head_; k < end_; ++k) {
      if (used_[k - head_]) continue;
      const uint64_t who = actor(out_[k]);
      const bool ok = hashed(out_[k]) && m_.wallOf(out_[k].index, false) <= first_return &&
                      std::find(ahead.begin(), ahead.end(), who) == ahead.end();
      first_return = std::min(first_return, m_.wallOf(out_[k].index, true));
      ahead.push_back(who);
      if (!ok) continue;
      const uint64_t total = so_far + out_[k].bytes;
      if (total > bytes) continue;
      const uint32_t next = crc32cCombine(crc, hashOf(out_[k]), out_[k].bytes);
      used_[k - head_] = true;
      path_.push_back(k);
      const std::vector<uint64_t> saved = ahead;
      if (total == bytes ? next == target : search(bytes, target, total, next)) return true;
      ahead = saved;
      path_.pop_back();
      used_[k - head_] = false;
    }
    return false;
  }

  // Takes in[i]'s bytes from the sends, from head on.
  void take(size_t i) {
    if (in_[i].peek) return;
    uint64_t left = in_[i].bytes;
    while (left && head_ < out_.size()) {
      const uint64_t n = std::min<uint64_t>(left, out_[head_].bytes - offset_);
      left -= n;
      offset_ += n;
      if (offset_ == out_[head_].bytes) {
        ++head_;
        offset_ = 0;
      }
    }
  }

  const Merger& m_;
  std::vector<StreamItem>& out_;
  std::vector<StreamItem>& in_;
  std::vector<bool> confirmed_;
  uint64_t stream_tries_ = 0;
  size_t head_ = 0;      // first send not fully received
  uint64_t offset_ = 0;  // bytes of out[head] received
  std::vector<size_t> path_, group_;
  std::vector<bool> used_;
  std::vector<uint64_t> actors_ahead_;
  size_t end_ = 0;  // of the sends considered by a search
  uint32_t tries_ = 0;
};

std::vector<bool> Merger::orderByContent(std::vector<StreamItem>& out, std::vector<StreamItem>& in) {
  return ContentOrder(*this, out, in).run();
}

}  // namespace radar::trace::merging
