// Processes (rules: see hooks.cc): a forked child leaves its parent's log
// for one of its own; the end of the process closes the log (recorder.cc
// has the fork and exec policy).
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "log/sys.h"
#include "preload/recorder.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

extern char** environ;

namespace radar::preload {

using log::EventFields;

// ---- processes -------------------------------------------------------------

uint64_t lastCounter() { return g_process.writer.isOpen() ? g_process.writer.lastCounter() : 0; }
uint64_t logId() { return g_process.log_id; }
uint32_t generation() { return g_process.generation; }

void beforeFork() { t_thread.in_fork = true; }
void afterForkParent() { t_thread.in_fork = false; }
uint64_t vforkCounter() { return t_thread.vfork_counter; }
void commitEvent(EventFields& e) { commit(e); }

// In a child forked by any means: leave the parent's log, start our own.
void adoptFork(log::Origin origin) {
  Process& p = g_process;
  const uint64_t parent_log = p.log_id;
  const uint64_t parent_counter = p.writer.isOpen() ? p.writer.lastCounter() : 0;
  p.writer.abandon();
  if (p.netlink_fd >= 0) {
    sys::close(p.netlink_fd);  // shared with the parent: its replies could reach either
    p.netlink_fd = -1;
  }
  p.lock_owner.store(0, std::memory_order_relaxed);
  p.lock_waiters.store(0, std::memory_order_relaxed);  // the parent's other threads
  ThreadState& t = t_thread;
  t.signals_held = false;
  t.tid = 0;
  t.slot = -1;
  releaseDeferred(/*unmap=*/false);
  t.vfork_pending = false;
  resetChannelsForNewLog();
  if (g_owner) g_owner->pid = static_cast<int32_t>(sys::getpid());
  if (openLog(origin, parent_log, parent_counter, 0, environ)) classifyDescriptorsAtOpen();
}

void afterForkInChild() {
  t_thread.in_fork = false;
  if (g_owner && g_owner->pid == static_cast<int32_t>(sys::getpid())) return;  // done already
  adoptFork(log::Origin::Forked);
}

void afterVforkPrepare() {
  ThreadState& t = t_thread;
  t.vfork_pending = true;
  t.vfork_child_pid = 0;
  t.vfork_exited = false;
  t.vfork_counter = lastCounter();
}

// ---- exit --------------------------------------------------------------------

void noteExitStatus(int status) {
  if (g_process.exit_status_known) return;
  g_process.exit_status = status;
  g_process.exit_status_known = true;
}

uint64_t argumentsHash(const char* bytes, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<uint8_t>(bytes[i])) * 0x100000001b3ull;
  return h;
}

uint64_t argumentsHash(char** argv) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char** a = argv; a && *a; ++a)
    for (const char* c = *a;; ++c) {
      h = (h ^ static_cast<uint8_t>(*c)) * 0x100000001b3ull;
      if (!*c) break;
    }
  return h;
}

namespace {

// The title the process gave itself by writing over its arguments
// ("postgres: checkpointer"), as ps shows it; false when they are as the
// header has them.
bool processTitle(char* title, size_t size) {
  char cmdline[4096];
  const long fd = sys::openat(AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  const long n = sys::read(static_cast<int>(fd), cmdline, sizeof(cmdline));
  sys::close(static_cast<int>(fd));
  // (Arguments longer than the buffer: not known to differ.)
  if (n <= 0 || n == sizeof(cmdline) || argumentsHash(cmdline, static_cast<size_t>(n)) == g_process.arguments_hash)
    return false;
  size_t at = 0;
  for (long i = 0; i < n && at + 1 < size; ++i) {
    if (!cmdline[i] && (i + 1 == n || !cmdline[i + 1])) break;  // its end
    title[at++] = cmdline[i] ? cmdline[i] : ' ';
  }
  while (at && title[at - 1] == ' ') --at;
  title[at] = 0;
  return at > 0;
}

}  // namespace

void stopRecordingBeforeSeccomp() {
  if (!active() || !lockWriter()) return;
  g_process.under_seccomp = true;
  g_process.closed = true;
  g_process.writer.close();
  unlockWriter();
}

bool underSeccomp() { return g_process.under_seccomp; }

void recordExit(int status, bool flush_stdio) {
  if (!active()) return;
  // What stdio still buffers is written now (exactly what exit would write
  // next), so that those writes come before EXIT.
  if (flush_stdio) fflush(nullptr);
  char title[256];
  const char* titles[1] = {title};
  Call call(Kind::Exit, -1);
  call.finish(0);
  call.extra.status = status;
  if (processTitle(title, sizeof(title))) {
    call.extra.strings = titles;
    call.extra.string_count = 1;
  }
  call.record();
  if (!lockWriter()) return;
  g_process.closed = true;
  g_process.writer.close();
  unlockWriter();
}

}  // namespace radar::preload
