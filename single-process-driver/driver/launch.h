// Starting the re-run: the recorded image's executable, argv, environment
// and working directory, exactly. `radar debug --no-gdb` execs it itself;
// under gdb, radar-launch (gdb's exec-wrapper) reads the same description
// from a file, so that gdb's own shell and environment never reach the
// program.
#pragma once

#include <string>
#include <vector>

namespace radar::driver {

struct LaunchSpec {
  std::string cwd;
  std::string executable;
  std::vector<std::string> argv;
  std::vector<std::string> environment;
  // RLIMIT_NOFILE as recorded (0: leave it): a program near its limit
  // runs out of descriptors where it did.
  uint64_t nofile_soft = 0, nofile_hard = 0;
  // Address-space randomization left on (radar debug --aslr); off by
  // default, as radar record leaves it, so that addresses are the recorded ones.
  bool randomize_addresses = false;
};

// The file radar-launch reads: NUL-separated fields after a magic line.
bool writeLaunchFile(const std::string& path, const LaunchSpec& spec, std::string* error);
bool readLaunchFile(const std::string& path, LaunchSpec* spec, std::string* error);

// chdir + execve. Returns only on failure, with *error set.
void execLaunch(const LaunchSpec& spec, std::string* error);

}  // namespace radar::driver
