#include "record/session.h"

#include <dirent.h>
#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "fallback/remote.h"
#include "fallback/tracer.h"
#include "log/asan_options.h"
#include "log/recorder_env.h"
#include "log/stop_at.h"
#include "record/log_handout.h"
#include "record/trace_requests.h"

extern char** environ;

namespace radar::record {
namespace {
std::mutex g_own_children_lock;
std::set<pid_t> g_own_children;

bool isOwnChild(pid_t pid) {
  std::lock_guard<std::mutex> hold(g_own_children_lock);
  return g_own_children.erase(pid) != 0;
}

volatile sig_atomic_t g_freeze_requested = 0;
}  // namespace

bool takeFreezeRequest() {
  const bool asked = g_freeze_requested;
  g_freeze_requested = 0;
  return asked;
}

pid_t startOwnChild(const std::function<pid_t()>& start) {
  std::lock_guard<std::mutex> hold(g_own_children_lock);
  const pid_t pid = start();
  if (pid > 0) g_own_children.insert(pid);
  return pid;
}

namespace {

std::string hexBytes(const uint8_t* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

int64_t clockNs(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// Descriptors radar record passes on: their channels lead outside the
// recording (the terminal, the shell's pipes), so receives on them keep
// their bytes.
std::string externalChannels() {
  std::string out;
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return out;
  const int self = ::dirfd(d);
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    const int fd = std::atoi(e->d_name);
    if (fd == self) continue;
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC)) continue;
    struct stat st {};
    if (::fstat(fd, &st) != 0) continue;
    if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode) && !S_ISCHR(st.st_mode)) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  ::closedir(d);
  return out;
}

// A program built with AddressSanitizer aborts unless the sanitizer's
// runtime comes first among the libraries loaded, which LD_PRELOAD=radar's
// interposer breaks. A sanitizer runtime the user preloads is put first; for
// one the program links itself, ASan is told not to insist (the interposer
// only forwards calls: ASan still sees them all): asan_options.h.
//
// LD_PRELOAD for the program: sanitizer runtimes the user preloads, the
// interposer, then the user's other libraries, in the user's order.
std::string preloadList(const std::string& interposer, const std::string& users) {
  std::string first, rest;
  log::forEachPreloadEntry(users.c_str(), [&](const char* entry, size_t len) {
    (log::isSanitizerRuntime(entry, len) ? first : rest).append(entry, len).append(":");
  });
  std::string out = first + interposer;
  if (!rest.empty()) out += ":" + rest.substr(0, rest.size() - 1);
  return out;
}

// Our environment for the program, with the interposer first in its
// LD_PRELOAD and ASan told to accept it; another recording's variables
// are never inherited.
std::vector<std::string> environmentWith(const std::string& interposer) {
  std::vector<std::string> env;
  std::string ld_preload = interposer;
  bool asan_options = false;
  for (char** e = environ; *e; ++e) {
    if (log::isRecorderVariable(*e)) continue;
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0) {
      ld_preload = preloadList(interposer, *e + 11);
      continue;
    }
    if (std::strncmp(*e, "ASAN_OPTIONS=", 13) == 0) {
      env.push_back(log::withAsanLinkOrder(*e));
      asan_options = true;
      continue;
    }
    env.emplace_back(*e);
  }
  env.push_back("LD_PRELOAD=" + ld_preload);
  if (!asan_options) env.push_back(log::withAsanLinkOrder("ASAN_OPTIONS="));
  return env;
}

