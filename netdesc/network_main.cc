// radar-network PLAN: starts a described network, as NETSLA's `initial`
// clause did -- creates its channels, starts each process with its ports
// as inherited descriptors named in RADAR_PORT_<NAME>, and waits for all of
// them. `radar run` writes the plan (plan.h) and runs this under `radar
// record`, so that the recording shows the network being built.
//
// Exit status: the first non-zero status a process ended with (128 + the
// signal for one killed), or 0.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "log/wait_status.h"
#include "netdesc/plan.h"

extern char** environ;

namespace {

std::vector<pid_t> g_children;

void forward(int sig) {
  for (pid_t p : g_children) ::kill(p, sig);
}

// NAME of "NAME=VALUE".
std::string variableName(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// The environment of a process of the plan, with its ports' descriptors
// (in `keep`) named by RADAR_PORT_<NAME>; false after saying why.
bool environmentOf(const radar::netdesc::PlanProcess& p, const std::map<std::string, int[2]>& channels,
                   std::vector<std::string>* env, std::vector<int>* keep) {
  using namespace radar::netdesc;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, kPortVariablePrefix, sizeof(kPortVariablePrefix) - 1) != 0) env->emplace_back(*e);
  for (const auto& port : p.ports) {
    std::string list;
    for (const auto& end : port.ends) {
      auto it = channels.find(end.substr(0, end.size() - 1));
      if (end.size() < 2 || it == channels.end()) {
        std::fprintf(stderr, "radar run: the plan names an unknown channel end '%s'\n", end.c_str());
        return false;
      }
      const char which = end.back();
      const int fd = it->second[which == 'r' || which == 'a' ? 0 : 1];
      keep->push_back(fd);
      list += (list.empty() ? "" : ",") + std::to_string(fd);
    }
    if (!list.empty()) env->push_back(portVariable(port.name) + "=" + list);
  }
  for (const auto& e : p.env) {
    const std::string name = variableName(e);
    for (auto it = env->begin(); it != env->end();) it = variableName(*it) == name ? env->erase(it) : it + 1;
    env->push_back(e);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace radar::netdesc;
  if (argc != 2) {
    std::fprintf(stderr, "usage: radar-network PLAN (it is started by `radar run`)\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  Plan plan;
  std::string error;
  if (!in || !readPlan(text.str(), &plan, &error)) {
    std::fprintf(stderr, "radar run: %s: %s\n", argv[1], in ? error.c_str() : std::strerror(errno));
    return 2;
  }

  // The channels. Close-on-exec: each process keeps only its own ends, or a
  // pipe would never reach end of file.
  std::map<std::string, int[2]> channels;
  std::vector<int> all;
  for (const auto& c : plan.channels) {
    int* fds = channels[c.id];
    const int rc = c.socketpair ? ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) : ::pipe2(fds, O_CLOEXEC);
    if (rc != 0) {
      std::fprintf(stderr, "radar run: cannot create a %s: %s\n", c.socketpair ? "socket pair" : "pipe",
                   std::strerror(errno));
      return 2;
    }
    all.insert(all.end(), {fds[0], fds[1]});
  }

  struct sigaction fwd {};
  fwd.sa_handler = forward;
  for (int sig : {SIGTERM, SIGHUP}) ::sigaction(sig, &fwd, nullptr);

  std::map<pid_t, std::string> names;
  int first_failure = 0;
  for (const auto& p : plan.processes) {
    // Its ports' descriptors, and the environment that names them.
    std::vector<int> keep;
    std::vector<std::string> env;
    if (!environmentOf(p, channels, &env, &keep)) return 2;
    std::vector<char*> child_argv{const_cast<char*>(p.argv0.c_str())};
    for (const auto& a : p.args) child_argv.push_back(const_cast<char*>(a.c_str()));
    child_argv.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) {
      std::fprintf(stderr, "radar run: cannot start %s: fork: %s\n", p.name.c_str(), std::strerror(errno));
      first_failure = first_failure ? first_failure : 2;
      break;
    }
    if (pid == 0) {
      for (int sig : {SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
      if (p.stdin_null) {
        const int null = ::open("/dev/null", O_RDONLY);
        if (null >= 0 && null != 0) {
          ::dup2(null, 0);
          ::close(null);
        }
      }
      for (int fd : keep) ::fcntl(fd, F_SETFD, 0);
      ::execve(p.executable.c_str(), child_argv.data(), envp.data());
      std::fprintf(stderr, "radar run: cannot start %s (%s): %s\n", p.name.c_str(), p.executable.c_str(),
                   std::strerror(errno));
      ::_exit(127);
    }
    g_children.push_back(pid);
    names[pid] = p.name;
  }
  for (int fd : all) ::close(fd);

  for (size_t left = g_children.size(); left > 0;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto it = names.find(pid);
    if (it == names.end()) continue;
    --left;
    const int code = radar::log::shellExitStatus(status);
    if (code) std::fprintf(stderr, "radar run: %s %s\n", it->second.c_str(), radar::log::statusText(status).c_str());
    if (code && !first_failure) first_failure = code;
  }
  return first_failure;
}
