#include <unistd.h>

#include <cstdlib>
#include <map>

#include "log/executables.h"
#include "netdesc/description.h"
#include "netdesc/plan.h"

namespace radar::netdesc {
namespace {

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// A start command as a path: relative to the description's directory when
// it has a slash; otherwise next to the description, then in PATH.
std::string findCommand(const std::string& command, const std::string& directory) {
  if (command.find('/') != std::string::npos) {
    const std::string path = command[0] == '/' ? command : directory + "/" + command;
    return executable(path) ? path : "";
  }
  if (executable(directory + "/" + command)) return directory + "/" + command;
  return log::findExecutable(command, std::getenv("PATH"));
}

}  // namespace

bool planNetwork(const Description& d, Plan* plan, std::string* error) {
  const Network& n = d.network();
  if (n.process_size() == 0) {
    *error = d.path() + ": describes no process to start";
    return false;
  }
  // The ends each port gets, by "process.port".
  std::map<std::string, std::vector<std::string>> ends;
  std::map<std::string, std::string> input_pipe;  // input port -> its pipe's id
  int next_id = 0;
  for (const Connect& c : n.connect()) {
    const Process* from_process = d.process(c.from().substr(0, c.from().find('.')));
    const Port* from = from_process ? d.port(*from_process, c.from().substr(c.from().find('.') + 1)) : nullptr;
    for (const std::string& to : c.to()) {
      if (from && from->direction() == INOUT) {
        const std::string id = std::to_string(next_id++);
        plan->channels.push_back({id, true});
        ends[c.from()].push_back(id + "a");
        ends[to].push_back(id + "b");
        continue;
      }
      auto [it, made] = input_pipe.emplace(to, std::to_string(next_id));
      if (made) {
        ++next_id;
        plan->channels.push_back({it->second, false});
        ends[to].push_back(it->second + "r");
      }
      ends[c.from()].push_back(it->second + "w");
    }
  }
  const std::string directory = d.directory();
  for (const Process& p : n.process()) {
    if (p.start().command().empty()) {
      *error = d.path() + ": process '" + p.name() + "' has no start { command: ... }: radar run cannot start it";
      return false;
    }
    PlanProcess pp;
    pp.name = p.name();
    pp.executable = findCommand(p.start().command(), directory);
    if (pp.executable.empty()) {
      *error = d.path() + ": process '" + p.name() + "': command '" + p.start().command() + "' not found " +
               (p.start().command().find('/') != std::string::npos
                    ? "(a path with a slash is relative to the description's directory)"
                    : "next to the description (" + directory + ") or in PATH");
      return false;
    }
    pp.argv0 = p.start().argv0().empty() ? p.name() : p.start().argv0();
    pp.stdin_null = p.start().stdin() == NULL_DEVICE;
    pp.args.assign(p.start().arg().begin(), p.start().arg().end());
    pp.env.assign(p.start().env().begin(), p.start().env().end());
    for (const Port& port : p.port()) {
      auto it = ends.find(p.name() + "." + port.name());
      if (it != ends.end()) pp.ports.push_back({port.name(), it->second});
    }
    plan->processes.push_back(std::move(pp));
  }
  return true;
}

}  // namespace radar::netdesc