// The program's environment: ours plus the interposer and its settings.
std::vector<std::string> programEnvironment(const RecordSettings& s, const std::string& abs_dir,
                                            const uint8_t (&id)[16]) {
  std::vector<std::string> env = environmentWith(s.interposer);
  env.push_back("RADAR_DIR=" + abs_dir);
  env.push_back("RADAR_RECORDING_ID=" + hexBytes(id, 16));
  if (s.payload_limit) env.push_back("RADAR_PAYLOAD_LIMIT=" + std::to_string(*s.payload_limit));
  if (s.tail) env.push_back("RADAR_TAIL=" + std::to_string(s.tail));
  if (s.nondet) env.push_back("RADAR_NONDET=1");
  if (s.sync) env.push_back("RADAR_SYNC=1");
  if (s.keep_writes) env.push_back("RADAR_KEEP_WRITES=1");
  if (s.copies) env.push_back("RADAR_COPIES=1");
  if (s.dormant) env.push_back("RADAR_DORMANT=1");
  if (s.flight) env.push_back("RADAR_FLIGHT=1");
  if (!s.stop_at.empty()) env.push_back(std::string(log::kStopAtVariable) + "=" + s.stop_at);
  if (!s.redact.empty()) env.push_back("RADAR_REDACT=" + s.redact);
  const std::string external = externalChannels();
  if (!external.empty()) env.push_back("RADAR_EXTERNAL=" + external);
  env.push_back("RADAR_LINK=root");
  // Facts every recorded process would otherwise look up itself.
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  if (std::getline(boot, boot_id) && !boot_id.empty()) env.push_back("RADAR_BOOT_ID=" + boot_id);
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) == 0) env.push_back(std::string("RADAR_HOST=") + name);
  return env;
}

// The program's environment when the fallback records it: without the
// interposer (it would record the same calls again), with the user's own
// LD_PRELOAD as it was.
void leaveTheInterposerOut(std::vector<std::string>& env) {
  const char* users = std::getenv("LD_PRELOAD");
  for (auto it = env.begin(); it != env.end(); ++it) {
    if (it->compare(0, 11, "LD_PRELOAD=") != 0) continue;
    if (users)
      *it = std::string("LD_PRELOAD=") + users;
    else
      env.erase(it);
    return;
  }
}

// A set-user-ID or set-group-ID program, or one with file capabilities:
// traced, it would run without its privileges. It is not traced (and is
// said not recorded, as the interposer cannot be loaded into it either).
bool runsWithPrivileges(const std::string& program) {
  struct stat st {};
  if (::stat(program.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID))) return true;
  char caps[64];
  return ::getxattr(program.c_str(), "security.capability", caps, sizeof caps) > 0;
}

fallback::TracerConfig tracerConfig(const RecordSettings& s, const std::string& abs_dir, const uint8_t (&id)[16],
                                    const std::vector<std::string>& env) {
  fallback::TracerConfig c;
  c.dir = abs_dir;
  std::memcpy(c.recording_id, id, sizeof id);
  c.version = s.version;
  c.redact = s.redact;
  c.payload_limit = s.payload_limit;
  c.tail_capacity = static_cast<uint32_t>(s.tail);
  c.flight = s.flight != 0;
  for (const std::string& e : env) {
    if (e.compare(0, 14, "RADAR_BOOT_ID=") == 0) c.boot_id = e.substr(14);
    if (e.compare(0, 11, "RADAR_HOST=") == 0) c.host = e.substr(11);
    if (e.compare(0, 15, "RADAR_EXTERNAL=") != 0) continue;
    std::istringstream list(e.substr(15));
    uint64_t dev = 0, ino = 0;
    char colon = 0, comma = 0;
    while (list >> dev >> colon >> ino) {
      c.external.emplace_back(dev, ino);
      list >> comma;
    }
  }
  return c;
}

// What recording.txt says before the program runs.
proto::Recording describeRecording(const RecordSettings& s, const uint8_t (&id)[16]) {
  proto::Recording recording;
  recording.set_recording_id(std::string(reinterpret_cast<const char*>(id), 16));
  recording.set_radar_version(s.version);
  for (const auto& a : s.command) recording.add_command(a);
  char cwd[4096];
  if (::getcwd(cwd, sizeof(cwd))) recording.set_cwd(cwd);
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  recording.set_host_name(host);
  if (s.payload_limit) recording.set_payload_limit(*s.payload_limit);
  recording.set_nondet(s.nondet);
  recording.set_redact(s.redact);
  recording.set_network(s.net_text);
  recording.set_network_file(s.net_path);
  recording.set_dormant(s.dormant);
  recording.set_flight(s.flight);
  recording.set_start_realtime_ns(clockNs(CLOCK_REALTIME));
  return recording;
}

