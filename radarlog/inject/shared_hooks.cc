// Hooks both injected libraries define the same way, in terms of calls each
// hooks itself (the execl family becomes execve/execvpe, the signal family
// sigaction) or of what each library defines for them (inject/library.h):
// threads told their creation order, main's return. Built once, with the
// injected flags, into both.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

#include <atomic>

#include "inject/hook.h"
#include "inject/library.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

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

// ==== threads ===================================================================
//
// A new thread learns the order in which its image created it (1, 2, 3
// ...): the recorder logs it as the thread's first record, and a re-run
// matches its threads to the recorded ones by it. The start routine and its
// argument travel to the new thread in a slot of a fixed table (no
// allocation); with every slot in use the thread starts unannounced.

namespace {

struct ThreadLaunch {
  std::atomic<uint32_t> busy;
  void* (*start)(void*);
  void* arg;
  uint32_t ordinal;
};
ThreadLaunch g_launches[256];

void* launchedThread(void* p) {
  auto* slot = static_cast<ThreadLaunch*>(p);
  void* (*start)(void*) = slot->start;
  void* arg = slot->arg;
  const uint32_t ordinal = slot->ordinal;
  slot->busy.store(0, std::memory_order_release);
  radar::inject::threadStarts(ordinal);
  return start(arg);
}

}  // namespace

HOOK int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  REAL(pthread_create);
  if (!radar::inject::announcesThreads()) return real_pthread_create(thread, attr, start, arg);
  ThreadLaunch* slot = nullptr;
  for (auto& l : g_launches) {
    uint32_t idle = 0;
    if (l.busy.compare_exchange_strong(idle, 1, std::memory_order_acquire)) {
      slot = &l;
      break;
    }
  }
  if (!slot) return real_pthread_create(thread, attr, start, arg);
  slot->start = start;
  slot->arg = arg;
  const uint32_t ordinal = radar::inject::takeThreadOrdinal();
  slot->ordinal = ordinal;
  const int r = real_pthread_create(thread, attr, launchedThread, slot);
  if (r != 0) {
    radar::inject::returnThreadOrdinal();
    slot->busy.store(0, std::memory_order_release);
  } else {
    radar::inject::threadCreated(ordinal);
  }
  return r;
}

// ==== main's return =============================================================
//
// Returning from main calls exit() inside the C library, where no hook
// sees it: main is wrapped to learn its return value.

namespace {

int (*g_main)(int, char**, char**) = nullptr;

int wrappedMain(int argc, char** argv, char** envp) {
  const int r = g_main(argc, argv, envp);
  radar::inject::exitStatusKnown(r);
  return r;
}

}  // namespace

HOOK int __libc_start_main(int (*main)(int, char**, char**), int argc, char** argv, void (*init)(void),
                           void (*fini)(void), void (*rtld_fini)(void), void* stack_end) {
  using Start =
      int (*)(int (*)(int, char**, char**), int, char**, void (*)(void), void (*)(void), void (*)(void), void*);
  auto real = reinterpret_cast<Start>(dlsym(RTLD_NEXT, "__libc_start_main"));
  g_main = main;
  return real(wrappedMain, argc, argv, init, fini, rtld_fini, stack_end);
}

// ==== exit, _exit ==================================================================

HOOK void exit(int status) {
  REAL(exit);
  radar::inject::exitStatusKnown(status);
  real_exit(status);
  __builtin_unreachable();
}

HOOK void _exit(int status) {
  REAL(_exit);
  radar::inject::exitsNow(status);
  real__exit(status);
  __builtin_unreachable();
}

HOOK void _Exit(int status) { _exit(status); }
