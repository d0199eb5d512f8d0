#include "driver/debug_session.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "driver/sandbox.h"
#include "driver/script.h"
#include "driver/script_builder.h"
#include "driver/stall_watch.h"
#include "log/asan_options.h"
#include "log/escape.h"
#include "log/file_hash.h"
#include "log/recorder_env.h"
#include "log/wait_status.h"
#include "trace/findings.h"
#include "trace/select.h"

namespace radar::driver {

using log::terminalSafe;

namespace {

// "rank N": the image that was rank N of MPI_COMM_WORLD (in a recording of
// one job), or none with `error` set. False when `spec` says no rank.
bool rankImage(const trace::Trace& t, const std::string& spec, std::vector<uint32_t>* found) {
  constexpr std::string_view kRank = "rank ";
  if (!spec.starts_with(kRank) || spec.size() == kRank.size() || spec.size() > kRank.size() + 9 ||
      spec.find_first_not_of("0123456789", kRank.size()) != std::string::npos)
    return false;
  const long rank = std::strtol(spec.c_str() + kRank.size(), nullptr, 10);
  for (const auto& p : t.processes)
    if (p.mpi_rank == rank && !p.external) found->push_back(p.index);
  return true;
}

// PROCESS as the user wrote it: one image.
bool chooseImage(const trace::Trace& t, const std::string& spec, uint32_t* image, std::string* error) {
  // pid.generation
  if (const auto dot = spec.find('.'); dot != std::string::npos && dot > 0 &&
                                       spec.find_first_not_of("0123456789.") == std::string::npos &&
                                       spec.find('.', dot + 1) == std::string::npos) {
    const long pid = std::strtol(spec.c_str(), nullptr, 10);
    const long gen = std::strtol(spec.c_str() + dot + 1, nullptr, 10);
    for (const auto& p : t.processes)
      if (p.pid == pid && static_cast<long>(p.generation) == gen && !p.external) {
        *image = p.index;
        return true;
      }
    *error = "no process image " + spec + " in this recording";
    return false;
  }
  std::vector<uint32_t> found;
  if (!rankImage(t, spec, &found)) found = trace::findProcesses(t, spec, true, error);
  std::erase_if(found, [&](uint32_t i) { return t.processes[i].external; });
  if (found.empty()) {
    if (error->empty()) *error = "no recorded process '" + spec + "'";
    return false;
  }
  if (found.size() > 1) {
    *error = "'" + spec + "' names " + std::to_string(found.size()) +
             " process images (a pid that exec'd); name one of them as PID.GENERATION or as shown:";
    for (uint32_t i : found)
      *error += " " + std::to_string(t.processes[i].pid) + "." + std::to_string(t.processes[i].generation) + " (" +
                t.label(i) + ")";
    return false;
  }
  *image = found[0];
  return true;
}

// Whether the image can re-run alone. An MPI rank can with the MPI
// stand-ins (rerun/mpi), which answer its MPI calls from the recording:
// its MPI library would otherwise look for mpirun and the other ranks.
bool alone(const trace::Trace& t, uint32_t image, const Installation& installed, std::string* error) {
  const int32_t rank = t.processes[image].mpi_rank;
  if (rank < 0 || ::access(installed.mpi_library.c_str(), R_OK) == 0) return true;
  *error = t.label(image) + " is rank " + std::to_string(rank) +
           " of an MPI job, and this radar was built without an MPI library (libopenmpi-dev): it has no MPI "
           "stand-ins to answer the rank's MPI calls from the recording, so it cannot re-run it alone";
  return false;
}

// The recorded executable must still be the one that ran: the same content
// (radar record hashed it), or, for a recording without a hash of it, the
// same size and modification time.
bool sameExecutable(const driver::Launch& l, const trace::Trace& t, bool allow_changed, std::string* error) {
  struct stat st {};
  if (::stat(l.executable.c_str(), &st) != 0) {
    *error = "the recorded executable " + terminalSafe(l.executable) + " is gone: " + std::strerror(errno);
    return false;
  }
  const int64_t mtime = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  const trace::Trace::RecordedExecutable* recorded = nullptr;
  for (const auto& e : t.executables)
    if (e.path == l.executable && e.size == l.executable_size && e.mtime_ns == l.executable_mtime_ns) recorded = &e;
  std::string what;
  if (recorded) {
    uint64_t hash = 0, size = 0;
    if (!log::hashFile(l.executable, &hash, &size)) {
      *error = "cannot read " + terminalSafe(l.executable) + ": " + std::strerror(errno);
      return false;
    }
    if (hash == recorded->xxh64 && size == recorded->size) return true;
    what = terminalSafe(l.executable) +
           " has changed since the recording (its content differs: " + std::to_string(recorded->size) +
           " bytes then, " + std::to_string(size) + " now)";
  } else {
    if (static_cast<uint64_t>(st.st_size) == l.executable_size && mtime == l.executable_mtime_ns) return true;
    what = terminalSafe(l.executable) + " has changed since the recording (" + std::to_string(l.executable_size) +
           " bytes then, " + std::to_string(st.st_size) + " now" +
           (mtime != l.executable_mtime_ns ? "; modified since" : "") + ")";
  }
  if (allow_changed) {
    std::fprintf(stderr, "radar debug: %s; re-running it anyway (--allow-changed)\n", what.c_str());
    return true;
  }
  *error = what +
           ": the re-run would not be the recorded program. Use --allow-changed to re-run the new one "
           "against the recording";
  return false;
}

bool writeFile(const std::string& path, std::string_view bytes, std::string* error) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) *error = "cannot write " + path + ": " + std::strerror(errno);
  return static_cast<bool>(f);
}

