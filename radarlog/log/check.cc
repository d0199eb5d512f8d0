#include "log/check.h"

#include <cstdio>
#include <cstdlib>

namespace radar::log {

void checkFailed(const char* file, int line, const char* what) {
  std::fprintf(stderr, "radar: internal check failed at %s:%d: %s\n", file, line, what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace radar::log
