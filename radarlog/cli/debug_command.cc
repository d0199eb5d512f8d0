// radar debug: re-runs one recorded process image alone, under gdb or on
// its own, fed from the recording by libradar-rerun.so.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
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
#include <set>
#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "driver/launch.h"
#include "driver/sandbox.h"
#include "driver/script.h"
#include "driver/script_builder.h"
#include "driver/stall_watch.h"
#include "log/asan_options.h"
#include "log/file_hash.h"
#include "log/recorder_env.h"
#include "log/wait_status.h"
#include "trace/findings.h"

namespace radar::cli {

const char kDebugHelp[] =
    "usage: radar debug DIR... PROCESS [--at-event N] [-- GDB-ARGS...]\n"
    "       radar debug DIR... PROCESS --no-gdb [--at-event N]\n"
    "       radar debug DIR... PROCESS --batch [GDB-ARGS...]\n\n"
    "Re-runs one recorded process alone: the same executable, arguments,\n"
    "environment and working directory, fed exactly the messages and call\n"
    "results it saw in the recording. What it sends is compared with what it\n"
    "sent then and discarded; the first difference is reported and stops it.\n"
    "Its peers are never started and never touched.\n\n"
    "PROCESS is a pid, a name (when unique), name[pid], or pid.generation for\n"
    "the image a pid exec'd into.\n\n"
    "  --at-event N      stop just before the replay's event N (the number\n"
    "                    radar events and radar replay show)\n"
    "  --no-gdb          run it without a debugger; exit 0 when it did what\n"
    "                    the recording says, 1 when it diverged. With\n"
    "                    --at-event, it stops itself there (SIGSTOP) for\n"
    "                    another debugger to attach; a re-run that waits\n"
    "                    for what radar did not record (a message queue, a\n"
    "                    semaphore in shared memory) is ended, and said\n"
    "  --stall-after S   how long a --no-gdb re-run may wait so (default: 10 s,\n"
    "                    or twice the longest wait of the recorded process)\n"
    "  --batch ARGS...   run gdb non-interactively: the rest of the command\n"
    "                    line goes to gdb (e.g. -ex 'break f' -ex run)\n"
    "  --allow-changed   re-run an executable rebuilt since the recording\n"
    "                    (to see where a fix changes what it sends)\n"
    "  --env NAME=VALUE  change the re-run's environment (repeatable); the\n"
    "                    recorded one is used otherwise\n"
    "  --env NAME        give the re-run NAME as your environment has it\n"
    "  --unset-env NAME  remove a variable from the re-run's environment\n"
    "  --keep            keep the replay script and print where it is\n"
    "  --aslr            keep address-space randomization on (off by default, as\n"
    "                    radar record leaves it: the re-run has the recorded addresses)\n"
    "  --no-sandbox      run it in the real world: without it, the re-run (and\n"
    "                    gdb) sees every file but writes only to a throwaway\n"
    "                    layer, has a network, IPC and processes of its own, and\n"
    "                    all of it goes when radar debug ends\n"
    "  -y, --yes         run it without asking: radar debug first shows what it\n"
    "                    will run (program, arguments, directory, environment\n"
    "                    unlike yours) and asks, as a recording may come from\n"
    "                    someone else\n\n"
    "In gdb: 'radar event', 'radar continue-to N', 'radar next-message';\n"
    "'help radar' explains them. See docs/debugging-one-process.md.\n";

namespace {

using driver::ReplayOutcome;
using driver::ScriptStatus;

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
  std::vector<uint32_t> found = findProcesses(t, spec, true, error);
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

std::string shellQuote(const std::string& s);

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

// A recording may come from someone else: what it would run is shown
// before anything runs, and run only when the user agrees (or said --yes).
bool confirmLaunch(const driver::LaunchSpec& launch, const std::vector<std::string>& dropped_preloads,
                   const std::vector<std::string>& redacted_notes, const std::set<std::string>& ours, bool yes) {
  std::string text = "radar debug: it will run, as recorded:\n";
  text += "  program      " + terminalSafe(launch.executable) + "\n";
  std::string argv;
  for (const auto& a : launch.argv) argv += (argv.empty() ? "" : " ") + shellQuote(a);
  text += "  arguments    " + terminalSafe(argv) + "\n";
  text += "  directory    " + terminalSafe(launch.cwd) + "\n";
  // Entries unlike the user's own environment: what a crafted recording
  // could use to change what the program does.
  std::set<std::string> mine;
  for (char** e = environ; e && *e; ++e) mine.insert(*e);
  std::vector<std::string> differ;
  for (const auto& e : launch.environment) {
    const std::string name = e.substr(0, e.find('='));
    if (log::isRecorderVariable(e.c_str())) continue;  // the recording's own, as it was
    // radar's addition to ASAN_OPTIONS is not the program's either.
    const std::string entry = name == "ASAN_OPTIONS" ? log::withoutAsanLinkOrder(e) : e;
    if (!entry.empty() && !mine.count(entry) && !ours.count(name)) differ.push_back(entry);
  }
  if (differ.empty()) {
    text += "  environment  yours\n";
  } else {
    text += "  environment  yours, but:\n";
    for (const auto& e : differ) text += "                 " + terminalSafe(e) + "\n";
  }
  for (const auto& note : redacted_notes) text += note;
  for (const auto& p : dropped_preloads)
    text += "  not loaded   " + terminalSafe(p) +
            " (the recorded process's LD_PRELOAD: libraries a recording names "
            "are never loaded)\n";
  std::fputs(text.c_str(), stderr);
  if (yes) return true;
  if (!::isatty(STDIN_FILENO)) {
    std::fprintf(stderr, "radar debug: no terminal to ask whether to run it: add --yes to run it\n");
    return false;
  }
  std::fprintf(stderr, "Run it? [y/N] ");
  std::fflush(stderr);
  std::string answer;
  for (int c; (c = std::getchar()) != EOF && c != '\n';) answer += static_cast<char>(c);
  if (answer == "y" || answer == "Y" || answer == "yes") return true;
  std::fprintf(stderr, "radar debug: not run\n");
  return false;
}

class TempDir {
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
  return kExitFindings;
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
    return g_ending ? endedBySignal(&sandbox) : kExitUsage;
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
      return kExitUsage;
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
      return kExitOk;
    case ReplayOutcome::Diverged:
      std::fprintf(stderr, "%s\n", s.report);
      return kExitFindings;
    case ReplayOutcome::Failed:
      std::fprintf(stderr, "%s\n", s.report);
      return kExitUsage;
    case ReplayOutcome::Running:
      break;
  }
  // The program ended without the library seeing an exit: a signal, or it
  // never started.
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && s.consumed == 0) return kExitUsage;
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
      return kExitOk;
    }
    std::fprintf(stderr,
                 "radar debug: replayed %u of %u events; the re-run %s; but what it wrote to files and devices "
                 "differs from the recording: %s%s%u of its %u recorded writes made\n",
                 s.consumed, script.events, how.c_str(), s.first_output_difference, s.outputs_differing ? "; " : "",
                 s.outputs_checked, outputs);
    return kExitFindings;
  }
  std::fprintf(stderr,
               "radar debug: the re-run %s after %u of %u recorded events (the last: event %llu); the recording "
               "has more\n",
               how.c_str(), s.consumed, script.events, static_cast<unsigned long long>(s.last_number));
  return kExitFindings;
}

