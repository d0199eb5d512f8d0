// The merge's datagrams: every receive matched to the datagram it got.
#include "log/address.h"
#include "trace/merger.h"

namespace radar::trace::merging {

// Datagrams: each receive is the oldest unmatched datagram sent to its
// socket with the same length (and checksum, when both are known); a
// message queue's, the oldest sent to the queue (queueEnd).
// One pass of the datagram matching: every datagram sent queued at the
// sockets it may reach, then each socket's receives take the first that
// fits, in the order the sends began.
class DatagramPass {
 public:
  explicit DatagramPass(Merger& m)
      : m_(m), raw_(m.raw_), eps_(m.raw_.endpoints), queue_(eps_.size()), receives_(eps_.size()) {}

  // False when the recording has no datagram after all.
  bool run() {
    if (!queueSends()) return false;
    m_.orderQueueReceives(&receives_);
    used_.assign(raw_.events.size(), 0);
    for (uint32_t ep = 0; ep < eps_.size(); ++ep) matchAt(ep);
    return true;
  }

 private:
  // One datagram: a send, or one message of a sendmmsg.
  struct Datagram {
    uint32_t send;
    uint32_t part;  // its message in a sendmmsg (0 otherwise)
    uint32_t bytes;
  };

  // Where a datagram goes: the socket bound to its address, or the
  // connected peer; each socket once, by the end its queue is at.
  void destinations(uint32_t i, std::vector<uint32_t>* out) {
    out->clear();
    const Event& ev = raw_.events[i];
    const Endpoint& from = eps_[ev.endpoint];
    auto addr = raw_.addresses.find(i);
    const std::pair<uint32_t, std::string> key{ev.endpoint, addr == raw_.addresses.end() ? "" : addr->second};
    if (auto hit = cache_.find(key); hit != cache_.end()) {
      *out = hit->second;
      return;
    }
    for (uint32_t j = 0; j < eps_.size(); ++j) {
      const Endpoint& to = eps_[j];
      if (j == ev.endpoint || !isDatagramType(to.type)) continue;
      if (raw_.processes[to.process].boot != raw_.processes[from.process].boot && to.type != ChannelType::Udp) continue;
      bool match = false;
      if (addr != raw_.addresses.end() && !addr->second.empty())
        match = !to.local_address.empty() && sameAddress(addr->second, to.local_address);
      else if (from.peer_ino)
        match = to.ino == from.peer_ino;
      else if (!from.peer_address.empty())
        match = !to.local_address.empty() && sameAddress(from.peer_address, to.local_address);
      if (!match) continue;
      // Several ends of one socket (shared after a fork) are one
      // destination, with one receive queue (queueEnd), as in the kernel.
      const uint32_t end = m_.queueEnd(j);
      if (std::find(out->begin(), out->end(), end) == out->end()) out->push_back(end);
    }
    cache_.emplace(key, *out);
  }

  // The messages of an event: those of a sendmmsg/recvmmsg, else the one.
  void messages(uint32_t i, std::vector<uint32_t>* out) const {
    out->clear();
    auto multi = raw_.message_lengths.find(i);
    if (multi != raw_.message_lengths.end())
      *out = multi->second;
    else
      out->push_back(raw_.events[i].value);
  }

  // One datagram's bytes against one receive's, when both are hashed.
  bool sameBytes(uint32_t r, uint32_t send, size_t messages_received) const {
    const Event &rev = raw_.events[r], &sev = raw_.events[send];
    if (messages_received != 1 || !(rev.flags & kEventHasHash) || !(sev.flags & kEventHasHash)) return true;
    return rev.hash == sev.hash;
  }

  // Every datagram sent, queued at each socket it may reach; every
  // receive, listed at its socket. False when there is none.
  bool queueSends() {
    bool any = false;
    for (uint32_t i = 0; i < raw_.events.size(); ++i) {
      const Event& ev = raw_.events[i];
      if (ev.endpoint == kNone || !log::isData(ev.eventKind()) || (ev.flags & kEventFailed)) continue;
      if (!isDatagramType(eps_[ev.endpoint].type)) continue;
      any = true;
      if (log::categoryOf(ev.eventKind()) != Category::Send) {
        receives_[m_.queueEnd(ev.endpoint)].push_back(i);
        continue;
      }
      m_.t_.bytes_sent += ev.value;
      if (isQueueType(eps_[ev.endpoint].type))
        queue_[m_.queueEnd(ev.endpoint)].push_back({i, 0, ev.value});
      else
        queueAtDestinations(i);
    }
    return any;
  }

