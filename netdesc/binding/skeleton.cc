#include "binding/skeleton.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <vector>

#include "netdesc/decode.h"

namespace radar::netdesc {
namespace {

// A name the description's syntax accepts: letters, digits, '_', '-'.
std::string safeName(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return out.empty() ? "process" : out;
}

std::string portName(int fd) {
  switch (fd) {
    case 0:
      return "stdin";
    case 1:
      return "stdout";
    case 2:
      return "stderr";
    default:
      return "fd" + std::to_string(fd);
  }
}

// Connections: a channel's senders to its receivers, where the directions
// allow one (OUT to IN, INOUT with INOUT). `did`: per endpoint, 1 sent, 2
// received; `port_of`: the endpoints shown, as "process.port".
std::string connections(const trace::Trace& t, const std::vector<uint8_t>& did,
                        const std::map<uint32_t, std::string>& port_of) {
  std::set<std::pair<std::string, std::string>> made;
  std::string connects;
  for (const auto& c : t.channels) {
    std::vector<uint32_t> ends;
    for (uint32_t e : c.endpoints)
      if (port_of.count(e)) ends.push_back(e);
    for (uint32_t a : ends)
      for (uint32_t b : ends) {
        if (a == b || t.endpoints[a].process == t.endpoints[b].process) continue;
        if (!(did[a] & 1) || !(did[b] & 2)) continue;
        const bool a_inout = did[a] == 3, b_inout = did[b] == 3;
        if (a_inout != b_inout) continue;
        const std::string& from = port_of.at(a);
        const std::string& to = port_of.at(b);
        if (a_inout && from > to) continue;  // one connection per socket pair
        if (!made.insert({from, to}).second) continue;
        connects += "connect { from: " + quoted(from) + " to: " + quoted(to) + " }  # " + t.channelName(c.index) + "\n";
      }
  }
  return connects;
}

// What each channel end did: 1 sent, 2 received, 3 both.
std::vector<uint8_t> endpointActivity(const trace::Trace& t) {
  std::vector<uint8_t> did(t.endpoints.size(), 0);
  for (const auto& e : t.events) {
    if (e.endpoint == trace::kNone || !log::isData(e.eventKind()) || (e.flags & trace::kEventFailed)) continue;
    did[e.endpoint] |= log::categoryOf(e.eventKind()) == log::Category::Send ? 1 : 2;
  }
  return did;
}

// The processes that took part, in the order they began, named after
// their program (proc, proc_2 ...); and each one's place among the images
// of its program.
struct Cast {
  std::vector<uint32_t> shown;
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, uint32_t> order;
  std::map<std::string, uint32_t> images_of;
};

Cast castOf(const trace::Trace& t, const std::vector<uint8_t>& did) {
  Cast c;
  std::map<std::string, int> taken;
  std::vector<uint32_t> by_creation;
  for (const auto& p : t.processes)
    if (!p.external && !p.log_path.empty()) by_creation.push_back(p.index);
  std::stable_sort(by_creation.begin(), by_creation.end(),
                   [&](uint32_t a, uint32_t b) { return t.processes[a].first_event < t.processes[b].first_event; });
  for (uint32_t p : by_creation) c.order[p] = ++c.images_of[t.processes[p].recorded_name];
  for (uint32_t p : by_creation) {
    bool active = false;
    for (uint32_t e = 0; e < t.endpoints.size() && !active; ++e) active = t.endpoints[e].process == p && did[e];
    if (!active) continue;
    std::string name = safeName(t.processName(p));
    if (int n = ++taken[name]; n > 1) name += "_" + std::to_string(n);
    c.names[p] = name;
    c.shown.push_back(p);
  }
  return c;
}

// One process block; the ports it shows go into `port_of`.
std::string processBlock(const trace::Trace& t, const std::vector<uint8_t>& did, Cast& c, uint32_t p,
                         std::map<uint32_t, std::string>* port_of) {
  const auto& rp = t.processes[p];
  std::string out = "\nprocess {\n  name: " + quoted(c.names[p]) + "\n";
  out += "  match { program: " + quoted(rp.recorded_name);
  if (c.images_of[rp.recorded_name] > 1) out += " order: " + std::to_string(c.order[p]);
  out += " }\n";
  out += "  # start { command: " + quoted(rp.executable);
  for (size_t k = 1; k < rp.argv.size(); ++k) out += " arg: " + quoted(rp.argv[k]);
  out += " }\n";
  std::set<int> fds;
  for (uint32_t e = 0; e < t.endpoints.size(); ++e) {
    const auto& ep = t.endpoints[e];
    if (ep.process != p || !did[e] || ep.fd < 0) continue;
    const std::string port = portName(ep.fd);
    (*port_of)[e] = c.names[p] + "." + port;
    if (!fds.insert(ep.fd).second) continue;
    uint8_t what = 0;  // an fd reused for several channels: every use
    for (uint32_t f = 0; f < t.endpoints.size(); ++f)
      if (t.endpoints[f].process == p && t.endpoints[f].fd == ep.fd) what |= did[f];
    const char* direction = what == 1 ? "OUT" : what == 2 ? "IN" : "INOUT";
    out += "  port { name: " + quoted(port) + " direction: " + direction + " fd: " + std::to_string(ep.fd) + " }  # " +
           t.channelName(ep.channel) + "\n";
  }
  return out + "}\n";
}

}  // namespace

std::string skeletonOf(const trace::Trace& t) {
  const std::vector<uint8_t> did = endpointActivity(t);
  Cast cast = castOf(t, did);
  std::string out;
  out += "# A network description of " + t.directories.front() + ", written by `radar netdesc`.\n";
  out += "# Rename processes and ports, add message types and framings (docs/netdesc.md),\n";
  out += "# then: radar events --net THIS_FILE DIR, radar replay --net THIS_FILE DIR.\n";
  std::string network = t.directories.front();
  while (network.size() > 1 && network.back() == '/') network.pop_back();
  network = safeName(network.substr(network.rfind('/') + 1));
  out += "name: " + quoted(network) + "\n";
  std::map<uint32_t, std::string> port_of;  // endpoint -> "process.port"
  for (uint32_t p : cast.shown) out += processBlock(t, did, cast, p, &port_of);
  if (const std::string connects = connections(t, did, port_of); !connects.empty()) out += "\n" + connects;
  return out;
}

}  // namespace radar::netdesc
