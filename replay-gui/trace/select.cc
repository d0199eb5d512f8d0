#include "trace/select.h"

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

}  // namespace radar::trace