// Sets (entry = "NAME=VALUE") or removes (null) a variable.
void setVariable(std::vector<std::string>* env, const std::string& name, const std::string* entry) {
  std::erase_if(*env, [&](const std::string& e) {
    return e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=';
  });
  if (entry) env->push_back(*entry);
}

// gdb runs its exec-wrapper through the shell.
std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

namespace {

int64_t monotonicNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// RADAR_DEBUG_TIMING=1: where the time goes (the benchmark reads it).
struct Timing {
  bool on = std::getenv("RADAR_DEBUG_TIMING") != nullptr;
  int64_t start = monotonicNs(), loaded = 0, built = 0;
  void report(const std::string& status_path) const {
    if (!on) return;
    const ScriptStatus s = readStatus(status_path);
    auto ms = [&](int64_t t) { return t ? (t - start) / 1e6 : -1.0; };
    std::fprintf(stderr,
                 "radar debug: timing: recording loaded %.1f ms, script built %.1f ms, program started %.1f ms, "
                 "first event %.1f ms, last event %.1f ms, %u events\n",
                 ms(loaded), ms(built), ms(s.started_ns), ms(s.first_event_ns), ms(s.last_event_ns), s.consumed);
  }
};

// What a re-run needs of radar's installation, and gdb unless --no-gdb.
struct Installation {
  std::string gdb, library, launcher, extension;
};

bool findInstallation(bool no_gdb, Installation* out) {
  if (!no_gdb) {
    const char* custom = std::getenv("RADAR_GDB");
    out->gdb = findExecutable(custom && *custom ? custom : "gdb");
    if (out->gdb.empty() || ::access(out->gdb.c_str(), X_OK) != 0) {
      std::fprintf(stderr,
                   "radar debug: gdb is not installed (apt-get install gdb); --no-gdb re-runs the process "
                   "without it\n");
      return false;
    }
  }
  const std::string self = selfDirectory();
  out->library = self + "/../lib/radar/libradar-rerun.so";
  out->launcher = self + "/../libexec/radar/radar-launch";
  out->extension = self + "/../share/radar/gdb/radar.py";
  for (const std::string& f : {out->library, out->launcher, out->extension})
    if (::access(f.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "radar debug: %s is missing: this radar installation is incomplete\n", f.c_str());
      return false;
    }
  return true;
}

// The replay script of `image`, made in its file at `path` where the file
// system can reserve its blocks ahead (*in_file), else in memory.
bool makeScript(const trace::Trace& trace, uint32_t image, const std::string& path, driver::Script* script,
                bool* in_file) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "radar debug: cannot create %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  *in_file = ::fallocate(fd, 0, 0, 1) == 0;
  if (*in_file)
    script->bytes = driver::ScriptBytes::inFile(fd);
  else
    ::close(fd);
  std::string error;
  if (!driver::buildScript(trace, image, script, &error)) {
    std::fprintf(stderr, "radar debug: cannot re-run %s: %s\n", trace.label(trace.processes[image].index).c_str(),
                 error.c_str());
    return false;
  }
  return true;
}

