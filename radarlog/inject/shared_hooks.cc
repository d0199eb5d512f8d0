// Hooks both injected libraries define the same way, in terms of calls each
// hooks itself: the execl family becomes execve/execvpe, the signal family
// becomes sigaction. Built once, with the injected flags, into both.
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include "inject/hook.h"

#include "inject/injected.h"  // last: it poisons what injected code must not call

namespace {

// execl(), execlp(), execle(): the arguments as an argv array, as glibc
// builds it (too many: E2BIG).
constexpr int kMaxListArgs = 4096;

}  // namespace

#define COLLECT_ARGS(first, ap, argv, n)                                    \
  char* argv[kMaxListArgs + 1];                                             \
  int n = 0;                                                                \
  argv[n++] = const_cast<char*>(first);                                     \
  while (n < kMaxListArgs && (argv[n] = va_arg(ap, char*)) != nullptr) ++n; \
  argv[n] = nullptr

// glibc's answer to a list too long.
static int tooManyArguments() {
  errno = E2BIG;
  return -1;
}

HOOK int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  COLLECT_ARGS(arg, ap, argv, n);
  va_end(ap);
  return n >= kMaxListArgs ? tooManyArguments() : execve(path, argv, environ);
}

HOOK int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  COLLECT_ARGS(arg, ap, argv, n);
  va_end(ap);
  return n >= kMaxListArgs ? tooManyArguments() : execvpe(file, argv, environ);
}

HOOK int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  COLLECT_ARGS(arg, ap, argv, n);
  char* const* envp = va_arg(ap, char* const*);
  va_end(ap);
  return n >= kMaxListArgs ? tooManyArguments() : execve(path, argv, envp);
}

namespace {

// signal() and friends as glibc defines them, through sigaction() (hooked).
sighandler_t installHandler(int sig, sighandler_t handler, int flags, bool mask_self) {
  struct sigaction act {
  }, old{};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (mask_self) sigaddset(&act.sa_mask, sig);
  act.sa_flags = flags;
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

}  // namespace

HOOK sighandler_t signal(int sig, sighandler_t handler) { return installHandler(sig, handler, SA_RESTART, true); }
HOOK sighandler_t bsd_signal(int sig, sighandler_t handler) { return installHandler(sig, handler, SA_RESTART, true); }
HOOK sighandler_t sysv_signal(int sig, sighandler_t handler) {
  return installHandler(sig, handler, static_cast<int>(SA_RESETHAND | SA_NODEFER), false);
}