// What the library wrote to the status file.
ScriptStatus readStatus(const std::string& path) {
  ScriptStatus s{};
  std::ifstream f(path, std::ios::binary);
  f.read(reinterpret_cast<char*>(&s), sizeof(s));
  s.report[sizeof(s.report) - 1] = 0;
  s.first_output_difference[sizeof(s.first_output_difference) - 1] = 0;
  return s;
}

// SIGTERM, SIGHUP (and Ctrl-C without gdb) end the re-run and radar debug.
volatile sig_atomic_t g_ending = 0;
void onEndingSignal(int sig) { g_ending = sig; }

void catchEndingSignals(bool with_ctrl_c) {
  struct sigaction sa {};
  sa.sa_handler = onEndingSignal;  // no SA_RESTART: the waits return
  sigemptyset(&sa.sa_mask);
  std::vector<int> signals = {SIGTERM, SIGHUP};
  if (with_ctrl_c) signals.push_back(SIGINT);
  for (int sig : signals) {
    struct sigaction given {};
    ::sigaction(sig, nullptr, &given);
    if (given.sa_handler != SIG_IGN) ::sigaction(sig, &sa, nullptr);  // an ignored one stays ignored
  }
}

int endedBySignal(driver::Sandbox* sandbox) {
  sandbox->killAll();
  std::fprintf(stderr, "radar debug: %s: the re-run was ended\n", log::signalText(g_ending).c_str());
  return 128 + g_ending;
}

bool startReRun(driver::Sandbox* sandbox, const driver::Sandbox::Options& options, const std::function<void()>& exec) {
  std::string error;
  if (sandbox->start(options, exec, &g_ending, &error)) return true;
  if (g_ending) return false;
  if (options.enabled)
    std::fprintf(stderr,
                 "radar debug: cannot sandbox the re-run: %s\n"
                 "radar debug: the kernel must allow user namespaces (sysctl user.max_user_namespaces,\n"
                 "radar debug: kernel.unprivileged_userns_clone, or a container's seccomp and AppArmor rules);\n"
                 "radar debug: --no-sandbox re-runs it without one: it may then change files, bind ports and\n"
                 "radar debug: reach services as the recorded program did\n",
                 error.c_str());
  else
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
  return false;
}

// The longest a replayed image waited between two of its events (from a
// call's return to the next call), in the recording.
int64_t longestRecordedWait(const trace::Trace& t, const std::vector<uint32_t>& chain) {
  int64_t longest = 0;
  for (uint32_t image : chain) {
    const trace::EventList events = t.counter_events[image];
    for (size_t k = 1; k < events.size(); ++k) {
      const trace::Event& before = t.events[events[k - 1]];
      longest = std::max(longest, t.events[events[k]].entry_ns - (before.entry_ns + before.durationNs()));
    }
  }
  return longest;
}

// A re-run that waits for what no process of it will give: why, and what
// the recording says the program used unseen.
int endStuck(const driver::StallWatch& watch, const trace::Trace& t, const std::vector<uint32_t>& chain) {
  std::string used;
  for (const trace::UnseenLine& u : trace::unseenLines(t))
    if (std::find(chain.begin(), chain.end(), u.process) != chain.end())
      used += "\n  not seen: " + terminalSafe(u.text);
  std::fprintf(stderr,
               "radar debug: %s, where the recording went on: it waits for something radar did not record, which "
               "no process of the re-run will give it; the re-run was ended%s\n",
               terminalSafe(watch.why()).c_str(), used.c_str());
  return kReRunDiffered;
}

