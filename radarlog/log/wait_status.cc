#include "log/wait_status.h"

#include <sys/wait.h>

#include <csignal>
#include <cstring>

namespace radar::log {

std::string signalText(int sig) {
  const char* name = sig > 0 && sig < NSIG ? sigabbrev_np(sig) : nullptr;
  return std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : "");
}

std::string statusText(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "was killed by signal " + signalText(WTERMSIG(status)) + (WCOREDUMP(status) ? ", core dumped" : "");
  if (WIFSTOPPED(status)) return "stopped on signal " + signalText(WSTOPSIG(status));
  return "continued";
}

int shellExitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace radar::log
