// The merge's channels: ends of one channel grouped, sides, names.
#include "trace/merger.h"

namespace radar::trace::merging {

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
  std::map<uint32_t, int> open{{endpoint, 1}};  // still open at the exec?
  countOpenEnds(raw_.events, PositionRange{b, end}, &open);
  if (open[endpoint] <= 0) return "";
  for (const auto& n : t_.unrecorded_notes)
    if (n.pid == p.pid) {
      const std::string program =
          n.executable.empty() ? p.recorded_name : n.executable.substr(n.executable.rfind('/') + 1);
      return program + "[" + std::to_string(p.pid) + "], " + n.what;
    }
  return p.recordedLabel() + "'s next program, not recorded";
}

// A channel some of whose ends were inherited from outside the recording
// (radar record's own stdin, stdout) leads outside; so does one with an end
// carried into a program radar could not record (statically linked,
// set-user-ID, a Go program ...): what went through the channel may have
// gone to or come from that program, which is named.
void Merger::findOutsidePeer(Channel& c) const {
  for (uint32_t ep : c.endpoints)
    if (raw_.endpoints[ep].external) {
      c.external = true;
      c.external_peer = "outside the recording";
      return;
    }
  for (uint32_t ep : c.endpoints)
    if (const std::string who = unrecordedHolder(ep); !who.empty()) {
      c.external = true;
      c.external_peer = who;
      return;
    }
}

// A channel's name where the recording has nothing better: a pipe by its
// number, a FIFO or a message queue by its path, a connection by its
// addresses; a named socket or connection with one side recorded leads
// outside. `two_sides`: both sides of it were recorded.
void Merger::nameChannel(Channel& c, int n, bool two_sides) {
  const auto& eps = raw_.endpoints;
  const Endpoint& e = eps[c.endpoints.front()];
  switch (c.type) {
    case ChannelType::Pipe:
      c.recorded_name = "pipe " + std::to_string(n);
      break;
    case ChannelType::Fifo:
      c.recorded_name = "fifo " + e.path;
      break;
    case ChannelType::Terminal:
      c.recorded_name = "terminal" + (e.path.empty() ? "" : " " + e.path);
      c.external = true;
      c.external_peer = "terminal";
      break;
    case ChannelType::UnixStream:
    case ChannelType::UnixSeqpacket:
    case ChannelType::UnixDgram:
      c.recorded_name = e.path.empty() ? "socketpair " + std::to_string(n) : "unix socket " + e.path;
      if (two_sides && !e.path.empty()) {
        // One connection of many to a named socket: named after the
        // process that connected (its end has no name of its own).
        for (uint32_t ep : c.endpoints)
          if (log::formatAddress(eps[ep].local_address).empty() && eps[ep].process != kNone) {
            c.recorded_name += " \u2190 " + raw_.processes[eps[ep].process].recordedLabel();
            break;
          }
      }
      if (!two_sides && !e.path.empty()) {
        c.external = true;
        c.external_peer = e.path;
      }
      break;
    case ChannelType::Tcp: {
      const std::string a = log::formatAddress(e.local_address), b = log::formatAddress(e.peer_address);
      c.recorded_name = b.empty() ? "tcp " + a : "tcp " + a + " - " + b;
      if (!two_sides && !b.empty()) {
        c.external = true;
        c.external_peer = b;
      }
      break;
    }
    case ChannelType::Udp:
      c.recorded_name = "udp " + log::formatAddress(e.local_address);
      break;
    case ChannelType::MpiCommunicator: {  // "job/w" is MPI_COMM_WORLD; "job/w/2.1" one made from it
      const std::string name = e.path.substr(std::min(e.path.find('/') + 1, e.path.size()));
      c.recorded_name = name == "w" ? "MPI_COMM_WORLD" : "MPI communicator " + name;
      break;
    }
    default:  // a message queue by its name or id; sockets of other families by number
      c.recorded_name = std::string(log::channelTypeName(c.type)) + " " + (e.path.empty() ? std::to_string(n) : e.path);
      break;
  }
}

void Merger::buildChannels() {
  auto& eps = raw_.endpoints;
  std::map<std::string, uint32_t> by_key;
  std::unordered_map<std::string, std::vector<uint32_t>> unix_by_peer;  // boot|peer_ino -> endpoints
  for (uint32_t i = 0; i < eps.size(); ++i) {
    const Endpoint& e = eps[i];
    if (isUnixSocket(e.type) && e.peer_ino)
      unix_by_peer[std::to_string(raw_.processes[e.process].boot) + "|" + hexKey(e.peer_ino)].push_back(i);
  }
  std::vector<std::string> side_identity(eps.size());
  side_.assign(eps.size(), 0);
  const std::vector<uint32_t> generation = eventFdGenerations();
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
      case ChannelType::MessageQueue:
      case ChannelType::SysvMessageQueue:
      case ChannelType::EventFd:  // by its generation too: an eventfd's id is reused
        key = "F|" + boot + "|" + hexKey(e.dev) + "|" + hexKey(e.ino) + "|" + std::to_string(generation[i]);
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
      case ChannelType::MpiCommunicator:  // by its name in the job, on every host
        identity = std::to_string(e.mpi_rank);
        key = "M|" + e.path;
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
    // Socket pairs of every type share one numbering: two called
    // "socketpair 1" would be one to a reader.
    const int n = ++numbers[isUnixSocket(c.type) ? ChannelType::UnixStream : c.type];
    nameChannel(c, n, ids.size() >= 2);
    if (!c.external) findOutsidePeer(c);
  }
  // Two connections from one process to one socket: numbered, so that
  // every channel's name selects it alone.
  std::map<std::string, int> seen;
  for (Channel& c : t_.channels)
    if (const int k = ++seen[c.recorded_name]; k > 1) c.recorded_name += " (" + std::to_string(k) + ")";
}

}  // namespace radar::trace::merging
