#include "export/pcapng.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "export/output_queue.h"
#include "log/kinds.h"

namespace radar::exporting {

using trace::Channel;
using trace::Endpoint;
using trace::Event;
using trace::kNone;
using trace::Trace;

uint16_t decodeAsPort(const std::string& protocol) {
  static const std::pair<const char*, uint16_t> kKnown[] = {
      {"http", 80},   {"https", 443},      {"tls", 443},     {"pgsql", 5432}, {"postgresql", 5432}, {"redis", 6379},
      {"resp", 6379}, {"mysql", 3306},     {"dns", 53},      {"smtp", 25},    {"ftp", 21},          {"imap", 143},
      {"pop", 110},   {"memcache", 11211}, {"mongo", 27017}, {"amqp", 5672},  {"mqtt", 1883},       {"ldap", 389},
      {"ssh", 22},    {"telnet", 23},      {"x11", 6000},    {"nntp", 119},   {"irc", 6667},        {"rtsp", 554}};
  for (const auto& [name, port] : kKnown)
    if (protocol == name) return port;
  if (protocol.empty() || protocol.size() > 5 || protocol.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  const unsigned long n = std::stoul(protocol);
  return n >= 1 && n <= 65535 ? static_cast<uint16_t>(n) : 0;
}

namespace {

constexpr uint32_t kLinkTypeRaw = 101;   // raw IPv4 or IPv6, by the version nibble
constexpr uint32_t kMaxSegment = 65495;  // data in one IPv4 packet with a 20-byte TCP header
constexpr uint16_t kFirstSidePort = 50000, kOtherSidePort = 50001;

struct Address {
  bool v6 = false;
  uint8_t ip[16] = {};
  uint16_t port = 0;
};

// struct sockaddr bytes, as the log keeps them. False for other families.
bool parseSockaddr(std::string_view bytes, Address* out) {
  if (bytes.size() < sizeof(sa_family_t)) return false;
  sa_family_t family;
  std::memcpy(&family, bytes.data(), sizeof family);
  if (family == AF_INET && bytes.size() >= sizeof(sockaddr_in)) {
    sockaddr_in in;
    std::memcpy(&in, bytes.data(), sizeof in);
    *out = {};
    std::memcpy(out->ip, &in.sin_addr, 4);
    out->port = ntohs(in.sin_port);
    return true;
  }
  if (family == AF_INET6 && bytes.size() >= sizeof(sockaddr_in6)) {
    sockaddr_in6 in6;
    std::memcpy(&in6, bytes.data(), sizeof in6);
    *out = {};
    out->v6 = true;
    std::memcpy(out->ip, &in6.sin6_addr, 16);
    out->port = ntohs(in6.sin6_port);
    return true;
  }
  return false;
}

// An IPv4 address of 127.128.0.0/9 for one side of a channel of its own.
Address synthesized(uint32_t channel, bool second_side, uint16_t port) {
  const uint32_t ip = 0x7f800000u + ((2 * (channel + 1) + (second_side ? 1 : 0)) & 0x7fffffu);
  Address a;
  a.ip[0] = static_cast<uint8_t>(ip >> 24);
  a.ip[1] = static_cast<uint8_t>(ip >> 16);
  a.ip[2] = static_cast<uint8_t>(ip >> 8);
  a.ip[3] = static_cast<uint8_t>(ip);
  a.port = port;
  return a;
}

// Headers are filled in place, `n` bytes added to `s` at a time: network
// order (big-endian) for IP, TCP and UDP, the host's for pcapng's fields.
struct Fill {
  Fill(std::string& s, size_t n) : at(s.size()) {
    s.resize(at + n);
    p = &s[at];
  }
  void u8(uint8_t v) { *p++ = static_cast<char>(v); }
  void be16(uint16_t v) {
    u8(static_cast<uint8_t>(v >> 8));
    u8(static_cast<uint8_t>(v));
  }
  void be32(uint32_t v) {
    be16(static_cast<uint16_t>(v >> 16));
    be16(static_cast<uint16_t>(v));
  }
  void host16(uint16_t v) { bytes(&v, 2); }
  void host32(uint32_t v) { bytes(&v, 4); }
  void bytes(const void* b, size_t n) {
    std::memcpy(p, b, n);
    p += n;
  }
  size_t at;  // where the header starts in the string
  char* p;    // valid until the string grows again
};

uint32_t sum16(const uint8_t* p, size_t n, uint32_t sum = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) sum += static_cast<uint32_t>(p[i] << 8 | p[i + 1]);
  if (n & 1) sum += static_cast<uint32_t>(p[n - 1] << 8);
  return sum;
}
uint16_t fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

// The side of a channel an event is on: the socket (both ends of a socket
// pair or connection are different sockets; a forked child's copy is the
// same one); a pipe's writers and its readers; for a terminal and the
// like, the processes' side.
uint64_t sideKey(const Endpoint& e, bool sending) {
  switch (e.type) {
    case log::ChannelType::Pipe:
    case log::ChannelType::Fifo:
    case log::ChannelType::MessageQueue:
    case log::ChannelType::SysvMessageQueue:
    case log::ChannelType::EventFd:
      return sending ? 1 : 2;
    case log::ChannelType::UnixStream:
    case log::ChannelType::UnixDgram:
    case log::ChannelType::UnixSeqpacket:
    case log::ChannelType::Tcp:
    case log::ChannelType::Udp:
    case log::ChannelType::OtherSocket:
      if (e.ino) return e.ino;
      return std::hash<std::string>{}(e.local_address) | 1;
    default:
      return 0;  // the process side; the other side is whoever is at the other end
  }
}

// What goes out as UDP datagrams, one per message (a socket of another
// family stays a stream of bytes).
bool isDatagramChannel(log::ChannelType t) {
  return (log::isDatagramType(t) && t != log::ChannelType::OtherSocket) || log::isCounterType(t);
}

class Writer {
 public:
  Writer(const Trace& t, const PcapngOptions& options, std::FILE* out) : t_(t), options_(options), q_(out) {}

  bool run(PcapngCounts* counts, std::string* error) {
    sectionHeader();
    for (const auto& p : t_.processes) {
      processBlock(p);
      // "curl[5120], event ": the start of its packets' comments.
      comment_start_.push_back(t_.label(p.index) + ", event ");
    }
    channels_.resize(t_.channels.size());
    for (uint32_t c = 0; c < t_.channels.size(); ++c) channels_[c].other_port = portFor(c);
    findOpeners();
    // The messages' bytes are read from the logs here, a batch ahead of
    // the packets built from them on a thread of their own (the trace's
    // readers and their buffers stay with this thread).
    std::string why;
    std::thread builder([&] { buildAll(&why); });
    fetchAll();
    builder.join();
    if (!q_.finish(error)) return false;
    if (!why.empty()) {
      *error = why;
      return false;
    }
    counts->packets = packets_;
    counts->payload_bytes = payload_bytes_;
    for (const auto& c : channels_) counts->streams += c.started || c.datagrams;
    return true;
  }

 private:
  struct Direction {
    uint32_t next_seq = 0;
    bool fin = false;
  };
  // What every block of one packet shares.
  struct Packet {
    uint32_t iface = 0;
    int64_t ns = 0;
    uint32_t process = 0;
    bool outbound = false;
    const std::string& comment;
  };
  struct ChannelState {
    bool used = false, started = false, datagrams = false;
    uint64_t first_key = 0;  // the side key that sent first
    bool first_sent = true;  // false: the first data came in from outside to first_key
    Direction dir[2];        // [0]: first side → other, [1]: back
    uint16_t other_port = kOtherSidePort;
  };

  // A connection's first side is the one that connected, known from a
  // recorded connect or accept; other channels', the one that sent first.
  void findOpeners() {
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      const Event& e = t_.events[i];
      const log::Kind k = e.eventKind();
      if ((k != log::Kind::Connect && k != log::Kind::Accept) || e.endpoint == kNone || trace::isConnectOutcome(e))
        continue;
      if (k == log::Kind::Connect && (e.flags & trace::kEventFailed) && e.value != EINPROGRESS) continue;
      const Endpoint& ep = t_.endpoints[e.endpoint];
      ChannelState& c = channels_[ep.channel];
      if (c.used) continue;
      c.used = true;
      c.first_key = sideKey(ep, true);
      c.first_sent = k == log::Kind::Connect;  // an accept's socket is the other side
    }
  }

  // Which side of its channel an endpoint is: 0 the side that opened it.
  int sideOf(ChannelState& c, uint64_t key, bool sending) {
    if (!c.used) {
      c.used = true;
      c.first_key = key;
      c.first_sent = sending;
    }
    const bool same = key == c.first_key;
    return (same == c.first_sent) ? 0 : 1;
  }

  uint16_t portFor(uint32_t channel) const {
    const Channel& ch = t_.channels[channel];
    for (const auto& key : {std::to_string(channel + 1), t_.channelName(ch.index)}) {
      auto it = options_.decode_as.find(key);
      if (it != options_.decode_as.end()) return it->second;
    }
    return kOtherSidePort;
  }

  // The addresses of both sides of a channel as seen from `endpoint` (src
  // of its sends: [0] its own, [1] the other).
  void endsOf(uint32_t channel, const Endpoint& ep, int side, std::string_view datagram_address, bool sending,
              Address out[2]) {
    const Channel& ch = t_.channels[channel];
    if (ch.type == log::ChannelType::Tcp || ch.type == log::ChannelType::Udp) {
      Address mine, theirs;
      const bool have_mine = parseSockaddr(ep.local_address, &mine);
      const bool have_theirs =
          parseSockaddr(datagram_address.empty() ? std::string_view(ep.peer_address) : datagram_address, &theirs);
      if (have_mine && have_theirs) {
        out[0] = mine;
        out[1] = theirs;
        return;
      }
    }
    (void)sending;
    const uint16_t port = channels_[channel].other_port;
    out[0] = synthesized(channel, side != 0, side == 0 ? kFirstSidePort : port);
    out[1] = synthesized(channel, side == 0, side == 0 ? port : kFirstSidePort);
  }

  // ---- the messages' bytes, read ahead ----

  // A message to write as packets (or a receive's end of file), with the
  // bytes the recording kept of it.
  struct Item {
    enum Kind : uint8_t { kSend, kReceive, kEnd };
    uint32_t event = 0;
    Kind kind = kSend;
    uint64_t outside = 0;           // a receive's bytes that no recorded send produced
    uint64_t omitted = 0;           // bytes the recording did not keep
    size_t at = 0, size = 0;        // the kept bytes, in the batch's `bytes`
    std::string address;            // a datagram's peer
    std::vector<uint64_t> lengths;  // datagrams: each one's length
  };
  struct Batch {
    std::vector<Item> items;
    std::string bytes;
    std::string error;  // reading stopped here
    bool last = false;
    void clear() {
      items.clear();
      bytes.clear();
      error.clear();
      last = false;
    }
  };
  // Two batches go back and forth: one filled while the other becomes packets.
  class Batches {
   public:
    Batch* takeEmpty() { return take(empty_); }
    Batch* takeFull() { return take(full_); }
    void handOver(Batch* b) { put(full_, b); }
    void giveBack(Batch* b) {
      b->clear();
      put(empty_, b);
    }

   private:
    Batch* take(std::vector<Batch*>& from) {
      std::unique_lock<std::mutex> hold(lock_);
      changed_.wait(hold, [&] { return !from.empty(); });
      Batch* b = from.back();
      from.pop_back();
      return b;
    }
    void put(std::vector<Batch*>& to, Batch* b) {
      {
        std::lock_guard<std::mutex> hold(lock_);
        to.insert(to.begin(), b);
      }
      changed_.notify_all();
    }
    Batch storage_[2];
    std::mutex lock_;
    std::condition_variable changed_;
    std::vector<Batch*> empty_{&storage_[0], &storage_[1]}, full_;
  };
  static constexpr size_t kBatchItems = 4096, kBatchBytes = 4 << 20;

  // On the builder's thread: the packets of every batch, until the last.
  void buildAll(std::string* error) {
    for (bool last = false; !last;) {
      Batch* batch = batches_.takeFull();
      last = batch->last;  // a batch that says why reading stopped is the last
      for (const Item& item : batch->items) {
        if (item.kind == Item::kEnd)
          endOfFile(item.event);
        else
          data(item, std::string_view(batch->bytes).substr(item.at, item.size));
      }
      if (!batch->error.empty()) *error = batch->error;
      batches_.giveBack(batch);
    }
  }

  // Every message, in the story's order, its bytes read from the logs.
  void fetchAll() {
    Batch* batch = batches_.takeEmpty();
    auto handOver = [&] {
      batches_.handOver(batch);
      batch = batches_.takeEmpty();
    };
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      tellProgress(options_.progress, i, t_.events.size());
      const Event& e = t_.events[i];
      if (!log::isData(e.eventKind()) || e.endpoint == kNone) continue;
      if (e.flags & (trace::kEventFailed | trace::kEventPeek)) continue;
      const bool send = log::categoryOf(e.eventKind()) == log::Category::Send;
      Item item;
      item.event = i;
      item.kind = send ? Item::kSend : Item::kReceive;
      if (!send && (e.flags & trace::kEventEof)) {
        item.kind = Item::kEnd;
      } else if (!send) {
        if (!(e.flags & (trace::kEventExternal | trace::kEventUnmatched))) continue;
        uint64_t matched = 0;
        for (auto [b, end] = t_.incoming(i); b != end; ++b)
          if (b->why == trace::Edge::Why::Message) matched += b->bytes;
        item.outside = e.value > matched ? e.value - matched : 0;
        if (!item.outside) continue;
      }
      if (item.kind != Item::kEnd) {
        if (!e.value) continue;
        if (!fetch(&item, batch)) break;
      }
      batch->items.push_back(std::move(item));
      if (batch->items.size() >= kBatchItems || batch->bytes.size() >= kBatchBytes) handOver();
    }
    batch->last = true;
    batches_.handOver(batch);
  }

