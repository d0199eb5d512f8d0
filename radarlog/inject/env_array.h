// Room for the pointers of an environment a hook hands to exec or spawn:
// on the stack when it is small, else mapped aside (log/sys.h, away from
// the program's own mappings), never in a vfork child, whose mappings
// would be its parent's.
#pragma once

#include <sys/mman.h>

#include <cstddef>

#include "log/sys.h"

namespace radar::inject {

// The variables in an environment (none for a null one).
inline size_t environmentSize(char* const* envp) {
  size_t n = 0;
  for (char* const* e = envp; e && *e; ++e) ++n;
  return n;
}

class EnvArray {
 public:
  EnvArray(size_t needed, bool may_map) {
    if (needed <= kOnStack || !may_map) return;
    const size_t bytes = needed * sizeof(char*);
    const long m = sys::mmapAside(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m < 0 && m > -4096) return;  // no memory: the stack's room
    env_ = reinterpret_cast<char**>(m);
    capacity_ = needed;
    mapped_ = bytes;
  }
  ~EnvArray() {
    if (mapped_) sys::munmap(env_, mapped_);
  }
  EnvArray(const EnvArray&) = delete;
  EnvArray& operator=(const EnvArray&) = delete;

  char** data() { return env_; }
  size_t capacity() const { return capacity_; }

 private:
  static constexpr size_t kOnStack = 512;
  char* stack_[kOnStack];
  char** env_ = stack_;
  size_t capacity_ = kOnStack;
  size_t mapped_ = 0;
};

}  // namespace radar::inject
