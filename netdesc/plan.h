// What `radar run` hands the network launcher (radar-network): the
// channels to create and the processes to start with their ports. Plain
// data in a small file, so that the launcher -- which runs recorded --
// needs no protobuf and does nothing but pipe, fork and exec.
//
// The file is a sequence of tokens, each written as "<length>:<bytes>",
// so that arguments may hold any byte. Records start with a keyword:
//   channel <id> pipe|socketpair
//   process <name> <executable> <argv0> inherit|null    (stdin)
//   arg <value>            argv[1] ... of the last process
//   env <NAME=VALUE>       added to its environment
//   port <NAME> <ends>     its port: "<id>r", "<id>w" (a pipe's read or
//                          write end), "<id>a", "<id>b" (a socket pair's),
//                          comma-separated
#pragma once

#include <string>
#include <vector>

namespace radar::netdesc {

struct PlanChannel {
  std::string id;
  bool socketpair = false;
};

struct PlanPort {
  std::string name;
  std::vector<std::string> ends;  // "3r", "0w", "2a" ...
};

struct PlanProcess {
  std::string name, executable, argv0;
  bool stdin_null = false;
  std::vector<std::string> args, env;
  std::vector<PlanPort> ports;
};

struct Plan {
  std::vector<PlanChannel> channels;
  std::vector<PlanProcess> processes;
};

// The port convention: the environment variable naming a port's
// descriptors, RADAR_PORT_<NAME> with the name in upper case.
inline constexpr char kPortVariablePrefix[] = "RADAR_PORT_";
std::string portVariable(const std::string& port);

std::string writePlan(const Plan& plan);
// False with *error on a malformed file.
bool readPlan(const std::string& text, Plan* plan, std::string* error);

}  // namespace radar::netdesc

namespace radar::netdesc {

class Description;

// The plan that starts `description`'s network: a pipe per connected input
// port (written by every output connected to it), a socket pair per
// INOUT connection, each process's command found (a path relative to the
// description, a name next to the description or in PATH). False with
// *error (naming the description and the process) when a process cannot
// be started.
bool planNetwork(const Description& description, Plan* plan, std::string* error);

}  // namespace radar::netdesc
