// How a process ended or a signal is named, in words, the same wherever
// radar says it (the story, radar record's summary, radar debug's verdict).
#pragma once

#include <string>

namespace radar::log {

// "9 (SIGKILL)".
std::string signalText(int sig);
// A wait status: "exited with status 0", "was killed by signal 9 (SIGKILL)".
std::string statusText(int raw_wait_status);
// The exit status a shell gives for a wait status: 128+N for signal N.
int shellExitStatus(int raw_wait_status);

}  // namespace radar::log
