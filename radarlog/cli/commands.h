// The subcommands `radar` knows, each in its *_command.cc here, built when
// the component it drives is: CMake defines RADAR_HAVE_<NAME> for those.
#pragma once

namespace radar::cli {

struct Command {
  const char* name;
  const char* summary;                // one line for `radar help`
  const char* help;                   // full text for `radar help NAME`
  int (*run)(int argc, char** argv);  // argv[0] is the command name
};

// radar's whole command line (argv[0] is "radar"): the command it names,
// run, or its help; the command's exit status. What main() calls, and
// what tests call in-process.
int runCommandLine(int argc, char** argv);
// The command of that name, among those built; null if none.
const Command* findCommand(const char* name);

int runDump(int argc, char** argv);
extern const char kDumpHelp[];
// Declared unconditionally: the table in main.cc lists only those built.
int runRecord(int argc, char** argv);
extern const char kRecordHelp[];
int runEvents(int argc, char** argv);
extern const char kEventsHelp[];
int runCheck(int argc, char** argv);
extern const char kCheckHelp[];
int runStats(int argc, char** argv);
extern const char kStatsHelp[];
int runReplay(int argc, char** argv);
extern const char kReplayHelp[];
int runDebug(int argc, char** argv);
extern const char kDebugHelp[];
int runRun(int argc, char** argv);
extern const char kRunHelp[];
int runExport(int argc, char** argv);
extern const char kExportHelp[];
int runCriticalPath(int argc, char** argv);
extern const char kCriticalPathHelp[];
int runDiff(int argc, char** argv);
extern const char kDiffHelp[];
int runPatterns(int argc, char** argv);
extern const char kPatternsHelp[];
int runSql(int argc, char** argv);
extern const char kSqlHelp[];
int runNetdesc(int argc, char** argv);
extern const char kNetdescHelp[];

}  // namespace radar::cli
