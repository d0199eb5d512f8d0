#include "binding/binding.h"

#include <fnmatch.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "netdesc/decode.h"
#include "netdesc/plan.h"
#include "radar/proto/radarlog.pb.h"

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
std::vector<int> portFds(const trace::Process& p, const std::string& port) {
  const std::string key = portVariable(port) + "=";
  for (const auto& e : p.radar_variables) {
    if (e.rfind(key, 0) != 0) continue;
    std::vector<int> fds;
    size_t at = key.size();
    while (at < e.size()) {
      size_t end = e.find(',', at);
      if (end == std::string::npos) end = e.size();
      const std::string n = e.substr(at, end - at);
      if (!n.empty() && n.size() < 10 && n.find_first_not_of("0123456789") == std::string::npos)
        fds.push_back(std::stoi(n));
      at = end + 1;
    }
    return fds;
  }
  return {};
}

std::string portLabel(const Process& p, const Port& port) { return p.name() + "." + port.name(); }

// Neither a descriptor, a path, a port nor a name in RADAR_PORT_*: found
// through the channels its connections reach.
bool byEnvironment(const Port& port) { return !port.has_fd() && port.path().empty() && !port.tcp_port(); }

bool isEnd(const trace::Endpoint& ep, const Port& port, const std::vector<int>& env_fds) {
  if (port.has_fd()) return ep.fd == port.fd();
  if (!port.path().empty()) return !ep.path.empty() && glob(port.path(), ep.path);
  if (port.tcp_port())
    return portOfAddress(ep.local_address) == port.tcp_port() || portOfAddress(ep.peer_address) == port.tcp_port();
  return std::find(env_fds.begin(), env_fds.end(), ep.fd) != env_fds.end();
}

// The images a described process matches, in the order they were created.
std::vector<uint32_t> imagesMatching(const trace::Trace& t, const std::vector<uint32_t>& by_creation, const Match& m,
                                     const std::string& program) {
  std::vector<uint32_t> images;
  for (uint32_t p : by_creation) {
    const trace::Process& rp = t.processes[p];
    if (!glob(program, rp.recorded_name) || !glob(m.executable(), rp.executable)) continue;
    bool args = true;
    for (int k = 0; k < m.arg_size() && args; ++k)
      args = static_cast<size_t>(k + 1) < rp.argv.size() && glob(m.arg(k), rp.argv[k + 1]);
    if (args) images.push_back(p);
  }
  // The order counts every image that matches.
  if (m.order()) {
    if (images.size() >= m.order())
      images = {images[m.order() - 1]};
    else
      images.clear();
  }
  return images;
}

}  // namespace

std::unique_ptr<Binding> Binding::apply(std::shared_ptr<const Description> description, const trace::Trace& t,
                                        std::vector<std::string>* unmatched) {
  auto b = std::unique_ptr<Binding>(new Binding());
  b->description_ = std::move(description);
  b->ports_.assign(t.endpoints.size(), nullptr);
  b->processes_.assign(t.processes.size(), nullptr);
  b->names_.processes.assign(t.processes.size(), {});
  b->names_.channels.assign(t.channels.size(), {});
  std::vector<Deferred> deferred;
  b->matchProcesses(t, unmatched, &deferred);
  for (const Deferred& port : deferred) b->matchByConnections(t, port, unmatched);
  b->nameChannels(t);
  return b;
}

// Each described process: the recorded images it is (matching reads the
// recorded names), and their ends its ports are.
void Binding::matchProcesses(const trace::Trace& t, std::vector<std::string>* unmatched,
                             std::vector<Deferred>* deferred) {
  std::vector<uint32_t> by_creation;
  for (const auto& p : t.processes)
    if (!p.external && !p.log_path.empty()) by_creation.push_back(p.index);
  std::stable_sort(by_creation.begin(), by_creation.end(),
                   [&](uint32_t a, uint32_t c) { return t.processes[a].first_event < t.processes[c].first_event; });
  for (const Process& dp : description_->network().process()) {
    const Match& m = dp.match();
    const std::string program = m.program().empty() && m.executable().empty() ? dp.name() : m.program();
    std::vector<uint32_t> images = imagesMatching(t, by_creation, m, program);
    // An image an earlier process already is stays that one.
    std::erase_if(images, [&](uint32_t p) { return processes_[p] != nullptr; });
    if (images.empty()) {
      unmatched->push_back("process '" + dp.name() + "' matched no recorded process (it looks for program '" + program +
                           "'" + (m.executable().empty() ? "" : ", executable '" + m.executable() + "'") +
                           (m.order() ? ", number " + std::to_string(m.order()) + " in order of creation" : "") + ")");
      continue;
    }
    for (uint32_t p : images) {
      processes_[p] = &dp;
      names_.processes[p] = dp.name();
    }
    for (const Port& port : dp.port()) matchPort(t, dp, port, images, unmatched, deferred);
  }
}

