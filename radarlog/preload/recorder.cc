// The recording core (rules: see hooks.cc).
//
// Fork and exec policy:
//   * a forked child never writes the parent's log: its first act (in our
//     fork hook, or at its first hooked call if it was forked behind our
//     back, which MADV_WIPEONFORK on g_owner reveals) is to release the
//     parent's mapping and open a log of its own, naming the parent's log
//     and the parent's counter at the fork;
//   * state the parent held locked (the writer lock) is reset in the child;
//   * exec passes RADAR_LINK=<origin>:<log id>:<counter>:<generation> to
//     the new image, which consumes it at start; LD_PRELOAD and radar's
//     variables are put back if the program scrubbed its environment;
//   * nothing is flushed at exec: the tail is in the page cache already.
#include "preload/recorder.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "inject/library.h"
#include "inject/text.h"
#include "log/crc32c.h"
#include "log/go_program.h"
#include "log/log_handout.h"
#include "log/recorder_env.h"
#include "log/sys.h"
#include "preload/environment.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

extern char** environ;

namespace radar::preload {
using namespace radar::inject;  // text without libc state

Config g_config;
Process g_process;
__thread ThreadState t_thread __attribute__((tls_model("initial-exec"))) = {.slot = -1};
// Up to inject::kThreadLocalBytes, as the re-run's: the padding below
// starts where the state ends.
static_assert(sizeof(ThreadState) < kThreadLocalBytes && sizeof(ThreadState) % 16 == 0);
alignas(16) __thread char t_layout_pad[kThreadLocalBytes - sizeof(ThreadState)]
    __attribute__((used, tls_model("initial-exec")));
OwnerPage* g_owner = nullptr;

namespace {

using log::ChannelFields;
using log::EventFields;

int (*g_real_clock_gettime)(clockid_t, struct timespec*) = nullptr;
pthread_key_t g_thread_key;
bool g_thread_key_ok = false;

// ---- small helpers without libc state ------------------------------------

// appendStr, appendHex, appendDec, parseDec: inject/text.h.

// Reads a small file into buf (NUL-terminated). Returns its length or -1.
long readSmallFile(const char* path, char* buf, size_t size) {
  const long fd = sys::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return -1;
  long n = sys::read(static_cast<int>(fd), buf, size - 1);
  sys::close(static_cast<int>(fd));
  if (n < 0) return -1;
  buf[n] = 0;
  return n;
}

// ---- the log ----------------------------------------------------------------

int computeFdFloor() {
  struct rlimit64 lim {};
  if (sys::prlimit(0, RLIMIT_NOFILE, nullptr, &lim) != 0) return 0;
  // Few descriptors allowed: ours go just above the soft limit, where the
  // program cannot have any (sys::dupAtOrAbove), when the hard limit leaves
  // room; else they take the lowest free numbers, as any descriptor would.
  if (lim.rlim_cur < 64) return log::leavesRadarNoRoom(lim.rlim_cur, lim.rlim_max) ? 0 : static_cast<int>(lim.rlim_cur);
  // High enough to stay out of the program's way, low enough to keep the
  // kernel's descriptor table at 1024 entries: every fork copies it, every
  // exit and /proc/self/fd listing walks it. Just below a limit of 20000,
  // it had 32768, and each process image cost 0.2 ms more.
  const uint64_t top = lim.rlim_cur > 1024 ? 1024 : lim.rlim_cur;
  return static_cast<int>(top - 16);
}

}  // namespace

namespace {

int64_t clockNs(clockid_t clock) {
  struct timespec ts;
  if (g_real_clock_gettime)
    g_real_clock_gettime(clock, &ts);
  else
    sys::raw(SYS_clock_gettime, clock, reinterpret_cast<long>(&ts));
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

}  // namespace

int64_t monotonicNow() { return clockNs(CLOCK_MONOTONIC); }

int64_t now() { return monotonicNow(); }

namespace {

// The wall clock and the monotonic clock at one instant, which every time
// of this process is converted by: the monotonic clock read on both sides
// of the wall clock, its middle taken, the tightest of a few tries. A
// preemption between two plain reads would move all of this process's
// times against its peers' on other machines (a clock alignment that
// finds two hosts of one clock apart).
void readClockPair(int64_t* realtime_ns, int64_t* monotonic_ns) {
  int64_t tightest = -1;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int64_t before = clockNs(CLOCK_MONOTONIC), wall = clockNs(CLOCK_REALTIME), after = clockNs(CLOCK_MONOTONIC);
    if (tightest >= 0 && after - before >= tightest) continue;
    tightest = after - before;
    *realtime_ns = wall;
    *monotonic_ns = before + tightest / 2;
  }
}

}  // namespace

uint32_t currentTid() {
  if (!t_thread.tid) t_thread.tid = static_cast<uint32_t>(sys::gettid());
  return t_thread.tid;
}

namespace {
// The descriptors open when this image's log was opened; one image starts
// at a time in an address space.
constexpr size_t kOpenFdsListed = 1024;
int32_t g_open_fds[kOpenFdsListed];
size_t g_open_fd_count = 0;  // all of them, listed or not
}  // namespace

namespace {
// Regular files open when this image's log was opened (a redirected input):
// where each stood, for a re-run to reopen it there.
constexpr size_t kStartFilesListed = 16;
log::StartFileFields g_start_files[kStartFilesListed];
char g_start_paths[kStartFilesListed][256];

size_t listStartFiles(const int32_t* fds, size_t count) {
  size_t n = 0;
  for (size_t i = 0; i < count && n < kStartFilesListed; ++i) {
    struct stat st {};
    if (sys::fstat(fds[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
    char link[32];
    size_t at = appendStr(link, 0, sizeof(link), "/proc/self/fd/");
    appendDec(link, at, sizeof(link), static_cast<uint64_t>(fds[i]));
    const long len = sys::readlink(link, g_start_paths[n], sizeof(g_start_paths[n]) - 1);
    if (len <= 0 || g_start_paths[n][0] != '/') continue;
    g_start_paths[n][len] = 0;
    const long offset = sys::raw(SYS_lseek, fds[i], 0, SEEK_CUR);
    const long flags = sys::fcntl(fds[i], F_GETFL);
    g_start_files[n] = {fds[i], g_start_paths[n], offset > 0 ? static_cast<uint64_t>(offset) : 0,
                        flags > 0 ? static_cast<uint32_t>(flags) : 0};
    ++n;
  }
  return n;
}
}  // namespace

void classifyDescriptorsAtOpen() {
  if (g_open_fd_count > kOpenFdsListed)
    classifyOpenDescriptors();  // the list was cut: list them again
  else
    classifyOpenDescriptors(g_open_fds, g_open_fd_count);
}

namespace {

// One request to radar record over the log handout's socket
// (log/log_handout.h): its answer, 0 or -errno; with `fd`, the descriptor
// that came with it (-1 if none).
long askRecorder(const void* request, size_t len, int* fd) {
  if (fd) *fd = -1;
  const long s = sys::raw(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (s < 0) return s;
  const struct timeval patience { 5, 0 };  // radar record answers at once; never hang the program
  sys::raw(SYS_setsockopt, s, SOL_SOCKET, SO_RCVTIMEO, reinterpret_cast<long>(&patience), sizeof(patience));
  struct sockaddr_un addr;
  const socklen_t addr_len = log::handoutAddress(g_config.recording_id, g_config.dir, &addr);
  long r = sys::raw(SYS_connect, s, reinterpret_cast<long>(&addr), addr_len);
  if (r == 0) r = sys::raw(SYS_sendto, s, reinterpret_cast<long>(request), static_cast<long>(len), MSG_NOSIGNAL, 0, 0);
  int32_t error = EIO;
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  struct iovec iov {
    &error, sizeof(error)
  };
  struct msghdr msg {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  if (r >= 0) {
    do r = sys::raw(SYS_recvmsg, s, reinterpret_cast<long>(&msg), MSG_CMSG_CLOEXEC);
    while (r == -EINTR);
  }
  sys::close(static_cast<int>(s));
  if (r < 0) return r;
  if (r != sizeof(error)) return -EIO;
  const struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int))) {
    int given;
    std::memcpy(&given, CMSG_DATA(c), sizeof(given));
    if (fd && !error)
      *fd = given;
    else
      sys::close(given);
  }
  return error ? -error : 0;
}

// The log's file made by radar record, for a process that may not create
// files in the recording directory: its descriptor, or -errno.
long logFromRecorder(const char* name) {
  int fd = -1;
  const long r = askRecorder(name, std::strlen(name), &fd);
  if (r < 0) return r;
  return fd >= 0 ? fd : -EIO;
}

}  // namespace

bool askToBeTraced(uint32_t op, log::Origin origin, uint64_t log_id, uint64_t counter, uint32_t generation) {
  log::TraceRequest request{};
  std::memcpy(request.tag, log::kTraceTag, sizeof(request.tag));
  request.tid = static_cast<int32_t>(sys::raw(SYS_gettid));
  request.log_id = log_id;
  request.counter = counter;
  request.generation = generation;
  request.origin = static_cast<uint32_t>(origin);
  request.op = op;
  return askRecorder(&request, sizeof(request), nullptr) == 0;
}

namespace {

// The log's file, `path` up to `stem` and then ".rlog" (".N.rlog" after a
// pid reused within the recording: a log is never overwritten).
bool createLog(char* path, size_t size, size_t stem, const log::HeaderFields& h) {
  Process& p = g_process;
  log::WriterOptions options;
  options.fd_floor = p.fd_floor;
  if (g_config.tail_capacity) options.tail_capacity = g_config.tail_capacity;
  options.flight = g_config.flight;
  for (int attempt = 0; attempt < 100; ++attempt) {
    size_t end = stem;
    if (attempt) {
      end = appendStr(path, end, size, ".");
      end = appendDec(path, end, size, static_cast<uint64_t>(attempt));
    }
    appendStr(path, end, size, ".rlog");
    int r = p.writer.open(path, h, options);
    if (r == -EACCES || r == -EPERM) {
      // Its credentials changed (a server dropped root): radar record makes
      // the file and hands it over.
      const long fd = logFromRecorder(std::strrchr(path, '/') + 1);
      r = fd < 0 ? static_cast<int>(fd) : p.writer.open(path, h, options, static_cast<int>(fd));
    }
    if (r == 0) return true;
    if (r != -EEXIST) return false;
  }
  return false;
}

// Which environment entries the redaction patterns hide, matched once per
// entry and remembered: a forked child, whose environment is its parent's,
// matches none anew (each header's matching was most of a short-lived
// child's own cost). An entry is taken as the one remembered when its
// address and its name's hash are. Null where there are more entries than
// are remembered (the header's encoding then matches them itself).
constexpr size_t kEnvRemembered = 512;
const char* g_env_entry[kEnvRemembered];
uint64_t g_env_name_hash[kEnvRemembered];
bool g_env_redacted[kEnvRemembered];
const char* g_env_patterns = nullptr;

uint64_t nameHash(const char* entry) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char* c = entry; *c && *c != '='; ++c) h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  return h;
}

const bool* redactionOf(char* const* envp, const char* patterns) {
  if (!patterns || !envp) return nullptr;
  if (patterns != g_env_patterns) {
    for (const char*& e : g_env_entry) e = nullptr;
    g_env_patterns = patterns;
  }
  for (size_t i = 0; envp[i]; ++i) {
    if (i == kEnvRemembered) return nullptr;
    const uint64_t hash = nameHash(envp[i]);
    if (g_env_entry[i] == envp[i] && g_env_name_hash[i] == hash) continue;
    // Remembered in an order a fork by another thread (a wake-up opens the
    // log with the program's threads running) never copies half of: no
    // entry, then its answer, then the entry.
    __atomic_store_n(&g_env_entry[i], nullptr, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    g_env_name_hash[i] = hash;
    g_env_redacted[i] = log::isRedacted(patterns, envp[i]);
    __atomic_store_n(&g_env_entry[i], envp[i], __ATOMIC_RELEASE);
  }
  return g_env_redacted;
}

// The running executable: its path, size and time. A forked child runs
// its parent's, and is told it without asking the kernel again.
struct Executable {
  char path[PATH_MAX] = {};
  struct stat st {};
  bool known = false;
};
Executable g_executable;

const Executable& executable(log::Origin origin) {
  Executable& x = g_executable;
  if (x.known && origin == log::Origin::Forked) return x;
  const long n = sys::readlink("/proc/self/exe", x.path, sizeof(x.path) - 1);
  x.path[n > 0 ? n : 0] = 0;
  if (sys::raw(SYS_newfstatat, AT_FDCWD, reinterpret_cast<long>(x.path), reinterpret_cast<long>(&x.st), 0) != 0)
    x.st = {};
  x.known = n > 0;
  return x;
}

}  // namespace

bool openLog(log::Origin origin, uint64_t parent_log_id, uint64_t parent_counter, uint32_t generation, char** envp) {
  Process& p = g_process;
  p.pid = static_cast<int32_t>(sys::getpid());
  p.generation = generation;
  p.closed = false;
  p.threads_created.store(0, std::memory_order_relaxed);  // counted per image
  uint64_t id = 0;
  sys::getrandom(&id, sizeof(id), 0);
  p.log_id = id ? id : static_cast<uint64_t>(p.pid) << 32 | generation;

  const Executable& x = executable(origin);
  const char* exe = x.path;
  const struct stat& st = x.st;
  const char* base = std::strrchr(exe, '/');
  base = base ? base + 1 : exe;

  char path[PATH_MAX + 128];
  size_t at = appendStr(path, 0, sizeof(path), g_config.dir);
  at = appendStr(path, at, sizeof(path), "/");
  at = appendDec(path, at, sizeof(path), static_cast<uint64_t>(p.pid));
  at = appendStr(path, at, sizeof(path), "-");
  at = appendDec(path, at, sizeof(path), generation);
  at = appendStr(path, at, sizeof(path), "-");
  char name[64] = {};
  appendStr(name, 0, sizeof(name), base);
  for (char* c = name; *c; ++c)
    if (*c == '/' || *c == ' ') *c = '_';
  at = appendStr(path, at, sizeof(path), name);
  const size_t stem = at;

  char cwd[PATH_MAX] = {};
  if (sys::raw(SYS_getcwd, reinterpret_cast<long>(cwd), sizeof(cwd)) < 0) cwd[0] = 0;
  struct utsname uts {};
  if (g_config.host[0])
    appendStr(uts.nodename, 0, sizeof(uts.nodename), g_config.host);
  else
    sys::raw(SYS_uname, reinterpret_cast<long>(&uts));
  char boot_id[64] = {};
  if (g_config.boot_id[0]) {
    appendStr(boot_id, 0, sizeof(boot_id), g_config.boot_id);
  } else if (readSmallFile("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id)) > 0) {
    if (char* nl = std::strchr(boot_id, '\n')) *nl = 0;
  }
  int64_t realtime_ns = 0, monotonic_ns = 0;
  readClockPair(&realtime_ns, &monotonic_ns);

  log::HeaderFields h;
  h.recording_id = g_config.recording_id;
  h.log_id = p.log_id;
  h.host_name = uts.nodename;
  h.boot_id = boot_id;
  h.pid = p.pid;
  h.ppid = static_cast<int32_t>(sys::getppid());
  h.origin = origin;
  h.parent_log_id = parent_log_id;
  h.parent_counter = parent_counter;
  h.generation = generation;
  h.executable = exe;
  h.executable_size = static_cast<uint64_t>(st.st_size);
  h.executable_mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  h.argv = p.argv;
  p.arguments_hash = argumentsHash(p.argv);
  lookAtTitleAtLogStart();
  h.cwd = cwd;
  h.environment = envp;
  h.redact = g_config.redact[0] ? g_config.redact : nullptr;
  h.redacted = redactionOf(envp, h.redact);
  h.realtime_ns = realtime_ns;
  h.monotonic_ns = monotonic_ns;
  h.has_payload_limit = g_config.has_payload_limit;
  h.payload_limit = g_config.payload_limit;
  h.nondet = g_config.nondet;
  h.recorder_version = "radar " RADAR_VERSION;
  h.uid = static_cast<int32_t>(sys::raw(SYS_getuid));
  h.gid = static_cast<int32_t>(sys::raw(SYS_getgid));
  const size_t open_fd_count = listOpenDescriptors(g_open_fds, kOpenFdsListed);
  g_open_fd_count = open_fd_count;
  h.open_fds = g_open_fds;
  h.open_fd_count = open_fd_count < kOpenFdsListed ? open_fd_count : kOpenFdsListed;
  h.start_files = g_start_files;
  h.start_file_count = listStartFiles(g_open_fds, h.open_fd_count);
  struct rlimit64 nofile {};
  if (sys::prlimit(0, RLIMIT_NOFILE, nullptr, &nofile) == 0) {
    h.has_nofile = true;
    h.nofile_soft = nofile.rlim_cur;
    h.nofile_hard = nofile.rlim_max;
  }

  return createLog(path, sizeof(path), stem, h);
}

// ---- thread slots: what each thread is in ----------------------------------

namespace {

int claimSlot() {
  Process& p = g_process;
  ThreadState& t = t_thread;
  if (t.slot >= 0 && t.slot_gen == p.log_gen) return t.slot;
  log::FileControl* c = p.writer.control();
  if (!c) return -1;
  const uint32_t tid = currentTid();
  for (uint32_t i = 0; i < log::kThreadSlots; ++i) {
    uint32_t expected = 0;
    if (__atomic_compare_exchange_n(&c->threads[i].tid, &expected, tid, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED) ||
        expected == tid) {
      t.slot = static_cast<int>(i);
      t.slot_gen = p.log_gen;
      if (g_thread_key_ok) pthread_setspecific(g_thread_key, reinterpret_cast<void*>(1));
      return t.slot;
    }
  }
  return -1;  // more threads than slots: this one is not tracked
}

void releaseSlot(void*) {
  Process& p = g_process;
  ThreadState& t = t_thread;
  // A handler's records deferred since this thread's last append are not lost.
  if (deferredPending() && p.writer.isOpen() && lockWriter()) {
    holdSignalsUntilUnlock();
    drainDeferred();
    unlockWriter();
  }
  releaseDeferred(/*unmap=*/true);
  if (t.slot < 0 || t.slot_gen != p.log_gen || !p.writer.control()) return;
  log::ThreadSlot& s = p.writer.control()->threads[t.slot];
  if (const uint16_t kind = __atomic_load_n(&s.kind, __ATOMIC_ACQUIRE); kind && !p.closed) {
    // The thread ends inside a call (cancelled): the call never returned,
    // and no Call will record it.
    EventFields e;
    e.kind = static_cast<Kind>(kind);
    e.fd = s.fd;
    e.channel = s.channel;
    e.entry_ns = s.entry_ns;
    e.return_ns = monotonicNow();
    e.result = -1;
    e.error = ECANCELED;
    e.flags = log::kFlagNeverReturned;
    commit(e);
  }
  p.writer.control()->threads[t.slot].kind = 0;
  __atomic_store_n(&p.writer.control()->threads[t.slot].tid, 0, __ATOMIC_RELEASE);
  t.slot = -1;
}

}  // namespace

// ---- activity checks ---------------------------------------------------------

bool inVforkChild() { return t_thread.vfork_pending && sys::getpid() != g_process.pid; }

void noteVforkExec(const char* path) {
  ThreadState& t = t_thread;
  t.vfork_child_pid = static_cast<int32_t>(sys::getpid());
  t.vfork_exec_error = 0;
  appendStr(t.vfork_exec_path, 0, sizeof(t.vfork_exec_path), path ? path : "");
}

void noteVforkExecFailed(int error) { t_thread.vfork_exec_error = error; }

void noteVforkExit() {
  ThreadState& t = t_thread;
  if (t.vfork_child_pid) return;  // it tried an exec: that is the news
  t.vfork_child_pid = static_cast<int32_t>(sys::getpid());
  t.vfork_exec_error = 0;
  t.vfork_exited = true;
}

namespace {

// The parent, resumed after vfork(): records who the child was and what it
// exec'd, which only the child knew.
void recordVforkChild() {
  ThreadState& t = t_thread;
  const int32_t child = t.vfork_child_pid;
  const bool exited = t.vfork_exited;
  t.vfork_child_pid = 0;
  t.vfork_exited = false;
  if (!child) return;
  Call call(Kind::Vfork, -1);
  call.finish(child, t.vfork_exec_error);
  const char* path = t.vfork_exec_path;
  call.extra.peer_pid = child;
  call.extra.strings = &path;
  call.extra.string_count = exited ? 0 : 1;  // no program: it ended without an exec
  call.record();
}

}  // namespace

// ---- dormant until radar attach --------------------------------------------

namespace {

// The recording's switch (DIR/attach), mapped read-only and shared: radar
// attach sets its first byte. Null while this image records, and in one
// that was never dormant.
const volatile uint8_t* g_switch = nullptr;
int32_t g_waking = 0;  // the pid whose thread is opening the log
uint32_t g_start_generation = 0;

bool mapSwitch() {
  char path[PATH_MAX + 16];
  appendStr(path, appendStr(path, 0, sizeof(path), g_config.dir), sizeof(path), "/attach");
  const long fd = sys::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0) return false;
  const long m = sys::mmapAside(4096, PROT_READ, MAP_SHARED, static_cast<int>(fd), 0);
  sys::close(static_cast<int>(fd));
  if (m < 0 && m > -4096) return false;
  g_switch = reinterpret_cast<const volatile uint8_t*>(m);
  return true;
}

// Whether a dormant image records now: the first call that finds the
// switch on opens its log (one thread; the others' calls meanwhile go
// unrecorded, as before).
__attribute__((noinline)) bool wakeUp() {
  const volatile uint8_t* on = __atomic_load_n(&g_switch, __ATOMIC_ACQUIRE);
  if (!on) return true;  // another thread did
  if (!*on) return false;
  const auto me = static_cast<int32_t>(sys::getpid());
  // A vfork child runs in its parent's memory until it execs or ends: it
  // must not make the parent's state its own.
  if (g_owner && g_owner->pid != 0 && g_owner->pid != me) return false;
  int32_t waking = 0;
  if (__atomic_compare_exchange_n(&g_waking, &waking, me, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    if (g_owner) g_owner->pid = me;
    if (openLog(log::Origin::Attached, 0, 0, g_start_generation, environ)) classifyDescriptorsAtOpen();
  } else if (waking != me &&
             __atomic_compare_exchange_n(&g_waking, &waking, me, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    // Forked while a thread of its parent was opening the parent's log:
    // its copy of that log is half made, and of the writer's lock too (the
    // thread that held it is not in this process). Left as a forked child
    // leaves its parent's; its own log opened.
    adoptFork(log::Origin::Attached);
  } else {
    return false;  // another thread of this process is opening the log
  }
  __atomic_store_n(&g_switch, nullptr, __ATOMIC_RELEASE);
  return true;
}

}  // namespace

bool dormant() { return __atomic_load_n(&g_switch, __ATOMIC_ACQUIRE) != nullptr; }

bool active() {
  if (!g_config.enabled || g_process.closed) return false;
  // Dormant: one load of the switch, and nothing more while it is off.
  if (const volatile uint8_t* on = __atomic_load_n(&g_switch, __ATOMIC_ACQUIRE); __builtin_expect(on != nullptr, 0))
    if (!*on || !wakeUp() || !g_process.writer.isOpen()) return false;
  ThreadState& t = t_thread;
  if (__builtin_expect(t.vfork_pending, 0)) {
    if (sys::getpid() != g_process.pid) return false;  // the vfork child: hands off
    t.vfork_pending = false;                           // the parent, resumed
    if (t.vfork_child_pid && g_process.writer.isOpen()) recordVforkChild();
  }
  if (__builtin_expect(g_owner && g_owner->pid == 0, 0))
    adoptFork(t.in_fork ? log::Origin::Forked : log::Origin::Unhooked);
  return g_process.writer.isOpen();
}

bool recordingNondet() { return g_config.nondet && active(); }

// ---- Call ----------------------------------------------------------------------

namespace {
// Calls that can wait: the thread slot says the thread is in one.
bool mayBlock(Kind k) {
  using log::Category;
  const Category c = log::categoryOf(k);
  return c == Category::Send || c == Category::Receive || c == Category::Readiness || k == Kind::Accept ||
         k == Kind::Connect || k == Kind::Open || k == Kind::Wait || k == Kind::System;
}
}  // namespace

Call::Call(Kind kind, int fd) : kind_(kind), fd_(fd), entry_(monotonicNow()), saved_errno_(errno) {
  if (mayBlock(kind)) slot_ = claimSlot();
  if (slot_ >= 0) {
    log::ThreadSlot& s = g_process.writer.control()->threads[slot_];
    // A signal handler's call nests inside the call it interrupted: the
    // slot says the outer call again when the handler's ends.
    outer_kind_ = __atomic_load_n(&s.kind, __ATOMIC_ACQUIRE);
    outer_fd_ = s.fd;
    outer_channel_ = s.channel;
    outer_entry_ = s.entry_ns;
    s.fd = fd;
    s.channel = fd >= 0 ? channelOf(fd) : 0;
    s.entry_ns = entry_;
    __atomic_store_n(&s.kind, static_cast<uint16_t>(kind), __ATOMIC_RELEASE);
  }
}

Call::~Call() {
  if (slot_ >= 0 && t_thread.slot == slot_ && g_process.writer.control()) {
    log::ThreadSlot& s = g_process.writer.control()->threads[slot_];
    __atomic_store_n(&s.kind, uint16_t{0}, __ATOMIC_RELEASE);
    if (outer_kind_) {
      s.fd = outer_fd_;
      s.channel = outer_channel_;
      s.entry_ns = outer_entry_;
      __atomic_store_n(&s.kind, outer_kind_, __ATOMIC_RELEASE);
    }
  }
  errno = finished_ ? errno_ : saved_errno_;
}

bool enterCall(Kind kind, int32_t what, uint32_t channel, int64_t entry) {
  const int slot = claimSlot();
  if (slot < 0) return false;
  log::ThreadSlot& s = g_process.writer.control()->threads[slot];
  s.fd = what;
  s.channel = channel;
  s.entry_ns = entry;
  __atomic_store_n(&s.kind, static_cast<uint16_t>(kind), __ATOMIC_RELEASE);
  return true;
}

void leaveCall() {
  const ThreadState& t = t_thread;
  if (t.slot < 0 || t.slot_gen != g_process.log_gen || !g_process.writer.control()) return;
  __atomic_store_n(&g_process.writer.control()->threads[t.slot].kind, uint16_t{0}, __ATOMIC_RELEASE);
}

void Call::finish(long result) { finish(result, result < 0 ? errno : 0); }

void Call::finish(long result, int error) {
  errno_ = errno;
  result_ = result;
  call_error_ = error;
  return_ = monotonicNow();
  finished_ = true;
}

void Call::fill(EventFields& e) const {
  e = extra;
  e.kind = kind_;
  e.fd = fd_;
  e.entry_ns = entry_;
  e.return_ns = return_ ? return_ : monotonicNow();
  e.result = result_;
  e.error = static_cast<uint32_t>(call_error_);
}

void Call::send(const Iov* iov, size_t iov_count, uint64_t size, uint64_t moved, int flags, const struct sockaddr* to,
                socklen_t to_len) {
  EventFields e;
  fill(e);
  if (!e.channel) e.channel = channelOf(fd_);
  e.size = size;
  e.flags = static_cast<uint32_t>(flags);
  e.payload = iov;
  e.payload_iov_count = iov_count;
  e.payload_len = moved;
  if (g_config.has_payload_limit && moved > g_config.payload_limit) {
    e.payload_len = g_config.payload_limit;
    e.payload_omitted = moved - g_config.payload_limit;
    e.has_hash = true;
    e.hash = log::crc32cOfFirst(iov, iov_count, moved);
  } else {
    referToReceive(e, iov, iov_count, moved);
  }
  if (to && to_len) {
    e.address = to;
    e.address_len = to_len;
  }
  commit(e);
}

void recordOutput(int fd, const Iov* iov, size_t iov_count, uint64_t size, long result) {
  const uint32_t crc = log::crc32cOfFirst(iov, iov_count, result > 0 ? static_cast<uint64_t>(result) : 0);
  recordOutputChecksum(fd, size, result, crc, g_config.keep_writes ? iov : nullptr, iov_count);
}

void recordOutputChecksum(int fd, uint64_t size, long result, uint32_t crc, const Iov* bytes, size_t iov_count) {
  const int saved_errno = errno;
  EventFields e;
  e.kind = Kind::Output;
  e.fd = fd;
  e.size = size;
  e.result = result;
  e.has_hash = true;
  e.hash = crc;
  if (bytes && result > 0) {  // radar record --keep-writes
    e.payload = bytes;
    e.payload_iov_count = iov_count;
    e.payload_len = static_cast<uint64_t>(result);
  }
  commit(e);
  errno = saved_errno;
}

void Call::receive(const Iov* iov, size_t iov_count, uint64_t size, uint64_t moved, int flags,
                   const struct sockaddr* from, socklen_t from_len) {
  EventFields e;
  fill(e);
  if (!e.channel) e.channel = channelOf(fd_);
  e.size = size;
  e.flags = static_cast<uint32_t>(flags);
  if (moved) {
    e.has_hash = true;
    e.hash = log::crc32cOfFirst(iov, iov_count, moved);
    // The sender's log holds these bytes when the sender is recorded.
    if (keep_received_ || storesReceived(fd_)) {
      e.payload = iov;
      e.payload_iov_count = iov_count;
      e.payload_len = moved;
      if (g_config.has_payload_limit && moved > g_config.payload_limit) {
        e.payload_len = g_config.payload_limit;
        e.payload_omitted = moved - g_config.payload_limit;
      }
    }
  }
  if (from && from_len) {
    e.address = from;
    e.address_len = from_len;
  }
  commit(e);
}

void Call::multi(const struct mmsghdr* msgs, unsigned count, int flags) {
  EventFields e;
  fill(e);
  e.channel = channelOf(fd_);
  e.flags = static_cast<uint32_t>(flags);
  const bool sending = log::categoryOf(kind_) == log::Category::Send;
  uint64_t lengths[64];
  Iov iovs[256];
  size_t n_iov = 0;
  uint64_t total = 0;
  const unsigned done = result_ > 0 ? static_cast<unsigned>(result_) : 0;
  const unsigned shown = done < 64 ? done : 64;
  for (unsigned m = 0; m < shown; ++m) {
    lengths[m] = msgs[m].msg_len;
    uint64_t left = msgs[m].msg_len;
    const struct msghdr& h = msgs[m].msg_hdr;
    for (size_t i = 0; i < h.msg_iovlen && left && n_iov < 256; ++i) {
      const size_t take = h.msg_iov[i].iov_len < left ? h.msg_iov[i].iov_len : left;
      iovs[n_iov++] = {h.msg_iov[i].iov_base, take};
      left -= take;
    }
    total += msgs[m].msg_len;
  }
  for (unsigned m = 0; m < count; ++m)
    for (size_t i = 0; i < msgs[m].msg_hdr.msg_iovlen; ++i) e.size += msgs[m].msg_hdr.msg_iov[i].iov_len;
  e.lengths = lengths;
  e.length_count = shown;
  uint64_t stored = 0;
  for (size_t i = 0; i < n_iov; ++i) stored += iovs[i].len;
  if (sending || storesReceived(fd_)) {
    e.payload = iovs;
    e.payload_iov_count = n_iov;
    e.payload_len = stored;
    if (g_config.has_payload_limit && stored > g_config.payload_limit) e.payload_len = g_config.payload_limit;
    e.payload_omitted = total - e.payload_len;
  }
  if (!sending && stored) {
    uint32_t crc = 0;
    for (size_t i = 0; i < n_iov; ++i) crc = crc32c(crc, iovs[i].base, iovs[i].len);
    e.has_hash = true;
    e.hash = crc;
  }
  commit(e);
}

void Call::record() {
  EventFields e;
  fill(e);
  commit(e);
}

// ---- start and end of the process ------------------------------------------

namespace {

// stdio writes and reads through write()/read() inside the C library.
void patchStdio() {
  for (FILE* f : {stdin, stdout, stderr})
    patchStdioTable(*reinterpret_cast<void**>(reinterpret_cast<char*>(f) + sizeof(FILE)));
  if (void* wide = dlsym(RTLD_NEXT, "_IO_wfile_jumps")) patchStdioTable(wide);
}

__attribute__((constructor(101))) void radarStart(int argc, char** argv, char** envp) {
  (void)argc;
  g_real_clock_gettime = reinterpret_cast<int (*)(clockid_t, struct timespec*)>(dlsym(RTLD_NEXT, "clock_gettime"));
  Dl_info self{};
  const bool found = dladdr(reinterpret_cast<void*>(&radarStart), &self) && self.dli_fname;
  parseConfig(envp, found ? self.dli_fname : nullptr, &g_config);
  if (!g_config.enabled) return;
  Process& p = g_process;
  p.argv = argv;
  rememberArgumentArea(argv, envp);
  p.fd_floor = computeFdFloor();
  long m = sys::mmapAside(4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m >= 0 || m < -4095) {
    g_owner = reinterpret_cast<OwnerPage*>(m);
    sys::madvise(g_owner, 4096, MADV_WIPEONFORK);
  }
  g_thread_key_ok = pthread_key_create(&g_thread_key, releaseSlot) == 0;

  const Link link = parseLink(envp);
  // The link describes this image only: a child started without our exec
  // hook (system(), popen()) must not inherit it.
  unsetenv("RADAR_LINK");
  // A Go program makes its own system calls: recorded, it would look
  // silent. It runs unrecorded; `radar record` says why.
  if (log::isGoExecutable("/proc/self/exe")) {
    g_config.enabled = false;
    return;
  }
  if (g_config.dormant) {
    // One that cannot see the switch (started with other credentials)
    // could never be woken: it runs unrecorded.
    if (!mapSwitch()) {
      g_config.enabled = false;
      return;
    }
    g_start_generation = link.generation;
    if (!*g_switch) {
      if (g_owner) g_owner->pid = static_cast<int32_t>(sys::getpid());  // (wakeUp tells a vfork child by it)
      patchStdio();
      return;
    }
    g_switch = nullptr;  // attached already: recorded from its start
  }
  if (!openLog(link.origin, link.parent_log, link.counter, link.generation, environ)) {
    g_config.enabled = false;  // run unrecorded; `radar record` reports the missing log
    return;
  }
  if (g_owner) g_owner->pid = p.pid;

  classifyDescriptorsAtOpen();
  patchStdio();
}

__attribute__((destructor(101))) void radarEnd() {
  if (!g_config.enabled) return;
  recordExit(g_process.exit_status, /*flush_stdio=*/true);
}

}  // namespace

}  // namespace radar::preload
