#include "app/replay_options.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace radar::app {

const char kReplayUsage[] = "radar-replay is the window of `radar replay`; its options: radar help replay\n";

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
  if (o.follow && (o.choose || o.diff || !o.snapshot.empty() || !o.frames.empty() || o.at_event || o.critical_path ||
                   !o.net.empty() || o.no_net || o.seconds_per_event > 0)) {
    *error =
        "--follow shows the recording as it grows, with the description it carries: not with --choose, --diff, "
        "--snapshot, --frames, --at-event, --critical-path, --net, --no-net or --seconds-per-event";
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
    } else if (a == "--follow") {
      out->follow = true;
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