  // A datagram queued once at each socket it may reach, where the
  // receives of all the socket's ends take from it.
  void queueAtDestinations(uint32_t i) {
    destinations(i, &to_);
    messages(i, &parts_);
    for (uint32_t end : to_)
      for (uint32_t part = 0; part < parts_.size(); ++part) queue_[end].push_back({i, part, parts_[part]});
    if (to_.empty()) raw_.events[i].flags |= kEventExternal;
  }

  // A datagram is received once: a send's flag, or for a sendmmsg, its
  // messages taken so far.
  bool isUsed(const Datagram& d) const {
    if (!raw_.message_lengths.count(d.send)) return used_[d.send] != 0;
    auto it = used_parts_.find(d.send);
    return it != used_parts_.end() && d.part < it->second.size() && it->second[d.part];
  }

  void take(const Datagram& d) {
    auto multi = raw_.message_lengths.find(d.send);
    if (multi == raw_.message_lengths.end()) {
      used_[d.send] = 1;
      raw_.events[d.send].flags |= kEventReceivedWhole;  // same length
      return;
    }
    std::vector<uint8_t>& taken = used_parts_[d.send];
    taken.resize(multi->second.size(), 0);
    taken[d.part] = 1;
    if (std::all_of(taken.begin(), taken.end(), [](uint8_t u) { return u != 0; }))
      raw_.events[d.send].flags |= kEventReceivedWhole;
  }

  void matchAt(uint32_t ep) {
    auto& q = queue_[ep];
    // By the time each send began: a datagram cannot be received before its
    // send began, which is what stops the search below. (A send's return
    // can come long after the receive: a signal handler run on its way out
    // of the kernel, or a preemption, is part of the call's time.)
    std::stable_sort(q.begin(), q.end(), [&](const Datagram& a, const Datagram& b) {
      return m_.wallOf(a.send, false) < m_.wallOf(b.send, false);
    });
    size_t head = 0;
    for (uint32_t r : receives_[ep]) {
      Event& rev = raw_.events[r];
      const bool peek = rev.flags & kEventPeek;  // ties bytes to their send, moves none
      if (!peek) m_.t_.bytes_received += rev.value;
      messages(r, &parts_);
      for (uint32_t bytes : parts_)
        if (!receiveOne(q, head, r, bytes, peek)) {
          rev.flags |= kEventExternal;
          if (!peek) m_.t_.bytes_external += bytes;
        }
    }
  }

  // One message of receive r: the first queued datagram that fits.
  bool receiveOne(const std::vector<Datagram>& q, size_t& head, uint32_t r, uint32_t bytes, bool peek) {
    auto& edges = m_.edges_;
    for (size_t k = head; k < q.size() && k < head + 256; ++k) {
      const Datagram& d = q[k];
      if (d.bytes != bytes || isUsed(d)) continue;
      if (m_.wallOf(d.send, false) > m_.wallOf(r, true)) break;
      // Sends that began in one order can arrive in the other: where the
      // datagram came from and what it holds must be the send's.
      if (!m_.fromSender(r, d.send) || !sameBytes(r, d.send, parts_.size())) continue;
      // Two messages of one sendmmsg taken by one recvmmsg: one edge.
      if (!edges.empty() && edges.back().from == d.send && edges.back().to == r &&
          edges.back().why == Edge::Why::Message)
        edges.back().bytes += bytes;
      else
        edges.push_back(makeEdge(d.send, Edge::Why::Message, r, bytes));
      if (!peek) {
        take(d);
        m_.t_.bytes_matched += bytes;
      }
      while (head < q.size() && isUsed(q[head])) ++head;
      return true;
    }
    return false;
  }