void writeRecordingFile(int dir_fd, const std::string& dir, const proto::Recording& recording) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(recording, &text);
  if (!writeFileAtomically(dir_fd, "recording.txt", text))
    std::fprintf(stderr, "radar record: cannot write %s/recording.txt: %s\n", dir.c_str(), std::strerror(errno));
}

// radar record --dormant: the switch its processes map and radar attach
// turns on (its first byte), a page of zeros.
bool makeSwitch(int dir_fd, std::string* error) {
  if (writeFileAtomically(dir_fd, "attach", std::string(4096, '\0'))) return true;
  *error = std::string("cannot make the switch of a dormant recording (attach): ") + std::strerror(errno);
  return false;
}

// Opens (and with --force empties) the recording directory; -1 with `error`.
int prepareDirectory(const RecordSettings& s, std::string* error) {
  bool created = false, empty = true;
  const int dir_fd = openRecordingDirectory(s.dir, &created, &empty, error);
  if (dir_fd < 0 || empty) return dir_fd;
  if (!s.force) {
    *error = s.dir + " is not empty (use --force to replace the recording in it)";
  } else if (!clearRecording(dir_fd)) {
    *error = "cannot clear " + s.dir + ": " + std::strerror(errno);
  } else {
    return dir_fd;
  }
  ::close(dir_fd);
  return -1;
}

volatile sig_atomic_t g_child = 0;