  bool fetch(Item* item, Batch* batch) {
    const uint32_t i = item->event;
    const Endpoint& ep = t_.endpoints[t_.events[i].endpoint];
    if (isDatagramChannel(t_.channels[ep.channel].type)) {
      log::Record r;
      std::string payload;
      std::vector<std::string> strings;
      if (!t_.record(i, &r, &payload, &strings, &batch->error)) return false;
      item->address.assign(r.address);
      item->lengths.assign(r.lengths.begin(), r.lengths.end());
    }
    std::string_view bytes;
    if (!t_.payloadView(i, &bytes, &batch->error, &item->omitted)) return false;
    item->at = batch->bytes.size();
    item->size = bytes.size();
    batch->bytes.append(bytes);
    return true;
  }

  // ---- packets ----

  void data(const Item& item, std::string_view bytes) {
    const uint32_t i = item.event;
    const bool send = item.kind == Item::kSend;
    const uint64_t outside = item.outside;
    const Event& e = t_.events[i];
    const Endpoint& ep = t_.endpoints[e.endpoint];
    const uint32_t channel = ep.channel;
    ChannelState& c = channels_[channel];
    const int side = sideOf(c, sideKey(ep, send), send);
    const bool datagrams = isDatagramChannel(t_.channels[channel].type);
    const std::string& address = item.address;
    std::vector<uint64_t> lengths = item.lengths;
    uint64_t omitted = item.omitted;
    uint64_t total = bytes.size() + omitted;
    if (!send && outside < total) {  // the tail: the bytes after those of recorded sends
      const uint64_t skip = total - outside;
      bytes = bytes.substr(std::min<uint64_t>(skip, bytes.size()));
      total = outside;
      omitted = total - bytes.size();
    }
    Address ends[2];
    endsOf(channel, ep, side, address, send, ends);
    const Address& src = send ? ends[0] : ends[1];
    const Address& dst = send ? ends[1] : ends[0];
    const int dir = send ? side : 1 - side;
    const Packet packet{interfaceOf(e.process, channel), t_.wallTime(i), e.process, send,
                        describe(i, send ? " on " : " from outside the recording on ")};
    if (datagrams) {
      c.datagrams = true;
      if (lengths.empty()) lengths.push_back(total);
      uint64_t at = 0;
      for (uint64_t n : lengths) {
        const std::string_view piece = at < bytes.size() ? bytes.substr(at, n) : std::string_view();
        udp(packet, src, dst, piece, n);
        at += n;
      }
      return;
    }
    if (!c.started) {  // the stream's first bytes: no handshake is made up before them
      c.started = true;
      c.dir[0].next_seq = isn(channel, 0);
      c.dir[1].next_seq = isn(channel, 1);
    }
    Direction& d = c.dir[dir];
    const Direction& back = c.dir[1 - dir];
    for (uint64_t at = 0; at < total || (at == 0 && total == 0); at += kMaxSegment) {
      const uint64_t n = std::min<uint64_t>(kMaxSegment, total - at);
      const std::string_view kept = at < bytes.size() ? bytes.substr(at, n) : std::string_view();
      tcp(packet, src, dst, d.next_seq, back.next_seq, 0x18, kept, n);
      d.next_seq += static_cast<uint32_t>(n);
      if (!n) break;
    }
    payload_bytes_ += total;
  }

