// Two places where the program's activity does not pass through an
// exported libc function (rules: see hooks.cc).
//
// stdio: printf, fwrite, fgets ... write and read inside the C library;
// stdio_table.h points the FILE jump table's slots at wrappers (and we say
// so in the log when the table is not glibc's).
//
// And what the hooks the two injected libraries share (inject/library.h)
// do when recording: a signal's delivery and a thread's start are events.
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cerrno>
#include <cstring>

#include "inject/library.h"
#include "inject/stdio_table.h"
#include "log/sys.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

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
  if (!active()) return g_io_write(fp, data, n);
  if (!isChannel(fd)) {
    const Iov iov{data, n > 0 ? static_cast<size_t>(n) : 0};
    return outputWritten(fd, &iov, 1, iov.len, g_io_write(fp, data, n));
  }
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

// ---- what the shared hooks do here (inject/library.h) -----------------------------

}  // namespace radar::preload

namespace radar::inject {

using namespace radar::preload;

bool wrapsSignals() { return g_config.enabled; }

// A delivery is an event, recorded before the program's handler runs.
bool signalArrives(int sig, const siginfo_t* info) {
  ++t_thread.in_handler;  // what it records is the program's, in an MPI call or not
  if (active()) {
    Call call(Kind::Signal, -1);
    call.finish(0);
    call.extra.signal = sig;
    if (info && sentByAProcess(info->si_code)) call.extra.peer_pid = info->si_pid;
    call.record();
  }
  return true;
}

void signalHandled(int, void* context) {
  if (t_thread.in_handler) --t_thread.in_handler;
  // The code this handler interrupted holds the writer: it resumes with
  // signals held back until it releases it (unlockWriter() gives the mask
  // back). A thread is so interrupted at most once per hold of the writer,
  // however fast signals come: its handlers' records, deferred meanwhile,
  // cannot pile up faster than it appends them.
  // (Nobody holds it: nothing to ask, and no system call made, as under a
  // seccomp filter, where the recording stopped.)
  if (context && g_process.lock_owner.load(std::memory_order_relaxed) != 0 && holdsWriter())
    holdSignalsUntilUnlock(&static_cast<ucontext_t*>(context)->uc_sigmask);
}

// A new thread's first record is THREAD_START with its creation order.
bool announcesThreads() { return active(); }
uint32_t takeThreadOrdinal() { return g_process.threads_created.fetch_add(1, std::memory_order_relaxed) + 1; }
void returnThreadOrdinal() { g_process.threads_created.fetch_sub(1, std::memory_order_relaxed); }
void threadCreated(uint32_t) {}
void threadStarts(uint32_t ordinal) {
  if (!active()) return;
  Call call(Kind::ThreadStart, -1);
  call.finish(0);
  call.extra.size = ordinal;
  call.record();
}

void exitStatusKnown(int status) { noteExitStatus(status); }

void exitsNow(int status) {
  if (inVforkChild()) noteVforkExit();
  recordExit(status, /*flush_stdio=*/false);
}

}  // namespace radar::inject