// Values the recording left out (radar record --redact) are the user's
// only when asked for (--env NAME): which names were left out is the
// recording's word, and one received from someone else must not get a
// variable of the user's (GITHUB_TOKEN, SSH_AUTH_SOCK) by naming it. The
// lines that say so, for those not given.
std::vector<std::string> leftOutNotes(const std::vector<std::string>& redacted, const std::vector<std::string>& given) {
  std::vector<std::string> notes;
  for (const std::string& name : redacted) {
    if (std::any_of(given.begin(), given.end(),
                    [&](const std::string& o) { return o == name || o.rfind(name + "=", 0) == 0; }))
      continue;
    notes.push_back("  left out     " + terminalSafe(name) + " (its value was left out of the recording; " +
                    (std::getenv(name.c_str()) ? "--env " + terminalSafe(name) + " gives yours"
                                               : "--env " + terminalSafe(name) + "=VALUE gives one") +
                    ")\n");
  }
  return notes;
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
void preloadReRunLibrary(const std::string& library, std::vector<std::string>* environment) {
  const std::string this_library = "LD_PRELOAD=" + std::filesystem::weakly_canonical(library).string();
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

// The re-run under gdb: gdb runs the program through radar-launch, with
// radar's extension, in the sandbox; its exit status is radar debug's.
int runUnderGdb(const Installation& installed, const driver::LaunchSpec& launch,
                const driver::Sandbox::Options& sandbox_options, const std::string& dir, const std::string& label,
                unsigned long long at_event, bool batch, const std::vector<std::string>& gdb_args) {
  std::string error;
  const std::string launch_path = dir + "/launch";
  if (!driver::writeLaunchFile(launch_path, launch, &error)) {
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
    return kExitUsage;
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
    return kExitUsage;
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
    return g_ending ? endedBySignal(&sandbox) : kExitUsage;
  // gdb owns the terminal and Ctrl-C while it runs (set once gdb has
  // radar debug's own dispositions: it gives them to the program).
  ::signal(SIGINT, SIG_IGN);
  int status = 0;
  for (;;) {
    const auto change = sandbox.wait(&status, &g_ending, &error);
    if (change == driver::Sandbox::Change::Interrupted) return endedBySignal(&sandbox);
    if (change == driver::Sandbox::Change::Failed) {
      std::fprintf(stderr, "radar debug: %s\n", error.c_str());
      return kExitUsage;
    }
    if (change == driver::Sandbox::Change::Ended) break;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitUsage;
}

}  // namespace

int runDebug(int argc, char** argv) {
  Timing timing;
  // Split off what goes to gdb: after --batch, or after "--".
  std::vector<std::string> gdb_args;
  bool batch = false;
  std::vector<char*> ours;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && (std::strcmp(argv[i], "--batch") == 0 || std::strcmp(argv[i], "--") == 0)) {
      batch = std::strcmp(argv[i], "--batch") == 0;
      for (int j = i + 1; j < argc; ++j) gdb_args.emplace_back(argv[j]);
      break;
    }
    ours.push_back(argv[i]);
  }
  Args args;
  if (!args.parse(static_cast<int>(ours.size()), ours.data(), 1,
                  {{"at-event", 0, true},
                   {"no-gdb", 0, false},
                   {"stall-after", 0, true},
                   {"allow-changed", 0, false},
                   {"keep", 0, false},
                   {"aslr", 0, false},
                   {"no-sandbox", 0, false},
                   {"yes", 'y', false},
                   {"env", 0, true},
                   {"unset-env", 0, true}}))
    return usageError("debug", args.error());
  const auto& pos = args.positional();
  if (pos.size() < 2) return usageError("debug", "give a recording directory and the process to re-run");
  const bool no_gdb = args.has("no-gdb");
  if (no_gdb && (batch || !gdb_args.empty()))
    return usageError("debug", "--no-gdb runs without gdb: gdb arguments make no sense with it");
  unsigned long long at_event = 0;
  if (!args.number("at-event", &at_event, 0)) return usageError("debug", args.error());
  if (args.has("at-event") && at_event == 0) return usageError("debug", "--at-event: events are numbered from 1");
  unsigned long long stall_after = 0;
  if (!args.number("stall-after", &stall_after, 0) || stall_after > 86400)
    return usageError("debug", "--stall-after: a number of seconds, at most a day");

  Installation installed;
  if (!findInstallation(no_gdb, &installed)) return kExitUsage;

  const std::vector<std::string> dirs(pos.begin(), pos.end() - 1);
  const std::string& spec = pos.back();
  // Processes may be named as the recording's network description names them.
  const Loaded loaded = loadForCommand("debug", dirs);
  timing.loaded = monotonicNs();
  if (!loaded) return kExitUsage;
  const auto& trace = loaded.trace;
  uint32_t image = 0;
  std::string error;
  if (!chooseImage(*trace, spec, &image, &error)) {
    std::fprintf(stderr, "radar debug: %s%s\n", error.c_str(),
                 trace->problems.empty() ? "" : " (some logs could not be read: see above)");
    return kExitUsage;
  }
  const trace::Process& proc = trace->processes[image];
  TempDir temp;
  if (!temp.create(&error)) {
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
    return kExitUsage;
  }
  const std::string script_path = temp.path() + "/script";
  const std::string status_path = temp.path() + "/status";
  driver::Script script;
  bool script_in_file = false;
  if (!makeScript(*trace, image, script_path, &script, &script_in_file)) return kExitUsage;
  timing.built = monotonicNs();
  if (at_event && (at_event > trace->events.size() || at_event > script.last_number)) {
    std::fprintf(stderr, "radar debug: %s has no event at or after event %llu (its last is event %u)\n",
                 trace->label(proc.index).c_str(), at_event, script.last_number);
    return kExitUsage;
  }
  if (!sameExecutable(script.launch, *trace, args.has("allow-changed"), &error)) {
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
    return kExitUsage;
  }

  if (args.has("keep")) {
    temp.keep();
    std::fprintf(stderr, "radar debug: the replay script is kept in %s\n", temp.path().c_str());
  }
  if ((!script_in_file && !writeFile(script_path, script.bytes.view(), &error)) ||
      !writeFile(status_path, std::string(sizeof(ScriptStatus), '\0'), &error)) {
    std::fprintf(stderr, "radar debug: %s\n", error.c_str());
    return kExitUsage;
  }

  driver::LaunchSpec launch;
  launch.cwd = script.launch.cwd;
  launch.executable = script.launch.executable;
  launch.argv = script.launch.argv;
  if (launch.argv.empty()) launch.argv.push_back(launch.executable);
  launch.environment = script.launch.environment;
  launch.nofile_soft = script.launch.nofile_soft;
  launch.nofile_hard = script.launch.nofile_hard;
  launch.randomize_addresses = args.has("aslr");
  const std::vector<std::string> redacted_notes = leftOutNotes(script.launch.redacted, args.values("env"));
  if (!changeEnvironment(args.values("env"), args.values("unset-env"), &launch.environment, &error))
    return usageError("debug", error);
  if (!confirmLaunch(launch, script.launch.preloads, redacted_notes,
                     {"LD_PRELOAD", driver::kShownPreloadEnv, driver::kScriptEnv, driver::kStatusEnv,
                      driver::kExitAtEndEnv, "RADAR_REPLAY_SIGSTOP", "RADAR_REPLAY_STOP_AT"},
                     args.has("yes")))
    return kExitUsage;
  preloadReRunLibrary(installed.library, &launch.environment);
  launch.environment.push_back(std::string(driver::kScriptEnv) + "=" + script_path);
  launch.environment.push_back(std::string(driver::kStatusEnv) + "=" + status_path);
  if (no_gdb) {
    launch.environment.push_back(std::string(driver::kExitAtEndEnv) + "=1");
    if (at_event) launch.environment.push_back("RADAR_REPLAY_SIGSTOP=1");
  }
  if (at_event) launch.environment.push_back("RADAR_REPLAY_STOP_AT=" + std::to_string(at_event));
  if (!args.has("no-sandbox")) launch.environment.push_back(std::string(driver::kSandboxedEnv) + "=1");

  driver::Sandbox::Options sandbox_options;
  sandbox_options.enabled = !args.has("no-sandbox");
  sandbox_options.own_dir = std::filesystem::canonical(temp.path()).string();
  sandbox_options.report_stops = no_gdb && at_event;
  sandbox_options.write_places = likelyWritePlaces(launch);

  const size_t own_events = trace->process_events[image].size();
  std::fprintf(stderr, "radar debug: re-running %s (%zu recorded events, event %u to %u of the replay)%s%s\n",
               terminalSafe(trace->label(proc.index)).c_str(), own_events, script.first_number, script.last_number,
               no_gdb ? "" : " under gdb", sandbox_options.enabled ? ", in a sandbox" : ", not sandboxed");
  if (script.chain.size() > 1) {
    const trace::Process& first = trace->processes[script.chain.front()];
    std::fprintf(stderr, "radar debug: it was forked, so the re-run starts as %s and follows the fork%s to it\n",
                 trace->label(first.index).c_str(), script.chain.size() > 2 ? "s" : "");
  }
  for (const auto& note : script.notes) std::fprintf(stderr, "radar debug: %s\n", note.c_str());

  if (no_gdb) {
    const int code = runAlone(launch, sandbox_options, status_path, script, *trace,
                              static_cast<int64_t>(stall_after) * 1'000'000'000);
    timing.report(status_path);
    return code;
  }

  return runUnderGdb(installed, launch, sandbox_options, temp.path(), trace->label(proc.index), at_event, batch,
                     gdb_args);
}

}  // namespace radar::cli
