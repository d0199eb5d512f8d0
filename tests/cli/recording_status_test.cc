// radar record's status line: at the foot of a terminal while the program
// runs, the program's own output intact around it, the row given back at
// the end; beside a program that reads the terminal, its input intact;
// never while the program has the terminal for its own.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#include "cli/recording_status.h"
#include "fake_recording.h"
#include "record/recording.h"
#include "temp_dirs.h"

namespace {

struct OnTerminal {
  int status = -1;
  std::string shown;  // every byte written to the terminal
};

enum class Where {
  kForeground,      // standard input /dev/null
  kInputTerminal,   // standard input the terminal too
  kBackground,      // a job in the background of a terminal that says `stty tostop`
  kProgramsScreen,  // the program turns the terminal's line editing off (as a pager does)
};

const char kThreeLines[] = "for i in 1 2 3; do echo line $i; sleep 0.5; done";
const char kRawMeanwhile[] =
    "stty -icanon -echo < /dev/tty; for i in 1 2 3; do echo line $i; sleep 0.5; done; stty sane < /dev/tty";

struct Session {
  Where where = Where::kForeground;
  const char* program = kThreeLines;  // what `sh -c` runs
  const char* wait = "0";             // before the line is drawn (RADAR_PROGRESS_AFTER)
  std::string type;                   // typed once the line is on the terminal
};

// `radar record` of a program (by default, one that prints three lines),
// its standard error on a terminal of 24 rows.
OnTerminal recordOnTerminal(const std::string& dir, const Session& session) {
  const Where where = session.where;
  int master = -1;
  struct winsize size {};
  size.ws_row = 24;
  size.ws_col = 100;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  if (pid == 0) {
    if (where != Where::kInputTerminal) ::dup2(::open("/dev/null", O_RDONLY), 0);
    ::setenv("TERM", "xterm", 1);
    ::setenv("RADAR_PROGRESS_AFTER", session.wait, 1);
    if (where == Where::kBackground) {  // a group of its own, not the terminal's foreground
      if (std::system("stty tostop < /dev/tty") != 0) ::_exit(126);
      const pid_t job = ::fork();
      if (job > 0) {
        int status = 0;
        ::waitpid(job, &status, WUNTRACED);
        ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 125);  // 125: stopped or killed
      }
      ::setpgid(0, 0);
      ::dup2(::open("/dev/null", O_WRONLY), 1);
    }
    // In the background the program writes nothing on the terminal (its
    // own writes would stop the job, radar or not), and says it finished.
    const std::string quiet = "for i in 1 2 3; do sleep 0.5; done; touch " + dir + ".done";
    ::execl(RADAR_BIN, "radar", "record", "-o", dir.c_str(), "--", "/bin/sh", "-c",
            where == Where::kProgramsScreen ? kRawMeanwhile
            : where == Where::kBackground   ? quiet.c_str()
                                            : session.program,
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  OnTerminal out;
  if (pid < 0) return out;
  char buf[4096];
  bool typed = false;
  const auto began = std::chrono::steady_clock::now();
  for (;;) {  // EIO once every end of the terminal's other side is closed
    // Typed once the line is drawn, or after 10 s without it (the test
    // then fails, rather than the program waiting for ever).
    struct pollfd readable {
      master, POLLIN, 0
    };
    const bool late = std::chrono::steady_clock::now() - began > std::chrono::seconds(10);
    if (!typed && !session.type.empty() && (late || out.shown.find("so far") != std::string::npos)) {
      typed = ::write(master, session.type.data(), session.type.size()) == static_cast<ssize_t>(session.type.size());
    }
    if (::poll(&readable, 1, 200) == 0) continue;
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      out.shown.append(buf, static_cast<size_t>(n));
    } else if (!(n < 0 && errno == EINTR)) {
      break;
    }
  }
  ::waitpid(pid, &out.status, 0);
  ::close(master);
  return out;
}

// What the terminal shows without the status line's drawing: each drawing
// is saved-cursor ... restored-cursor, and the row is made with IND, CUU
// and EL.
std::string withoutStatus(const std::string& shown) {
  return std::regex_replace(shown, std::regex("\0337[\\s\\S]*?\0338|\033D|\033\\[1A\033\\[K"), "");
}

TEST(RecordingStatus, ShowsWhatIsRecordedSoFarAtTheFootOfTheTerminal) {
  const std::string dir = radar::testing::TempDirs::make("radar-status") + "/rec";
  const OnTerminal r = recordOnTerminal(dir, {Where::kForeground});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.shown;
  // The rows above the last scroll; the line is drawn on the last, then
  // the whole screen scrolls again and the row is cleared.
  const size_t region = r.shown.find("\0337\033[1;23r\0338");
  const size_t drawn = r.shown.find("\0337\033[24;1H\033[2Kradar record: ");
  const size_t given_back = r.shown.find("\0337\033[r\0338\0337\033[24;1H\033[2K\0338");
  const size_t summary = r.shown.find("radar: recorded ");
  ASSERT_NE(region, std::string::npos) << r.shown;
  ASSERT_NE(drawn, std::string::npos) << r.shown;
  ASSERT_NE(given_back, std::string::npos) << r.shown;
  EXPECT_LT(region, drawn);
  EXPECT_LT(given_back, summary);
  EXPECT_EQ(r.shown.rfind("\033[24;1H\033[2Kradar record: "),
            r.shown.rfind("\033[24;1H\033[2Kradar record: ", given_back));
  EXPECT_NE(r.shown.find(" events, "), std::string::npos);
  EXPECT_NE(r.shown.find(" so far ("), std::string::npos);
  // The program's output, and radar's summary, as without the line.
  EXPECT_EQ(withoutStatus(r.shown).find("line 1\r\nline 2\r\nline 3\r\nradar: recorded "), 0u)
      << withoutStatus(r.shown);
}

// A program reading lines from the terminal (as `radar record -- ./server`
// typed at a shell has it) gets what is typed, echoed where it was typed,
// with the line drawn beside it.
TEST(RecordingStatus, ShownBesideAProgramReadingTheTerminal) {
  const std::string dir = radar::testing::TempDirs::make("radar-status") + "/rec";
  Session reads{Where::kInputTerminal, "read words; echo \"got: $words\""};
  reads.type = "typed words\n";
  const OnTerminal r = recordOnTerminal(dir, reads);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.shown;
  EXPECT_NE(r.shown.find("\033[24;1H\033[2Kradar record: "), std::string::npos) << r.shown;
  EXPECT_EQ(withoutStatus(r.shown).find("typed words\r\ngot: typed words\r\nradar: recorded "), 0u)
      << withoutStatus(r.shown);
}

// A program that takes the terminal again and again (a shell's or a
// REPL's prompt between commands) keeps it: the row is taken again only
// once the terminal has been free for as long as the line waits at the
// start.
TEST(RecordingStatus, NotTakenBackBetweenPrompts) {
  const std::string dir = radar::testing::TempDirs::make("radar-status") + "/rec";
  const Session prompts{Where::kInputTerminal,
                        "sleep 3; stty -icanon; sleep 1; echo taken; stty icanon; "
                        "for i in 1 2 3 4; do stty -icanon; sleep 0.1; stty icanon; sleep 0.1; done",
                        "2"};
  const OnTerminal r = recordOnTerminal(dir, prompts);
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.shown;
  const size_t given_back = r.shown.find("\0337\033[r\0338");
  ASSERT_NE(r.shown.find("so far"), std::string::npos) << "never drawn in the first 3 s:\n" << r.shown;
  ASSERT_NE(given_back, std::string::npos) << r.shown;
  EXPECT_LT(given_back, r.shown.find("taken")) << "not given back when the program took the terminal:\n" << r.shown;
  EXPECT_EQ(r.shown.find("so far", given_back), std::string::npos) << r.shown;
  EXPECT_EQ(r.shown.find("\033[1;23r", given_back), std::string::npos) << r.shown;
}

// A recording sent to the background is never stopped by its line (a
// terminal that says `stty tostop` stops a background job that writes:
// the program would stop with radar), and draws nothing over the
// foreground's screen. (Its summary at the end stops it, as any job's
// writing would.)
TEST(RecordingStatus, NotShownFromTheBackground) {
  const std::string dir = radar::testing::TempDirs::make("radar-status") + "/rec";
  const OnTerminal r = recordOnTerminal(dir, {Where::kBackground});
  ASSERT_TRUE(WIFEXITED(r.status)) << r.shown;
  ASSERT_NE(WEXITSTATUS(r.status), 126) << "stty tostop failed";
  EXPECT_TRUE(std::ifstream(dir + ".done").good()) << "the program was stopped before its end:\n" << r.shown;
  EXPECT_EQ(r.shown.find("so far"), std::string::npos) << r.shown;
}

// While the program has the terminal for its own (line editing and echo
// off, as a pager or an editor sets it), the row is the program's.
TEST(RecordingStatus, NotShownWhileTheProgramHasTheTerminal) {
  const std::string dir = radar::testing::TempDirs::make("radar-status") + "/rec";
  const OnTerminal r = recordOnTerminal(dir, {Where::kProgramsScreen});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.shown;
  // A line drawn before the program took the terminal is given back at
  // once, and none is drawn while the program has it (up to its third
  // line, a second in; once it gives the terminal back, just before it
  // ends, the line may be drawn again).
  const size_t line3 = r.shown.find("line 3");
  ASSERT_NE(line3, std::string::npos) << r.shown;
  const size_t given_back = r.shown.rfind("\0337\033[r\0338", line3);
  const size_t from = given_back == std::string::npos ? 0 : given_back;
  EXPECT_EQ(r.shown.substr(from, line3 - from).find("so far"), std::string::npos) << r.shown;
}

TEST(RecordingStatus, CountsWhatTheLogsHold) {
  const std::string dir = radar::testing::TempDirs::make("radar-status") + "/rec";
  const OnTerminal r = recordOnTerminal(dir, {Where::kInputTerminal});
  ASSERT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) << r.shown;
  // What the summary at the end counted, read from every log's events.
  std::smatch said;
  ASSERT_TRUE(std::regex_search(r.shown, said, std::regex("recorded (\\d+) processes, (\\d+) events"))) << r.shown;
  const radar::record::RecordingSoFar so_far = radar::record::recordingSoFar(dir);
  EXPECT_EQ(so_far.logs, std::stoul(said[1]));
  EXPECT_EQ(so_far.events, std::stoull(said[2]));
  EXPECT_GT(so_far.bytes, 0u);
  EXPECT_EQ(radar::record::recordingSoFar(dir + "/none").logs, 0u);
}

