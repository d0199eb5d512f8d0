// radar debug: re-runs one recorded process image alone, under gdb or on
// its own (driver/debug_session.h): the command line into the session's
// options, the user asked before anything runs, the session run.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "driver/debug_session.h"
#include "log/asan_options.h"
#include "log/recorder_env.h"

extern char** environ;

namespace radar::cli {

const char kDebugHelp[] =
    "usage: radar debug DIR... PROCESS [--at-event N] [-- GDB-ARGS...]\n"
    "       radar debug DIR... PROCESS --no-gdb [--at-event N]\n"
    "       radar debug DIR... PROCESS --batch [GDB-ARGS...]\n"
    "options: [OPTIONS]\n\n"
    "Re-runs one recorded process alone: the same executable, arguments,\n"
    "environment and working directory, fed exactly the messages and call\n"
    "results it saw in the recording. What it sends is compared with what it\n"
    "sent then and discarded; the first difference is reported and stops it.\n"
    "Its peers are never started and never touched.\n\n"
    "PROCESS is a pid, a name (when unique), name[pid], pid.generation for\n"
    "the image a pid exec'd into, or \"rank N\" for an MPI job's rank: it\n"
    "re-runs without mpirun or the other ranks, its MPI calls answered from\n"
    "the recording.\n\n"
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

const OptionSpec kDebugOptionList[] = {
    {"at-event", 0, "N"},       {"no-gdb", 0, nullptr},  {"stall-after", 0, "S"},    {"allow-changed", 0, nullptr},
    {"keep", 0, nullptr},       {"aslr", 0, nullptr},    {"no-sandbox", 0, nullptr}, {"yes", 'y', nullptr},
    {"env", 0, "NAME[=VALUE]"}, {"unset-env", 0, "NAME"}};
const std::span<const OptionSpec> kDebugOptions{kDebugOptionList};

namespace {

// A recording may come from someone else: what it would run is shown
// before anything runs, and run only when the user agrees (or said --yes).
bool confirmLaunch(const driver::LaunchSpec& launch, const std::vector<std::string>& dropped_preloads,
                   const std::vector<std::string>& redacted_notes, const std::vector<std::string>& ours, bool yes) {
  std::string text = "radar debug: it will run, as recorded:\n";
  text += "  program      " + terminalSafe(launch.executable) + "\n";
  std::string argv;
  for (const auto& a : launch.argv) argv += (argv.empty() ? "" : " ") + driver::shellQuote(a);
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
    if (!entry.empty() && !mine.count(entry) && std::find(ours.begin(), ours.end(), name) == ours.end())
      differ.push_back(entry);
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

// radar's files a re-run needs, and gdb unless --no-gdb.
bool findInstallation(bool no_gdb, driver::Installation* out) {
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
  out->mpi_library = self + "/../lib/radar/libradar-rerun-mpi.so";
  for (const std::string& f : {out->library, out->launcher, out->extension})
    if (::access(f.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "radar debug: %s is missing: this radar installation is incomplete\n", f.c_str());
      return false;
    }
  return true;
}

// What goes to gdb: the rest of the line after --batch, or after "--".
std::vector<char*> splitGdbArguments(int argc, char** argv, driver::DebugOptions* o) {
  std::vector<char*> ours;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && (std::strcmp(argv[i], "--batch") == 0 || std::strcmp(argv[i], "--") == 0)) {
      o->batch = std::strcmp(argv[i], "--batch") == 0;
      for (int j = i + 1; j < argc; ++j) o->gdb_args.emplace_back(argv[j]);
      break;
    }
    ours.push_back(argv[i]);
  }
  return ours;
}

// The session's options from the command line; an error's text otherwise.
std::string readOptions(Args& args, driver::DebugOptions* o) {
  const auto& pos = args.positional();
  if (pos.size() < 2) return "give a recording directory and the process to re-run";
  o->under_gdb = !args.has("no-gdb");
  if (!o->under_gdb && (o->batch || !o->gdb_args.empty()))
    return "--no-gdb runs without gdb: gdb arguments make no sense with it";
  if (!args.number("at-event", &o->at_event, 0)) return args.error();
  if (args.has("at-event") && o->at_event == 0) return "--at-event: events are numbered from 1";
  unsigned long long stall_after = 0;
  if (!args.number("stall-after", &stall_after, 0) || stall_after > 86400)
    return "--stall-after: a number of seconds, at most a day";
  o->stall_limit_ns = static_cast<int64_t>(stall_after) * 1'000'000'000;
  o->process = pos.back();
  o->allow_changed = args.has("allow-changed");
  o->keep = args.has("keep");
  o->aslr = args.has("aslr");
  o->sandboxed = !args.has("no-sandbox");
  o->env = args.values("env");
  o->unset_env = args.values("unset-env");
  return "";
}

}  // namespace

int runDebug(int argc, char** argv) {
  const int64_t started = driver::monotonicNs();
  driver::DebugOptions options;
  std::vector<char*> ours = splitGdbArguments(argc, argv, &options);
  Args args;
  if (!args.parse(static_cast<int>(ours.size()), ours.data(), 1, kDebugOptions))
    return usageError("debug", args.error());
  if (const std::string error = readOptions(args, &options); !error.empty()) return usageError("debug", error);
  driver::Installation installed;
  if (!findInstallation(!options.under_gdb, &installed)) return kExitUsage;
  // Processes may be named as the recording's network description names them.
  const auto& pos = args.positional();
  const Loaded loaded = loadForCommand("debug", std::vector<std::string>(pos.begin(), pos.end() - 1));
  if (!loaded) return kExitUsage;
  driver::DebugSession session(*loaded.trace, installed, options);
  session.noteTimes(started, driver::monotonicNs());
  std::string error;
  bool usage = false;
  if (!session.prepare(&error, &usage)) {
    if (usage) return usageError("debug", error);
    std::fprintf(stderr, "radar debug: %s%s\n", error.c_str(),
                 loaded.trace->problems.empty() ? "" : " (some logs could not be read: see above)");
    return kExitUsage;
  }
  const driver::Launch& recorded = session.script().launch;
  if (!confirmLaunch(session.launch(), recorded.preloads, leftOutNotes(recorded.redacted, options.env),
                     driver::DebugSession::ownVariables(), args.has("yes")))
    return kExitUsage;
  return session.run();
}

}  // namespace radar::cli
