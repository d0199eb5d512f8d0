// Two places where the program's activity does not pass through an
// exported libc function (rules: see hooks.cc).
//
// stdio: printf, fwrite, fgets ... write and read inside the C library;
// stdio_table.h points the FILE jump table's slots at wrappers (and we say
// so in the log when the table is not glibc's).
//
// Signals: the program's handlers are wrapped so that a delivery is an
// event; sigaction() still reports the program's own handler.
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cerrno>
#include <cstring>

#include "inject/stdio_table.h"
#include "log/sys.h"
#include "recorder.h"
#include "state.h"

#include "inject/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {
using namespace radar::inject;  // the stdio table (inject/stdio_table.h)

namespace {

IoRead g_io_read = nullptr;
IoWrite g_io_write = nullptr;
IoClose g_io_close = nullptr;
bool g_stdio_warned = false;

ssize_t wrappedRead(FILE* fp, void* buf, ssize_t n) {
  const int fd = fp->_fileno;
  if (!active() || !isChannel(fd)) return g_io_read(fp, buf, n);
  Call call(Kind::Read, fd);
  const ssize_t r = g_io_read(fp, buf, n);
  call.finish(r);
  const Iov iov{buf, static_cast<size_t>(n)};
  call.receive(&iov, 1, static_cast<uint64_t>(n), r > 0 ? static_cast<uint64_t>(r) : 0);
  return r;
}

ssize_t wrappedWrite(FILE* fp, const void* data, ssize_t n) {
  const int fd = fp->_fileno;
  if (!active() || !isChannel(fd)) return g_io_write(fp, data, n);
  Call call(Kind::Write, fd);
  const ssize_t r = g_io_write(fp, data, n);
  call.finish(r);
  const Iov iov{data, static_cast<size_t>(n)};
  call.send(&iov, 1, static_cast<uint64_t>(n), r > 0 ? static_cast<uint64_t>(r) : 0);
  return r;
}

int wrappedClose(FILE* fp) {
  const int fd = fp->_fileno;
  if (!active()) return g_io_close(fp);
  const uint32_t channel = isChannel(fd) ? channelOf(fd) : 0;
  if (!channel) {
    forget(fd);
    return g_io_close(fp);
  }
  Call call(Kind::Close, fd);
  const int r = g_io_close(fp);
  call.finish(r);
  forget(fd);
  call.extra.channel = channel;
  call.record();
  return r;
}

}  // namespace

void patchStdioTable(void* vtable) {
  if (!vtable) return;
  const StdioSlots& real = realStdioSlots();
  g_io_read = real.read;
  g_io_write = real.write;
  g_io_close = real.close;
  if (patchStdioSlots(vtable, {&wrappedRead, &wrappedWrite, &wrappedClose}) != StdioPatch::UnknownTable ||
      g_stdio_warned || !active())
    return;
  g_stdio_warned = true;
  const char* note = "stdio streams are not recorded: unknown C library stream table";
  log::EventFields e;
  e.kind = Kind::Note;
  e.strings = &note;
  e.string_count = 1;
  commit(e);
}

// ---- signals ------------------------------------------------------------------

namespace {

struct Wrapped {
  bool active;
  struct sigaction user;
};
Wrapped g_handlers[_NSIG];

void trampoline(int sig, siginfo_t* info, void* context) {
  const int saved = errno;
  Wrapped w = g_handlers[sig];
  if (w.active && (w.user.sa_flags & SA_RESETHAND)) g_handlers[sig].active = false;
  if (active()) {
    Call call(Kind::Signal, -1);
    call.finish(0);
    call.extra.signal = sig;
    if (info && (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL))
      call.extra.peer_pid = info->si_pid;
    call.record();
  }
  errno = saved;
  if (w.active) {  // else raced with a change of disposition
    if (w.user.sa_flags & SA_SIGINFO) {
      w.user.sa_sigaction(sig, info, context);
    } else if (w.user.sa_handler != SIG_IGN && w.user.sa_handler != SIG_DFL) {
      w.user.sa_handler(sig);
    }
  }
  // The code this handler interrupted holds the writer: it resumes with
  // signals held back until it releases it (unlockWriter() gives the mask
  // back). A thread is so interrupted at most once per hold of the writer,
  // however fast signals come: its handlers' records, deferred meanwhile,
  // cannot pile up faster than it appends them.
  if (context && holdsWriter()) holdSignalsUntilUnlock(&static_cast<ucontext_t*>(context)->uc_sigmask);
}

bool isHandler(const struct sigaction* act) {
  if (act->sa_flags & SA_SIGINFO) return act->sa_sigaction != nullptr;
  return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

}  // namespace

int wrapSigaction(int sig, const struct sigaction* act, struct sigaction* old,
                  int (*real)(int, const struct sigaction*, struct sigaction*)) {
  if (!g_config.enabled || sig <= 0 || sig >= _NSIG || sig == SIGKILL || sig == SIGSTOP) return real(sig, act, old);
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
    r = real(sig, &mine, &kernel_old);
    if (r != 0) g_handlers[sig] = before;
  } else {
    r = real(sig, act, &kernel_old);
    if (r == 0 && act) g_handlers[sig].active = false;
  }
  // Report the program's own handler, unless the disposition changed behind
  // our back (SA_RESETHAND, a raw rt_sigaction).
  const bool ours = (kernel_old.sa_flags & SA_SIGINFO) && kernel_old.sa_sigaction == trampoline;
  if (r == 0 && old) *old = before.active && ours ? before.user : kernel_old;
  return r;
}

}  // namespace radar::preload
