#include "trace/select.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace radar::trace {

std::vector<uint32_t> findProcesses(const trace::Trace& t, const std::string& spec, bool unique, std::string* error) {
  std::vector<uint32_t> out;
  std::string name = spec;
  long pid = -1, generation = -1;
  // "name[pid]", "name[pid.generation]"
  if (const auto open = spec.rfind('['); open != std::string::npos && spec.back() == ']') {  // titles may hold '['
    name = spec.substr(0, open);
    char* end = nullptr;
    pid = std::strtol(spec.c_str() + open + 1, &end, 10);
    if (*end == '.') generation = std::strtol(end + 1, nullptr, 10);
  } else if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos) {
    pid = std::strtol(spec.c_str(), nullptr, 10);
    name.clear();
  }
  for (const auto& p : t.processes) {
    if (pid >= 0 && p.pid != pid) continue;
    if (generation >= 0 && static_cast<long>(p.generation) != generation) continue;
    if (!name.empty() && t.processName(p.index) != name) continue;
    out.push_back(p.index);
  }
  if (out.empty()) {
    *error = "no process '" + spec + "' in this recording";
    return out;
  }
  if (unique && !name.empty() && pid < 0) {
    std::set<int32_t> pids;
    for (uint32_t i : out) pids.insert(t.processes[i].pid);
    if (pids.size() > 1) {
      *error =
          "'" + spec + "' names " + std::to_string(pids.size()) + " processes; give the pid, e.g. " + t.label(out[0]);
      out.clear();
    }
  }
  return out;
}

bool kindMatches(const std::string& want, log::Kind k) {
  using log::Category;
  const Category c = log::categoryOf(k);
  if (want == "send") return c == Category::Send;
  if (want == "receive") return c == Category::Receive;
  if (want == "process") return c == Category::Process;
  if (want == "channel") return c == Category::Channel;
  if (want == "readiness") return c == Category::Readiness;
  if (want == "user") return c == Category::User;
  if (want == "signal") return k == log::Kind::Signal || k == log::Kind::SignalWait || k == log::Kind::Kill;
  if (want == "message") return c == Category::Send || c == Category::Receive;
  if (want == "mpi") return log::isMpiKind(k);
  return want == log::kindName(k);
}

bool knownKind(const std::string& k) {
  static const std::set<std::string> kinds = {"send", "receive", "process", "channel", "readiness",
                                              "user", "signal",  "message", "mpi"};
  bool known = kinds.count(k);
  for (unsigned v = 1; v < 256 && !known; ++v)
    known = log::categoryOf(static_cast<log::Kind>(v)) != log::Category::Unknown &&
            k == log::kindName(static_cast<log::Kind>(v));
  return known;
}

bool selectChannels(const trace::Trace& t, const std::string& spec, std::set<uint32_t>* channels) {
  bool found = false;
  for (const auto& c : t.channels)
    if (const std::string& name = t.channelName(c.index);
        name == spec || std::to_string(c.index + 1) == spec || name.rfind(spec + " \u2190 ", 0) == 0) {
      channels->insert(c.index);
      found = true;
    }
  return found;
}

bool EventFilter::wants(const Trace& t, uint32_t i) const {
  const Event& e = t.events[i];
  if (!processes.empty() && !processes.count(e.process)) return false;
  if (!mpi_library && t.byMpiLibrary(i)) return false;
  const uint32_t ch = t.channelOf(i);
  if (!channels.empty() && (ch == kNone || !channels.count(ch))) return false;
  if (!tags.empty()) {
    const Kind k = e.eventKind();
    log::Record r;
    if ((k != Kind::MpiSend && k != Kind::MpiRecv) || !t.record(i, &r, nullptr, nullptr, nullptr) ||
        !tags.count(r.status))
      return false;
  }
  return kinds.empty() ||
         std::any_of(kinds.begin(), kinds.end(), [&](const std::string& k) { return kindMatches(k, e.eventKind()); });
}

}  // namespace radar::trace