  // A receive that saw the end of file: the other side's FIN, once.
  void endOfFile(uint32_t i) {
    const Event& e = t_.events[i];
    const Endpoint& ep = t_.endpoints[e.endpoint];
    ChannelState& c = channels_[ep.channel];
    if (!c.started || isDatagramChannel(t_.channels[ep.channel].type)) return;
    const int side = sideOf(c, sideKey(ep, false), false);
    const int dir = 1 - side;
    Direction& d = c.dir[dir];
    if (d.fin) return;
    d.fin = true;
    Address ends[2];
    endsOf(ep.channel, ep, side, {}, false, ends);
    const Packet packet{interfaceOf(e.process, ep.channel), t_.wallTime(i), e.process, false,
                        describe(i, " saw the end of file on ")};
    tcp(packet, ends[1], ends[0], d.next_seq++, c.dir[1 - dir].next_seq, 0x11, {}, 0);
  }

  static uint32_t isn(uint32_t channel, int dir) { return (channel + 1) * 0x9e3779b1u ^ (dir ? 0x5bd1e995u : 0); }

  // "curl[5120], event 52: send() on tcp 127.0.0.1:42612 - 127.0.0.1:8088"
  // Built in one string kept for it: a packet's comment costs no allocation.
  const std::string& describe(uint32_t i, const char* what) {
    const Event& e = t_.events[i];
    std::string& s = comment_;
    s = comment_start_[e.process];
    appendNumber(s, i + 1);
    s += ": ";
    s += log::kindName(e.eventKind());
    s += "()";
    if (e.thread) {
      s += " in thread ";
      appendNumber(s, e.thread + 1);
    }
    s += what;
    s += t_.channelName(t_.channelOf(i));
    return s;
  }
  static void appendNumber(std::string& s, uint64_t n) {
    char digits[20];
    int k = 0;
    do digits[k++] = static_cast<char>('0' + n % 10);
    while ((n /= 10) != 0);
    while (k) s.push_back(digits[--k]);
  }

