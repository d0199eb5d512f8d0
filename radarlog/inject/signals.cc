#include "inject/signals.h"

#include <errno.h>
#include <signal.h>

#include "inject/hook.h"
#include "inject/library.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace {

struct Wrapped {
  bool active;
  struct sigaction user;
};
Wrapped g_handlers[_NSIG];

void trampoline(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  const Wrapped w = g_handlers[sig];
  if (!radar::inject::signalArrives(sig, info)) return;
  if (w.active && (w.user.sa_flags & SA_RESETHAND)) g_handlers[sig].active = false;
  errno = saved;
  if (w.active) {  // else raced with a change of disposition
    if (w.user.sa_flags & SA_SIGINFO)
      w.user.sa_sigaction(sig, info, context);
    else if (w.user.sa_handler != SIG_IGN && w.user.sa_handler != SIG_DFL)
      w.user.sa_handler(sig);
  }
  radar::inject::signalHandled(sig, context);
}

bool isHandler(const struct sigaction* act) {
  if (act->sa_flags & SA_SIGINFO) return act->sa_sigaction != nullptr;
  return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

}  // namespace

HOOK int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  REAL(sigaction);
  if (!radar::inject::wrapsSignals() || sig <= 0 || sig >= _NSIG || sig == SIGKILL || sig == SIGSTOP)
    return real_sigaction(sig, act, old);
  const Wrapped before = g_handlers[sig];
  struct sigaction kernel_old;
  int r;
  if (act && isHandler(act)) {
    struct sigaction mine = *act;
    mine.sa_flags |= SA_SIGINFO;
    mine.sa_sigaction = trampoline;
    // Publish the program's handler before the kernel can deliver to it.
    g_handlers[sig].user = *act;
    g_handlers[sig].active = true;
    r = real_sigaction(sig, &mine, &kernel_old);
    if (r != 0) g_handlers[sig] = before;
  } else {
    r = real_sigaction(sig, act, &kernel_old);
    if (r == 0 && act) g_handlers[sig].active = false;
  }
  // Report the program's own handler, unless the disposition changed behind
  // our back (SA_RESETHAND, a raw rt_sigaction).
  const bool ours = (kernel_old.sa_flags & SA_SIGINFO) && kernel_old.sa_sigaction == trampoline;
  if (r == 0 && old) *old = before.active && ours ? before.user : kernel_old;
  return r;
}

// signal(), bsd_signal(), sysv_signal(): shared_hooks.cc, through sigaction().

namespace radar::inject {

bool programHandles(int sig) { return sig > 0 && sig < _NSIG && g_handlers[sig].active; }

}  // namespace radar::inject
