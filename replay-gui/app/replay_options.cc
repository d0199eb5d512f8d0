#include "app/replay_options.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace radar::app {

const char kReplayUsage[] =
    "usage: radar replay DIR... [--at-event N] [--seconds-per-event S]\n"
    "       radar replay --choose [DIR...]\n"
    "       radar replay DIR... --snapshot FILE.png|FILE.svg [--view PART] [--at-event N] [--size WxH]\n"
    "       radar replay DIR... --frames OUT_DIR --at-event A --to-event B [--fps N]\n"
    "       radar replay --diff RUN_A RUN_B [--snapshot FILE.png|FILE.svg]\n\n"
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
    "  --size WxH              size of the snapshot or frames (default 1280x800)\n"
    "  --critical-path         show the critical path to the --at-event event (as P)\n"
    "  --net FILE              name processes and channels and decode messages by\n"
    "                          this network description (docs/netdesc.md); a recording\n"
    "                          made by `radar run` carries its own\n"
    "  --no-net                ignore the description the recording carries\n"
    "  --merge-unrelated       show recordings that share no channel side by side\n"
    "  --diff                  two runs of one program side by side, each at the first\n"
    "                          event where they part (as `radar diff`), selected\n"
    "  --choose                without DIR, ask for the recording's directory in a\n"
    "                          dialog (the desktop entry opens the window so)\n";

namespace {
bool parseUnsigned(const char* s, unsigned long max, unsigned long* out) {
  if (!*s || *s == '-' || *s == '+') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long v = std::strtoul(s, &end, 10);
  if (errno || *end || v > max) return false;
  *out = v;
  return true;
}

bool parseSize(const char* v, ReplayOptions* out, std::string* error) {
  const char* x = std::strchr(v, 'x');
  unsigned long w = 0, h = 0;
  if (!x || !parseUnsigned(std::string(v, x).c_str(), 16384, &w) || !parseUnsigned(x + 1, 16384, &h) || w < 64 ||
      h < 64) {
    *error = "--size wants WIDTHxHEIGHT between 64 and 16384, not '" + std::string(v) + "'";
    return false;
  }
  out->width = static_cast<int>(w);
  out->height = static_cast<int>(h);
  return true;
}

bool parseSecondsPerEvent(const char* v, double* out, std::string* error) {
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (!*v || *end || !(s >= 0.001 && s <= 60)) {
    *error = "--seconds-per-event wants a number from 0.001 to 60, not '" + std::string(v) + "'";
    return false;
  }
  *out = s;
  return true;
}

// The options given go together: a recording, one picture or an
// animation, --diff with its two runs alone.
bool optionsAgree(const ReplayOptions& o, std::string* error) {
  if (o.choose && (!o.snapshot.empty() || !o.frames.empty() || o.diff)) {
    *error = "--choose opens the window: not with --snapshot, --frames or --diff";
    return false;
  }
  if (o.dirs.empty() && !o.choose) {
    *error = "which recording? give its directory (or --choose, to pick it in a dialog)";
    return false;
  }
  if (!o.frames.empty() && !o.snapshot.empty()) {
    *error = "--frames and --snapshot: one picture or an animation, not both";
    return false;
  }
  if (o.view != "window" && (o.snapshot.empty() || o.diff)) {
    *error =
        o.diff ? "--diff draws both runs' windows: no --view" : "--view is what --snapshot draws: give --snapshot FILE";
    return false;
  }
  if (!o.frames.empty() && o.to_event <= o.at_event) {
    *error = "--frames wants --to-event after --at-event (the animation from one to the other)";
    return false;
  }
  if (o.frames.empty() && o.to_event) {
    *error = "--to-event is where --frames ends: give --frames OUT_DIR";
    return false;
  }
  if (o.diff && o.dirs.size() != 2) {
    *error = "--diff compares two runs: give RUN_A RUN_B";
    return false;
  }
  if (o.diff && (o.at_event || o.critical_path || o.merge_unrelated)) {
    *error = "--diff opens both runs at their first difference: no --at-event, --critical-path or --merge-unrelated";
    return false;
  }
  return true;
}
}  // namespace

bool parseReplayOptions(int argc, char** argv, ReplayOptions* out, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        *error = std::string(name) + " needs a value";
        return nullptr;
      }
      return argv[++i];
    };
    // An option whose value names a file: given, and not empty.
    auto file = [&](const char* name, const char* what, std::string* to) {
      const char* v = value(name);
      if (!v) return false;
      if (!*v) {
        *error = std::string(name) + " needs " + what;
        return false;
      }
      *to = v;
      return true;
    };
    if (a == "-h" || a == "--help") {
      out->help = true;
      return true;
    } else if (a == "--snapshot") {
      if (!file("--snapshot", "a file name", &out->snapshot)) return false;
      auto ends = [&](const char* ext) {
        const std::string& f = out->snapshot;
        if (f.size() < 4) return false;
        for (size_t k = 0; k < 4; ++k)
          if (std::tolower(static_cast<unsigned char>(f[f.size() - 4 + k])) != ext[k]) return false;
        return true;
      };
      if (!ends(".png") && !ends(".svg")) {
        *error = "--snapshot: the file name should end in .png or .svg, not '" + out->snapshot + "'";
        return false;
      }
    } else if (a == "--view") {
      const char* v = value("--view");
      if (!v) return false;
      out->view = v;
      if (out->view != "window" && out->view != "network" && out->view != "timeline") {
        *error = "--view wants window, network or timeline, not '" + out->view + "'";
        return false;
      }
    } else if (a == "--frames") {
      if (!file("--frames", "a directory", &out->frames)) return false;
    } else if (a == "--to-event" || a == "--fps") {
      const char* v = value(a.c_str());
      unsigned long n = 0;
      if (!v) return false;
      if (!parseUnsigned(v, a == "--fps" ? 120 : 0xffffffffUL, &n) || (a == "--fps" && n == 0)) {
        *error = a == "--fps" ? "--fps wants a number of frames a second from 1 to 120, not '" + std::string(v) + "'"
                              : "--to-event wants an event number, not '" + std::string(v) + "'";
        return false;
      }
      if (a == "--fps")
        out->fps = static_cast<int>(n);
      else
        out->to_event = static_cast<uint32_t>(n);
    } else if (a == "--at-event") {
      const char* v = value("--at-event");
      unsigned long n = 0;
      if (!v) return false;
      if (!parseUnsigned(v, 0xffffffffUL, &n)) {
        *error = "--at-event wants an event number (0 or more), not '" + std::string(v) + "'";
        return false;
      }
      out->at_event = static_cast<uint32_t>(n);
    } else if (a == "--net") {
      if (!file("--net", "a description file", &out->net)) return false;
    } else if (a == "--no-net") {
      out->no_net = true;
    } else if (a == "--diff") {
      out->diff = true;
    } else if (a == "--choose") {
      out->choose = true;
    } else if (a == "--merge-unrelated") {
      out->merge_unrelated = true;
    } else if (a == "--critical-path") {
      out->critical_path = true;
    } else if (a == "--size") {
      const char* v = value("--size");
      if (!v || !parseSize(v, out, error)) return false;
    } else if (a == "--seconds-per-event") {
      const char* v = value("--seconds-per-event");
      if (!v || !parseSecondsPerEvent(v, &out->seconds_per_event, error)) return false;
    } else if (a.size() > 1 && a[0] == '-') {
      *error = "unknown option '" + a + "'";
      return false;
    } else {
      out->dirs.push_back(a);
    }
  }
  return optionsAgree(*out, error);
}

}  // namespace radar::app