// The channel ends of `images` that `port` is, by descriptor, path, TCP port
// or RADAR_PORT_*; a port named by none of them waits for its connections.
void Binding::matchPort(const trace::Trace& t, const Process& dp, const Port& port, const std::vector<uint32_t>& images,
                        std::vector<std::string>* unmatched, std::vector<Deferred>* deferred) {
  bool found = false;
  for (uint32_t p : images) {
    const std::vector<int> env_fds = byEnvironment(port) ? portFds(t.processes[p], port.name()) : std::vector<int>();
    for (uint32_t e = 0; e < t.endpoints.size(); ++e)
      if (t.endpoints[e].process == p && isEnd(t.endpoints[e], port, env_fds)) {
        ports_[e] = &port;
        found = true;
      }
  }
  if (found) return;
  if (byEnvironment(port)) {
    deferred->push_back({&dp, &port, images});
    return;
  }
  const std::string where = port.has_fd()          ? "descriptor " + std::to_string(port.fd())
                            : !port.path().empty() ? "path '" + port.path() + "'"
                                                   : "port " + std::to_string(port.tcp_port());
  unmatched->push_back("port '" + portLabel(dp, port) + "' matched no channel end of " + labelAs(t, images[0]) +
                       " (it looks for " + where + ")");
}

// A port found through its connections: this process's ends of the
// channels the connected ports are on (a server's accepted connections,
// whatever descriptors they got).
void Binding::matchByConnections(const trace::Trace& t, const Deferred& dport, std::vector<std::string>* unmatched) {
  const Description& d = *description_;
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
        if (ports_[e] == oport && t.endpoints[e].channel != kNone) channels.insert(t.endpoints[e].channel);
    }
  }
  bool found = false;
  for (uint32_t e = 0; e < t.endpoints.size(); ++e) {
    const trace::Endpoint& ep = t.endpoints[e];
    if (ports_[e] || !channels.count(ep.channel)) continue;
    if (std::find(dport.images.begin(), dport.images.end(), ep.process) == dport.images.end()) continue;
    ports_[e] = dport.port;
    found = true;
  }
  if (!found)
    unmatched->push_back("port '" + label + "' matched no channel end of " + labelAs(t, dport.images[0]) +
                         " (it looks for the descriptors of " + portVariable(dport.port->name()) +
                         ", then for the channels its connections reach)");
}

// Channels: named after their ports, or their connection's name.
void Binding::nameChannels(const trace::Trace& t) {
  for (const auto& c : t.channels) {
    std::vector<std::string> senders, receivers;
    std::set<const Port*> ports;
    bool inout = false;
    for (uint32_t e : c.endpoints) {
      const Port* port = ports_[e];
      const Process* owner = processes_[t.endpoints[e].process];
      if (!port || !owner || !ports.insert(port).second) continue;
      const std::string label = portLabel(*owner, *port);
      inout |= port->direction() == INOUT;
      if (port->direction() == IN)
        receivers.push_back(label);
      else
        senders.push_back(label);
    }
    if (senders.empty() && receivers.empty()) continue;
    names_.channels[c.index] = channelName(senders, receivers, inout);
  }
}

// A connection's name, when it connects ports of the channel; else its ports.
std::string Binding::channelName(const std::vector<std::string>& senders, const std::vector<std::string>& receivers,
                                 bool inout) const {
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (const Connect& k : description_->network().connect()) {
    if (k.name().empty() || !has(senders, k.from())) continue;
    for (const auto& to : k.to())
      if (has(receivers, to) || has(senders, to)) return k.name();
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (inout && receivers.empty() && senders.size() == 2) return senders[0] + " <-> " + senders[1];
  if (!senders.empty() && !receivers.empty()) return join(senders) + " -> " + join(receivers);
  return join(senders.empty() ? receivers : senders);
}

// "name[pid]" by the name the description gives the image.
std::string Binding::labelAs(const trace::Trace& t, uint32_t process) const {
  const std::string& name = names_.processes[process];
  return name.empty() ? t.label(process) : name + "[" + std::to_string(t.processes[process].pid) + "]";
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

std::unique_ptr<Binding> Binding::forRecording(const trace::Trace& t, const std::string& net_path, bool carried,
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

analysis::PatternOptions patternOptions(const Binding* binding, const trace::Trace& trace) {
  analysis::PatternOptions options;
  if (!binding) return options;
  options.message_type = [binding, &trace](uint32_t event) -> std::string {
    const bool send = log::categoryOf(trace.events[event].eventKind()) == log::Category::Send;
    const Port* port = send ? binding->portForMessage(trace, event) : binding->portForReceive(trace, event);
    return port ? port->type() : std::string();
  };
  return options;
}

std::vector<analysis::PatternName> patternNames(const Binding* binding) {
  std::vector<analysis::PatternName> out;
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