// Sets (entry = "NAME=VALUE") or removes (null) a variable.
void setVariable(std::vector<std::string>* env, const std::string& name, const std::string* entry) {
  std::erase_if(*env, [&](const std::string& e) {
    return e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=';
  });
  if (entry) env->push_back(*entry);
}

// --env NAME=VALUE, --env NAME (the user's value) and --unset-env NAME.
bool changeEnvironment(const std::vector<std::string>& changes, const std::vector<std::string>& unset,
                       std::vector<std::string>* environment, std::string* error) {
  for (const std::string& change : changes) {
    const auto eq = change.find('=');
    if (eq == 0 || change.empty()) {
      *error = "--env: expected NAME=VALUE or NAME, got '" + change + "'";
      return false;
    }
    if (eq == std::string::npos) {  // the user's own value
      const char* value = std::getenv(change.c_str());
      if (!value) {
        *error = "--env " + change + ": your environment has no " + change;
        return false;
      }
      const std::string entry = change + "=" + value;
      setVariable(environment, change, &entry);
      continue;
    }
    setVariable(environment, change.substr(0, eq), &change);
  }
  for (const std::string& name : unset) setVariable(environment, name, nullptr);
  return true;
}

// Only radar's own library: never one a recording names. It takes the
// recorded LD_PRELOAD's place, and shows the program the recorded value
// (RADAR_REPLAY_PRELOAD), as a string only. A program built with ASan
// would abort with it preloaded (asan_options.h).
void preloadReRunLibrary(const std::vector<std::string>& libraries, std::vector<std::string>* environment) {
  std::string this_library = "LD_PRELOAD=";
  for (size_t i = 0; i < libraries.size(); ++i)
    this_library += (i ? ":" : "") + std::filesystem::weakly_canonical(libraries[i]).string();
  auto preload = std::find_if(environment->begin(), environment->end(),
                              [](const std::string& e) { return e.rfind("LD_PRELOAD=", 0) == 0; });
  if (preload != environment->end()) {
    const std::string shown = std::string(driver::kShownPreloadEnv) + "=" + *preload;
    *preload = this_library;
    environment->push_back(shown);
  } else {
    environment->push_back(this_library);
  }
  auto asan = std::find_if(environment->begin(), environment->end(),
                           [](const std::string& e) { return e.rfind("ASAN_OPTIONS=", 0) == 0; });
  if (asan == environment->end())
    environment->push_back(log::withAsanLinkOrder("ASAN_OPTIONS="));
  else if (log::withoutAsanLinkOrder(*asan) == *asan)
    *asan = log::withAsanLinkOrder(*asan);  // recorded without it: radar debug adds its own
}

// Where the program is likely to write: its directory, and the
// directories its arguments and environment name.
std::vector<std::string> likelyWritePlaces(const driver::LaunchSpec& launch) {
  std::vector<std::string> named = {launch.cwd}, places;
  for (const auto& a : launch.argv) named.push_back(a.empty() || a[0] == '/' ? a : launch.cwd + "/" + a);
  for (const auto& e : launch.environment)
    if (const auto eq = e.find('=');
        eq != std::string::npos && e.compare(eq + 1, 1, "/") == 0 && !log::isRecorderVariable(e.c_str()))
      named.push_back(e.substr(eq + 1));
  for (const auto& n : named) {
    if (n.empty() || n[0] != '/') continue;
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::path(n), ec);
    if (std::filesystem::is_directory(p, ec))
      places.push_back(p.string());
    else if (std::filesystem::is_directory(p.parent_path(), ec))
      places.push_back(p.parent_path().string());
  }
  return places;
}

