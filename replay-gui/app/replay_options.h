// The command line of `radar replay` (parsed without Qt, so that bad
// arguments get a clear message before any window or display is needed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace radar::app {

struct ReplayOptions {
  std::vector<std::string> dirs;
  std::string snapshot;         // render to this PNG and exit
  std::string view = "window";  // --snapshot of: the window, the network or the timeline
  std::string frames;           // render the animation to PNGs in this directory and exit
  uint32_t to_event = 0;        // --frames: up to this event
  int fps = 25;                 // --frames: frames a second of animation
  uint32_t at_event = 0;        // events applied (0: before the first)
  int width = 1280, height = 800;
  double seconds_per_event = 0;  // 0: the recording in about a minute (ReplayController::secondsPerEventFor)
  std::string net;               // a network description to apply (--net)
  bool no_net = false;           // ignore the one the recording carries
  bool critical_path = false;    // show the critical path to --at-event (P)
  bool merge_unrelated = false;  // merge directories that share no channel
  bool diff = false;             // two runs side by side, at their first difference
  bool choose = false;           // no directory given: ask for one in a dialog
  bool follow = false;           // a recording in progress, followed as it grows
  bool help = false;
};

extern const char kReplayUsage[];
bool parseReplayOptions(int argc, char** argv, ReplayOptions* out, std::string* error);

}  // namespace radar::app
