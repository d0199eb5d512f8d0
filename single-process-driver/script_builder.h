// From a merged recording to the replay script (script.h) of one process
// image, and what it takes to start that image again as it was started.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace.h"

namespace radar::driver {

// How the first image of a script was started: what `radar debug` execs.
struct Launch {
  std::string executable;                // /proc/self/exe as recorded
  std::vector<std::string> argv;
  std::vector<std::string> environment;  // as recorded, minus radar's own variables
  std::vector<std::string> preloads;     // the program's own LD_PRELOAD entries, kept
  std::string cwd;
  uint64_t executable_size = 0;          // when recorded, to notice a rebuilt program
  int64_t executable_mtime_ns = 0;
};

struct Script {
  std::string bytes;              // the script file (script.h layout)
  Launch launch;
  std::vector<uint32_t> chain;    // process images replayed, the debugged one last
  uint32_t events = 0;            // events in the script
  uint32_t first_number = 0;      // replay event numbers ("Event N") of the debugged image
  uint32_t last_number = 0;
  std::vector<std::string> notes; // what the user should know (limits met, ...)
};

// Builds the script that re-runs process image `image` of `trace`. An image
// created by fork() starts inside its parent: the script replays the
// parent (and its ancestors up to an exec'd or started image) up to the
// fork, then the child. False, with *error for people, when the image
// cannot be replayed faithfully (a log missing or damaged, bytes the
// recording did not keep, events lost while recording).
bool buildScript(const replay::Trace& trace, uint32_t image, Script* out, std::string* error);

// The images a script for `image` replays, first started first; empty with
// *error when an ancestor is missing.
std::vector<uint32_t> imageChain(const replay::Trace& trace, uint32_t image, std::string* error);

}  // namespace radar::driver
