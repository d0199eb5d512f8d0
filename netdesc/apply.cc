#include "netdesc/apply.h"

#include <fnmatch.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "log/reader.h"
#include "netdesc/decode.h"
#include "netdesc/plan.h"
#include "radar/proto/radarlog.pb.h"
#include "trace/findings.h"

namespace radar::netdesc {
namespace {

using trace::kNone;

bool glob(const std::string& pattern, const std::string& s) {
  return pattern.empty() || ::fnmatch(pattern.c_str(), s.c_str(), 0) == 0;
}

// The port number of a struct sockaddr (IPv4 or IPv6), 0 for others.
uint32_t portOfAddress(const std::string& sa) {
  if (sa.size() < 4) return 0;
  sa_family_t family;
  std::memcpy(&family, sa.data(), sizeof(family));
  if (family != AF_INET && family != AF_INET6) return 0;
  return (static_cast<unsigned char>(sa[2]) << 8) | static_cast<unsigned char>(sa[3]);
}

// The descriptors RADAR_PORT_<NAME>=3,4 lists in a process's environment.
std::vector<int> portFds(const proto::Header& h, const std::string& port) {
  const std::string key = portVariable(port) + "=";
  for (const auto& e : h.environment()) {
    if (e.rfind(key, 0) != 0) continue;
    std::vector<int> fds;
    size_t at = key.size();
    while (at < e.size()) {
      size_t end = e.find(',', at);
      if (end == std::string::npos) end = e.size();
      const std::string n = e.substr(at, end - at);
      if (!n.empty() && n.find_first_not_of("0123456789") == std::string::npos) fds.push_back(std::stoi(n));
      at = end + 1;
    }
    return fds;
  }
  return {};
}

std::string portLabel(const Process& p, const Port& port) { return p.name() + "." + port.name(); }

}  // namespace

std::unique_ptr<Binding> Binding::apply(std::shared_ptr<const Description> description, trace::Trace& t,
                                        std::vector<std::string>* unmatched) {
  auto b = std::unique_ptr<Binding>(new Binding());
  b->description_ = std::move(description);
  const Description& d = *b->description_;
  b->ports_.assign(t.endpoints.size(), nullptr);
  b->processes_.assign(t.processes.size(), nullptr);

  // Processes: the recorded images each described process matches, in the
  // order they were created.
  std::vector<uint32_t> by_creation;
  for (const auto& p : t.processes)
    if (!p.external && !p.log_path.empty()) by_creation.push_back(p.index);
  std::stable_sort(by_creation.begin(), by_creation.end(),
                   [&](uint32_t a, uint32_t c) { return t.processes[a].first_event < t.processes[c].first_event; });
  std::map<uint32_t, proto::Header> headers;  // read when ports need the environment
  auto header = [&](uint32_t p) -> const proto::Header& {
    auto it = headers.find(p);
    if (it != headers.end()) return it->second;
    proto::Header h;
    log::LogError err;
    if (auto reader = log::LogReader::open(t.processes[p].log_path, &err)) h = reader->header();
    return headers.emplace(p, h).first->second;
  };
  struct Deferred {
    const Process* process;
    const Port* port;
    std::vector<uint32_t> images;
  };
  std::vector<Deferred> deferred;
  // The names are an overlay: matching reads the recorded ones.
  t.described.processes.assign(t.processes.size(), {});
  t.described.channels.assign(t.channels.size(), {});
  for (const Process& dp : d.network().process()) {
    const Match& m = dp.match();
    const std::string program = m.program().empty() && m.executable().empty() ? dp.name() : m.program();
    std::vector<uint32_t> images;
    for (uint32_t p : by_creation) {
      const trace::Process& rp = t.processes[p];
      if (!glob(program, rp.recorded_name) || !glob(m.executable(), rp.executable)) continue;
      bool args = true;
      for (int k = 0; k < m.arg_size() && args; ++k)
        args = static_cast<size_t>(k + 1) < rp.argv.size() && glob(m.arg(k), rp.argv[k + 1]);
      if (args) images.push_back(p);
    }
    // The order counts every image that matches; an image an earlier
    // process already is stays that one.
    if (m.order()) {
      if (images.size() >= m.order())
        images = {images[m.order() - 1]};
      else
        images.clear();
    }
    std::erase_if(images, [&](uint32_t p) { return b->processes_[p] != nullptr; });
    if (images.empty()) {
      unmatched->push_back("process '" + dp.name() + "' matched no recorded process (it looks for program '" + program +
                           "'" + (m.executable().empty() ? "" : ", executable '" + m.executable() + "'") +
                           (m.order() ? ", number " + std::to_string(m.order()) + " in order of creation" : "") + ")");
      continue;
    }
    for (uint32_t p : images) {
      b->processes_[p] = &dp;
      t.described.processes[p] = dp.name();
    }
    // Its ports: the channel ends they are.
    for (const Port& port : dp.port()) {
      bool found = false;
      for (uint32_t p : images) {
        std::vector<int> env_fds;
        const bool by_env = !port.has_fd() && port.path().empty() && !port.tcp_port();
        if (by_env) env_fds = portFds(header(p), port.name());
        for (uint32_t e = 0; e < t.endpoints.size(); ++e) {
          const trace::Endpoint& ep = t.endpoints[e];
          if (ep.process != p) continue;
          bool is = false;
          if (port.has_fd())
            is = ep.fd == port.fd();
          else if (!port.path().empty())
            is = !ep.path.empty() && glob(port.path(), ep.path);
          else if (port.tcp_port())
            is =
                portOfAddress(ep.local_address) == port.tcp_port() || portOfAddress(ep.peer_address) == port.tcp_port();
          else
            is = std::find(env_fds.begin(), env_fds.end(), ep.fd) != env_fds.end();
          if (is) {
            b->ports_[e] = &port;
            found = true;
          }
        }
      }
      if (!found) {
        const bool by_env = !port.has_fd() && port.path().empty() && !port.tcp_port();
        // Neither a descriptor, a path, a port nor RADAR_PORT_*: the
        // channels its connections reach, once every other port is placed.
        if (by_env) {
          deferred.push_back({&dp, &port, images});
          continue;
        }
        const std::string where = port.has_fd()          ? "descriptor " + std::to_string(port.fd())
                                  : !port.path().empty() ? "path '" + port.path() + "'"
                                                         : "port " + std::to_string(port.tcp_port());
        unmatched->push_back("port '" + portLabel(dp, port) + "' matched no channel end of " + t.label(images[0]) +
                             " (it looks for " + where + ")");
      }
    }
  }

  // Ports found through their connections: this process's ends of the
  // channels the connected ports are on (a server's accepted connections,
  // whatever descriptors they got).
  for (const Deferred& dport : deferred) {
    const std::string label = portLabel(*dport.process, *dport.port);
    std::set<uint32_t> channels;
    for (const Connect& k : d.network().connect()) {
      std::vector<std::string> others;
      if (k.from() == label)
        others.assign(k.to().begin(), k.to().end());
      else if (std::find(k.to().begin(), k.to().end(), label) != k.to().end())
        others.push_back(k.from());
      for (const std::string& other : others) {
        const Process* op = d.process(other.substr(0, other.find('.')));
        const Port* oport = op ? d.port(*op, other.substr(other.find('.') + 1)) : nullptr;
        for (uint32_t e = 0; oport && e < t.endpoints.size(); ++e)
          if (b->ports_[e] == oport && t.endpoints[e].channel != kNone) channels.insert(t.endpoints[e].channel);
      }
    }
    bool found = false;
    for (uint32_t e = 0; e < t.endpoints.size(); ++e) {
      const trace::Endpoint& ep = t.endpoints[e];
      if (b->ports_[e] || !channels.count(ep.channel)) continue;
      if (std::find(dport.images.begin(), dport.images.end(), ep.process) == dport.images.end()) continue;
      b->ports_[e] = dport.port;
      found = true;
    }
    if (!found)
      unmatched->push_back("port '" + label + "' matched no channel end of " + t.label(dport.images[0]) +
                           " (it looks for the descriptors of " + portVariable(dport.port->name()) +
                           ", then for the channels its connections reach)");
  }

  // Channels: named after their ports, or their connection's name.
  for (auto& c : t.channels) {
    std::vector<std::string> senders, receivers;
    std::set<const Port*> ports;
    bool inout = false;
    for (uint32_t e : c.endpoints) {
      const Port* port = b->ports_[e];
      const Process* owner = b->processes_[t.endpoints[e].process];
      if (!port || !owner || !ports.insert(port).second) continue;
      const std::string label = portLabel(*owner, *port);
      inout |= port->direction() == INOUT;
      if (port->direction() == IN)
        receivers.push_back(label);
      else
        senders.push_back(label);
    }
    if (senders.empty() && receivers.empty()) continue;
    // A connection's name, when it connects ports of this channel.
    bool named = false;
    for (const Connect& k : d.network().connect()) {
      if (k.name().empty() || std::find(senders.begin(), senders.end(), k.from()) == senders.end()) continue;
      for (const auto& to : k.to())
        if (std::find(receivers.begin(), receivers.end(), to) != receivers.end() ||
            std::find(senders.begin(), senders.end(), to) != senders.end()) {
          t.described.channels[c.index] = k.name();
          named = true;
        }
    }
    if (named) continue;
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    if (inout && receivers.empty() && senders.size() == 2)
      t.described.channels[c.index] = senders[0] + " <-> " + senders[1];
    else if (!senders.empty() && !receivers.empty())
      t.described.channels[c.index] = join(senders) + " -> " + join(receivers);
    else
      t.described.channels[c.index] = join(senders.empty() ? receivers : senders);
  }
  // The findings name processes and channels: tell them again by the new names.
  t.findings.clear();
  trace::findProblems(t);
  return b;
}

const Port* Binding::portOf(uint32_t endpoint) const { return endpoint < ports_.size() ? ports_[endpoint] : nullptr; }

const Process* Binding::processOf(uint32_t process) const {
  return process < processes_.size() ? processes_[process] : nullptr;
}

const Port* Binding::portForMessage(const trace::Trace& t, uint32_t send) const {
  const Port* mine = portOf(t.events[send].endpoint);
  if (mine && !mine->type().empty()) return mine;
  for (uint32_t k : t.messagesFrom(send)) {
    const Port* theirs = portOf(t.events[t.edges[k].to].endpoint);
    if (theirs && !theirs->type().empty()) return theirs;
  }
  return mine;
}

const Port* Binding::portForReceive(const trace::Trace& t, uint32_t receive) const {
  // What was sent decides how the bytes read: a sender's type first (a
  // request/response connection types each side with what it sends).
  for (auto [b, end] = t.incoming(receive); b != end; ++b) {
    if (b->why != trace::Edge::Why::Message) continue;
    const Port* theirs = portOf(t.events[b->from].endpoint);
    if (theirs && !theirs->type().empty()) return theirs;
  }
  return portOf(t.events[receive].endpoint);
}

namespace {
// What the recording did not keep of a message is said, never shown as
// "no bytes" or as a shorter message.
void noteOmitted(std::string_view kept, uint64_t omitted, std::string* out) {
  if (!omitted) return;
  const std::string what = std::to_string(omitted) + (omitted == 1 ? " byte" : " bytes") +
                           " not kept: the recording keeps only the start of each message (radar record "
                           "--payload-limit)\n";
  if (kept.empty())
    *out = what;
  else
    *out += "and " + what;
}
// Bytes of a receive that nobody radar recorded sent are said too, never
// left out as if the message were shorter.
void noteUnseen(std::string_view kept, uint64_t omitted, uint64_t unseen, std::string* out) {
  if (!unseen) return;
  const std::string what = std::to_string(unseen) + (unseen == 1 ? " byte" : " bytes") +
                           " no recorded process sent (written unseen: a raw system call, io_uring, a process "
                           "radar did not record)" +
                           (kept.empty() ? std::string("\n") : "; where among these they fall is not known\n");
  if (kept.empty() && !omitted)
    *out = what;
  else
    *out += "and " + what;
}
}  // namespace

bool Binding::describeContents(const trace::Trace& t, uint32_t position, std::string* out, std::string* error) const {
  TextOut text;
  if (!describeContents(t, position, &text, error)) return false;
  *out = std::move(text.text);
  return true;
}

bool Binding::messageBytes(const trace::Trace& t, uint32_t position, Contents* c, std::string* error) const {
  if (!t.payloadView(position, &c->bytes, error, &c->omitted)) return false;
  const trace::Event& ev = t.events[position];
  const bool send = log::categoryOf(ev.eventKind()) == log::Category::Send;
  c->port = send ? portForMessage(t, position) : portForReceive(t, position);
  c->added = 0;
  if (!c->port || !send || c->port->framing().how_case() != Framing::kLengthPrefix) return true;
  // A message whose length prefix announces more than this send holds:
  // the next sends on the same channel end finish it (a header written,
  // then the body).
  const auto& mine = t.counter_events[ev.process];
  uint32_t next = ev.counter;  // index of the following event in its log
  constexpr uint64_t kMaxGathered = 4u << 20;
  for (Split s = splitMessages(c->port->framing(), c->bytes);
       s.unfinished_at < c->bytes.size() && s.unfinished_needs &&
       s.unfinished_needs - (c->bytes.size() - s.unfinished_at) <= kMaxGathered && next < mine.size() && c->added < 64;
       s = splitMessages(c->port->framing(), c->bytes)) {
    const uint32_t pos = mine[next++];
    const trace::Event& later = t.events[pos];
    if (later.endpoint != ev.endpoint) continue;
    if (log::categoryOf(later.eventKind()) != log::Category::Send) continue;
    if (!c->added) {  // copied before the next view replaces them, and read from the copy from now on
      c->gathered.assign(c->bytes);
      c->bytes = c->gathered;
    }
    std::string_view more;
    if (!t.payloadView(pos, &more, error)) break;
    c->gathered += more;
    c->bytes = c->gathered;
    ++c->added;
  }
  return true;
}

bool Binding::describeContents(const trace::Trace& t, uint32_t position, TextOut* out, std::string* error) const {
  Contents c;
  if (!messageBytes(t, position, &c, error)) return false;
  out->text.clear();
  if (c.added)
    out->text = "(with the " + std::string(c.added == 1 ? "next send" : std::to_string(c.added) + " next sends") +
                " on this channel, which finish its last message)\n";
  appendDescribedBytes(&description(), c.port, c.bytes, out);
  noteOmitted(c.bytes, c.omitted, &out->text);
  noteUnseen(c.bytes, c.omitted, t.unseenBytes(position), &out->text);
  out->flush();
  return true;
}

bool describeContents(const Binding* binding, const trace::Trace& t, uint32_t position, TextOut* out,
                      std::string* error) {
  if (binding) return binding->describeContents(t, position, out, error);
  std::string_view bytes;
  uint64_t omitted = 0;
  if (!t.payloadView(position, &bytes, error, &omitted)) return false;
  out->text.clear();
  appendDescribedBytes(nullptr, nullptr, bytes, out);
  noteOmitted(bytes, omitted, &out->text);
  noteUnseen(bytes, omitted, t.unseenBytes(position), &out->text);
  out->flush();
  return true;
}

bool describeContents(const Binding* binding, const trace::Trace& t, uint32_t position, std::string* out,
                      std::string* error) {
  TextOut text;
  if (!describeContents(binding, t, position, &text, error)) return false;
  *out = std::move(text.text);
  return true;
}

std::unique_ptr<Binding> Binding::forRecording(trace::Trace& t, const std::string& net_path, bool carried,
                                               std::vector<std::string>* unmatched, std::string* error) {
  std::vector<Problem> problems;
  std::unique_ptr<Description> d;
  if (!net_path.empty()) {
    d = Description::load(net_path, &problems);
  } else if (carried && !t.networks.empty()) {
    // Recordings merged from several hosts each carry the same one.
    const auto& n = t.networks.front();
    d = Description::parse(n.text, n.path.empty() ? t.directories.front() + "/network.netdesc" : n.path, &problems);
  } else {
    return nullptr;
  }
  if (!d) {
    error->clear();
    for (const auto& p : problems) *error += (error->empty() ? "" : "\n") + p.toString();
    if (error->empty()) *error = "the network description cannot be used";
    return nullptr;
  }
  return apply(std::shared_ptr<const Description>(std::move(d)), t, unmatched);
}

trace::PatternOptions patternOptions(const Binding* binding, const trace::Trace& trace) {
  trace::PatternOptions options;
  if (!binding) return options;
  options.message_type = [binding, &trace](uint32_t event) -> std::string {
    const bool send = log::categoryOf(trace.events[event].eventKind()) == log::Category::Send;
    const Port* port = send ? binding->portForMessage(trace, event) : binding->portForReceive(trace, event);
    return port ? port->type() : std::string();
  };
  return options;
}

std::vector<trace::PatternName> patternNames(const Binding* binding) {
  std::vector<trace::PatternName> out;
  if (!binding) return out;
  for (const Pattern& p : binding->description().network().pattern())
    out.push_back({p.name(), p.process(), {p.step().begin(), p.step().end()}});
  return out;
}

bool describeFields(const Binding* binding, const trace::Trace& t, uint32_t position, std::vector<FieldLine>* out,
                    std::string* bytes, std::string* error) {
  Binding::Contents c;
  if (binding ? !binding->messageBytes(t, position, &c, error) : !t.payloadView(position, &c.bytes, error, &c.omitted))
    return false;
  *out = describeFields(binding ? &binding->description() : nullptr, c.port, c.bytes);
  if (c.added)
    out->insert(out->begin(),
                {0,
                 "(with the " + std::string(c.added == 1 ? "next send" : std::to_string(c.added) + " next sends") +
                     " on this channel, which finish its last message)",
                 {}});
  if (c.omitted)
    out->push_back(
        {0, std::to_string(c.omitted) + (c.omitted == 1 ? " byte" : " bytes") + " not kept (--payload-limit)", {}});
  if (bytes) bytes->assign(c.bytes);
  return true;
}

}  // namespace radar::netdesc
