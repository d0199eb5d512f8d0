// Processes (rules: see hooks.cc): a forked child leaves its parent's log
// for one of its own; the end of the process closes the log (recorder.cc
// has the fork and exec policy).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

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
  if (dormant()) return;                                                       // its log opens when it is woken
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

// ---- the title a process gives itself ------------------------------------

namespace {

constexpr uint8_t kMaxTitleNotes = 16;

// The title bytes of an argument area give, as ps shows it: the arguments
// separated by spaces, up to two NULs in a row, without trailing spaces.
size_t titleOf(const char* bytes, size_t n, char* title, size_t size) {
  size_t at = 0;
  for (size_t i = 0; i < n && at + 1 < size; ++i) {
    if (!bytes[i] && (i + 1 == n || !bytes[i + 1])) break;  // its end
    title[at++] = bytes[i] ? bytes[i] : ' ';
  }
  while (at && title[at - 1] == ' ') --at;
  title[at] = 0;
  return at;
}

// The area's bytes as /proc/self/cmdline gives them: the arguments, and
// where a title ran over their last NUL, on up to the next one. Read in
// memory: no descriptor taken, no system call (a seccomp filter, a full
// descriptor table).
size_t commandLineSize() {
  const Process& p = g_process;
  size_t n = p.args_size;
  if (n && p.args_begin[n - 1] != 0)
    while (n < p.args_size + p.env_size && p.args_begin[n] != 0) ++n;
  return n;
}

// The title the process gave itself by writing over its arguments
// ("postgres: checkpointer"), as ps shows it; false when it is the one the
// header's arguments make.
bool processTitle(char* title, size_t size) {
  const Process& p = g_process;
  if (!p.args_begin || !p.args_size) return false;
  const size_t n = commandLineSize();
  if (argumentsHash(p.args_begin, n) == p.arguments_hash) return false;
  const size_t length = titleOf(p.args_begin, n, title, size);
  return length > 0 && argumentsHash(title, length) != p.arguments_title_hash;
}

// The length of a string that is contiguous with the one before it.
size_t stringSize(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n + 1;
}

}  // namespace

void rememberArgumentArea(char** argv, char** envp) {
  Process& p = g_process;
  if (!argv || !argv[0]) return;
  // The kernel lays the arguments' strings out one after the other, then
  // the environment's: anything else is no area to look at.
  const char* end = argv[0];
  for (char** a = argv; *a; ++a) {
    if (*a != end) return;
    end += stringSize(*a);
  }
  p.args_begin = argv[0];
  p.args_size = static_cast<size_t>(end - argv[0]);
  const char* env_end = end;
  for (char** e = envp; e && *e && *e == env_end; ++e) env_end += stringSize(*e);
  p.env_size = static_cast<size_t>(env_end - end);
}

void lookAtTitleAtLogStart() {
  Process& p = g_process;
  char title[256] = {};
  size_t at = 0;
  for (char** a = p.argv; a && *a && at + 1 < sizeof(title); ++a) {
    if (a != p.argv) title[at++] = ' ';
    for (const char* c = *a; *c && at + 1 < sizeof(title); ++c) title[at++] = *c;
  }
  while (at && title[at - 1] == ' ') --at;
  p.arguments_title_hash = argumentsHash(title, at);
  const size_t k = std::min(sizeof(p.title_prefix), p.args_size + p.env_size);
  if (p.args_begin) std::memcpy(p.title_prefix, p.args_begin, k);
  p.title_noted = 0;
  p.title_notes = 0;
}

bool titleChanged(char* title, size_t size) {
  Process& p = g_process;
  if (!p.args_begin) return false;
  const size_t k = std::min(sizeof(p.title_prefix), p.args_size + p.env_size);
  if (std::memcmp(p.args_begin, p.title_prefix, k) == 0) return false;
  std::memcpy(p.title_prefix, p.args_begin, k);
  if (p.title_notes >= kMaxTitleNotes || !processTitle(title, size)) return false;
  const uint64_t h = argumentsHash(title, std::strlen(title));
  if (h == p.title_noted) return false;
  p.title_noted = h;
  ++p.title_notes;
  return true;
}

void stopRecordingBeforeSeccomp() {
  g_process.under_seccomp = true;  // what it starts runs without the recorder, recorded or not
  if (dormant()) {
    g_config.enabled = false;  // never woken: its log could not be made under the filter
    return;
  }
  if (!active() || !lockWriter()) return;
  g_process.closed = true;
  g_process.writer.close();
  if (g_process.netlink_fd >= 0) {
    sys::close(g_process.netlink_fd);
    g_process.netlink_fd = -1;
  }
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