  void ipHeader(std::string& s, const Address& src, const Address& dst, uint8_t protocol, uint32_t length) {
    if (src.v6 || dst.v6) {
      // Both sides of one socket are of one family; a v4 address beside a
      // v6 one is mapped.
      Fill f(s, 40);
      f.be32(0x60000000u);
      f.be16(static_cast<uint16_t>(std::min<uint32_t>(length, 0xffff)));
      f.u8(protocol);
      f.u8(64);
      for (const Address* a : {&src, &dst}) {
        uint8_t ip[16] = {};
        if (a->v6) {
          std::memcpy(ip, a->ip, 16);
        } else {
          ip[10] = ip[11] = 0xff;
          std::memcpy(ip + 12, a->ip, 4);
        }
        f.bytes(ip, 16);
      }
      return;
    }
    Fill f(s, 20);
    char* header = f.p;
    f.u8(0x45);
    f.u8(0);
    f.be16(static_cast<uint16_t>(std::min<uint32_t>(20 + length, 0xffff)));
    f.be16(static_cast<uint16_t>(ip_id_++));
    f.be16(0x4000);  // don't fragment
    f.u8(64);
    f.u8(protocol);
    f.be16(0);
    f.bytes(src.ip, 4);
    f.bytes(dst.ip, 4);
    const uint16_t sum = fold(sum16(reinterpret_cast<const uint8_t*>(header), 20));
    header[10] = static_cast<char>(sum >> 8);
    header[11] = static_cast<char>(sum);
  }

