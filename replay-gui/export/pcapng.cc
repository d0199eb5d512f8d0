#include "export/pcapng.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <vector>

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

void put16(std::string& s, uint16_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v));
}
void put32(std::string& s, uint32_t v) {
  put16(s, static_cast<uint16_t>(v >> 16));
  put16(s, static_cast<uint16_t>(v));
}

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

bool isDatagramChannel(log::ChannelType t) { return t == log::ChannelType::Udp || t == log::ChannelType::UnixDgram; }

class Writer {
 public:
  Writer(const Trace& t, const PcapngOptions& options, std::FILE* out) : t_(t), options_(options), out_(out) {}

  bool run(PcapngCounts* counts, std::string* error) {
    sectionHeader();
    for (const auto& p : t_.processes) {
      if (interfaces_.emplace(p.host, static_cast<uint32_t>(interfaces_.size())).second) interfaceBlock(p.host);
    }
    channels_.resize(t_.channels.size());
    findOpeners();
    for (uint32_t i = 0; i < t_.events.size(); ++i) {
      const Event& e = t_.events[i];
      if (!log::isData(e.eventKind()) || e.endpoint == kNone) continue;
      if (e.flags & (trace::kEventFailed | trace::kEventPeek)) continue;
      const bool send = log::categoryOf(e.eventKind()) == log::Category::Send;
      if (!send && (e.flags & trace::kEventEof)) {
        endOfFile(i);
        continue;
      }
      uint64_t outside = 0;  // a receive's bytes that no recorded send produced
      if (!send) {
        if (!(e.flags & (trace::kEventExternal | trace::kEventUnmatched))) continue;
        uint64_t matched = 0;
        for (auto [b, end] = t_.incoming(i); b != end; ++b)
          if (b->why == trace::Edge::Why::Message) matched += b->bytes;
        outside = e.value > matched ? e.value - matched : 0;
        if (!outside) continue;
      }
      if (!e.value) continue;
      if (!data(i, send, outside, error)) return false;
    }
    if (std::fflush(out_) != 0 || std::ferror(out_)) {
      *error = std::string("cannot write: ") + std::strerror(errno);
      return false;
    }
    counts->packets = packets_;
    counts->payload_bytes = payload_bytes_;
    for (const auto& c : channels_) counts->streams += c.handshaken || c.datagrams;
    return true;
  }

 private:
  struct Direction {
    uint32_t next_seq = 0;
    bool fin = false;
  };
  struct ChannelState {
    bool used = false, handshaken = false, datagrams = false;
    uint64_t first_key = 0;  // the side key that sent first
    bool first_sent = true;  // false: the first data came in from outside to first_key
    Direction dir[2];        // [0]: first side → other, [1]: back
    uint16_t other_port = kOtherSidePort;
  };

