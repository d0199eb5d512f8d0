// radar-launch FILE [IGNORED...]: gdb's exec-wrapper for `radar debug`.
// gdb runs "radar-launch FILE PROGRAM ARGS" and waits for one exec; we exec
// the recorded image as FILE describes it (gdb's own arguments and
// environment are not the recorded ones).
#include <cstdio>

#include "driver/launch.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: radar-launch FILE (started by radar debug)\n");
    return 127;
  }
  radar::driver::LaunchSpec spec;
  std::string error;
  if (radar::driver::readLaunchFile(argv[1], &spec, &error)) radar::driver::execLaunch(spec, &error);
  std::fprintf(stderr, "radar-launch: %s\n", error.c_str());
  return 127;
}