  // `ip`: where the packet's IP header starts in the buffer.
  uint32_t pseudoSum(const std::string& buffer, size_t ip, bool v6, uint8_t protocol, uint32_t length) const {
    const auto* p = reinterpret_cast<const uint8_t*>(buffer.data() + ip);
    uint32_t sum = v6 ? sum16(p + 8, 32) : sum16(p + 12, 8);
    return sum + protocol + (length >> 16) + (length & 0xffff);
  }

  // A TCP segment of `length` bytes of which `kept` were recorded.
  void tcp(const Packet& packet, const Address& src, const Address& dst, uint32_t seq, uint32_t ack, uint8_t flags,
           std::string_view kept, uint64_t length) {
    const size_t start = beginPacket(packet);
    std::string& s = q_.buffer();
    const size_t ip = s.size();
    const bool v6 = src.v6 || dst.v6;
    ipHeader(s, src, dst, IPPROTO_TCP, static_cast<uint32_t>(20 + length));
    Fill f(s, 20);
    const size_t at = f.at;
    f.be16(src.port);
    f.be16(dst.port);
    f.be32(seq);
    f.be32(ack);
    f.u8(0x50);
    f.u8(flags);
    f.be16(0xffff);
    f.be16(0);
    f.be16(0);
    s.append(kept);
    if (kept.size() == length) {  // a checksum only over bytes that are all there
      uint32_t sum = pseudoSum(s, ip, v6, IPPROTO_TCP, static_cast<uint32_t>(20 + length));
      const uint16_t c = fold(sum16(reinterpret_cast<const uint8_t*>(s.data() + at), s.size() - at, sum));
      s[at + 16] = static_cast<char>(c >> 8);
      s[at + 17] = static_cast<char>(c);
    }
    endPacket(start, s.size() - ip + (length - kept.size()), packet);
  }

