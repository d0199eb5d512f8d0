// The recorder's environment: what `radar record` tells each recorded
// image (its RADAR_* variables, RADAR_LINK), and the environment an exec
// passes on. Functions of their arguments only, without libc state or
// allocation: tested directly, without LD_PRELOAD
// (tests/preload/environment_test.cc).
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "log/fields.h"

namespace radar::preload {

struct Config;

// The value of variable `name` in `envp`, or null.
const char* findEnv(char* const* envp, const char* name);

// Fills `config` from radar record's variables: enabled when RADAR_DIR is
// set. `self_path` is this library's path (for LD_PRELOAD at exec).
void parseConfig(char* const* envp, const char* self_path, Config* config);

// RADAR_LINK=<origin>:<log id in hex>:<counter>:<generation>, which an
// image's parent leaves it: how it began. Without one, it was started by
// something unrecorded (a shell).
struct Link {
  log::Origin origin = log::Origin::ShellSpawned;
  uint64_t parent_log = 0;
  uint64_t counter = 0;
  uint32_t generation = 0;
};
Link parseLink(char* const* envp);
// The RADAR_LINK variable for the image about to start.
void formatLink(char* buf, size_t size, const char* origin, uint64_t log_id, uint64_t counter, uint32_t gen);

// The strings an environment is built with, on the exec hook's stack (not
// thread-local: the library's thread-local storage is kept small, since it
// moves the program's own memory, see mmapAside in log/sys.h).
struct EnvScratch {
  char preload[PATH_MAX + 64];
  char asan[4096];
};

// Exec: the environment for the new image (radar's variables present,
// this library first in LD_PRELOAD but after sanitizer runtimes, `link`
// last) in `out`, which must hold `capacity` pointers. False if it does
// not fit. The strings it makes live in `scratch`.
bool buildExecEnvironment(const Config& config, char* const* envp, const char* link, char** out, size_t capacity,
                          EnvScratch* scratch);
// `envp` as it would be without radar: its variables left out, and its
// library taken out of LD_PRELOAD. For an exec that radar's variables
// alone would push over the kernel's limit (E2BIG).
bool buildBareEnvironment(const Config& config, char* const* envp, char** out, size_t capacity, EnvScratch* scratch);

}  // namespace radar::preload
