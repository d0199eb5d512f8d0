// The `radar` front door as a user meets it: every command in the table
// explains itself, and refuses bad options and paths that are no
// recording with a clear error and a non-zero exit, never a crash.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/progress.h"
#include "fake_recording.h"
#include "temp_dirs.h"

namespace {

struct Result {
  int status = -1;  // the exit status; 128 + N when killed by signal N
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A program run with standard input from /dev/null, its output kept.
Result run(const std::vector<std::string>& argv_in) {
  static const std::string dir = radar::testing::TempDirs::make("radar-commands-test");
  const std::string out_path = dir + "/out", err_path = dir + "/err";
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int in = ::open("/dev/null", O_RDONLY);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0), ::dup2(out, 1), ::dup2(err, 2);
    std::vector<char*> argv;
    for (const auto& a : argv_in) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::unsetenv("DISPLAY");  // replay: no window, a clear error instead
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

Result radar(const std::vector<std::string>& args) {
  std::vector<std::string> argv{RADAR_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

std::vector<std::string> commands() {
  const Result r = radar({"help"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> names;
  std::istringstream lines(r.out.substr(r.out.find("Commands:")));
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ')
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
  return names;
}

TEST(Commands, EveryCommandExplainsItself) {
  const auto names = commands();
  ASSERT_GE(names.size(), 16u) << "the command table, as `radar help` lists it";
  for (const auto& name : names) {
    const Result help = radar({"help", name});
    EXPECT_EQ(help.status, 0) << name << ": " << help.err;
    EXPECT_NE(help.out.find("usage: radar " + name), std::string::npos) << name << ":\n" << help.out;
    if (name == "help" || name == "version") continue;
    const Result dashed = radar({name, "--help"});
    EXPECT_EQ(dashed.status, 0) << name << ": " << dashed.err;
    EXPECT_EQ(dashed.out, help.out) << name;
  }
  EXPECT_NE(radar({"version"}).out.find("radar "), std::string::npos);
  const Result unknown = radar({"frobnicate"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("'frobnicate' is not a radar command"), std::string::npos) << unknown.err;
}

// `word` in `text` as a whole option: not the start of a longer one.
bool named(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const char next = at + word.size() < text.size() ? text[at + word.size()] : ' ';
    if (!std::isalnum(static_cast<unsigned char>(next)) && next != '-') return true;
  }
  return false;
}

// Every option a command's parser takes (its table, which completion
// offers too) is in its usage lines, because they are made from the table:
// a command with options writes "[OPTIONS]" where they go, never a list of
// its own. Each option is explained, with the value its usage names.
TEST(Commands, UsageLinesAreMadeFromTheOptionTable) {
  size_t checked = 0;
  for (const radar::cli::Command& c : radar::cli::commandTable()) {
    const std::string written = c.help, help = radar::cli::helpText(c);
    const std::string usage = help.substr(0, help.find("\n\n")), explained = help.substr(usage.size());
    if (!c.options.empty()) {
      EXPECT_NE(written.substr(0, written.find("\n\n")).find("[OPTIONS]"), std::string::npos)
          << c.name << ": its usage lists options of its own";
    }
    EXPECT_EQ(usage.find("[OPTIONS]"), std::string::npos) << c.name;
    for (const auto& o : c.options) {
      const std::string long_form = std::string("--") + o.long_name;
      const std::string short_form = o.short_name ? std::string{'-', o.short_name} : std::string("--");
      EXPECT_TRUE(named(usage, long_form) || named(usage, short_form))
          << c.name << ": " << long_form << " is not in the usage:\n"
          << usage;
      const std::string value = o.value ? std::string(o.value).substr(0, std::string(o.value).find('[')) : "";
      EXPECT_TRUE(named(explained, o.value ? long_form + " " + value : long_form))
          << c.name << ": " << long_form << (o.value ? " " + value : "") << " is not explained";
      ++checked;
    }
    std::istringstream usage_lines(usage);
    for (std::string line; std::getline(usage_lines, line);) EXPECT_LE(line.size(), 100u) << c.name << ": " << line;
  }
  EXPECT_GE(checked, 70u);
}

TEST(Commands, UsageGroupsShowAlternativesAndOptionsThatGoTogether) {
  using radar::cli::InUsage;
  const radar::cli::OptionSpec table[] = {{"output", 'o', "DIR"},
                                          {"force", 0, nullptr},
                                          {"json", 0, nullptr},
                                          {"format", 0, "F", InUsage::kOr},
                                          {"repeat", 0, "N"},
                                          {"until-fail", 0, nullptr, InUsage::kWith},
                                          {"until", 0, "COMMAND", InUsage::kOr},
                                          {"sqlite", 0, "FILE"},
                                          {"bytes", 0, nullptr, InUsage::kWith}};
  EXPECT_EQ(radar::cli::usageGroups(table),
            (std::vector<std::string>{"[-o DIR]", "[--force]", "[--json | --format F]",
                                      "[--repeat N [--until-fail | --until COMMAND]]", "[--sqlite FILE [--bytes]]"}));
  EXPECT_TRUE(radar::cli::usageGroups({}).empty());
}

// radar completion bash and zsh, in each shell: commands, options, recordings (any
// directory), files where an option takes one, programs after `--`.
TEST(Completion, BashAndZshCompleteCommandsOptionsDirectoriesAndFiles) {
  const std::string dir = radar::testing::TempDirs::make("radar-completion");
  ::mkdir((dir + "/rec1").c_str(), 0755);
  std::ofstream(dir + "/file.txt") << "x";
  const std::string script =
      std::string("source <(") + RADAR_BIN + " completion bash)\n" +
      "complete -p radar\n"
      "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _radar; printf '%s|' \"${COMPREPLY[@]}\"; "
      "echo; }\n"
      "cd " +
      dir + "\n" + "R=" + RADAR_BIN + "\n" +
      "t $R exp\nt $R export --pa\nt $R events r\nt $R export --parquet f\nt $R help sq\n"
      "t $R completion z\nt $R __com\nt $R record -- bas\n";
  std::ofstream(dir + "/t.sh") << script;
  const Result r = run({"/bin/bash", dir + "/t.sh"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<std::string> got;
  for (std::string line; std::getline(lines, line);) got.push_back(line);
  ASSERT_EQ(got.size(), 9u) << r.out;
  EXPECT_EQ(got[0], "complete -o filenames -F _radar radar");
  EXPECT_EQ(got[1], "export|");
  EXPECT_EQ(got[2], "--parquet|");
  EXPECT_EQ(got[3], "rec1|");
  EXPECT_EQ(got[4], "file.txt|");
  EXPECT_EQ(got[5], "sql|");
  EXPECT_EQ(got[6], "zsh|");
  EXPECT_EQ(got[7], "|");  // the completion's own command is not offered
  EXPECT_NE(got[8].find("bash|"), std::string::npos) << got[8];
  EXPECT_EQ(radar({"completion", "fish"}).status, 2);
  // The same script in zsh, through bashcompinit.
  if (run({"/bin/sh", "-c", "command -v zsh"}).status != 0) GTEST_SKIP() << "zsh is not installed: its half skipped";
  std::ofstream(dir + "/t.zsh") << std::string("source <(") + RADAR_BIN + " completion zsh)\n" +
                                       "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _radar; "
                                       "print -r -- \"${(j:|:)COMPREPLY}|\"; }\n"
                                       "cd " +
                                       dir + "\n" + "R=" + RADAR_BIN + "\n" +
                                       "t $R exp\nt $R export --pa\nt $R events r\nt $R help sq\n";
  const Result z = run({"/usr/bin/env", "zsh", "-f", dir + "/t.zsh"});
  EXPECT_EQ(z.status, 0) << z.err;
  EXPECT_EQ(z.out, "export|\n--parquet|\nrec1|\nsql|\n") << z.err;
}

// Where a process is asked for (-p, or the process `radar debug` re-runs),
// the names of the recording's processes, read from its logs.
TEST(Completion, AProcessIsCompletedWithTheRecordingsNames) {
  const std::string dir = radar::testing::TempDirs::make("radar-completion");
  const Result recorded = radar({"record", "-o", dir + "/rec", "--", "/bin/sh", "-c", "echo hi | cat"});
  if (recorded.status != 0) GTEST_SKIP() << "radar record is not available here: " << recorded.err;
  const std::string script = std::string("source <(") + RADAR_BIN + " completion bash)\n" +
                             "t() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); _radar; printf '%s|' "
                             "\"${COMPREPLY[@]}\"; echo; }\n"
                             "cd " +
                             dir + "\nR=" + RADAR_BIN + "\n" +
                             "t $R debug rec ''\nt $R events rec -p c\nt $R critical-path rec --process s\n"
                             "t $R debug --yes rec ''\nt $R debug rec cat ''\nt $R events -p ''\n";
  std::ofstream(dir + "/t.sh") << script;
  const Result r = run({"/bin/bash", dir + "/t.sh"});
  ASSERT_EQ(r.status, 0) << r.err;
  // The last two: after the process, directories as anywhere else; no
  // recording named yet, no name.
  EXPECT_EQ(r.out, "cat|sh|\ncat|\nsh|\ncat|sh|\nrec|\n|\n");
}

// The progress line: a bar, how far of how much, and the rate.
TEST(Progress, TheLineSaysHowFarOfHowMuchAndHowFast) {
  using radar::cli::TerminalProgress;
  EXPECT_EQ(TerminalProgress::line("radar export: writing x", "events", 1, 2'100'000, 4'400'000, 2.0),
            "radar export: writing x [=========>          ]  47%  2.1 M of 4.4 M events, 1.1 M/s");
  EXPECT_EQ(TerminalProgress::line("radar check: reading logs", "MiB", 1048576, 262144, 1048576 * 3, 0.5),
            "radar check: reading logs [=>                  ]   8%  0.2 of 3 MiB, 0.5/s");
  EXPECT_EQ(TerminalProgress::line("radar check: merging", "steps", 1, 11, 11, 3.0, false),
            "radar check: merging [====================] 100%  11 of 11 steps");
}

// On a terminal, the work shows its progress (reading, merging, writing),
// each line cleared before the next and before the summary; on a pipe,
// nothing but the summary.
TEST(Progress, OnATerminalOnlyAndClearedBeforeTheSummary) {
  if (std::system("command -v script > /dev/null") != 0) GTEST_SKIP() << "script (util-linux) is not installed";
  const std::string dir = radar::testing::TempDirs::make("radar-progress");
  const Result recorded = radar({"record", "-o", dir + "/rec", "--", "/bin/sh", "-c", "echo hi | cat"});
  if (recorded.status != 0) GTEST_SKIP() << "radar record is not available here: " << recorded.err;
  const std::string exported = std::string(RADAR_BIN) + " export --perfetto " + dir + "/t.pftrace " + dir + "/rec";
  const Result piped = run({"/bin/sh", "-c", "RADAR_PROGRESS_AFTER=0 " + exported});
  ASSERT_EQ(piped.status, 0) << piped.err;
  EXPECT_EQ(piped.err.find('\r'), std::string::npos) << piped.err;
  EXPECT_EQ(piped.err.rfind("radar export: " + dir + "/t.pftrace: ", 0), 0u) << piped.err;
  const Result tty = run({"/bin/sh", "-c", "RADAR_PROGRESS_AFTER=0 script -qec '" + exported + "' /dev/null"});
  ASSERT_EQ(tty.status, 0) << tty.err;
  for (const char* line :
       {"\rradar export: reading logs [", "\rradar export: merging [", "\rradar export: writing " /* the file */})
    EXPECT_NE(tty.out.find(line), std::string::npos) << line << " in " << tty.out;
  const std::string cleared = "\r\033[K";
  const size_t summary = tty.out.find("radar export: " + dir + "/t.pftrace: ");
  ASSERT_NE(summary, std::string::npos) << tty.out;
  EXPECT_EQ(tty.out.rfind(cleared, summary), summary - cleared.size()) << "the summary is not on a cleared line";
}

// man radar-COMMAND: a page per command, built with radar, that groff
// reads without a warning and that says what `radar help COMMAND` says.
TEST(Manual, EveryCommandHasAPageThatSaysWhatItsHelpSays) {
  if (run({"/bin/sh", "-c", "command -v groff"}).status != 0) GTEST_SKIP() << "groff is not installed (groff-base)";
  auto names = commands();
  names.push_back("");  // radar(1)
  for (const std::string& name : names) {
    const std::string page = std::string(RADAR_MAN_DIR) + (name.empty() ? "/radar.1" : "/radar-" + name + ".1");
    const Result made = name.empty() ? radar({"help", "--man"}) : radar({"help", "--man", name});
    EXPECT_EQ(slurp(page), made.out) << page << " is not what radar help --man gives";
    // groff's warnings (all of them, -ww) on their own; then the page.
    const Result warned =
        run({"/bin/sh", "-c", "MANWIDTH=200 groff -man -Tutf8 -ww -P-cbou " + page + " 2>&1 >/dev/null"});
    EXPECT_EQ(warned.out, "") << name;
    const Result shown = run({"/bin/sh", "-c", "groff -man -Tascii -rLL=200n -P-cbou " + page});
    EXPECT_EQ(shown.status, 0) << name;
    EXPECT_NE(shown.out.find(name.empty() ? "radar - record and replay" : "radar-" + name + " - "), std::string::npos)
        << shown.out;
    if (name.empty()) continue;
    const std::string help = radar({"help", name}).out;
    const std::string first = help.substr(7, help.find('\n') - 7);  // the usage line, without "usage: "
    EXPECT_NE(shown.out.find(first), std::string::npos) << name << ": no synopsis " << first << " in\n" << shown.out;
    const std::string last = help.substr(help.rfind('\n', help.size() - 2) + 1);
    EXPECT_NE(shown.out.find(last.substr(0, last.size() - 1)), std::string::npos) << name << ": the help's last line";
  }
}

TEST(Commands, AnUnknownOptionIsRefusedByName) {
  for (const auto& name : commands()) {
    if (name == "help" || name == "version") continue;
    const Result r = radar({name, "--no-such-option"});
    EXPECT_EQ(r.status, 2) << name << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("radar " + name + ": unknown option '--no-such-option'"), std::string::npos)
        << name << ": " << r.err;
  }
}

// A command or option a letter or two off is named as the one probably
// meant ("did you mean"), as git does; one far from any is refused as before.
TEST(Commands, ATypoIsAnsweredWithWhatWasProbablyMeant) {
  const Result recrod = radar({"recrod", "-o", "x", "--", "true"});
  EXPECT_EQ(recrod.status, 2);
  EXPECT_EQ(recrod.err, "radar: 'recrod' is not a radar command; did you mean 'record'?\n");
  const Result evnts = radar({"evnts", "x"});
  EXPECT_NE(evnts.err.find("did you mean 'events'?"), std::string::npos) << evnts.err;
  const Result far = radar({"frobnicate"});
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
  EXPECT_NE(far.err.find("Commands:"), std::string::npos) << "the list of commands instead";
  const Result jsn = radar({"check", "--jsn", "x"});
  EXPECT_EQ(jsn.status, 2);
  EXPECT_NE(jsn.err.find("unknown option '--jsn'; did you mean '--json'?"), std::string::npos) << jsn.err;
  const Result payload = radar({"record", "--payload-limt", "9", "--", "true"});
  EXPECT_NE(payload.err.find("did you mean '--payload-limit'?"), std::string::npos) << payload.err;
}

// What is not there is said: an event range past the end (exit 1), a
// selection that keeps nothing, a process no one had (with the names it
// could have been); a process is named by pid.generation too.
TEST(Commands, AnEmptySelectionSaysSo) {
  radar::testing::FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 501, true).send(1, "hi", 10, 11).exit(0, 20);
  rec.process("reader", 2).pipeEnd(1, 501, false).receive(1, "hi", 12, 13).exit(0, 21);
  const std::string dir = rec.write();
  const Result past = radar({"events", "--from", "999", "--to", "1000", dir});
  EXPECT_EQ(past.status, 1);
  EXPECT_EQ(past.out, "");
  EXPECT_NE(past.err.find("--from 999 is past the recording's last event (4)"), std::string::npos) << past.err;
  const Result none = radar({"events", "-k", "user", dir});
  EXPECT_EQ(none.status, 0);
  EXPECT_NE(none.err.find("no event matches (of events 1 to 4)"), std::string::npos) << none.err;
  const Result nobody = radar({"events", "-p", "wirter", dir});
  EXPECT_EQ(nobody.status, 2);
  EXPECT_NE(nobody.err.find("no process 'wirter' in this recording; its processes: reader, writer"), std::string::npos)
      << nobody.err;
  const Result generation = radar({"events", "-p", "1.0", dir});
  EXPECT_EQ(generation.status, 0) << generation.err;
  EXPECT_NE(generation.out.find("Process writer[1] sends"), std::string::npos) << generation.out;
  std::istringstream lines(generation.out);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(line.rfind("Process writer[1] ", 0), 0u) << line;
}

// --json means JSON in sql too, as in check, stats and events.
TEST(Commands, SqlTakesJsonAsTheOtherCommandsDo) {
  radar::testing::FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 501, true).send(1, "hi", 10, 11).exit(0, 20);
  const std::string dir = rec.write();
  const Result json = radar({"sql", "--json", "--no-cache", dir, "select count(*) as n from events"});
  EXPECT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(json.out, radar({"sql", "--format", "json", "--no-cache", dir, "select count(*) as n from events"}).out);
  EXPECT_NE(json.out.find("\"n\":"), std::string::npos) << json.out;
  const Result both = radar({"sql", "--json", "--format", "csv", dir, "select 1"});
  EXPECT_EQ(both.status, 2) << both.err;
}

// What reads a recording is given a path that is none: the path is said,
// the exit is non-zero, and nothing crashes.
TEST(Commands, APathThatIsNoRecordingIsSaidClearly) {
  const std::string empty = radar::testing::TempDirs::make("radar-commands-empty");
  const std::string junk = radar::testing::TempDirs::make("radar-commands-junk");
  {
    std::ofstream log(junk + "/1234.rlog");
    log << "this is not a radar log, whatever its name says\n";
  }
  const std::set<std::string> not_reading = {"help", "version", "record", "run"};
  for (const auto& name : commands()) {
    if (not_reading.count(name)) continue;
    for (const std::string& path : {std::string("/nonexistent/radar-recording"), empty, junk}) {
      std::vector<std::string> args{name, path};
      if (name == "diff") args.push_back(path);
      if (name == "sql") args.push_back("select count(*) from events");
      if (name == "debug") args.push_back("1");
      if (name == "critical-path") args.push_back("1");
      const Result r = radar(args);
      EXPECT_LT(r.status, 128) << name << " " << path << " crashed: " << r.err;
      if (path == junk && (name == "dump" || name == "check")) {
        // Telling what is damaged is their work: said, either way.
        EXPECT_FALSE(r.out.empty() && r.err.empty()) << name << " said nothing about " << path;
        continue;
      }
      EXPECT_NE(r.status, 0) << name << " " << path << ":\n" << r.out;
      EXPECT_NE(r.err.find("radar " + name + ":"), std::string::npos) << name << " " << path << ": " << r.err;
      EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << name << ": " << r.err;
    }
  }
  const Result record = radar({"record"});
  EXPECT_EQ(record.status, 2) << record.err;
  const Result run = radar({"run"});
  EXPECT_EQ(run.status, 2) << run.err;
}

// A recording with a damaged log is told up to the damage, and the
// commands that tell it exit 3, so that a script can tell a partial story
// from a whole one; the same recording whole exits 0.
TEST(Commands, ADamagedLogIsToldAndExitsThree) {
  radar::testing::FakeRecording rec;
  radar::testing::FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 501, true);
  for (int i = 0; i < 300; ++i) w.send(1, std::string(20, 'w'), 10 + 2 * i, 11 + 2 * i);
  radar::testing::FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 501, false);
  for (int i = 0; i < 300; ++i) r.receive(1, std::string(20, 'w'), 1000 + 2 * i, 1001 + 2 * i);
  const std::string dir = rec.write();
  for (const char* command : {"events", "check", "stats"}) {
    const Result whole = radar({command, dir});
    EXPECT_EQ(whole.status, 0) << command << ": " << whole.err;
  }
  // Cut the writer's log inside its last frame.
  const std::string writer_log = dir + "/1-0-writer.rlog";
  std::string bytes = slurp(writer_log);
  ASSERT_GT(bytes.size(), 10000u);
  bytes.resize(bytes.size() - 100);
  std::ofstream(writer_log, std::ios::binary | std::ios::trunc) << bytes;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"events", dir},
                                               {"events", "--json", dir},
                                               {"events", "--format", "csv", dir},
                                               {"check", dir},
                                               {"check", "--strict", dir},
                                               {"check", "--json", dir},
                                               {"stats", dir},
                                               {"stats", "--json", dir}}) {
    const Result cut = radar(args);
    EXPECT_EQ(cut.status, 3) << args[0] << " " << args[1] << ": " << cut.err;
    EXPECT_FALSE(cut.out.empty()) << args[0] << " " << args[1] << ": the story up to the damage is still told";
    EXPECT_NE(cut.err.find("writer"), std::string::npos) << cut.err;
  }
  EXPECT_NE(radar({"help", "check"}).out.find("3 when a"), std::string::npos);
}

}  // namespace
