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
    "       radar replay --follow DIR...\n"
    "       radar replay --choose [DIR...]\n"
    "       radar replay DIR... --snapshot FILE.png|FILE.svg [--view PART] [--at-event N] [--size WxH]\n"
    "       radar replay DIR... --frames OUT_DIR --at-event A --to-event B [--fps N]\n"
    "       radar replay --diff RUN_A RUN_B [--snapshot FILE.png|FILE.svg]\n"
    "options: [OPTIONS]\n\n"
    "Replays a recording: processes as boxes, messages moving between them, RADAR's\n"
    "running narrative, a space-time diagram, the events and the findings.\n"
    "Several directories (one per host) are merged into one replay; directories that\n"
    "share no channel (two runs, say) only with --merge-unrelated.\n\n"
    "  --at-event N            start after event N (0: before the first)\n"
    "  --seconds-per-event S   how long each event takes to show (default: the\n"
    "                          recording in about a minute, at most 3 s an event)\n"
    "  --snapshot FILE.png     render the view at --at-event to FILE.png (or to\n"
    "                          FILE.svg, as vectors) and exit; needs no display;\n"
    "                          prints the narrative line\n"
    "  --view PART             what --snapshot draws: window (the default),\n"
    "                          network or timeline alone\n"
    "  --frames OUT_DIR        render the animation from event A to event B as PNG\n"
    "                          frames (frame-000001.png ...) in OUT_DIR, made if\n"
    "                          missing and empty if present, and exit; each event\n"
    "                          takes --seconds-per-event (default: the clip in\n"
    "                          about a minute, at most 3 s) at --fps frames a second\n"
    "                          (default 25); needs no display\n"
    "  --to-event B            where --frames ends\n"
    "  --fps N                 frames a second of --frames (default 25, at most 120)\n"
    "  --size WxH              size of the snapshot or frames (default 1280x800)\n"
    "  --critical-path         show the critical path to the --at-event event (as P)\n"
    "  --net FILE              name processes and channels and decode messages by\n"
    "                          this network description (docs/netdesc.md); a recording\n"
    "                          made by `radar run` carries its own\n"
    "  --no-net                ignore the description the recording carries\n"
    "  --merge-unrelated       show recordings that share no channel side by side\n"
    "  --diff                  two runs of one program side by side, each at the first\n"
    "                          event where they part (as `radar diff`), selected\n"
    "  --follow                a recording radar record is still making: the window\n"
    "                          follows it as it grows, each new event shown within a\n"
    "                          moment; a step or a skip back pauses following, Now\n"
    "                          (End) comes back to the latest (docs/live.md)\n"
    "  --choose                without DIR, ask for the recording's directory in a\n"
    "                          dialog (the desktop entry opens the window so)\n";

// What the replay application (radar-replay) parses: the table its usage
// and shell completion come from (tests/app checks it against the parser).
const OptionSpec kReplayOptionList[] = {{"at-event", 0, "N"},
                                        {"seconds-per-event", 0, "S"},
                                        {"snapshot", 0, "FILE"},
                                        {"view", 0, "PART"},
                                        {"size", 0, "WxH"},
                                        {"frames", 0, "OUT_DIR"},
                                        {"to-event", 0, "B"},
                                        {"fps", 0, "N"},
                                        {"critical-path", 0, nullptr},
                                        {"net", 0, "FILE"},
                                        {"no-net", 0, nullptr, InUsage::kOr},
                                        {"merge-unrelated", 0, nullptr},
                                        {"diff", 0, nullptr},
                                        {"follow", 0, nullptr},
                                        {"choose", 0, nullptr}};
const std::span<const OptionSpec> kReplayOptions{kReplayOptionList};

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
