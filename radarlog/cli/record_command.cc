// `radar record`: its options into the recorder's settings
// (record/session.h, record/series.h), then what was recorded, what could
// not be, and the program's exit status.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/flight_watch.h"
#include "cli/progress.h"
#include "cli/recording_status.h"
#include "cli/watch.h"
#include "log/recorder_env.h"
#include "log/wait_status.h"
#include "netdesc/description.h"
#include "record/mpi_program.h"
#include "record/recording.h"
#include "record/series.h"
#include "record/session.h"

namespace radar::cli {

const char kRecordHelp[] =
    "usage: radar record [OPTIONS] -- PROGRAM [ARGS...]\n\n"
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
    "  --sync                   also record locks, semaphores, condition variables and\n"
    "                           barriers (pthread, sem_*), in the order they were taken:\n"
    "                           the story then has an edge from each release to the\n"
    "                           acquisition that followed it, across processes for\n"
    "                           process-shared ones (docs/threads.md)\n"
    "  --keep-writes            keep the bytes each write to a file or device wrote (by\n"
    "                           default only their length and checksum), so that a\n"
    "                           re-run that writes otherwise shows the bytes that differ\n"
    "  --copies                 keep in each sender's log a copy of every message it sent;\n"
    "                           by default a send of bytes its process just received (a\n"
    "                           pipeline stage, a proxy) refers to that receive instead\n"
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
    "  --mpi, --no-mpi          record the MPI calls (ranks, tags, communicators,\n"
    "                           collectives: docs/mpi.md), or do not; by default, when\n"
    "                           PROGRAM is an MPI launcher (mpirun, mpiexec, srun) or\n"
    "                           links an MPI library\n"
    "  --join ID|DIR            join a recording started on another host: this host's\n"
    "                           part gets its recording id (RADAR_RECORDING_ID in the\n"
    "                           environment of its processes, or its directory where it\n"
    "                           can be read), so that radar reads the parts as one\n"
    "                           recording (docs/many-hosts.md)\n"
    "  --repeat N               record the program N times, into DIR/run-1 ... run-N\n"
    "  --until-fail             with --repeat: stop at the first run whose exit status\n"
    "                           differs from the first run's, keep it and the run\n"
    "                           before it (removing the others), and print `radar diff`\n"
    "                           of the two: where they part first, in causal order\n"
    "  --until COMMAND          with --repeat: stop at the first run for which the shell\n"
    "                           command COMMAND exits non-zero, given what the run\n"
    "                           printed on its standard input, the run's directory in\n"
    "                           $RADAR_RUN and its status in $RADAR_RUN_STATUS (e.g.\n"
    "                           --until 'grep -qx \"hits = 60\"'); as --until-fail then.\n"
    "                           PROGRAM's standard output goes to a file, copied to\n"
    "                           radar's after each run\n"
    "  --dormant                record nothing until `radar attach PID` (any process of\n"
    "                           the program's tree): the program runs as without radar,\n"
    "                           at the cost of a test per call, and is recorded from\n"
    "                           then on (docs/live.md)\n"
    "  --flight SIZE            a flight recorder, for programs that do not end: each\n"
    "                           log keeps only about its last SIZE of events and\n"
    "                           messages (e.g. 64M; 64K to 4G). SIGUSR2 to radar\n"
    "                           record (or `radar dump-flight DIR`) freezes what they\n"
    "                           hold into DIR/flight-N, a recording of its own\n"
    "  --save-on crash,error    with --flight: freeze also when a process crashes\n"
    "                           (SIGSEGV, SIGABRT ...) or exits with a status other\n"
    "                           than 0\n"
    "  --fallback off|auto|always\n"
    "                           record from outside (ptrace) the programs the interposer\n"
    "                           cannot see into: auto (the default: a statically\n"
    "                           linked or a Go program run by radar record), always\n"
    "                           (every process: to check the interposer against it),\n"
    "                           or off (such programs are said not recorded)\n"
    "  --live                   open the replay window on the recording as it is made\n"
    "                           (as radar replay --follow DIR): new processes and\n"
    "                           messages appear as they happen; it stays open once\n"
    "                           the program has ended. Needs a display\n"
    "  --on CONDITION           while the program runs, watch for CONDITION: deadlock (a\n"
    "                           cycle of processes each blocked for half a second on a\n"
    "                           channel only the next one could use, told with its\n"
    "                           cycle as soon as it forms), or events that match every\n"
    "                           term of KEY=VALUE ...: process=NAME, channel=NAME,\n"
    "                           kind=K (as radar events --kind), user=NAME (a user\n"
    "                           event), contains=TEXT (a message holding TEXT; a value\n"
    "                           in double quotes may hold spaces)\n"
    "  --do ACTION              what to do then: mark (say it; the default), stop (also\n"
    "                           stop its processes with SIGSTOP, for gdb -p: at the\n"
    "                           event itself unless the condition names a process or\n"
    "                           a channel), snapshot\n"
    "                           (also copy the recording so far into DIR/snapshot-N, a\n"
    "                           recording of its own), or 'run COMMAND' (also run the\n"
    "                           shell command COMMAND with what happened as JSON on its\n"
    "                           standard input)\n"
    "\n"
    "Exit status: PROGRAM's (128+N when a signal N killed it); 127 when PROGRAM cannot\n"
    "be found or executed, as a shell says; 2 for a bad command line or a recording\n"
    "directory radar cannot use. A summary goes to stderr, with every process that\n"
    "could not be recorded. With --repeat: the last run's status; with --until, 1 when\n"
    "a run failed COMMAND.\n";

const OptionSpec kRecordOptionList[] = {{"output", 'o', "DIR"},
                                        {"force", 0, nullptr},
                                        {"payload-limit", 0, "BYTES"},
                                        {"tail", 0, "BYTES"},
                                        {"nondet", 0, nullptr},
                                        {"sync", 0, nullptr},
                                        {"keep-writes", 0, nullptr},
                                        {"copies", 0, nullptr},
                                        {"aslr", 0, nullptr},
                                        {"redact", 0, "PATTERN"},
                                        {"no-default-redact", 0, nullptr},
                                        {"mpi", 0, nullptr},
                                        {"no-mpi", 0, nullptr, InUsage::kOr},
                                        {"net", 0, "FILE"},
                                        {"join", 0, "ID|DIR"},
                                        {"repeat", 0, "N"},
                                        {"until-fail", 0, nullptr, InUsage::kWith},
                                        {"until", 0, "COMMAND", InUsage::kOr},
                                        {"dormant", 0, nullptr},
                                        {"flight", 0, "SIZE"},
                                        {"save-on", 0, "crash,error", InUsage::kWith},
                                        {"live", 0, nullptr},
                                        {"fallback", 0, "off|auto|always"},
                                        {"on", 0, "CONDITION"},
                                        {"do", 0, "ACTION", InUsage::kWith}};
const std::span<const OptionSpec> kRecordOptions{kRecordOptionList};

namespace {

std::string directoryFor(const Args& args) {
  const std::string& program = args.positional()[0];
  return args.value("output").value_or(record::newRecordingDirectory(program.substr(program.rfind('/') + 1)));
}

// The run a series stopped at, the one before it, and radar diff of the two.
void reportCaughtRun(const record::SeriesSettings& s, const record::SeriesOutcome& out) {
  if (s.until.empty())
    std::fprintf(stderr, "radar: run %llu exited with status %d, the %llu before it with status %d; kept %s and %s\n",
                 out.recorded, out.status, out.recorded - 1, out.first_status, out.before.c_str(), out.after.c_str());
  else if (out.before.empty())
    std::fprintf(stderr, "radar: run 1: `%s` exited with status %d; kept %s\n", s.until.c_str(), out.until_status,
                 out.after.c_str());
  else
    std::fprintf(stderr, "radar: run %llu: `%s` exited with status %d, the %llu before it passed; kept %s and %s\n",
                 out.recorded, s.until.c_str(), out.until_status, out.recorded - 1, out.before.c_str(),
                 out.after.c_str());
  if (out.before.empty()) return;
  std::fprintf(stderr, "radar: radar diff %s %s\n", out.before.c_str(), out.after.c_str());
  std::fflush(stderr);
  std::string diff_name = "diff";
  std::vector<char*> diff_argv{diff_name.data(), const_cast<char*>(out.before.c_str()),
                               const_cast<char*>(out.after.c_str()), nullptr};
  std::fflush(stdout);
  runDiff(3, diff_argv.data());
  std::fflush(stdout);
}

int recordRepeatedly(const Args& args, unsigned long long runs) {
  record::SeriesSettings s;
  s.recorder = {selfDirectory() + "/radar", "record"};
  for (const char* flag : {"aslr", "nondet", "sync", "keep-writes", "copies", "no-default-redact", "mpi", "no-mpi"})
    if (args.has(flag)) s.recorder.push_back(std::string("--") + flag);
  for (const char* option : {"payload-limit", "tail", "net", "redact"})
    for (const auto& v : args.values(option)) s.recorder.insert(s.recorder.end(), {std::string("--") + option, v});
  s.command = args.positional();
  s.dir = directoryFor(args);
  s.force = args.has("force");
  s.runs = runs;
  s.until_fail = args.has("until-fail");
  s.until = args.value("until").value_or("");
  const record::SeriesOutcome out = record::recordSeries(s);
  if (!out.error.empty()) {
    std::fprintf(stderr, "radar record: %s\n", out.error.c_str());
    return out.status > 0 ? out.status : kExitUsage;
  }
  if (out.interrupted) {
    std::fprintf(stderr, "radar: interrupted: %llu run%s recorded into %s (run-1 ... run-%llu)\n", out.recorded,
                 out.recorded == 1 ? "" : "s", s.dir.c_str(), out.recorded);
    return out.status;
  }
  if (out.after.empty()) {
    const std::string every = s.until_fail       ? ", every one exited with status " + std::to_string(out.status)
                              : !s.until.empty() ? ", every one passed `" + s.until + "`"
                                                 : "";
    std::fprintf(stderr, "radar: %llu run%s recorded into %s (run-1 ... run-%llu)%s\n", out.recorded,
                 out.recorded == 1 ? "" : "s", s.dir.c_str(), out.recorded, every.c_str());
    return out.status;
  }
  reportCaughtRun(s, out);
  return s.until.empty() ? out.status : kExitFindings;
}

bool parseRecordArgs(Args& args, int argc, char** argv) {
  return args.parse(argc, argv, 1, kRecordOptions,
                    /*stop_at_positional=*/true);
}

// The recorder's settings from the options; an error's text otherwise.
std::optional<std::string> readSettings(Args& args, record::RecordSettings* s) {
  unsigned long long payload_limit = 0, tail = 0;
  if (!args.number("payload-limit", &payload_limit, 0) || !args.number("tail", &tail, 0)) return args.error();
  if (tail && (tail < 4096 || tail > 64ull * 1024 * 1024)) return "--tail: expected 4K to 64M";
  unsigned long long flight = 0;
  if (!args.number("flight", &flight, 0)) return args.error();
  // (A trim drops a quarter of SIZE past the relays of the one before: up
  // to 4G, that always fits the 32 bits a skippable frame says its size in.)
  if (args.has("flight") && (flight < 64 * 1024 || flight > (4ull << 30))) return "--flight: expected 64K to 4G";
  s->flight = flight;
  if (args.has("payload-limit")) s->payload_limit = payload_limit;
  s->tail = tail;
  // Variables whose values the logs leave out.
  s->redact = args.has("no-default-redact") ? "" : log::kDefaultRedactPatterns;
  for (const std::string& pattern : args.values("redact")) {
    if (pattern.empty() || pattern.find_first_of(":=") != std::string::npos)
      return "--redact: a variable name pattern, without ':' or '=': '" + pattern + "'";
    s->redact += (s->redact.empty() ? "" : ":") + pattern;
  }
  if (s->redact.size() > 1000) return "--redact: too many patterns (1000 characters at most)";
  s->command = args.positional();
  s->force = args.has("force");
  s->aslr = args.has("aslr");
  s->nondet = args.has("nondet");
  s->sync = args.has("sync");
  s->keep_writes = args.has("keep-writes");
  s->copies = args.has("copies");
  s->dormant = args.has("dormant");
  s->dir_given = args.has("output");
  if (const auto when = args.value("fallback")) {
    using Fallback = record::RecordSettings::Fallback;
    if (*when == "off")
      s->fallback = Fallback::Off;
    else if (*when == "auto")
      s->fallback = Fallback::Auto;
    else if (*when == "always")
      s->fallback = Fallback::Always;
    else
      return "--fallback: expected off, auto or always, got '" + *when + "'";
    if (s->dormant && s->fallback == Fallback::Always)
      return "--fallback always and --dormant: the fallback records from the start";
  }
  if (const auto join = args.value("join")) {
    std::string error;
    s->join_id = record::recordingIdToJoin(*join, &error);
    if (s->join_id.empty()) return error;
  }
  return std::nullopt;
}

// The MPI interposer to preload beside the C library's ("" for none): as
// asked, else when the program is an MPI program or launcher. Not built
// (no MPI library where radar was built): none, and --mpi says so.
std::optional<std::string> mpiInterposer(const Args& args, const std::string& program) {
  if (args.has("no-mpi") || (!args.has("mpi") && !record::isMpiProgram(program))) return "";
  const std::string library = selfDirectory() + "/../lib/radar/libradar-mpi.so";
  if (::access(library.c_str(), R_OK) == 0) return library;
  if (!args.has("mpi")) return "";
  return std::nullopt;
}

// A network description is checked before anything runs.
bool readNetwork(const Args& args, record::RecordSettings* s) {
  auto net = args.value("net");
  if (!net) return true;
  std::vector<netdesc::Problem> problems;
  auto description = netdesc::Description::load(*net, &problems);
  for (const auto& p : problems) std::fprintf(stderr, "%s\n", p.toString().c_str());
  if (!description) return false;
  s->net_text = description->text();
  char* real = ::realpath(net->c_str(), nullptr);
  s->net_path = real ? real : *net;
  std::free(real);
  return true;
}

int printOutcome(const record::RecordSettings& s, const record::RecordOutcome& out) {
  if (!out.error.empty()) {
    std::fprintf(stderr, "radar record: %s\n", out.error.c_str());
    return kExitUsage;
  }
  if (out.not_run) {
    std::fprintf(stderr, "radar: nothing was recorded: %s could not be run\n", terminalSafe(s.command[0]).c_str());
    return 127;
  }
  const record::RecordingSummary& summary = out.summary;
  if (s.dormant && summary.logs == 0)
    std::fprintf(stderr, "radar: the program was never attached (radar attach PID): nothing was recorded\n");
  std::fprintf(stderr, "radar: recorded %zu process%s, %llu event%s, %s in %.2f s into %s\n", summary.logs,
               summary.logs == 1 ? "" : "es", static_cast<unsigned long long>(summary.events),
               summary.events == 1 ? "" : "s", humanBytes(summary.bytes).c_str(), out.seconds, s.dir.c_str());
  std::fprintf(stderr, "radar: %s %s\n", terminalSafe(s.command[0]).c_str(), log::statusText(out.root_status).c_str());
  for (const auto& p : summary.problems)
    std::fprintf(stderr, "radar: pid %d %s: %s\n", p.pid(), terminalSafe(p.executable()).c_str(),
                 terminalSafe(p.what()).c_str());
  for (const auto& line : summary.unseen) std::fprintf(stderr, "radar: not seen: %s\n", terminalSafe(line).c_str());
  return log::shellExitStatus(out.root_status);
}

// --on and --do: what to watch for while the program runs, and what then.
std::optional<std::string> readWatch(const Args& args, std::optional<WatchCondition>* condition, WatchAction* action) {
  if (args.has("do") && !args.has("on")) return "--do needs --on CONDITION";
  if (!args.has("on")) return std::nullopt;
  if (args.has("repeat")) return "--on and --repeat: watch one run at a time";
  if (args.has("flight")) return "--on and --flight: a flight recording's oldest events go as it grows; freeze it";
  WatchCondition c;
  std::string error;
  if (!parseWatchCondition(*args.value("on"), &c, &error)) return error;
  if (args.has("do") && !parseWatchAction(*args.value("do"), action, &error)) return error;
  *condition = c;
  return std::nullopt;
}

}  // namespace

namespace {

// --live: whether the window can be opened here; the reason when not.
std::optional<std::string> liveProblem(const Args& args) {
  if (!args.has("live")) return std::nullopt;
#ifndef RADAR_HAVE_REPLAY
  return "--live: this radar was built without the replay";
#else
  if (args.has("repeat")) return "--live and --repeat: the window follows one run";
  if (args.has("flight"))
    return "--live and --flight: a flight recording's oldest events go as it grows; freeze it (radar dump-flight) "
           "and replay the freeze";
  if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY"))
    return "--live needs a display (DISPLAY is not set); follow the story with `radar events --follow DIR` instead";
  return std::nullopt;
#endif
}

// The replay window following `dir`, in a session of its own: it outlives
// radar record, and a Ctrl+C meant for the program does not close it. It
// holds none of radar record's pipes or descriptors open (its messages go
// to a terminal), and gets the signals' default dispositions. Its pid, or 0.
pid_t openLiveWindow(const std::string& dir) {
  const std::string app = selfDirectory() + "/../libexec/radar/radar-replay";
  std::string follow = "--follow", where = dir;
  char* argv[] = {const_cast<char*>(app.c_str()), follow.data(), where.data(), nullptr};
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  for (int fd = 0; fd <= 2; ++fd)
    if (fd != 2 || !::isatty(2)) posix_spawn_file_actions_addopen(&files, fd, "/dev/null", O_RDWR, 0);
  posix_spawn_file_actions_addclosefrom_np(&files, 3);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  if (const int error = posix_spawn(&pid, app.c_str(), &files, &attr, argv, environ)) {
    std::fprintf(stderr, "radar record: --live: cannot start %s: %s\n", app.c_str(), std::strerror(error));
    pid = 0;
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  return pid;
}

// Options that do not go together (--repeat's, with what records one run).
std::optional<std::string> combinationProblem(const Args& args) {
  const bool repeat = args.has("repeat");
  if (args.has("until-fail") && !repeat) return "--until-fail needs --repeat N";
  if (args.has("until") && !repeat) return "--until needs --repeat N";
  if (args.has("until") && args.has("until-fail")) return "--until and --until-fail: give one way to tell a failed run";
  if (args.has("join") && repeat) return "--join and --repeat: each run is a recording of its own";
  if (args.has("dormant") && repeat) return "--dormant and --repeat: attach to one run at a time";
  if (args.has("flight") && repeat) return "--flight and --repeat: a flight recorder keeps one run";
  return liveProblem(args);
}

}  // namespace

int runRecord(int argc, char** argv) {
  Args args;
  if (!parseRecordArgs(args, argc, argv)) return usageError("record", args.error());
  if (args.positional().empty()) return usageError("record", "no program given");
  unsigned long long runs = 0;
  if (!args.number("repeat", &runs, 0)) return usageError("record", args.error());
  if (args.has("repeat") && runs < 1) return usageError("record", "--repeat: expected 1 or more runs");
  if (auto error = combinationProblem(args)) return usageError("record", *error);
  SaveOn save_on;
  if (args.has("save-on")) {
    std::string error;
    if (!args.has("flight")) return usageError("record", "--save-on needs --flight SIZE");
    if (!parseSaveOn(*args.value("save-on"), &save_on, &error)) return usageError("record", error);
  }
  std::optional<WatchCondition> on;
  WatchAction action;
  if (auto error = readWatch(args, &on, &action)) return usageError("record", *error);
  record::RecordSettings s;
  if (auto error = readSettings(args, &s)) return usageError("record", *error);
  if (!readNetwork(args, &s)) return kExitUsage;
  s.program = findExecutable(s.command[0]);
  if (s.program.empty()) {
    std::fprintf(stderr, "radar record: %s: command not found\n", s.command[0].c_str());
    return 127;
  }
  s.interposer = selfDirectory() + "/../lib/radar/libradar-preload.so";
  if (::access(s.interposer.c_str(), R_OK) != 0) {
    std::fprintf(stderr,
                 "radar record: the interposer is missing (%s): was radar built with "
                 "RADAR_BUILD_INTERPOSER=ON?\n",
                 s.interposer.c_str());
    return kExitUsage;
  }
  const std::optional<std::string> mpi = mpiInterposer(args, s.program);
  if (!mpi) {
    std::fprintf(stderr, "radar record: --mpi: this radar was built without an MPI library (libopenmpi-dev)\n");
    return kExitUsage;
  }
  if (!mpi->empty()) s.interposer += ":" + *mpi;
  // Each process stops itself at the event, where its recorder can tell
  // (not in an MPI job, whose library's own events radar record leaves out).
  if (on && action.kind == WatchAction::Kind::Stop && mpi->empty()) s.stop_at = on->forRecorder();
  if (const std::string problem = record::descriptorLimitProblem(); !problem.empty()) {
    std::fprintf(stderr, "radar record: %s\n", problem.c_str());
    return kExitUsage;
  }
  if (runs) return recordRepeatedly(args, runs);
  s.version = RADAR_VERSION;
  s.dir = directoryFor(args);
  RecordingStatus status(s.dir);
  std::optional<RecordingWatch> watch;
  if (on) watch.emplace(s.dir, *on, action);
  std::optional<FlightWatch> flight;
  if (s.flight) flight.emplace(s.dir, s.flight, save_on);
  s.ended = [&flight](int root_status) {
    if (flight) flight->ended(root_status);
  };
  if (args.has("live")) s.prepared = [&s] { return openLiveWindow(s.dir); };
  s.started = [&status, &watch, &flight, &s](pid_t child) {
    if (s.dormant)
      std::fprintf(stderr,
                   "radar record: dormant: nothing is recorded until `radar attach %d` (or any process of its "
                   "tree)\n",
                   static_cast<int>(child));
    status.start();
    if (watch) watch->start();
    if (flight) flight->start();
  };
  const record::RecordOutcome out = record::recordProgram(s);
  if (watch) watch->stop();
  if (flight) flight->stop();
  status.stop();
  return printOutcome(s, out);
}

}  // namespace radar::cli