// What radar does not see into is listed by process in the order of their
// pids, whatever the order of the logs' names.
TEST(RecordingSummary, NotSeenInTheOrderOfThePids) {
  radar::testing::FakeRecording rec;
  for (const int pid : {100001, 99998, 100000}) {
    rec.process("ring", pid).unseen("shared-memory", "maps shared memory (segment " + std::to_string(pid) + ")");
  }
  const std::string dir = rec.write();
  const radar::record::RecordingSummary summary =
      radar::record::summarizeRecording(dir, radar::proto::Recording(), /*finalize=*/false);
  ASSERT_EQ(summary.unseen.size(), 3u);
  EXPECT_EQ(summary.unseen[0], "pid 99998 /bin/ring: maps shared memory (segment 99998)");
  EXPECT_EQ(summary.unseen[1], "pid 100000 /bin/ring: maps shared memory (segment 100000)");
  EXPECT_EQ(summary.unseen[2], "pid 100001 /bin/ring: maps shared memory (segment 100001)");
}

TEST(RecordingStatus, TheLineSaysProcessesEventsBytesAndTime) {
  EXPECT_EQ(radar::cli::RecordingStatus::line({3, 1200000, 42 << 20}, 6.4, "run1"),
            "radar record: 3 processes, 1.2 M events, 42.0 MiB so far (6 s) into run1");
  EXPECT_EQ(radar::cli::RecordingStatus::line({1, 12, 4096}, 0.2, "r"),
            "radar record: 1 process, 12 events, 4096 bytes so far (0 s) into r");
}

}  // namespace
