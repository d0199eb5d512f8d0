// radar: the one entry point, with git-style subcommands.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/output_file.h"

#ifndef RADAR_VERSION
#define RADAR_VERSION "unknown"
#endif

namespace radar::cli {
namespace {

int runHelp(int argc, char** argv);
int runVersion(int, char**) {
  std::printf("radar %s\n", RADAR_VERSION);
  return kExitOk;
}

const char kHelpHelp[] =
    "usage: radar help [COMMAND]\n\n"
    "Lists radar's commands, or explains one of them.\n";
const char kVersionHelp[] = "usage: radar version\n\nPrints radar's version.\n";

const Command kCommands[] = {
#ifdef RADAR_HAVE_RECORD
    {"record", "run a program and record every process it creates", kRecordHelp, runRecord},
#endif
#ifdef RADAR_HAVE_NETDESC
    {"run", "start a described network of processes and record it", kRunHelp, runRun},
#endif
#ifdef RADAR_HAVE_MERGE
    {"events", "tell what happened, one event per line, in causal order", kEventsHelp, runEvents},
    {"check", "check a recording and list what went wrong (lost messages, deadlocks ...)", kCheckHelp, runCheck},
    {"stats", "messages, bytes and time per process and channel", kStatsHelp, runStats},
    {"critical-path", "why an event came when it did: the chain that decided it, and where the time went",
     kCriticalPathHelp, runCriticalPath},
    {"diff", "compare two runs: where they part first, in causal order", kDiffHelp, runDiff},
    {"patterns", "what repeats: request/response, pipeline stages, rounds, retries", kPatternsHelp, runPatterns},
    {"export", "write a recording for Wireshark, Perfetto or SQLite", kExportHelp, runExport},
    {"sql", "query a recording with SQL", kSqlHelp, runSql},
#endif
#ifdef RADAR_HAVE_REPLAY
    {"replay", "watch the messages move between processes, event by event", kReplayHelp, runReplay},
#endif
#ifdef RADAR_HAVE_DEBUG
    {"debug", "re-run one recorded process alone under gdb, fed what it received", kDebugHelp, runDebug},
#endif
#ifdef RADAR_HAVE_NETDESC
    {"netdesc", "write a network description of a recording, to edit and reuse", kNetdescHelp, runNetdesc},
#endif
    {"dump", "print the raw records of log files (for readers and bug reports)", kDumpHelp, runDump},
    {"help", "list commands, or explain one", kHelpHelp, runHelp},
    {"version", "print radar's version", kVersionHelp, runVersion},
};

const Command* find(const char* name) {
  for (const Command& c : kCommands)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

void overview(FILE* out) {
  std::fprintf(out,
               "usage: radar COMMAND [ARGS...]\n\n"
               "radar records programs made of several processes that talk over pipes and\n"
               "sockets, and replays what happened between them.\n\n"
               "Commands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-14s %s\n", c.name, c.summary);
  std::fprintf(out, "\nSee 'radar help COMMAND' for one command's options.\n");
}

int runHelp(int argc, char** argv) {
  if (argc < 2) {
    overview(stdout);
    return kExitOk;
  }
  const Command* c = find(argv[1]);
  if (!c) {
    std::fprintf(stderr, "radar help: no command '%s'\n\n", argv[1]);
    overview(stderr);
    return kExitUsage;
  }
  std::fputs(c->help, stdout);
  return kExitOk;
}

// Out of memory, on any thread (the merge and the exports run several): a
// clear error naming the limit and how to raise it, exit kExitResources,
// and no half-written output -- never "terminate called after throwing an
// instance of 'std::bad_alloc'".
const char* g_command = "";
std::terminate_handler g_default_terminate = nullptr;

[[noreturn]] void outOfMemory() {
  removeTemporaryBeingWritten();
  struct rlimit as {};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    std::fprintf(stderr,
                 "radar %s: out of memory: its address space is limited to %llu MiB (ulimit -v); raise the limit "
                 "(ulimit -v unlimited) or run it where more memory is allowed\n",
                 g_command, static_cast<unsigned long long>(as.rlim_cur >> 20));
  else
    std::fprintf(stderr,
                 "radar %s: out of memory: this machine has %llu MiB; run it where more memory is free, or on "
                 "a part of the recording\n",
                 g_command,
                 static_cast<unsigned long long>(::sysconf(_SC_PHYS_PAGES)) *
                         static_cast<unsigned long long>(::sysconf(_SC_PAGESIZE)) >>
                     20);
  std::fflush(stderr);
  ::_exit(kExitResources);
}

void onTerminate() {
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      outOfMemory();
    } catch (...) {
    }
  }
  g_default_terminate();  // anything else: said as the runtime says it, then abort
  std::abort();
}

}  // namespace
}  // namespace radar::cli

int main(int argc, char** argv) {
  using namespace radar::cli;
  if (argc < 2) {
    overview(stderr);
    return kExitUsage;
  }
  const char* name = argv[1];
  if (std::strcmp(name, "--help") == 0 || std::strcmp(name, "-h") == 0) {
    overview(stdout);
    return kExitOk;
  }
  if (std::strcmp(name, "--version") == 0) return find("version")->run(1, argv + 1);
  const Command* c = find(name);
  if (!c) {
    std::fprintf(stderr, "radar: '%s' is not a radar command.\n\n", name);
    overview(stderr);
    return kExitUsage;
  }
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) break;
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(c->help, stdout);
      return kExitOk;
    }
  }
  g_command = c->name;
  g_default_terminate = std::set_terminate(onTerminate);
  try {
    return c->run(argc - 1, argv + 1);
  } catch (const std::bad_alloc&) {
    outOfMemory();  // after unwinding: what the command was making is removed on the way
  }
}