void forwardSignal(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

constexpr int kForwarded[] = {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

void requestFreeze(int) { g_freeze_requested = 1; }

// Ctrl-C and Ctrl-\ reach the whole foreground group: the program decides
// what they mean; radar record waits for it. Termination requests are
// passed on. Restored in the program.
class SignalsForTheProgram {
 public:
  explicit SignalsForTheProgram(bool flight) {
    struct sigaction ignore {
    }, forward{}, freeze{};
    ignore.sa_handler = SIG_IGN;
    forward.sa_handler = forwardSignal;
    freeze.sa_handler = requestFreeze;
    freeze.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &ignore, &old_int_);
    ::sigaction(SIGQUIT, &ignore, &old_quit_);
    for (int sig : kForwarded) ::sigaction(sig, sig == SIGUSR2 && flight ? &freeze : &forward, nullptr);
  }
  void restoreInChild() const {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGQUIT, &old_quit_, nullptr);
    for (int sig : kForwarded) ::signal(sig, SIG_DFL);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
};

// As rr does: the same addresses in every run and in every re-run, so that
// values derived from them (Python's id(), hash tables ordered by address,
// pointers printed in logs) are the same; --aslr: random, even where radar
// was started with it off (setarch -R, gdb).
void setAddressRandomization(bool random) {
  const int now = ::personality(0xffffffff);
  const unsigned long want = random ? static_cast<unsigned long>(now) & ~ADDR_NO_RANDOMIZE
                                    : static_cast<unsigned long>(now) | ADDR_NO_RANDOMIZE;
  if (now == -1 || (want != static_cast<unsigned long>(now) && ::personality(want) == -1))
    std::fprintf(stderr,
                 "radar record: cannot turn address-space randomization %s (%s): a re-run will have "
                 "other addresses\n",
                 random ? "on" : "off", std::strerror(errno));
}

std::vector<char*> pointersTo(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The program, started: its pid, or -1 with `error`. `exec_failed` says
// whether it could not be run at all: the child writes exec's errno to a
// pipe a successful exec closes (close-on-exec), so the program never sees it.
pid_t startProgram(const RecordSettings& s, std::vector<std::string> env, const struct rlimit* nofile,
                   const SignalsForTheProgram& signals, fallback::Tracer* tracer, bool* exec_failed,
                   std::string* error) {
  const bool traced = tracer != nullptr;
  std::vector<std::string> argv = s.command;
  std::vector<char*> child_argv = pointersTo(argv), envp = pointersTo(env);
  int exec_report[2] = {-1, -1};
  if (::pipe2(exec_report, O_CLOEXEC) != 0) exec_report[0] = exec_report[1] = -1;
  const pid_t child = ::fork();
  if (child < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (child == 0) {
    if (exec_report[0] >= 0) ::close(exec_report[0]);
    setAddressRandomization(s.aslr);
    signals.restoreInChild();
    if (nofile) ::setrlimit(RLIMIT_NOFILE, nofile);
    if (traced) fallback::stopToBeSeized();
    ::execve(s.program.c_str(), child_argv.data(), envp.data());
    const int failure = errno;
    std::fprintf(stderr, "radar record: cannot run %s: %s\n", s.program.c_str(), std::strerror(failure));
    if (exec_report[1] >= 0 && ::write(exec_report[1], &failure, sizeof failure) != sizeof failure) ::_exit(127);
    ::_exit(127);
  }
  *exec_failed = false;
  if (std::string why; tracer && !tracer->seizeRoot(child, &why))
    std::fprintf(stderr, "radar record: the fallback recorder cannot trace %s: %s\n", s.program.c_str(), why.c_str());
  if (exec_report[1] >= 0) {
    ::close(exec_report[1]);
    int failure = 0;
    ssize_t n;
    while ((n = ::read(exec_report[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    *exec_failed = n == static_cast<ssize_t>(sizeof failure);
    ::close(exec_report[0]);
  }
  return child;
}

// The children radar record has now, zombies included (every thread's:
// the kernel lists them per thread); empty where /proc does not say.
std::set<pid_t> childrenNow() {
  std::set<pid_t> children;
  DIR* tasks = ::opendir("/proc/self/task");
  if (!tasks) return children;
  while (const dirent* task = ::readdir(tasks)) {
    if (task->d_name[0] == '.') continue;
    std::ifstream list(std::string("/proc/self/task/") + task->d_name + "/children");
    for (pid_t pid; list >> pid;) children.insert(pid);
  }
  ::closedir(tasks);
  return children;
}

// Whether thread `tid` is (still) a thread of `process`.
bool isThreadOf(pid_t tid, pid_t process) { return fallback::procStatusNumber(tid, "Tgid") == process; }

// Requests to trace a thread through its exec, carried out (on the thread
// that traces) and answered. One whose asker is gone (it gave up waiting,
// or ended, and its number may be another's now) is let go at once.
void carryOut(const std::vector<TraceRequests::Pending>& requests, fallback::Tracer& tracer) {
  for (const TraceRequests::Pending& p : requests) {
    const log::TraceRequest& r = p.request;
    if (r.op == log::TraceRequest::Done) {
      if (isThreadOf(r.tid, p.process)) tracer.release(r.tid);
      TraceRequests::answer(p.connection, 0);
      continue;
    }
    const bool spawn = r.op == log::TraceRequest::Spawn;
    fallback::ImageStart start;
    start.origin = spawn                                                     ? log::Origin::Spawned
                   : r.origin == static_cast<uint32_t>(log::Origin::Vforked) ? log::Origin::Vforked
                                                                             : log::Origin::Execed;
    start.parent_log = r.log_id;
    start.parent_counter = r.counter;
    start.generation = r.generation;
    std::string why;
    const bool traced = spawn ? tracer.traceItsSpawn(p.process, r.tid, start, &why)
                              : tracer.traceThroughExec(p.process, r.tid, start, &why);
    if (!traced) std::fprintf(stderr, "radar record: the fallback recorder cannot trace %d: %s\n", r.tid, why.c_str());
    const bool told = TraceRequests::answer(p.connection, traced ? 0 : EPERM);
    if (traced && (!told || !isThreadOf(r.tid, p.process))) tracer.release(r.tid);
  }
}

// Reaps every descendant (orphans come back: radar record is their
// subreaper) into `recording`; returns the program's wait status. The
// children radar record had before the program (`before`: a shell's
// process substitution, `radar record … > >(cat)`, forks cat and then
// execs radar) are not the program's: once the program's own have all
// ended, they are left alone, as they may be waiting for radar to end.
int reapAll(pid_t child, proto::Recording& recording, std::set<pid_t> before, fallback::Tracer* tracer,
            TraceRequests* requests) {
  int root_status = 0;
  bool root_ended = false;
  for (;;) {
    if (tracer) carryOut(requests->take(), *tracer);
    if (root_ended && !before.empty()) {
      const std::set<pid_t> now = childrenNow();
      if (std::includes(before.begin(), before.end(), now.begin(), now.end())) break;
    }
    int status = 0;
    // (The root's end, when seizing it for the fallback recorder took it.)
    const std::optional<int> seized_end = tracer ? tracer->takeRootEnd() : std::nullopt;
    if (seized_end) status = *seized_end;
    const pid_t pid = seized_end ? child : ::waitpid(-1, &status, tracer ? __WALL : 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: every descendant has ended
    }
    // A traced thread's stop, or a thread's end: the tracer's alone.
    if (tracer && (WIFSTOPPED(status) || tracer->traces(pid)) && tracer->handle(pid, status)) continue;
    if (before.erase(pid)) continue;  // not the program's (and its pid free to be one of the program's)
    if (isOwnChild(pid)) continue;
    auto* reaped = recording.add_reaped();
    reaped->set_pid(pid);
    reaped->set_status(status);
    reaped->set_monotonic_ns(clockNs(CLOCK_MONOTONIC));
    if (pid == child) {
      root_status = status;
      root_ended = true;
      g_child = 0;
    }
  }
  return root_status;
}

std::string absolutePath(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  const std::string out = real ? real : path;
  std::free(real);
  return out;
}

}  // namespace

std::string recordingIdToJoin(const std::string& what, std::string* error) {
  std::string id;
  if (what.size() == 32 && what.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos) {
    for (size_t k = 0; k < 32; k += 2) id.push_back(static_cast<char>(std::stoi(what.substr(k, 2), nullptr, 16)));
    return id;
  }
  std::ifstream meta(what + "/recording.txt");
  std::stringstream text;
  text << meta.rdbuf();
  proto::Recording rec;
  if (meta && google::protobuf::TextFormat::ParseFromString(text.str(), &rec) && rec.recording_id().size() == 16)
    return rec.recording_id();
  *error = "--join: '" + what +
           "' is neither a recording id (32 hexadecimal digits: RADAR_RECORDING_ID in the environment of the "
           "recording's processes) nor a recording directory";
  return {};
}

std::string descriptorLimitProblem() {
  struct rlimit nofile {};
  if (::getrlimit(RLIMIT_NOFILE, &nofile) != 0 || !log::leavesRadarNoRoom(nofile.rlim_cur, nofile.rlim_max)) return "";
  const auto soft = static_cast<unsigned long long>(nofile.rlim_cur);
  const auto hard = static_cast<unsigned long long>(nofile.rlim_max);
  return "descriptors are limited to " + std::to_string(soft) + ", and the hard limit (" + std::to_string(hard) +
         ") leaves radar's own none above the program's: they would take numbers the program would have had. "
         "Limit the soft limit only (ulimit -S -n " +
         std::to_string(soft) + "), or raise the hard one (ulimit -H -n " + std::to_string(soft + 8) + ")";
}

RecordOutcome recordProgram(const RecordSettings& s) {
  RecordOutcome out;
  // radar record's own descriptors (the directory, the log handout, a
  // sanitizer's probes) under the soft limit the program gets back at exec.
  struct rlimit program_nofile {};
  const bool nofile_known = ::getrlimit(RLIMIT_NOFILE, &program_nofile) == 0;
  if (nofile_known && program_nofile.rlim_cur < 1024 && program_nofile.rlim_cur < program_nofile.rlim_max) {
    struct rlimit ours = program_nofile;
    ours.rlim_cur = std::min<rlim_t>(1024, program_nofile.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &ours);
  }
  const int dir_fd = prepareDirectory(s, &out.error);
  if (dir_fd < 0) return out;
  // Its lock keeps another radar record out until the recording is done.
  const struct CloseAtEnd {
    int fd;
    ~CloseAtEnd() { ::close(fd); }
  } dir_closer{dir_fd};
  const std::string abs_dir = absolutePath(s.dir);
  uint8_t id[16];
  std::random_device rd;
  for (auto& b : id) b = static_cast<uint8_t>(rd());
  if (s.join_id.size() == sizeof id) std::memcpy(id, s.join_id.data(), sizeof id);
  // Written now, and again with the results at the end: a recording whose
  // recorder was killed still says what it is.
  proto::Recording recording = describeRecording(s, id);
  writeRecordingFile(dir_fd, s.dir, recording);
  if (s.dormant && !makeSwitch(dir_fd, &out.error)) return out;
  const int64_t start = clockNs(CLOCK_MONOTONIC);
  // Log files for the processes that drop their privileges, made here.
  TraceRequests trace_requests;  // (before the handout: it outlives the handout's thread)
  LogHandout handout;
  if (std::string why; !handout.start(dir_fd, abs_dir, id, &why))
    std::fprintf(stderr, "radar record: warning: %s\n", why.c_str());
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t besides = s.prepared ? s.prepared() : 0;
  std::set<pid_t> children_before = childrenNow();
  if (besides > 0) children_before.insert(besides);
  const SignalsForTheProgram signals(s.flight != 0);
  bool exec_failed = false;
  std::vector<std::string> env = programEnvironment(s, abs_dir, id);
  // The fallback recorder: for the program itself (statically linked, Go,
  // using liburing, or with --fallback always), and for what its processes exec that the
  // interposer cannot see into (they ask: TraceRequests).
  std::unique_ptr<fallback::Tracer> tracer;
  const bool trace_root =
      s.fallback == RecordSettings::Fallback::Always ||
      (s.fallback == RecordSettings::Fallback::Auto && !unseenByTheInterposer(s.program, true).empty());
  if (!s.dormant && s.fallback != RecordSettings::Fallback::Off) {
    tracer = std::make_unique<fallback::Tracer>(tracerConfig(s, abs_dir, id, env));
    trace_requests.servedByThisThread();
    handout.passTraceRequestsTo(&trace_requests);
  }
  const bool root_traced = tracer && trace_root && !runsWithPrivileges(s.program);
  if (root_traced) leaveTheInterposerOut(env);
  const pid_t child = startProgram(s, std::move(env), nofile_known ? &program_nofile : nullptr, signals,
                                   root_traced ? tracer.get() : nullptr, &exec_failed, &out.error);
  if (child < 0) return out;
  g_child = child;
  if (s.started) s.started(child);
  recording.set_root_pid(child);
  out.root_status = reapAll(child, recording, children_before, tracer.get(), &trace_requests);
  if (tracer)
    for (const std::string& problem : tracer->takeProblems())
      std::fprintf(stderr, "radar record: fallback recorder: %s\n", problem.c_str());
  if (s.ended) s.ended(out.root_status);
  out.seconds = static_cast<double>(clockNs(CLOCK_MONOTONIC) - start) / 1e9;
  recording.set_root_status(out.root_status);
  recording.set_end_realtime_ns(clockNs(CLOCK_REALTIME));
  out.summary = summarizeRecording(abs_dir, recording, /*finalize=*/true);
  // A program that could not be run at all (radar said why): no directory
  // of radar's choosing is left behind for it.
  if (exec_failed && out.summary.logs == 0 && !s.dir_given && clearRecording(dir_fd) && ::rmdir(abs_dir.c_str()) == 0) {
    out.not_run = true;
    return out;
  }
  for (const auto& p : out.summary.problems) *recording.add_problems() = p;
  for (const auto& e : out.summary.executables) *recording.add_executables() = e;
  writeRecordingFile(dir_fd, s.dir, recording);
  return out;
}

}  // namespace radar::record
