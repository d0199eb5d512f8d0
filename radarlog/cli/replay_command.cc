// radar replay: starts the replay application (libexec/radar/radar-replay),
// which links Qt; `radar` itself does not.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"

namespace radar::cli {

const char kReplayHelp[] =
    "usage: radar replay DIR... [--at-event N] [--seconds-per-event S]\n"
    "       radar replay --choose [DIR...]\n"
    "       radar replay DIR... --snapshot FILE.png|FILE.svg [--view PART] [--at-event N] [--size WxH]\n"
    "       radar replay DIR... --frames OUT_DIR --at-event A --to-event B [--fps N]\n"
    "       radar replay --diff RUN_A RUN_B [--snapshot FILE.png|FILE.svg]\n\n"
    "Opens the animated replay of a recording (see docs/replay.md). Without a\n"
    "display, --snapshot renders the view at an event to a PNG or an SVG (the\n"
    "window, or with --view network or timeline that alone), and\n"
    "--frames the animation between two events to PNG frames (for a video);\n"
    "--choose, without DIR, asks for the recording's directory in a dialog.\n";

int runReplay(int argc, char** argv) {
  const std::string app = selfDirectory() + "/../libexec/radar/radar-replay";
  std::vector<char*> args;
  args.push_back(const_cast<char*>(app.c_str()));
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(app.c_str(), args.data());
  std::fprintf(stderr, "radar replay: cannot start %s: %s\n", app.c_str(), std::strerror(errno));
  return kExitUsage;
}

}  // namespace radar::cli
