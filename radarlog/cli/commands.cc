// The command table: every command `radar` knows, and the command line
// turned into one of them.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"

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
    "usage: radar help [OPTIONS] [COMMAND]\n\n"
    "Lists radar's commands, or explains one of them.\n\n"
    "  --man             the same as a manual page (troff), as man(1) reads:\n"
    "                    radar help --man record | man -l -\n";
const OptionSpec kHelpOptions[] = {{"man", 0, nullptr}};
const char kAbout[] =
    "radar records programs made of several processes that talk over pipes and\n"
    "sockets, and replays what happened between them.\n";
const char kVersionHelp[] = "usage: radar version\n\nPrints radar's version.\n";

const Command kCommands[] = {
#ifdef RADAR_HAVE_RECORD
    {"record", "run a program and record every process it creates", kRecordHelp, runRecord, kRecordOptions},
    {"attach", "start recording a program that radar record --dormant runs", kAttachHelp, runAttach},
    {"dump-flight", "freeze what a flight recording (record --flight) holds now", kDumpFlightHelp, runDumpFlight},
#endif
#ifdef RADAR_HAVE_NETDESC
    {"run", "start a described network of processes and record it", kRunHelp, runRun, kRunOptions},
#endif
#ifdef RADAR_HAVE_MERGE
    {"events", "tell what happened, one event per line, in causal order", kEventsHelp, runEvents, kEventsOptions},
    {"check", "check a recording and list what went wrong (lost messages, deadlocks ...)", kCheckHelp, runCheck,
     kCheckOptions},
    {"stats", "messages, bytes and time per process and channel", kStatsHelp, runStats, kStatsOptions},
    {"critical-path", "why an event came when it did: the chain that decided it, and where the time went",
     kCriticalPathHelp, runCriticalPath, kCriticalPathOptions},
    {"diff", "compare two runs: where they part first, in causal order", kDiffHelp, runDiff, kDiffOptions},
    {"patterns", "what repeats: request/response, pipeline stages, rounds, retries", kPatternsHelp, runPatterns,
     kPatternsOptions},
    {"export", "write a recording for Wireshark, Perfetto, SQLite or Parquet readers", kExportHelp, runExport,
     kExportOptions},
    {"sql", "query a recording with SQL", kSqlHelp, runSql, kSqlOptions},
#endif
#ifdef RADAR_HAVE_REPLAY
    {"replay", "watch the messages move between processes, event by event", kReplayHelp, runReplay, kReplayOptions},
#endif
#ifdef RADAR_HAVE_DEBUG
    {"debug", "re-run one recorded process alone under gdb, fed what it received", kDebugHelp, runDebug, kDebugOptions},
#endif
#ifdef RADAR_HAVE_NETDESC
    {"netdesc", "write a network description of a recording, to edit and reuse", kNetdescHelp, runNetdesc,
     kNetdescOptions},
#endif
    {"dump", "print the raw records of log files (for readers and bug reports)", kDumpHelp, runDump, kDumpOptions},
    {"help", "list commands, or explain one", kHelpHelp, runHelp, kHelpOptions},
    {"completion", "print a shell completion script (bash, zsh)", kCompletionHelp, runCompletion},
    {"__complete", "", "usage: radar __complete CWORD WORD...\n", runCompleteWords},
    {"version", "print radar's version", kVersionHelp, runVersion},
};

const Command* findIn(const char* name) {
  for (const Command& c : kCommands)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

void overview(FILE* out) {
  std::fprintf(out, "usage: radar COMMAND [ARGS...]\n\n%s\nCommands:\n", kAbout);
  for (const Command& c : kCommands)
    if (std::strncmp(c.name, "__", 2) != 0) std::fprintf(out, "  %-14s %s\n", c.name, c.summary);
  std::fprintf(out, "\nSee 'radar help COMMAND' for one command's options.\n");
}

int runHelp(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kHelpOptions)) return usageError("help", args.error());
  const bool man = args.has("man");
  if (args.positional().empty()) {
    if (man)
      std::fputs(manualPage(kAbout).c_str(), stdout);
    else
      overview(stdout);
    return kExitOk;
  }
  const Command* c = findIn(args.positional()[0].c_str());
  if (!c) {
    std::fprintf(stderr, "radar help: no command '%s'\n\n", args.positional()[0].c_str());
    overview(stderr);
    return kExitUsage;
  }
  std::fputs(man ? manualPage(*c).c_str() : helpText(*c).c_str(), stdout);
  return kExitOk;
}

}  // namespace

std::string helpText(const Command& c) {
  const std::string help = c.help, placeholder = "[OPTIONS]";
  const size_t at = help.find(placeholder);
  if (at == std::string::npos) return help;
  const size_t line_start = help.rfind('\n', at) + 1;  // npos + 1: the first line
  const size_t line_end = help.find('\n', at);
  const std::string before = help.substr(line_start, at - line_start);
  std::vector<std::string> words = usageGroups(c.options);
  const std::string after = help.substr(at + placeholder.size(), line_end - at - placeholder.size());
  if (after.size() > 1) words.push_back(after.substr(1));  // the operands, as written
  constexpr size_t kWidth = 100;
  std::string lines = before;
  size_t column = before.size();  // on the line being filled
  for (const std::string& word : words) {
    if (column > before.size() && column + 1 + word.size() > kWidth) {
      lines += "\n" + std::string(before.size(), ' ');
      column = before.size();
    } else if (column > before.size()) {
      lines += ' ';
      ++column;
    }
    lines += word;
    column += word.size();
  }
  return help.substr(0, line_start) + lines + help.substr(line_end);
}

const Command* findCommand(const char* name) { return findIn(name); }

std::span<const Command> commandTable() { return kCommands; }

int runCommandLine(int argc, char** argv) {
  if (argc < 2) {
    overview(stderr);
    return kExitUsage;
  }
  const char* name = argv[1];
  if (std::strcmp(name, "--help") == 0 || std::strcmp(name, "-h") == 0) {
    overview(stdout);
    return kExitOk;
  }
  if (std::strcmp(name, "--version") == 0) return findCommand("version")->run(1, argv + 1);
  const Command* c = findCommand(name);
  if (!c) {
    std::vector<std::string> known;
    for (const Command& k : kCommands)
      if (std::strncmp(k.name, "__", 2) != 0) known.push_back(k.name);
    if (const std::string meant = closestName(name, known); !meant.empty()) {
      std::fprintf(stderr, "radar: '%s' is not a radar command; did you mean '%s'?\n", name, meant.c_str());
      return kExitUsage;
    }
    std::fprintf(stderr, "radar: '%s' is not a radar command.\n\n", name);
    overview(stderr);
    return kExitUsage;
  }
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) break;
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(helpText(*c).c_str(), stdout);
      return kExitOk;
    }
  }
  return c->run(argc - 1, argv + 1);
}

}  // namespace radar::cli