// --no-gdb: run it, wait, and say how the re-run compares.
int runAlone(const driver::LaunchSpec& spec, const driver::Sandbox::Options& where, const std::string& status_path,
             const driver::Script& script, const trace::Trace& t, int64_t stall_limit_ns) {
  driver::Sandbox sandbox;
  // Ctrl-C ends the re-run: the program itself may not end on it (its
  // signals are the recording's).
  catchEndingSignals(true);
  if (!startReRun(&sandbox, where, [&] {
        std::string error;
        driver::execLaunch(spec, &error);
        std::fprintf(stderr, "radar debug: %s\n", error.c_str());
      }))
    return g_ending ? endedBySignal(&sandbox) : kReRunNotPossible;
  driver::StallWatch watch(
      [&] {
        const ScriptStatus s = readStatus(status_path);
        return driver::StallWatch::Progress{s.consumed, s.outcome == static_cast<uint32_t>(ReplayOutcome::Running)};
      },
      stall_limit_ns ? stall_limit_ns : driver::StallWatch::limitFor(longestRecordedWait(t, script.chain)));
  int status = 0;
  for (;;) {
    std::string error;
    const auto change =
        sandbox.wait(&status, &g_ending, &error, [&] { return watch.stuck([&] { return sandbox.programPid(); }); });
    if (change == driver::Sandbox::Change::Interrupted) return endedBySignal(&sandbox);
    if (change == driver::Sandbox::Change::Stuck) return endStuck(watch, t, script.chain);
    if (change == driver::Sandbox::Change::Failed) {
      std::fprintf(stderr, "radar debug: %s\n", error.c_str());
      return kReRunNotPossible;
    }
    if (change == driver::Sandbox::Change::Stopped) {
      const ScriptStatus s = readStatus(status_path);
      const pid_t pid = sandbox.programPid();
      std::fprintf(stderr,
                   "radar debug: pid %d stopped itself:\n%s\n"
                   "radar debug: attach a debugger (gdb -p %d), or resume it with kill -CONT %d\n",
                   pid, s.report, pid, pid);
      continue;
    }
    break;
  }
  const ScriptStatus s = readStatus(status_path);
  const auto outcome = static_cast<ReplayOutcome>(s.outcome);
  const std::string how = log::statusText(status);
  switch (outcome) {
    case ReplayOutcome::Complete:
    case ReplayOutcome::Blocked:
      std::fprintf(stderr, "%s\n", s.report);
      return kReRunAsRecorded;
    case ReplayOutcome::Diverged:
      std::fprintf(stderr, "%s\n", s.report);
      return kReRunDiffered;
    case ReplayOutcome::Failed:
      std::fprintf(stderr, "%s\n", s.report);
      return kReRunNotPossible;
    case ReplayOutcome::Running:
      break;
  }
  // The program ended without the library seeing an exit: a signal, or it
  // never started.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && s.consumed == 0) return kReRunNotPossible;
  const bool crashed_as_recorded =
      WIFSIGNALED(status) && script.bytes.size() >= sizeof(driver::ScriptHeader) &&
      reinterpret_cast<const driver::ScriptHeader*>(script.bytes.data())->end == driver::ScriptEnd::Signaled &&
      reinterpret_cast<const driver::ScriptHeader*>(script.bytes.data())->end_code == WTERMSIG(status) &&
      s.consumed == script.events;
  if (crashed_as_recorded) {
    const uint32_t outputs = reinterpret_cast<const driver::ScriptHeader*>(script.bytes.data())->output_count;
    if (!s.outputs_differing && s.outputs_checked >= outputs) {
      std::fprintf(stderr, "radar debug: replayed %u of %u events; the re-run %s, as recorded\n", s.consumed,
                   script.events, how.c_str());
      return kReRunAsRecorded;
    }
    std::fprintf(stderr,
                 "radar debug: replayed %u of %u events; the re-run %s; but what it wrote to files and devices "
                 "differs from the recording: %s%s%u of its %u recorded writes made\n",
                 s.consumed, script.events, how.c_str(), s.first_output_difference, s.outputs_differing ? "; " : "",
                 s.outputs_checked, outputs);
    return kReRunDiffered;
  }
  std::fprintf(stderr,
               "radar debug: the re-run %s after %u of %u recorded events (the last: event %llu); the recording "
               "has more\n",
               how.c_str(), s.consumed, script.events, static_cast<unsigned long long>(s.last_number));
  return kReRunDiffered;
}

