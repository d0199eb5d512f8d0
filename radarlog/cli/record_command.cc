// `radar record`: runs a program with the interposer, follows every
// descendant (radar record is their subreaper, so orphans come back to it),
// then compacts the logs, reports what could not be recorded, and exits
// with the program's status.
#include <dirent.h>
#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "log/asan_options.h"
#include "log/finalize.h"
#include "log/recorder_env.h"
#include "log/wait_status.h"
#include "netdesc/description.h"
#include "radar/proto/radarlog.pb.h"
#include "record/log_handout.h"
#include "record/recording.h"

extern char** environ;

namespace radar::cli {

const char kRecordHelp[] =
    "usage: radar record [-o DIR] [--force] [--payload-limit BYTES] [--nondet] [--keep-writes]\n"
    "                    [--net FILE] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM and records it and every process it creates (fork, vfork,\n"
    "posix_spawn, system, popen, exec): each send and receive on pipes, FIFOs,\n"
    "sockets and terminals with its bytes, each process creation and end, signals,\n"
    "poll/select/epoll results, and user events. One log per process image goes\n"
    "into DIR.\n"
    "\n"
    "  -o, --output DIR         where to write the recording (default: a new directory\n"
    "                           named after the program and the time)\n"
    "  --force                  replace the recording already in DIR\n"
    "  --payload-limit BYTES    keep at most BYTES of each message (default: all; 0 keeps\n"
    "                           sizes and checksums only); suffixes K, M, G\n"
    "  --tail BYTES             each log's crash-safe buffer (default 256K; 4K to 64M)\n"
    "  --nondet                 also record clock reads, random bytes and pids, so that\n"
    "                           `radar debug` can replay them\n"
    "  --keep-writes            keep the bytes each write to a file or device wrote (by\n"
    "                           default only their length and checksum), so that a\n"
    "                           re-run that writes otherwise shows the bytes that differ\n"
    "  --aslr                   keep address-space randomization on (radar turns it off\n"
    "                           for the program, so that a re-run has the same addresses)\n"
    "  --net FILE               a network description (docs/netdesc.md) the recording\n"
    "                           carries: the replay names and decodes by it\n"
    "  --redact PATTERN         leave out the value of every environment variable whose\n"
    "                           name matches PATTERN (* and ?, any case; repeatable); the\n"
    "                           logs keep its name. Always left out, unless\n"
    "                           --no-default-redact: *SECRET*, *TOKEN*, *PASSWORD*,\n"
    "                           *PASSWD*, *_KEY, *_KEY_*, *API_KEY*, *CREDENTIAL*,\n"
    "                           *PRIVATE*, *_AUTH*, PGPASS*\n"
    "  --no-default-redact      keep the values of those variables too\n"
    "  --repeat N               record the program N times, into DIR/run-1 ... run-N\n"
    "  --until-fail             with --repeat: stop at the first run whose exit status\n"
    "                           differs from the first run's, keep it and the run\n"
    "                           before it (removing the others), and print `radar diff`\n"
    "                           of the two: where they part first, in causal order\n"
    "\n"
    "Exit status: PROGRAM's (128+N when a signal N killed it); 127 when PROGRAM cannot\n"
    "be found or executed, as a shell says; 2 for a bad command line or a recording\n"
    "directory radar cannot use. A summary goes to stderr, with every process that\n"
    "could not be recorded. With --repeat: the last run's status.\n";

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

std::string humanBytes(uint64_t n) {
  char buf[32];
  if (n < 10 * 1024)
    std::snprintf(buf, sizeof(buf), "%llu bytes", static_cast<unsigned long long>(n));
  else if (n < 10ull * 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f KiB", n / 1024.0);
  else if (n < 10ull * 1024 * 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f MiB", n / 1048576.0);
  else
    std::snprintf(buf, sizeof(buf), "%.1f GiB", n / 1073741824.0);
  return buf;
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

void writeRecordingFile(int dir_fd, const std::string& dir, const proto::Recording& recording) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(recording, &text);
  if (!writeFileAtomically(dir_fd, "recording.txt", text))
    std::fprintf(stderr, "radar record: cannot write %s/recording.txt: %s\n", dir.c_str(), std::strerror(errno));
}

volatile sig_atomic_t g_child = 0;

void forwardSignal(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

volatile sig_atomic_t g_stop_series = 0;
void stopSeries(int) { g_stop_series = 1; }

bool isDirectoryAt(int dir_fd, const char* name) {
  struct stat st;
  return ::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

// Removes one run's recording (its files, then the directory, never
// following a link). False when something else is in it.
bool removeRun(int series_fd, const std::string& name) {
  const int fd = ::openat(series_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  const bool cleared = clearRecording(fd);
  ::close(fd);
  return cleared && ::unlinkat(series_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

// `radar record --repeat N [--until-fail]`: each run is an ordinary
// `radar record -o DIR/run-K` (this same executable), so that a run is
// recorded exactly as one alone would be.
int recordRepeatedly(const Args& args, unsigned long long runs) {
  const std::vector<std::string>& command = args.positional();
  const std::string dir =
      args.value("output").value_or(newRecordingDirectory(command[0].substr(command[0].rfind('/') + 1)));
  bool created = false, empty = true;
  std::string error;
  const int series_fd = openRecordingDirectory(dir, &created, &empty, &error);
  if (series_fd < 0) {
    std::fprintf(stderr, "radar record: %s\n", error.c_str());
    return kExitUsage;
  }
  if (!empty) {
    // --force replaces an earlier series: its run-K recordings, nothing else.
    std::vector<std::string> names;
    if (const int scan = ::dup(series_fd); scan >= 0) {
      if (DIR* d = ::fdopendir(scan)) {
        ::rewinddir(d);  // the copy shares the position the emptiness check left at the end
        while (dirent* e = ::readdir(d))
          if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
        ::closedir(d);
      } else {
        ::close(scan);
      }
    }
    bool replaceable = args.has("force");
    for (const auto& n : names)
      replaceable = replaceable && n.compare(0, 4, "run-") == 0 && isDirectoryAt(series_fd, n.c_str());
    if (!replaceable) {
      std::fprintf(stderr, "radar record: %s is not empty%s\n", dir.c_str(),
                   args.has("force") ? " and holds more than runs of radar record --repeat"
                                     : " (use --force to replace the runs in it)");
      ::close(series_fd);
      return kExitUsage;
    }
    for (const auto& n : names)
      if (!removeRun(series_fd, n)) {
        std::fprintf(stderr, "radar record: cannot remove %s/%s: %s\n", dir.c_str(), n.c_str(), std::strerror(errno));
        ::close(series_fd);
        return kExitUsage;
      }
  }

  // Each run: this executable, with the options given, minus the series'.
  std::vector<std::string> common{selfDirectory() + "/radar", "record"};
  for (const char* flag : {"aslr", "nondet", "keep-writes", "no-default-redact"})
    if (args.has(flag)) common.push_back(std::string("--") + flag);
  for (const char* option : {"payload-limit", "tail", "net", "redact"})
    for (const auto& v : args.values(option)) {
      common.push_back(std::string("--") + option);
      common.push_back(v);
    }

  // Ctrl-C reaches the program (each run's radar record waits for it); the
  // series then ends after that run.
  struct sigaction stop {
  }, old_int{}, old_term{};
  stop.sa_handler = stopSeries;
  ::sigaction(SIGINT, &stop, &old_int);
  ::sigaction(SIGTERM, &stop, &old_term);
  const bool until_fail = args.has("until-fail");
  int first_status = -1, status = 0;
  unsigned long long recorded = 0;
  for (unsigned long long k = 1; k <= runs && !g_stop_series; ++k) {
    std::vector<std::string> argv = common;
    argv.push_back("--output");
    argv.push_back(dir + "/run-" + std::to_string(k));
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    std::fprintf(stderr, "radar: run %llu of %llu\n", k, runs);
    const pid_t child = ::fork();
    if (child < 0) {
      std::fprintf(stderr, "radar record: fork: %s\n", std::strerror(errno));
      return kExitUsage;
    }
    if (child == 0) {
      ::sigaction(SIGINT, &old_int, nullptr);
      ::sigaction(SIGTERM, &old_term, nullptr);
      ::execv(cargv[0], cargv.data());
      std::fprintf(stderr, "radar record: cannot run %s: %s\n", cargv[0], std::strerror(errno));
      ::_exit(kExitUsage);
    }
    int wstatus = 0;
    while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
    }
    status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    // A run radar could not make (not the program's status): the series ends.
    const std::string run = "run-" + std::to_string(k);
    if (::faccessat(series_fd, (run + "/recording.txt").c_str(), F_OK, 0) != 0) {
      std::fprintf(stderr, "radar record: run %llu was not recorded; the series stops\n", k);
      ::close(series_fd);
      return status ? status : kExitUsage;
    }
    recorded = k;
    if (first_status < 0) first_status = status;
    if (until_fail && status != first_status) break;
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  if (!until_fail || status == first_status) {
    std::fprintf(stderr, "radar: %llu run%s recorded into %s (run-1 ... run-%llu)%s\n", recorded,
                 recorded == 1 ? "" : "s", dir.c_str(), recorded,
                 until_fail ? (", every one exited with status " + std::to_string(status)).c_str() : "");
    ::close(series_fd);
    return status;
  }
  const unsigned long long k = recorded;
  // Keep the run that differed and the one before it.
  for (unsigned long long j = 1; j + 1 < k; ++j)
    if (!removeRun(series_fd, "run-" + std::to_string(j)))
      std::fprintf(stderr, "radar record: cannot remove %s/run-%llu: %s\n", dir.c_str(), j, std::strerror(errno));
  ::close(series_fd);
  const std::string before = dir + "/run-" + std::to_string(k - 1), after = dir + "/run-" + std::to_string(k);
  std::fprintf(stderr,
               "radar: run %llu exited with status %d, the %llu before it with status %d; kept %s and %s\n"
               "radar: radar diff %s %s\n",
               k, status, k - 1, first_status, before.c_str(), after.c_str(), before.c_str(), after.c_str());
  std::fflush(stderr);
  std::string diff_name = "diff";
  std::vector<char*> diff_argv{diff_name.data(), const_cast<char*>(before.c_str()), const_cast<char*>(after.c_str()),
                               nullptr};
  std::fflush(stdout);
  runDiff(3, diff_argv.data());
  std::fflush(stdout);
  return status;
}

}  // namespace

namespace {

// Whether the program's descriptor limit leaves radar's own room above its
// numbers; if not, says so and how to record.
bool descriptorsLeaveRoom(const struct rlimit& nofile) {
  if (!log::leavesRadarNoRoom(nofile.rlim_cur, nofile.rlim_max)) return true;
  std::fprintf(stderr,
               "radar record: descriptors are limited to %llu, and the hard limit (%llu) leaves radar's own none "
               "above the program's: they would take numbers the program would have had. Limit the soft limit "
               "only (ulimit -S -n %llu), or raise the hard one (ulimit -H -n %llu)\n",
               static_cast<unsigned long long>(nofile.rlim_cur), static_cast<unsigned long long>(nofile.rlim_max),
               static_cast<unsigned long long>(nofile.rlim_cur), static_cast<unsigned long long>(nofile.rlim_cur + 8));
  return false;
}

// Our environment for the program, with the interposer first in its
// LD_PRELOAD and ASan told to accept it; another recording's variables
// are never inherited.
std::vector<std::string> environmentWith(const std::string& preload) {
  std::vector<std::string> env;
  std::string ld_preload = preload;
  bool asan_options = false;
  for (char** e = environ; *e; ++e) {
    if (log::isRecorderVariable(*e)) continue;
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0) {
      ld_preload = preloadList(preload, *e + 11);
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

}  // namespace

int runRecord(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1,
                  {{"output", 'o', true},
                   {"force", 0, false},
                   {"aslr", 0, false},
                   {"payload-limit", 0, true},
                   {"nondet", 0, false},
                   {"keep-writes", 0, false},
                   {"tail", 0, true},
                   {"net", 0, true},
                   {"redact", 0, true},
                   {"no-default-redact", 0, false},
                   {"repeat", 0, true},
                   {"until-fail", 0, false}},
                  /*stop_at_positional=*/true))
    return usageError("record", args.error());
  if (args.positional().empty()) return usageError("record", "no program given");
  unsigned long long runs = 0;
  if (!args.number("repeat", &runs, 0)) return usageError("record", args.error());
  if (args.has("repeat") && runs < 1) return usageError("record", "--repeat: expected 1 or more runs");
  if (args.has("until-fail") && !args.has("repeat")) return usageError("record", "--until-fail needs --repeat N");
  unsigned long long payload_limit = 0, tail = 0;
  const bool limited = args.has("payload-limit");
  if (!args.number("payload-limit", &payload_limit, 0) || !args.number("tail", &tail, 0))
    return usageError("record", args.error());
  if (tail && (tail < 4096 || tail > 64ull * 1024 * 1024)) return usageError("record", "--tail: expected 4K to 64M");

  // Variables whose values the logs leave out.
  std::string redact = args.has("no-default-redact") ? "" : log::kDefaultRedactPatterns;
  for (const std::string& pattern : args.values("redact")) {
    if (pattern.empty() || pattern.find_first_of(":=") != std::string::npos)
      return usageError("record", "--redact: a variable name pattern, without ':' or '=': '" + pattern + "'");
    redact += (redact.empty() ? "" : ":") + pattern;
  }
  if (redact.size() > 1000) return usageError("record", "--redact: too many patterns (1000 characters at most)");

  // A network description is checked before anything runs.
  std::string net_text, net_path;
  if (auto net = args.value("net")) {
    std::vector<netdesc::Problem> problems;
    auto description = netdesc::Description::load(*net, &problems);
    for (const auto& p : problems) std::fprintf(stderr, "%s\n", p.toString().c_str());
    if (!description) return kExitUsage;
    net_text = description->text();
    char* real = ::realpath(net->c_str(), nullptr);
    net_path = real ? real : *net;
    std::free(real);
  }

  const std::vector<std::string>& command = args.positional();
  const std::string program = findExecutable(command[0]);
  if (program.empty()) {
    std::fprintf(stderr, "radar record: %s: command not found\n", command[0].c_str());
    return 127;
  }
  const std::string preload = selfDirectory() + "/../lib/radar/libradar-preload.so";
  if (::access(preload.c_str(), R_OK) != 0) {
    std::fprintf(stderr,
                 "radar record: the interposer is missing (%s): was radar built with "
                 "RADAR_BUILD_INTERPOSER=ON?\n",
                 preload.c_str());
    return kExitUsage;
  }

  struct rlimit program_nofile {};
  const bool nofile_known = ::getrlimit(RLIMIT_NOFILE, &program_nofile) == 0;
  if (nofile_known && !descriptorsLeaveRoom(program_nofile)) return kExitUsage;
  if (runs) return recordRepeatedly(args, runs);
  // radar record's own descriptors (the directory, the log handout, a
  // sanitizer's probes) under the soft limit the program gets back at exec.
  if (nofile_known && program_nofile.rlim_cur < 1024 && program_nofile.rlim_cur < program_nofile.rlim_max) {
    struct rlimit ours = program_nofile;
    ours.rlim_cur = std::min<rlim_t>(1024, program_nofile.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &ours);
  }

  // The recording directory.
  std::string dir;
  if (auto o = args.value("output")) {
    dir = *o;
  } else {
    dir = newRecordingDirectory(command[0].substr(command[0].rfind('/') + 1));
  }
  bool created = false, empty = true;
  std::string dir_error;
  const int dir_fd = openRecordingDirectory(dir, &created, &empty, &dir_error);
  if (dir_fd < 0) {
    std::fprintf(stderr, "radar record: %s\n", dir_error.c_str());
    return kExitUsage;
  }
  if (!empty) {
    if (!args.has("force")) {
      std::fprintf(stderr,
                   "radar record: %s is not empty (use --force to replace the recording "
                   "in it)\n",
                   dir.c_str());
      return kExitUsage;
    }
    if (!clearRecording(dir_fd)) {
      std::fprintf(stderr, "radar record: cannot clear %s: %s\n", dir.c_str(), std::strerror(errno));
      return kExitUsage;
    }
  }
  char* real = ::realpath(dir.c_str(), nullptr);
  const std::string abs_dir = real ? real : dir;
  std::free(real);

  uint8_t id[16];
  std::random_device rd;
  for (auto& b : id) b = static_cast<uint8_t>(rd());

  // The program's environment: ours plus the interposer and its settings.
  std::vector<std::string> env = environmentWith(preload);
  env.push_back("RADAR_DIR=" + abs_dir);
  env.push_back("RADAR_RECORDING_ID=" + hexBytes(id, 16));
  if (limited) env.push_back("RADAR_PAYLOAD_LIMIT=" + std::to_string(payload_limit));
  if (tail) env.push_back("RADAR_TAIL=" + std::to_string(tail));
  if (args.has("nondet")) env.push_back("RADAR_NONDET=1");
  if (args.has("keep-writes")) env.push_back("RADAR_KEEP_WRITES=1");
  if (!redact.empty()) env.push_back("RADAR_REDACT=" + redact);
  const std::string external = externalChannels();
  if (!external.empty()) env.push_back("RADAR_EXTERNAL=" + external);
  env.push_back("RADAR_LINK=root");
  // Facts every recorded process would otherwise look up itself.
  {
    std::ifstream boot("/proc/sys/kernel/random/boot_id");
    std::string boot_id;
    if (std::getline(boot, boot_id) && !boot_id.empty()) env.push_back("RADAR_BOOT_ID=" + boot_id);
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0) env.push_back(std::string("RADAR_HOST=") + name);
  }
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<char*> child_argv;
  for (const auto& a : command) child_argv.push_back(const_cast<char*>(a.c_str()));
  child_argv.push_back(nullptr);

  proto::Recording recording;
  recording.set_recording_id(std::string(reinterpret_cast<char*>(id), 16));
  recording.set_radar_version(RADAR_VERSION);
  for (const auto& a : command) recording.add_command(a);
  char cwd[4096];
  if (::getcwd(cwd, sizeof(cwd))) recording.set_cwd(cwd);
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  recording.set_host_name(host);
  if (limited) recording.set_payload_limit(payload_limit);
  recording.set_nondet(args.has("nondet"));
  recording.set_redact(redact);
  recording.set_network(net_text);
  recording.set_network_file(net_path);
  recording.set_start_realtime_ns(clockNs(CLOCK_REALTIME));
  // Written now, and again with the results at the end: a recording whose
  // recorder was killed still says what it is.
  writeRecordingFile(dir_fd, dir, recording);
  const int64_t start = clockNs(CLOCK_MONOTONIC);
  // Log files for the processes that drop their privileges, made here.
  LogHandout handout;
  if (std::string why; !handout.start(dir_fd, id, &why))
    std::fprintf(stderr, "radar record: warning: %s\n", why.c_str());

  // Orphaned descendants come back to us, so that we see every process end.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Ctrl-C and Ctrl-\ reach the whole foreground group: the program decides
  // what they mean; we wait for it. Termination requests are passed on.
  struct sigaction ignore {
  }, forward{};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = forwardSignal;
  struct sigaction old_int {
  }, old_quit{};
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  for (int sig : {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) ::sigaction(sig, &forward, nullptr);

  // Whether the program could be run at all: the child writes exec's errno
  // here when it fails; a successful exec closes it (close-on-exec), so the
  // program never sees it.
  int exec_report[2] = {-1, -1};
  if (::pipe2(exec_report, O_CLOEXEC) != 0) exec_report[0] = exec_report[1] = -1;
  const pid_t child = ::fork();
  if (child < 0) {
    std::fprintf(stderr, "radar record: fork: %s\n", std::strerror(errno));
    return kExitUsage;
  }
  if (child == 0) {
    if (exec_report[0] >= 0) ::close(exec_report[0]);
    {
      // As rr does: the same addresses in every run and in every re-run, so
      // that values derived from them (Python's id(), hash tables ordered by
      // address, pointers printed in logs) are the same; --aslr: random, even
      // where radar was started with it off (setarch -R, gdb).
      const bool random = args.has("aslr");
      const int now = ::personality(0xffffffff);
      const unsigned long want = random ? static_cast<unsigned long>(now) & ~ADDR_NO_RANDOMIZE
                                        : static_cast<unsigned long>(now) | ADDR_NO_RANDOMIZE;
      if (now == -1 || (want != static_cast<unsigned long>(now) && ::personality(want) == -1))
        std::fprintf(stderr,
                     "radar record: cannot turn address-space randomization %s (%s): a re-run will have "
                     "other addresses\n",
                     random ? "on" : "off", std::strerror(errno));
    }
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    for (int sig : {SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) ::signal(sig, SIG_DFL);
    if (nofile_known) ::setrlimit(RLIMIT_NOFILE, &program_nofile);
    ::execve(program.c_str(), child_argv.data(), envp.data());
    const int error = errno;
    std::fprintf(stderr, "radar record: cannot run %s: %s\n", program.c_str(), std::strerror(error));
    if (exec_report[1] >= 0 && ::write(exec_report[1], &error, sizeof error) != sizeof error) ::_exit(127);
    ::_exit(127);
  }
  bool exec_failed = false;
  if (exec_report[1] >= 0) {
    ::close(exec_report[1]);
    int error = 0;
    ssize_t n;
    while ((n = ::read(exec_report[0], &error, sizeof error)) < 0 && errno == EINTR) {
    }
    exec_failed = n == static_cast<ssize_t>(sizeof error);
    ::close(exec_report[0]);
  }
  g_child = child;
  recording.set_root_pid(child);

  int root_status = 0;
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // ECHILD: every descendant has ended
    }
    auto* reaped = recording.add_reaped();
    reaped->set_pid(pid);
    reaped->set_status(status);
    reaped->set_monotonic_ns(clockNs(CLOCK_MONOTONIC));
    if (pid == child) {
      root_status = status;
      g_child = 0;
    }
  }
  const double seconds = static_cast<double>(clockNs(CLOCK_MONOTONIC) - start) / 1e9;
  recording.set_root_status(root_status);
  recording.set_end_realtime_ns(clockNs(CLOCK_REALTIME));

  // Compact, inspect, report.
  RecordingSummary summary = summarizeRecording(abs_dir, recording, /*finalize=*/true);
  // A program that could not be run at all (radar said why): no directory
  // of radar's choosing is left behind for it.
  if (exec_failed && summary.logs == 0 && !args.value("output") && clearRecording(dir_fd) &&
      ::rmdir(abs_dir.c_str()) == 0) {
    std::fprintf(stderr, "radar: nothing was recorded: %s could not be run\n", terminalSafe(command[0]).c_str());
    return 127;
  }
  for (const auto& p : summary.problems) *recording.add_problems() = p;
  for (const auto& e : summary.executables) *recording.add_executables() = e;
  writeRecordingFile(dir_fd, dir, recording);

  std::fprintf(stderr, "radar: recorded %zu process%s, %llu events, %s in %.2f s into %s\n", summary.logs,
               summary.logs == 1 ? "" : "es", static_cast<unsigned long long>(summary.events),
               humanBytes(summary.bytes).c_str(), seconds, dir.c_str());
  std::fprintf(stderr, "radar: %s %s\n", terminalSafe(command[0]).c_str(), log::statusText(root_status).c_str());
  for (const auto& p : summary.problems)
    std::fprintf(stderr, "radar: pid %d %s: %s\n", p.pid(), terminalSafe(p.executable()).c_str(),
                 terminalSafe(p.what()).c_str());
  for (const auto& line : summary.unseen) std::fprintf(stderr, "radar: not seen: %s\n", terminalSafe(line).c_str());

  if (WIFEXITED(root_status)) return WEXITSTATUS(root_status);
  if (WIFSIGNALED(root_status)) return 128 + WTERMSIG(root_status);
  return kExitFindings;
}

}  // namespace radar::cli
