// Included last by every source file compiled into an injected library
// (libradar-preload.so, libradar-rerun.so): code that runs inside
// somebody else's process, in a signal handler, after fork() in a
// multi-threaded program, with the program's malloc possibly locked.
//
// RADAR_INJECTED_CHECK(condition): an invariant that stays on. When it
// fails it says so with a raw write(2) to standard error (no stdio, no
// allocation) and aborts the process with SIGABRT, as assert() would, but
// without taking any of the C library's locks.
//
// And the C library's allocation and formatted output become compile
// errors here: they can deadlock (a lock held by the interrupted thread),
// allocate, or change what the program sees (its stdio buffers).
#pragma once

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

#include "log/sys.h"

namespace radar::log {

[[noreturn, gnu::cold, gnu::noinline]] inline void injectedCheckFailed(const char* file, int line, const char* what) {
  auto say = [](const char* s) {
    size_t n = 0;
    while (s[n]) ++n;
    (void)sys::raw(SYS_write, 2, reinterpret_cast<long>(s), static_cast<long>(n));
  };
  char number[12];
  int k = sizeof(number) - 1;
  number[k] = 0;
  unsigned v = static_cast<unsigned>(line);
  do number[--k] = static_cast<char>('0' + v % 10);
  while ((v /= 10) && k > 0);
  say("radar (injected library): internal check failed at ");
  say(file);
  say(":");
  say(number + k);
  say(": ");
  say(what);
  say("\n");
  // SIGABRT unblocked and at its default action, as abort() does.
  struct KernelSigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)();
    unsigned long mask;
  } dfl{SIG_DFL, 0, nullptr, 0};
  (void)sys::raw(SYS_rt_sigaction, SIGABRT, reinterpret_cast<long>(&dfl), 0, sizeof(unsigned long));
  unsigned long abrt = 1ul << (SIGABRT - 1);
  (void)sys::raw(SYS_rt_sigprocmask, SIG_UNBLOCK, reinterpret_cast<long>(&abrt), 0, sizeof(abrt));
  (void)sys::raw(SYS_tgkill, sys::raw(SYS_getpid), sys::raw(SYS_gettid), SIGABRT);
  __builtin_trap();
}

}  // namespace radar::log

#define RADAR_INJECTED_CHECK(condition)                                                                       \
  do {                                                                                                        \
    if (__builtin_expect(!(condition), 0)) ::radar::log::injectedCheckFailed(__FILE__, __LINE__, #condition); \
  } while (0)

// Not in injected code (see above). `syscall` stays for sys.h on architectures
// without its own system call instruction; the hooks' own is unseen_hooks.cc's.
#pragma GCC poison malloc calloc realloc free aligned_alloc posix_memalign memalign valloc pvalloc strdup strndup
#pragma GCC poison printf fprintf sprintf vprintf vfprintf vsprintf dprintf vdprintf puts fputs putchar fputc
#pragma GCC poison asprintf vasprintf perror
// (fflush stays: exit() hooks flush the program's stdio exactly as exit() would next.)