  void udp(const Packet& packet, const Address& src, const Address& dst, std::string_view kept, uint64_t length) {
    const size_t start = beginPacket(packet);
    std::string& s = q_.buffer();
    const size_t ip = s.size();
    const bool v6 = src.v6 || dst.v6;
    const uint32_t udp_length = static_cast<uint32_t>(std::min<uint64_t>(8 + length, 0xffff));
    ipHeader(s, src, dst, IPPROTO_UDP, udp_length);
    Fill f(s, 8);
    const size_t at = f.at;
    f.be16(src.port);
    f.be16(dst.port);
    f.be16(static_cast<uint16_t>(udp_length));
    f.be16(0);
    s.append(kept.substr(0, 0xffff - 8));
    if (kept.size() == length && 8 + length <= 0xffff) {
      const uint32_t sum = pseudoSum(s, ip, v6, IPPROTO_UDP, udp_length);
      uint16_t c = fold(sum16(reinterpret_cast<const uint8_t*>(s.data() + at), s.size() - at, sum));
      if (!c) c = 0xffff;
      s[at + 6] = static_cast<char>(c >> 8);
      s[at + 7] = static_cast<char>(c);
    }
    payload_bytes_ += length;
    endPacket(start, s.size() - ip + (length - std::min<uint64_t>(length, kept.size())), packet);
  }

  // ---- pcapng blocks (host byte order: the byte-order magic says which) ----