  // A connection's first side is the one that connected (its SYN comes
  // first), known from a recorded connect or accept; other channels', the
  // one that sent first.
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
    const uint16_t port = portFor(channel);
    out[0] = synthesized(channel, side != 0, side == 0 ? kFirstSidePort : port);
    out[1] = synthesized(channel, side == 0, side == 0 ? port : kFirstSidePort);
  }

  bool data(uint32_t i, bool send, uint64_t outside, std::string* error) {
    const Event& e = t_.events[i];
    const Endpoint& ep = t_.endpoints[e.endpoint];
    const uint32_t channel = ep.channel;
    ChannelState& c = channels_[channel];
    const int side = sideOf(c, sideKey(ep, send), send);
    const bool datagrams = isDatagramChannel(t_.channels[channel].type);
    std::string address;
    std::vector<uint64_t> lengths;
    if (datagrams) {
      log::Record r;
      std::string payload;
      std::vector<std::string> strings;
      if (!t_.record(i, &r, &payload, &strings, error)) return false;
      address.assign(r.address);
      lengths.assign(r.lengths.begin(), r.lengths.end());
    }
    std::string_view bytes;
    uint64_t omitted = 0;
    if (!t_.payloadView(i, &bytes, error, &omitted)) return false;
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
    const uint32_t iface = interfaces_[t_.processes[e.process].host];
    const int64_t ns = t_.wallTime(i);
    const std::string comment = describe(i, send);
    if (datagrams) {
      c.datagrams = true;
      if (lengths.empty()) lengths.push_back(total);
      uint64_t at = 0;
      for (uint64_t n : lengths) {
        const std::string_view piece = at < bytes.size() ? bytes.substr(at, n) : std::string_view();
        udp(iface, ns, src, dst, piece, n, comment);
        at += n;
      }
      return true;
    }
    if (!c.handshaken) {
      c.handshaken = true;
      // Side 0 opened the connection (see findOpeners).
      const Address& a = dir == 0 ? src : dst;
      const Address& b = dir == 0 ? dst : src;
      c.dir[0].next_seq = isn(channel, 0);
      c.dir[1].next_seq = isn(channel, 1);
      tcp(iface, ns, a, b, c.dir[0].next_seq++, 0, 0x02, {}, 0, "");
      tcp(iface, ns, b, a, c.dir[1].next_seq++, c.dir[0].next_seq, 0x12, {}, 0, "");
      tcp(iface, ns, a, b, c.dir[0].next_seq, c.dir[1].next_seq, 0x10, {}, 0, "");
    }
    Direction& d = c.dir[dir];
    const Direction& back = c.dir[1 - dir];
    for (uint64_t at = 0; at < total || (at == 0 && total == 0); at += kMaxSegment) {
      const uint64_t n = std::min<uint64_t>(kMaxSegment, total - at);
      const std::string_view kept = at < bytes.size() ? bytes.substr(at, n) : std::string_view();
      tcp(iface, ns, src, dst, d.next_seq, back.next_seq, 0x18, kept, n, comment);
      d.next_seq += static_cast<uint32_t>(n);
      if (!n) break;
    }
    payload_bytes_ += total;
    return true;
  }

  // A receive that saw the end of file: the other side's FIN, once.
  void endOfFile(uint32_t i) {
    const Event& e = t_.events[i];
    const Endpoint& ep = t_.endpoints[e.endpoint];
    ChannelState& c = channels_[ep.channel];
    if (!c.handshaken || isDatagramChannel(t_.channels[ep.channel].type)) return;
    const int side = sideOf(c, sideKey(ep, false), false);
    const int dir = 1 - side;
    Direction& d = c.dir[dir];
    if (d.fin) return;
    d.fin = true;
    Address ends[2];
    endsOf(ep.channel, ep, side, {}, false, ends);
    tcp(interfaces_[t_.processes[e.process].host], t_.wallTime(i), ends[1], ends[0], d.next_seq++,
        c.dir[1 - dir].next_seq, 0x11, {}, 0, describe(i, false));
  }

  static uint32_t isn(uint32_t channel, int dir) { return (channel + 1) * 0x9e3779b1u ^ (dir ? 0x5bd1e995u : 0); }

  // "curl[5120], event 52: send() on tcp 127.0.0.1:42612 - 127.0.0.1:8088"
  std::string describe(uint32_t i, bool send) const {
    const Event& e = t_.events[i];
    const auto& p = t_.processes[e.process];
    std::string s = t_.label(p.index) + ", event " + std::to_string(i + 1) + ": " + log::kindName(e.eventKind()) + "()";
    if (e.thread) s += " in thread " + std::to_string(e.thread + 1);
    s += send ? " on " : " from outside the recording on ";
    s += t_.channelName(t_.channelOf(i));
    return s;
  }

  void ipHeader(std::string& s, const Address& src, const Address& dst, uint8_t protocol, uint32_t length) {
    if (src.v6 || dst.v6) {
      // Both sides of one socket are of one family; a v4 address beside a
      // v6 one is mapped.
      put32(s, 0x60000000u);
      put16(s, static_cast<uint16_t>(std::min<uint32_t>(length, 0xffff)));
      s.push_back(static_cast<char>(protocol));
      s.push_back(64);
      for (const Address* a : {&src, &dst}) {
        uint8_t ip[16] = {};
        if (a->v6) {
          std::memcpy(ip, a->ip, 16);
        } else {
          ip[10] = ip[11] = 0xff;
          std::memcpy(ip + 12, a->ip, 4);
        }
        s.append(reinterpret_cast<const char*>(ip), 16);
      }
      return;
    }
    const size_t at = s.size();
    s.push_back(0x45);
    s.push_back(0);
    put16(s, static_cast<uint16_t>(std::min<uint32_t>(20 + length, 0xffff)));
    put16(s, static_cast<uint16_t>(ip_id_++));
    put16(s, 0x4000);  // don't fragment
    s.push_back(64);
    s.push_back(static_cast<char>(protocol));
    put16(s, 0);
    s.append(reinterpret_cast<const char*>(src.ip), 4);
    s.append(reinterpret_cast<const char*>(dst.ip), 4);
    const uint16_t sum = fold(sum16(reinterpret_cast<const uint8_t*>(s.data() + at), 20));
    s[at + 10] = static_cast<char>(sum >> 8);
    s[at + 11] = static_cast<char>(sum);
  }

  uint32_t pseudoSum(const std::string& packet, bool v6, uint8_t protocol, uint32_t length) const {
    const auto* p = reinterpret_cast<const uint8_t*>(packet.data());
    uint32_t sum = v6 ? sum16(p + 8, 32) : sum16(p + 12, 8);
    return sum + protocol + (length >> 16) + (length & 0xffff);
  }

  // A TCP segment of `length` bytes of which `kept` were recorded.
  void tcp(uint32_t iface, int64_t ns, const Address& src, const Address& dst, uint32_t seq, uint32_t ack,
           uint8_t flags, std::string_view kept, uint64_t length, const std::string& comment) {
    std::string& s = packet_;
    s.clear();
    const bool v6 = src.v6 || dst.v6;
    ipHeader(s, src, dst, IPPROTO_TCP, static_cast<uint32_t>(20 + length));
    const size_t at = s.size();
    put16(s, src.port);
    put16(s, dst.port);
    put32(s, seq);
    put32(s, ack);
    s.push_back(0x50);
    s.push_back(static_cast<char>(flags));
    put16(s, 0xffff);
    put16(s, 0);
    put16(s, 0);
    s.append(kept);
    if (kept.size() == length) {  // a checksum only over bytes that are all there
      uint32_t sum = pseudoSum(s, v6, IPPROTO_TCP, static_cast<uint32_t>(20 + length));
      const uint16_t c = fold(sum16(reinterpret_cast<const uint8_t*>(s.data() + at), s.size() - at, sum));
      s[at + 16] = static_cast<char>(c >> 8);
      s[at + 17] = static_cast<char>(c);
    }
    enhancedPacket(iface, ns, s, s.size() + (length - kept.size()), comment);
  }

  void udp(uint32_t iface, int64_t ns, const Address& src, const Address& dst, std::string_view kept, uint64_t length,
           const std::string& comment) {
    std::string& s = packet_;
    s.clear();
    const bool v6 = src.v6 || dst.v6;
    const uint32_t udp_length = static_cast<uint32_t>(std::min<uint64_t>(8 + length, 0xffff));
    ipHeader(s, src, dst, IPPROTO_UDP, udp_length);
    const size_t at = s.size();
    put16(s, src.port);
    put16(s, dst.port);
    put16(s, static_cast<uint16_t>(udp_length));
    put16(s, 0);
    s.append(kept.substr(0, 0xffff - 8));
    if (kept.size() == length && 8 + length <= 0xffff) {
      const uint32_t sum = pseudoSum(s, v6, IPPROTO_UDP, udp_length);
      uint16_t c = fold(sum16(reinterpret_cast<const uint8_t*>(s.data() + at), s.size() - at, sum));
      if (!c) c = 0xffff;
      s[at + 6] = static_cast<char>(c >> 8);
      s[at + 7] = static_cast<char>(c);
    }
    payload_bytes_ += length;
    enhancedPacket(iface, ns, s, s.size() + (length - std::min<uint64_t>(length, kept.size())), comment);
  }

  // ---- pcapng blocks (host byte order: the byte-order magic says which) ----

  void raw32(std::string& b, uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
  void raw16(std::string& b, uint16_t v) { b.append(reinterpret_cast<const char*>(&v), 2); }
  void pad(std::string& b) {
    while (b.size() % 4) b.push_back(0);
  }
  void option(std::string& b, uint16_t code, std::string_view value) {
    raw16(b, code);
    raw16(b, static_cast<uint16_t>(value.size()));
    b.append(value);
    pad(b);
  }
  void block(uint32_t type, std::string& body) {
    const uint32_t length = static_cast<uint32_t>(12 + body.size());
    std::fwrite(&type, 4, 1, out_);
    std::fwrite(&length, 4, 1, out_);
    std::fwrite(body.data(), 1, body.size(), out_);
    std::fwrite(&length, 4, 1, out_);
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

  void interfaceBlock(const std::string& host) {
    std::string b;
    raw16(b, kLinkTypeRaw);
    raw16(b, 0);
    raw32(b, 0);                                  // no snapshot limit
    option(b, 2, host.empty() ? "radar" : host);  // if_name
    option(b, 9, std::string_view("\x09", 1));    // if_tsresol: nanoseconds
    option(b, 0, {});
    block(1, b);
  }

  void enhancedPacket(uint32_t iface, int64_t ns, const std::string& data, uint64_t original,
                      const std::string& comment) {
    std::string& b = block_;
    b.clear();
    const uint64_t ts = static_cast<uint64_t>(ns < 0 ? 0 : ns);
    raw32(b, iface);
    raw32(b, static_cast<uint32_t>(ts >> 32));
    raw32(b, static_cast<uint32_t>(ts));
    raw32(b, static_cast<uint32_t>(data.size()));
    raw32(b, static_cast<uint32_t>(std::min<uint64_t>(original, 0xffffffffu)));
    b.append(data);
    pad(b);
    if (!comment.empty()) {
      option(b, 1, std::string_view(comment).substr(0, 0xffff));  // opt_comment
      option(b, 0, {});
    }
    block(6, b);
    ++packets_;
  }

  const Trace& t_;
  const PcapngOptions& options_;
  std::FILE* out_;
  std::unordered_map<std::string, uint32_t> interfaces_;
  std::vector<ChannelState> channels_;
  std::string packet_, block_;
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