// The re-run under gdb: gdb runs the program through radar-launch, with
// radar's extension, in the sandbox; its exit status is radar debug's.
int runGdb(const Installation& installed, const driver::LaunchSpec& launch,
           const driver::Sandbox::Options& sandbox_options, const std::string& dir, const std::string& label,
           unsigned long long at_event, bool batch, const std::vector<std::string>& gdb_args) {
  std::string error;
  const std::string launch_path = dir + "/launch";
  if (!driver::writeLaunchFile(launch_path, launch, &error)) {
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
    return kReRunNotPossible;
  }
  std::string commands;
  commands += "set exec-wrapper " + shellQuote(installed.launcher) + " " + shellQuote(launch_path) + "\n";
  commands += "set breakpoint pending on\n";
  commands += "source " + installed.extension + "\n";
  if (batch) commands += "set pagination off\nset confirm off\n";
  commands +=
      "echo radar: " + label + " is ready to re-run, fed from the recording; 'help radar' lists radar's commands.\\n\n";
  if (at_event)
    commands += "run\n";
  else if (!batch)
    commands += "echo radar: 'run' starts it.\\n\n";
  const std::string commands_path = dir + "/commands.gdb";
  if (!writeFile(commands_path, commands, &error)) {
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
    return kReRunNotPossible;
  }

  std::vector<std::string> gdb_argv = {installed.gdb, "-q"};
  if (batch) gdb_argv.push_back("-batch");
  gdb_argv.push_back("-x");
  gdb_argv.push_back(commands_path);
  gdb_argv.insert(gdb_argv.end(), gdb_args.begin(), gdb_args.end());
  gdb_argv.push_back("--args");
  gdb_argv.push_back(launch.executable);
  std::vector<char*> cargv;
  for (auto& a : gdb_argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  catchEndingSignals(false);
  driver::Sandbox sandbox;
  if (!startReRun(&sandbox, sandbox_options, [&] {
        ::execv(installed.gdb.c_str(), cargv.data());
        std::fprintf(stderr, "radar debug: cannot start %s: %s\n", installed.gdb.c_str(), std::strerror(errno));
      }))
    return g_ending ? endedBySignal(&sandbox) : kReRunNotPossible;
  // gdb owns the terminal and Ctrl-C while it runs (set once gdb has
  // radar debug's own dispositions: it gives them to the program).
  ::signal(SIGINT, SIG_IGN);
  int status = 0;
  for (;;) {
    const auto change = sandbox.wait(&status, &g_ending, &error);
    if (change == driver::Sandbox::Change::Interrupted) return endedBySignal(&sandbox);
    if (change == driver::Sandbox::Change::Failed) {
      std::fprintf(stderr, "radar debug: %s\n", error.c_str());
      return kReRunNotPossible;
    }
    if (change == driver::Sandbox::Change::Ended) break;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kReRunNotPossible;
}

}  // namespace

// A private directory for the replay script and the status the re-run
// writes; gone when the session ends, unless kept.
class DebugSession::TempDir {
 public:
  bool create(std::string* error) {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/radar-debug-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      *error =
          "cannot create a directory in " + std::string(base && *base ? base : "/tmp") + ": " + std::strerror(errno);
      return false;
    }
    path_ = pattern;
    return true;
  }
  void keep() { keep_ = true; }
  const std::string& path() const { return path_; }
  ~TempDir() {
    if (!path_.empty() && !keep_) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }

 private:
  std::string path_;
  bool keep_ = false;
};

DebugSession::DebugSession(const trace::Trace& trace, Installation installed, DebugOptions options)
    : trace_(trace), installed_(std::move(installed)), options_(std::move(options)) {}

DebugSession::~DebugSession() = default;

const std::vector<std::string>& DebugSession::ownVariables() {
  static const std::vector<std::string> names = {
      "LD_PRELOAD",           kShownPreloadEnv,      kScriptEnv, kStatusEnv, kExitAtEndEnv,
      "RADAR_REPLAY_SIGSTOP", "RADAR_REPLAY_STOP_AT"};
  return names;
}

bool DebugSession::prepare(std::string* error, bool* usage) {
  *usage = false;
  if (!chooseImage(trace_, options_.process, &image_, error) || !alone(trace_, image_, installed_, error)) return false;
  temp_ = std::make_unique<TempDir>();
  if (!temp_->create(error) || !makeScript(error)) return false;
  built_ns_ = monotonicNs();
  if (options_.at_event && (options_.at_event > trace_.events.size() || options_.at_event > script_.last_number)) {
    *error = terminalSafe(trace_.label(image_)) + " has no event at or after event " +
             std::to_string(options_.at_event) + " (its last is event " + std::to_string(script_.last_number) + ")";
    return false;
  }
  if (!sameExecutable(script_.launch, trace_, options_.allow_changed, error)) return false;
  if (options_.keep) {
    temp_->keep();
    std::fprintf(stderr, "radar debug: the replay script is kept in %s\n", temp_->path().c_str());
  }
  if (!writeFiles(error)) return false;
  launch_.cwd = script_.launch.cwd;
  launch_.executable = script_.launch.executable;
  launch_.argv = script_.launch.argv;
  if (launch_.argv.empty()) launch_.argv.push_back(launch_.executable);
  launch_.environment = script_.launch.environment;
  launch_.nofile_soft = script_.launch.nofile_soft;
  launch_.nofile_hard = script_.launch.nofile_hard;
  launch_.randomize_addresses = options_.aslr;
  *usage = !changeEnvironment(options_.env, options_.unset_env, &launch_.environment, error);
  return !*usage;
}

