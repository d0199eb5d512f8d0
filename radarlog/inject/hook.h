// How a hook is written, in both injected libraries (the recorder,
// libradar-preload.so, and the re-run's, libradar-rerun.so):
//
//   HOOK ssize_t read(int fd, void* buf, size_t n) {
//     REAL(read);                  // real_read: the next definition (libc's)
//     ...
//   }
//
// Only hooks are exported (the libraries are built with hidden visibility);
// tests/driver/injected_symbols.sh checks that both export the same ones.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>

#define HOOK extern "C" __attribute__((visibility("default")))

// The real function, resolved on first use (a hook can run before our
// constructor, from another library's).
#define REAL(name)                                \
  static decltype(&::name) real_##name = nullptr; \
  if (__builtin_expect(!real_##name, 0)) real_##name = reinterpret_cast<decltype(&::name)>(dlsym(RTLD_NEXT, #name))

// fcntl(): the optional third argument (a number or a pointer), passed on
// as a pointer-sized word.
#define OPTIONAL_ARG(last, arg)         \
  void* arg;                            \
  {                                     \
    va_list optional_args;              \
    va_start(optional_args, last);      \
    arg = va_arg(optional_args, void*); \
    va_end(optional_args);              \
  }

// open() and friends: `mode`, the optional argument, there only with
// O_CREAT or O_TMPFILE.
#define OPEN_MODE(flags, mode)                          \
  mode_t mode = 0;                                      \
  if ((flags) & (O_CREAT | __O_TMPFILE)) {              \
    va_list mode_args;                                  \
    va_start(mode_args, flags);                         \
    mode = static_cast<mode_t>(va_arg(mode_args, int)); \
    va_end(mode_args);                                  \
  }