  void raw32(std::string& b, uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
  void raw16(std::string& b, uint16_t v) { b.append(reinterpret_cast<const char*>(&v), 2); }
  void pad(std::string& b) { b.append((4 - b.size() % 4) % 4, '\0'); }
  void option(std::string& b, uint16_t code, std::string_view value) {
    Fill f(b, 4);
    f.host16(code);
    f.host16(static_cast<uint16_t>(value.size()));
    b.append(value);
    pad(b);
  }
  static void store32(std::string& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }
  void block(uint32_t type, std::string& body) {
    std::string& b = q_.buffer();
    const uint32_t length = static_cast<uint32_t>(12 + body.size());
    raw32(b, type);
    raw32(b, length);
    b.append(body);
    raw32(b, length);
    q_.recordEnded();
  }

  void sectionHeader() {
    std::string b;
    raw32(b, 0x1a2b3c4d);
    raw16(b, 1);
    raw16(b, 0);
    const int64_t unknown = -1;  // section length
    b.append(reinterpret_cast<const char*>(&unknown), 8);
    option(b, 4, options_.application);  // shb_userappl
    option(b, 0, {});
    block(0x0a0d0d0a, b);
  }

  // One interface per kind of channel and host ("pipe on web1"), made
  // where its first packet goes: Wireshark lists and filters them
  // (frame.interface_name), and its description says how the kind is
  // carried.
  uint32_t interfaceOf(uint32_t process, uint32_t channel) {
    const std::string& host = t_.processes[process].host;
    const log::ChannelType type = t_.channels[channel].type;
    auto [it, added] = interfaces_.emplace(std::make_pair(host, type), static_cast<uint32_t>(interfaces_.size()));
    if (added) interfaceBlock(host.empty() ? "this host" : host, type);
    return it->second;
  }

  void interfaceBlock(const std::string& host, log::ChannelType type) {
    const std::string kind = log::channelTypeName(type);
    const bool ip = type == log::ChannelType::Tcp || type == log::ChannelType::Udp;
    const std::string description = ip ? kind + " of " + host + " as radar recorded them, with their addresses"
                                       : kind + "s of " + host + " as radar recorded them, carried in " +
                                             (isDatagramChannel(type) ? "UDP datagrams" : "TCP segments") +
                                             " between addresses of 127.128.0.0/9 that stand for the channel's sides";
    std::string b;
    raw16(b, kLinkTypeRaw);
    raw16(b, 0);
    raw32(b, 0);                                // no snapshot limit
    option(b, 2, kind + " on " + host);         // if_name
    option(b, 3, description);                  // if_description
    option(b, 9, std::string_view("\x09", 1));  // if_tsresol: nanoseconds
    option(b, 0, {});
    block(1, b);
  }

  // Apple's Darwin Process Event Block (pid, name), one per process image
  // in the trace's order; a packet names its own by index (below).
  // Wireshark reads both and shows the packet's process.
  void processBlock(const trace::Process& p) {
    std::string b;
    raw32(b, static_cast<uint32_t>(p.pid));
    option(b, 2, t_.processName(p.index));  // dpeb_name
    option(b, 0, {});
    block(0x80000001u, b);
  }

  // An Enhanced Packet Block, built in place: its header (lengths filled
  // in by endPacket), then the packet, then its options.
  size_t beginPacket(const Packet& packet) {
    std::string& b = q_.buffer();
    const uint64_t ts = static_cast<uint64_t>(packet.ns < 0 ? 0 : packet.ns);
    Fill f(b, 28);
    f.host32(6);
    f.host32(0);  // block length
    f.host32(packet.iface);
    f.host32(static_cast<uint32_t>(ts >> 32));
    f.host32(static_cast<uint32_t>(ts));
    f.host32(0);  // captured length
    f.host32(0);  // original length
    return f.at;
  }
  // The options: the comment, the direction (a send goes out of its
  // process, bytes from outside come in), and the process by its block.
  void endPacket(size_t start, uint64_t original, const Packet& packet) {
    std::string& b = q_.buffer();
    store32(b, start + 20, static_cast<uint32_t>(b.size() - (start + 28)));
    store32(b, start + 24, static_cast<uint32_t>(std::min<uint64_t>(original, 0xffffffffu)));
    pad(b);
    option(b, 1, std::string_view(packet.comment).substr(0, 0xffff));  // opt_comment
    const uint32_t flags = packet.outbound ? 2 : 1, process = packet.process;
    option(b, 2, std::string_view(reinterpret_cast<const char*>(&flags), 4));         // epb_flags: direction
    option(b, 0x8001, std::string_view(reinterpret_cast<const char*>(&process), 4));  // Darwin process block id
    option(b, 0, {});
    const uint32_t length = static_cast<uint32_t>(b.size() + 4 - start);
    store32(b, start + 4, length);
    raw32(b, length);
    ++packets_;
    q_.recordEnded();
  }

  const Trace& t_;
  const PcapngOptions& options_;
  Batches batches_;
  OutputQueue q_;
  std::map<std::pair<std::string, log::ChannelType>, uint32_t> interfaces_;  // by host and kind
  std::vector<std::string> comment_start_;                                   // per process
  std::vector<ChannelState> channels_;
  std::string comment_;
  uint16_t ip_id_ = 1;
  uint64_t packets_ = 0, payload_bytes_ = 0;
};

}  // namespace

bool writePcapng(const Trace& trace, const PcapngOptions& options, std::FILE* out, PcapngCounts* counts,
                 std::string* error) {
  PcapngCounts ignored;
  return Writer(trace, options, out).run(counts ? counts : &ignored, error);
}

}  // namespace radar::exporting
