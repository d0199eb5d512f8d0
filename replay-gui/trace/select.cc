#include "trace/select.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "log/kind_match.h"

namespace radar::trace {

namespace {

// "; it has: parser (2), scanner, calc ...": the names a user can give,
// the most common first, for an error that found none.
std::string knownNames(const Trace& t) {
  std::map<std::string, size_t> count;
  for (const auto& p : t.processes)
    if (p.not_recorded.empty()) ++count[t.processName(p.index)];
  std::vector<std::pair<size_t, std::string>> names;
  for (const auto& [name, n] : count) names.push_back({n, name});
  std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (names.empty()) return "";
  std::string out = "; its processes: ";
  constexpr size_t kShown = 8;
  for (size_t k = 0; k < names.size() && k < kShown; ++k)
    out += (k ? ", " : "") + names[k].second + (names[k].first > 1 ? " (" + std::to_string(names[k].first) + ")" : "");
  if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
  return out + " (a name, a pid, pid.generation or name[pid])";
}

}  // namespace

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
  } else if (!spec.empty() && spec.find_first_not_of("0123456789.") == std::string::npos &&
             std::count(spec.begin(), spec.end(), '.') <= 1 && spec.front() != '.' && spec.back() != '.') {
    // "pid", "pid.generation"
    char* end = nullptr;
    pid = std::strtol(spec.c_str(), &end, 10);
    if (*end == '.') generation = std::strtol(end + 1, nullptr, 10);
    name.clear();
  }
  for (const auto& p : t.processes) {
    if (pid >= 0 && p.pid != pid) continue;
    if (generation >= 0 && static_cast<long>(p.generation) != generation) continue;
    if (!name.empty() && t.processName(p.index) != name) continue;
    out.push_back(p.index);
  }
  if (out.empty()) {
    *error = "no process '" + spec + "' in this recording" + knownNames(t);
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

bool knownKind(const std::string& k) {
  static const std::set<std::string> kinds = {"send", "receive", "process", "channel", "readiness",
                                              "user", "signal",  "message", "mpi"};
  bool known = kinds.count(k) || mpiCollectiveCode(k) != 0;
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
  // A collective by its operation: MPI_Allreduce.
  const auto operation = [&](const std::string& k) {
    return e.eventKind() == Kind::MpiCollective && e.value == mpiCollectiveCode(k);
  };
  return kinds.empty() || std::any_of(kinds.begin(), kinds.end(), [&](const std::string& k) {
           return log::kindMatches(k, e.eventKind()) || operation(k);
         });
}

}  // namespace radar::trace