// The replay script, made in its file where the file system can reserve
// its blocks ahead, else in memory.
bool DebugSession::makeScript(std::string* error) {
  script_path_ = temp_->path() + "/script";
  status_path_ = temp_->path() + "/status";
  const int fd = ::open(script_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    *error = "cannot create " + script_path_ + ": " + std::strerror(errno);
    return false;
  }
  script_in_file_ = ::fallocate(fd, 0, 0, 1) == 0;
  if (script_in_file_)
    script_.bytes = ScriptBytes::inFile(fd);
  else
    ::close(fd);
  std::string why;
  if (!buildScript(trace_, image_, &script_, &why)) {
    *error = "cannot re-run " + trace_.label(image_) + ": " + why;
    return false;
  }
  return true;
}

bool DebugSession::writeFiles(std::string* error) {
  return (script_in_file_ || writeFile(script_path_, script_.bytes.view(), error)) &&
         writeFile(status_path_, std::string(sizeof(ScriptStatus), '\0'), error);
}

// What the re-run library is told, after the user agreed to the launch.
void DebugSession::addRadarVariables() {
  std::vector<std::string>& env = launch_.environment;
  std::vector<std::string> libraries{installed_.library};
  if (trace_.processes[image_].mpi_rank >= 0) libraries.push_back(installed_.mpi_library);
  preloadReRunLibrary(libraries, &env);
  env.push_back(std::string(kScriptEnv) + "=" + script_path_);
  env.push_back(std::string(kStatusEnv) + "=" + status_path_);
  if (installed_.gdb.empty()) {
    env.push_back(std::string(kExitAtEndEnv) + "=1");
    if (options_.at_event) env.push_back("RADAR_REPLAY_SIGSTOP=1");
  }
  if (options_.at_event) env.push_back("RADAR_REPLAY_STOP_AT=" + std::to_string(options_.at_event));
  if (options_.sandboxed) env.push_back(std::string(kSandboxedEnv) + "=1");
}

int DebugSession::run() {
  addRadarVariables();
  Sandbox::Options where;
  where.enabled = options_.sandboxed;
  where.own_dir = std::filesystem::canonical(temp_->path()).string();
  where.report_stops = !options_.under_gdb && options_.at_event;
  where.write_places = likelyWritePlaces(launch_);
  const size_t recorded = trace_.process_events[image_].size();
  std::fprintf(stderr, "radar debug: re-running %s (%zu recorded event%s, event %u to %u of the replay)%s%s\n",
               terminalSafe(trace_.label(image_)).c_str(), recorded, recorded == 1 ? "" : "s", script_.first_number,
               script_.last_number, options_.under_gdb ? " under gdb" : "",
               where.enabled ? ", in a sandbox" : ", not sandboxed");
  if (script_.chain.size() > 1)
    std::fprintf(stderr, "radar debug: it was forked, so the re-run starts as %s and follows the fork%s to it\n",
                 terminalSafe(trace_.label(script_.chain.front())).c_str(), script_.chain.size() > 2 ? "s" : "");
  for (const auto& note : script_.notes) std::fprintf(stderr, "radar debug: %s\n", note.c_str());
  if (options_.under_gdb)
    return runGdb(installed_, launch_, where, temp_->path(), trace_.label(image_), options_.at_event, options_.batch,
                  options_.gdb_args);
  const int code = runAlone(launch_, where, status_path_, script_, trace_, options_.stall_limit_ns);
  reportTimes();
  return code;
}

void DebugSession::reportTimes() const {
  if (!std::getenv("RADAR_DEBUG_TIMING")) return;
  const ScriptStatus s = readStatus(status_path_);
  auto ms = [&](int64_t t) { return t ? (t - started_ns_) / 1e6 : -1.0; };
  std::fprintf(stderr,
               "radar debug: timing: recording loaded %.1f ms, script built %.1f ms, program started %.1f ms, "
               "first event %.1f ms, last event %.1f ms, %u events\n",
               ms(loaded_ns_), ms(built_ns_), ms(s.started_ns), ms(s.first_event_ns), ms(s.last_event_ns), s.consumed);
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int64_t monotonicNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

}  // namespace radar::driver
