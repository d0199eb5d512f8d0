// The subcommands `radar` knows, each in its *_command.cc here, built when
// the component it drives is: CMake defines RADAR_HAVE_<NAME> for those.
#pragma once

#include <span>
#include <string>

#include "cli/cli.h"

namespace radar::cli {

struct Command {
  const char* name;
  const char* summary;  // one line for `radar help`
  // Full text for `radar help NAME`. Its usage lines write "[OPTIONS]"
  // where the options go: helpText() puts the table's there.
  const char* help;
  int (*run)(int argc, char** argv);  // argv[0] is the command name
  // The options it takes: the table its parser uses (the replay's parser,
  // radar-replay's, is checked against it), which its usage is made from
  // and shell completion offers.
  std::span<const OptionSpec> options;
};

// radar's whole command line (argv[0] is "radar"): the command it names,
// run, or its help; the command's exit status. What main() calls, and
// what tests call in-process.
int runCommandLine(int argc, char** argv);
// The command of that name, among those built; null if none.
const Command* findCommand(const char* name);
// Every command built, in the order `radar help` lists them (names that
// begin with "__" are the shell completion's, not listed).
std::span<const Command> commandTable();

// What `radar help NAME` prints: the help, its usage lines with the
// options of the table (usageGroups), broken to fit 100 columns.
std::string helpText(const Command& c);

// `radar help --man`: a command's help as a manual page (troff), and
// radar(1) from the overview and the command table.
std::string manualPage(const Command& c);
std::string manualPage(const char* overview);

int runCompletion(int argc, char** argv);
int runCompleteWords(int argc, char** argv);
extern const char kCompletionHelp[];

int runDump(int argc, char** argv);
extern const char kDumpHelp[];
extern const std::span<const OptionSpec> kDumpOptions;
// Declared unconditionally: the table in main.cc lists only those built.
int runRecord(int argc, char** argv);
extern const char kRecordHelp[];
extern const std::span<const OptionSpec> kRecordOptions;
int runAttach(int argc, char** argv);
extern const char kAttachHelp[];
int runDumpFlight(int argc, char** argv);
extern const char kDumpFlightHelp[];
int runEvents(int argc, char** argv);
extern const char kEventsHelp[];
extern const std::span<const OptionSpec> kEventsOptions;
int runCheck(int argc, char** argv);
extern const char kCheckHelp[];
extern const std::span<const OptionSpec> kCheckOptions;
int runStats(int argc, char** argv);
extern const char kStatsHelp[];
extern const std::span<const OptionSpec> kStatsOptions;
int runReplay(int argc, char** argv);
extern const char kReplayHelp[];
extern const std::span<const OptionSpec> kReplayOptions;
int runDebug(int argc, char** argv);
extern const char kDebugHelp[];
extern const std::span<const OptionSpec> kDebugOptions;
int runRun(int argc, char** argv);
extern const char kRunHelp[];
extern const std::span<const OptionSpec> kRunOptions;
int runExport(int argc, char** argv);
extern const char kExportHelp[];
extern const std::span<const OptionSpec> kExportOptions;
int runCriticalPath(int argc, char** argv);
extern const char kCriticalPathHelp[];
extern const std::span<const OptionSpec> kCriticalPathOptions;
int runDiff(int argc, char** argv);
extern const char kDiffHelp[];
extern const std::span<const OptionSpec> kDiffOptions;
int runPatterns(int argc, char** argv);
extern const char kPatternsHelp[];
extern const std::span<const OptionSpec> kPatternsOptions;
int runSql(int argc, char** argv);
extern const char kSqlHelp[];
extern const std::span<const OptionSpec> kSqlOptions;
int runNetdesc(int argc, char** argv);
extern const char kNetdescHelp[];
extern const std::span<const OptionSpec> kNetdescOptions;

}  // namespace radar::cli