  Merger& m_;
  RawRecording& raw_;
  const std::vector<Endpoint>& eps_;
  std::vector<std::vector<Datagram>> queue_;     // per queue's end (queueEnd): the datagrams sent to it
  std::vector<std::vector<uint32_t>> receives_;  // per queue's end (queueEnd)
  std::map<std::pair<uint32_t, std::string>, std::vector<uint32_t>> cache_;
  std::vector<uint32_t> parts_, to_;
  std::vector<uint8_t> used_;
  std::map<uint32_t, std::vector<uint8_t>> used_parts_;
};

void Merger::matchDatagrams() {
  const auto& eps = raw_.endpoints;
  // Most recordings have none: no pass over their events then.
  bool datagrams = false;
  for (uint32_t k = 0; k < eps.size(); ++k)
    datagrams |= isDatagramType(eps[k].type) && (raw_.data_sends[k] || raw_.data_receives[k]);
  if (!datagrams) return;
  // A socket the kernel bound on its first send (a client's sendto, or
  // its connect) was recorded unbound: where its datagrams came from is
  // learned from the receives they were matched to, and the matching is
  // done again with it (the replies sent there are then its).
  const size_t edges_before = edges_.size();
  const uint64_t sent_before = t_.bytes_sent, received_before = t_.bytes_received, matched_before = t_.bytes_matched,
                 external_before = t_.bytes_external;
  for (int pass = 0;; ++pass) {
    if (!DatagramPass(*this).run()) return;
    if (pass == 1 || !learnAddresses(edges_before)) break;
    edges_.resize(edges_before);
    t_.bytes_sent = sent_before;
    t_.bytes_received = received_before;
    t_.bytes_matched = matched_before;
    t_.bytes_external = external_before;
    for (Event& ev : raw_.events)
      if (ev.endpoint != kNone && log::isData(ev.eventKind()) && isDatagramType(eps[ev.endpoint].type))
        ev.flags &= static_cast<uint8_t>(~(kEventExternal | kEventReceivedWhole));
  }
}

// A receive's source address is its sender's address, when both are known
// (a socket the kernel has yet to bind is not).
bool Merger::fromSender(uint32_t r, uint32_t send) const {
  auto isIp = [](const std::string& a) {
    sa_family_t family = 0;
    if (a.size() >= sizeof family) std::memcpy(&family, a.data(), sizeof family);
    return family == AF_INET || family == AF_INET6;
  };
  auto source = raw_.addresses.find(r);
  if (source == raw_.addresses.end()) return true;
  const std::string& local = raw_.endpoints[raw_.events[send].endpoint].local_address;
  if (!isIp(local) || !isIp(source->second) || unboundAddress(local) || unboundAddress(source->second) ||
      local.compare(0, 2, source->second, 0, 2) != 0)
    return true;  // unknown, or another family (an IPv4 peer of a dual-stack socket)
  return sameAddress(source->second, local);
}

// A message queue is one queue whoever holds it, and so is a datagram
// socket shared after a fork, as in the kernel: its messages and receives
// are all one end's (the queue's first, the socket's first of its inode).
uint32_t Merger::queueEnd(uint32_t ep) const {
  const Endpoint& e = raw_.endpoints[ep];
  if (isQueueType(e.type)) return t_.channels[e.channel].endpoints.front();
  if (!e.ino) return ep;
  for (uint32_t k : t_.channels[e.channel].endpoints)
    if (raw_.endpoints[k].ino == e.ino) return k;
  return ep;
}

// The receives of a queue several processes hold, in the order they
// returned: the order they took its messages.
void Merger::orderQueueReceives(std::vector<std::vector<uint32_t>>* receives) const {
  for (uint32_t ep = 0; ep < receives->size(); ++ep) {
    auto& list = (*receives)[ep];
    const bool shared = isQueueType(raw_.endpoints[ep].type) || std::any_of(list.begin(), list.end(), [&](uint32_t r) {
                          return raw_.events[r].endpoint != ep;
                        });
    if (shared)
      std::stable_sort(list.begin(), list.end(),
                       [&](uint32_t a, uint32_t b) { return wallOf(a, true) < wallOf(b, true); });
  }
}

// An IP socket bound to no port (bound by the kernel at its first send)
// whose datagram was received: its address is where the receiver saw it
// come from. True when one was learned.
bool Merger::learnAddresses(size_t first_edge) {
  const auto unbound = unboundAddress;
  bool learned = false;
  for (size_t k = first_edge; k < edges_.size(); ++k) {
    const Edge& e = edges_[k];
    if (e.why != Edge::Why::Message) continue;
    const uint32_t from = raw_.events[e.from].endpoint;
    if (from == kNone || raw_.endpoints[from].type != ChannelType::Udp || !unbound(raw_.endpoints[from].local_address))
      continue;
    auto seen = raw_.addresses.find(e.to);
    if (seen == raw_.addresses.end() || seen->second.size() < 4 || unbound(seen->second)) continue;
    // Every end of that socket (shared after a fork) has that address.
    const uint64_t ino = raw_.endpoints[from].ino;
    for (Endpoint& ep : raw_.endpoints)
      if (ep.type == ChannelType::Udp && (ep.ino == ino && ino != 0 ? true : &ep == &raw_.endpoints[from]) &&
          unbound(ep.local_address)) {
        ep.local_address = seen->second;
        learned = true;
        // Its channel was named after the address it did not have yet.
        if (ep.channel < t_.channels.size() && t_.channels[ep.channel].type == ChannelType::Udp)
          t_.channels[ep.channel].recorded_name = "udp " + log::formatAddress(ep.local_address);
      }
  }
  return learned;
}

}  // namespace radar::trace::merging
