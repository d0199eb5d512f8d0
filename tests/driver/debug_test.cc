// radar debug on real recordings: the re-run is fed what the recorded
// process received and checked against what it sent; gdb stops where asked
// with the recorded values in the program's variables; what cannot be
// re-run is refused clearly.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "driver/script.h"
#include "driver/script_builder.h"
#include "fake_recording.h"
#include "log/recorder_env.h"
#include "recorded.h"
#include "trace/merge.h"

namespace radar::testing {
namespace {

std::string sample(const std::string& name) { return std::string(RADAR_SAMPLES) + "/" + name; }
std::string driverProgram(const std::string& name) { return std::string(RADAR_DRIVER_PROGRAMS) + "/" + name; }

// The pids of a recording's recorded root and of its forked child (empty
// where there is none, or the recording cannot be read).
std::pair<std::string, std::string> parentAndChild(const std::string& dir) {
  std::string error, parent, child;
  auto trace = trace::loadTrace({dir}, trace::LoadOptions{}, &error);
  EXPECT_TRUE(trace) << error;
  if (!trace) return {};
  for (const auto& p : trace->processes) {
    if (p.origin != log::Origin::Forked && !p.external) parent = std::to_string(p.pid);
    if (p.origin == log::Origin::Forked) child = std::to_string(p.pid);
  }
  return {parent, child};
}

// Records calc on `input` with its stdout a pipe, so that what the
// interpreter prints is a message in the recording (to outside it).
std::string recordCalc(const std::string& input, std::string* printed) {
  const std::string dir = testTempDir() + "/rec";
  Result r =
      shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " + shellQuote(sample("calc")) + " | cat",
            input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  *printed = r.out;
  return dir;
}

// The number ("Event N") of the first event of process `name` whose
// narrative matches `pattern`.
uint32_t eventNumber(const std::string& dir, const std::string& pattern) {
  Result r = radar({"events", dir});
  std::istringstream lines(r.out);
  std::string line;
  const std::regex re(pattern);
  const std::regex number(R"(Event (\d+)\.$)");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, re) && std::regex_search(line, m, number)) return std::stoul(m[1]);
  }
  ADD_FAILURE() << "no event like /" << pattern << "/ in\n" << r.out;
  return 0;
}

bool haveGdb() { return shell("command -v gdb").exit_code == 0; }

TEST(Debug, ReadinessEagainPollAndEpollReplayFaithfully) {
  for (const char* mode : {"poll", "epoll"}) {
    SCOPED_TRACE(mode);
    Recording rec = record({driverProgram("readiness"), mode});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    ASSERT_NE(rec.out.find("early read: -1 (EAGAIN)"), std::string::npos) << rec.out;
    // Both processes re-run alone; the parent prints, fed from the script,
    // exactly what it printed when recorded: the EAGAIN, every channel's
    // message in the order readiness gave them, as many rounds.
    for (const auto& l : rec.logs) {
      const std::string spec = std::to_string(l.header.pid()) + "." + std::to_string(l.header.generation());
      Result r = radar({"debug", "--yes", rec.dir, spec, "--no-gdb"});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
      if (l.header.pid() == rec.meta.root_pid()) {
        EXPECT_EQ(r.out, rec.out);
      }
    }
  }
}

// Descriptors the program started with that are no channels (files left
// open by whoever started it) still take numbers: the re-run holds them, so
// that the program's pipes and its epoll instance get the recorded ones.
TEST(Debug, DescriptorsOpenAtStartKeepTheirNumbers) {
  const std::string dir = testTempDir() + "/rec";
  Result r = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                   shellQuote(driverProgram("readiness")) + " epoll 3</dev/null 5</dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Recording rec = load(dir);
  const ProcessLog* root = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(root);
  const auto& fds = root->header.open_fds();
  EXPECT_NE(std::find(fds.begin(), fds.end(), 3), fds.end());
  EXPECT_NE(std::find(fds.begin(), fds.end(), 5), fds.end());
  Result again = radar({"debug", "--yes", dir, std::to_string(rec.meta.root_pid()), "--no-gdb"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);
}

TEST(Debug, DivergenceReportedAtTheEventWhereTheProgramChangesWhatItSends) {
  // The planted bug: "10 - (2 + 3)" prints -5; CALC_FIXED=1 fixes it.
  std::string printed;
  const std::string dir = recordCalc("10 - (2 + 3)\n", &printed);
  ASSERT_EQ(printed, "= -5\n");
  const uint32_t write = eventNumber(dir, R"(interpreter\[\d+\] sends a message to outside the recording)");
  Result same = radar({"debug", "--yes", dir, "interpreter", "--no-gdb"});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, "= -5\n");  // what went to the terminal still does
  Result fixed = radar({"debug", "--yes", dir, "interpreter", "--no-gdb", "--env", "CALC_FIXED=1"});
  EXPECT_EQ(fixed.exit_code, 1) << fixed.err;
  EXPECT_NE(fixed.err.find("left the recording at event " + std::to_string(write) + " "), std::string::npos)
      << fixed.err;
  EXPECT_NE(fixed.err.find("recorded: 2d 35 0a  \"-5.\""), std::string::npos) << fixed.err;
  EXPECT_NE(fixed.err.find("re-run:   35 0a  \"5.\""), std::string::npos) << fixed.err;
  // Removing the variable again is the recorded run.
  Result unset =
      radar({"debug", "--yes", dir, "interpreter", "--no-gdb", "--env", "CALC_FIXED=1", "--unset-env", "CALC_FIXED"});
  EXPECT_EQ(unset.exit_code, 0) << unset.err;
}

TEST(Debug, GdbStopsAfterAReceiveWithTheValueTheRecordedRunComputed) {
  if (!haveGdb()) GTEST_SKIP() << "gdb is not installed";
  std::string printed;
  const std::string dir = recordCalc("(2 + 3) * x - 4 / 2\n", &printed);
  ASSERT_EQ(printed, "= 33\n");
  // Where the interpreter prints its result: after it received the
  // scanner's values and the parser's syntax, and evaluated them.
  std::ifstream source(std::string(RADAR_SOURCE_DIR) + "/sample-programs/calc_proc.c");
  std::string line;
  int at = 0, n = 0;
  while (std::getline(source, line) && !at)
    if (++n && line.find("printf(\"= %.10g\\n\"") != std::string::npos) at = n;
  ASSERT_GT(at, 0);
  Result r = radar({"debug", "--yes", dir, "interpreter", "--batch", "-ex", "break calc_proc.c:" + std::to_string(at),
                    "-ex", "run", "-ex", "print m.stack[0]", "-ex", "radar event", "-ex", "continue"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("$1 = 33\n"), std::string::npos) << r.out << r.err;
  // `radar event`: the last event replayed is the receive of the syntax.
  const uint32_t syntax = eventNumber(dir, R"(interpreter\[\d+\] receives a message from parser)");
  EXPECT_NE(r.out.find("last: Event " + std::to_string(syntax) + " "), std::string::npos) << r.out;
  // Continued to the end: it printed as recorded and said so.
  EXPECT_NE(r.out.find("= 33\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exits with status 0, as recorded"), std::string::npos) << r.out;
}

TEST(Debug, GdbAtEventNextMessageAndContinueTo) {
  if (!haveGdb()) GTEST_SKIP() << "gdb is not installed";
  std::string printed;
  const std::string dir = recordCalc("(2 + 3) * x - 4 / 2\n", &printed);
  const uint32_t send = eventNumber(dir, R"(parser\[\d+\] sends a message to interpreter)");
  const uint32_t receive = eventNumber(dir, R"(parser\[\d+\] receives a message from scanner)");
  // --at-event: stopped just before it, in the program's own code.
  Result at =
      radar({"debug", "--yes", dir, "parser", "--at-event", std::to_string(send), "--batch", "-ex", "radar event"});
  EXPECT_NE(at.out.find("stopped before the event asked for, event " + std::to_string(send)), std::string::npos)
      << at.out << at.err;
  EXPECT_NE(at.out.find("next: Event " + std::to_string(send) + " "), std::string::npos) << at.out;
  EXPECT_NE(at.out.find("radar_port_send"), std::string::npos) << "the program's frame is shown\n" << at.out;
  // next-message from the start stops before the first receive; then
  // continue-to the send.
  Result steps = radar({"debug", "--yes", dir, "parser", "--batch", "-ex", "radar next-message", "-ex", "radar event",
                        "-ex", "radar continue-to " + std::to_string(send), "-ex", "radar event"});
  EXPECT_NE(steps.out.find("stopped before the next message, event " + std::to_string(receive)), std::string::npos)
      << steps.out << steps.err;
  EXPECT_NE(steps.out.find("stopped before the event asked for, event " + std::to_string(send)), std::string::npos)
      << steps.out;
  EXPECT_NE(steps.out.find("last: Event " + std::to_string(receive) + " "), std::string::npos) << steps.out;
  // Under gdb a divergence stops the program with the report.
  std::string printed2;
  const std::string buggy = recordCalc("10 - (2 + 3)\n", &printed2);
  Result diverged = radar({"debug", "--yes", buggy, "interpreter", "--env", "CALC_FIXED=1", "--batch", "-ex", "run",
                           "-ex", "print m.error"});
  EXPECT_NE(diverged.out.find("left the recording at event"), std::string::npos) << diverged.out << diverged.err;
  EXPECT_NE(diverged.out.find("$1 = '\\000'"), std::string::npos) << "stopped inside the program\n" << diverged.out;
}

TEST(Debug, NoGdbAtEventStopsItselfForAnotherDebugger) {
  std::string printed;
  const std::string dir = recordCalc("1 + 2\n", &printed);
  const uint32_t send = eventNumber(dir, R"(parser\[\d+\] sends a message to interpreter)");
  // Resume the stopped process from outside, as a debugger would.
  const std::string line = radarDebug() + " --yes " + shellQuote(dir) + " parser --no-gdb --at-event " +
                           std::to_string(send) +
                           " 2>&1 | while read -r l; do echo \"$l\"; case \"$l\" in "
                           "*'stopped itself'*) pid=${l#*pid }; kill -CONT ${pid%% *};; esac; done";
  Result r = shell(line);
  EXPECT_NE(r.out.find("stopped itself"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stopped before the event asked for, event " + std::to_string(send)), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("exits with status 0, as recorded"), std::string::npos) << r.out;
}

TEST(Debug, AForkedProcessStartsInItsParent) {
  Recording rec = record({programPath("pipes")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::string error;
  auto trace = trace::loadTrace({rec.dir}, trace::LoadOptions{}, &error);
  ASSERT_TRUE(trace) << error;
  uint32_t child = trace::kNone, parent = trace::kNone;
  for (const auto& p : trace->processes) (p.origin == log::Origin::Forked ? child : parent) = p.index;
  ASSERT_NE(child, trace::kNone);
  driver::Script script;
  ASSERT_TRUE(driver::buildScript(*trace, child, &script, &error)) << error;
  ASSERT_EQ(script.chain, (std::vector<uint32_t>{parent, child}));
  const auto* h = reinterpret_cast<const driver::ScriptHeader*>(script.bytes.data());
  ASSERT_EQ(h->segment_count, 2u);
  const auto* events = reinterpret_cast<const driver::ScriptEvent*>(script.bytes.data() + h->events_offset);
  // The parent's events up to its fork, the fork flagged as where the
  // replay becomes the child, then the child's.
  uint32_t branches = 0, last_segment0 = 0;
  for (uint32_t i = 0; i < h->event_count; ++i) {
    if (events[i].flags & driver::kBranchToChild) {
      ++branches;
      EXPECT_EQ(events[i].kind, static_cast<uint16_t>(log::Kind::Fork));
      EXPECT_EQ(events[i].segment, 0u);
    }
    if (events[i].segment == 0) last_segment0 = i;
  }
  EXPECT_EQ(branches, 1u);
  EXPECT_TRUE(events[last_segment0].flags & driver::kBranchToChild) << "nothing of the parent after its fork";
  EXPECT_EQ(script.launch.argv, std::vector<std::string>{programPath("pipes")});
  // Made in its file (as radar debug makes it), the script is the same
  // bytes, and the file is cut to them.
  {
    char path[] = "/tmp/radar-script-test-XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::unlink(path);
    driver::Script in_file;
    in_file.bytes = driver::ScriptBytes::inFile(::dup(fd));
    ASSERT_TRUE(driver::buildScript(*trace, child, &in_file, &error)) << error;
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);
    std::string on_disk(static_cast<size_t>(st.st_size), '\0');
    ASSERT_EQ(::pread(fd, on_disk.data(), on_disk.size(), 0), static_cast<ssize_t>(on_disk.size()));
    ::close(fd);
    EXPECT_TRUE(on_disk == script.bytes.view())
        << on_disk.size() << " bytes in the file, " << script.bytes.size() << " made in memory";
  }
  // The environment is the one the program saw, radar's variables too
  // (radar debug loads its own library in LD_PRELOAD's place, never the
  // entries the recording names).
  const auto& env = script.launch.environment;
  EXPECT_NE(std::find(env.begin(), env.end(), "RADAR_DIR=" + rec.dir), env.end());
  EXPECT_TRUE(std::any_of(env.begin(), env.end(), [](const std::string& e) {
    return e.rfind("LD_PRELOAD=", 0) == 0 && e.find("libradar-preload.so") != std::string::npos;
  }));
  Result r = radar({"debug", "--yes", rec.dir, std::to_string(trace->processes[child].pid), "--no-gdb"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("starts as"), std::string::npos) << r.err;
}

TEST(Debug, BadInputGetsAClearMessage) {
  std::string printed;
  const std::string dir = recordCalc("1 + 2\n", &printed);
  auto expect = [](const Result& r, int code, const std::string& says) {
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  };
  expect(radar({"debug", "--yes", dir, "nobody", "--no-gdb"}), 2, "no process 'nobody'");
  expect(radar({"debug", "--yes", dir, "calc", "--no-gdb"}), 2, "names 4 processes");
  expect(radar({"debug", "--yes", dir, "99999999.3", "--no-gdb"}), 2, "no process image 99999999.3");
  expect(radar({"debug", "--yes", dir}), 2, "give a recording directory and the process");
  expect(radar({"debug", "--yes", dir, "parser", "--no-gdb", "--batch", "-ex", "run"}), 2, "--no-gdb runs without gdb");
  expect(radar({"debug", "--yes", dir, "parser", "--at-event", "0"}), 2, "numbered from 1");
  expect(radar({"debug", "--yes", dir, "parser", "--at-event", "x"}), 2, "--at-event");
  expect(radar({"debug", "--yes", dir, "parser", "--at-event", "100000", "--no-gdb"}), 2, "has no event at or after");
  expect(radar({"debug", "--yes", dir, "parser", "--env", "RADAR_TEST_UNSET_NAME", "--no-gdb"}), 2,
         "your environment has no RADAR_TEST_UNSET_NAME");
  expect(radar({"debug", "--yes", dir, "parser", "--env", "=x", "--no-gdb"}), 2, "expected NAME=VALUE or NAME");
  expect(radar({"debug", "--yes", testTempDir(), "parser", "--no-gdb"}), 2, "radar debug:");
  // Without gdb, the way around it is named.
  Result no_gdb = shell("RADAR_GDB=/nonexistent/gdb " + radarDebug() + " --yes " + shellQuote(dir) + " parser");
  expect(no_gdb, 2, "gdb is not installed");
}

TEST(Debug, AChangedExecutableIsRefusedUnlessAllowed) {
  // A copy of a test program, recorded, then rebuilt (here: changed).
  const std::string bin = testTempDir() + "/pipes";
  ASSERT_EQ(shell("cp " + shellQuote(programPath("pipes")) + " " + shellQuote(bin)).exit_code, 0);
  Recording rec = record({bin});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string root = std::to_string(rec.meta.root_pid());
  ASSERT_EQ(radar({"debug", "--yes", rec.dir, root, "--no-gdb"}).exit_code, 0);
  ASSERT_EQ(shell("printf x >> " + shellQuote(bin)).exit_code, 0);
  Result refused = radar({"debug", "--yes", rec.dir, root, "--no-gdb"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("has changed since the recording"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--allow-changed"), std::string::npos) << refused.err;
  Result allowed = radar({"debug", "--yes", rec.dir, root, "--no-gdb", "--allow-changed"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  ASSERT_EQ(::unlink(bin.c_str()), 0);
  Result gone = radar({"debug", "--yes", rec.dir, root, "--no-gdb"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("is gone"), std::string::npos) << gone.err;
}

TEST(Debug, WhatTheRecordingLacksIsRefused) {
  // Bytes cut by --payload-limit: the reader of the pipes program cannot be
  // fed what it read.
  Recording cut = record({programPath("pipes")}, {.radar_args = {"--payload-limit", "2"}});
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  Result r = radar({"debug", "--yes", cut.dir, std::to_string(cut.meta.root_pid()), "--no-gdb"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--payload-limit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot be re-run faithfully"), std::string::npos) << r.err;

  // A forked child whose parent's log is missing; a damaged log.
  Recording rec = record({programPath("pipes")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const ProcessLog* parent = rec.byPid(rec.meta.root_pid());
  const int child = parent->first(log::Kind::Fork)->r.peer_pid;
  const std::string damaged = testTempDir();
  ASSERT_EQ(shell("cp -r " + shellQuote(rec.dir) + "/. " + shellQuote(damaged)).exit_code, 0);
  ASSERT_EQ(::unlink(parent->path.c_str()), 0);
  Result orphan = radar({"debug", "--yes", rec.dir, std::to_string(child), "--no-gdb"});
  EXPECT_EQ(orphan.exit_code, 2);
  EXPECT_NE(orphan.err.find("log is missing"), std::string::npos) << orphan.err;
  const std::string log = damaged + "/" + parent->path.substr(parent->path.rfind('/') + 1);
  struct stat st {};
  ASSERT_EQ(::stat(log.c_str(), &st), 0);
  ASSERT_EQ(::truncate(log.c_str(), st.st_size / 2), 0);
  Result broken = radar({"debug", "--yes", damaged, std::to_string(rec.meta.root_pid()), "--no-gdb"});
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find(log + ": offset"), std::string::npos) << "names the log and where\n" << broken.err;
  EXPECT_NE(broken.err.find("could not be read"), std::string::npos) << broken.err;
}

// A recording is input: radar debug says what it would run (program,
// arguments, directory, environment unlike the user's) and runs nothing
// unless asked to; a library the recorded LD_PRELOAD names is never loaded.
TEST(Debug, ShowsWhatItWouldRunAndRunsNothingUnasked) {
  const std::string scratch = testTempDir();
  const std::string marker = scratch + "/marker", touched = scratch + "/touched";
  const std::string library = driverProgram("libmarker_preload.so");
  const std::string dir = scratch + "/rec";
  // (The library goes to the program only, not to radar itself.)
  Result rec = shell("RADAR_TEST_MARKER=" + shellQuote(marker) + " " + shellQuote(radarPath()) + " record -o " +
                     shellQuote(dir) + " -- env LD_PRELOAD=" + shellQuote(library) + " /bin/sh -c " +
                     shellQuote("echo x > " + touched));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_NE(slurp(marker).find("loaded"), std::string::npos) << "the library ran in the recorded program";
  ASSERT_EQ(::unlink(marker.c_str()), 0);
  ASSERT_EQ(::unlink(touched.c_str()), 0);

  // No terminal and no --yes: shown, not run.
  Result asked = shell(radarDebug() + " " + shellQuote(dir) + " sh --no-gdb </dev/null");
  EXPECT_EQ(asked.exit_code, 2) << asked.err;
  EXPECT_NE(asked.err.find("it will run, as recorded:"), std::string::npos) << asked.err;
  EXPECT_NE(asked.err.find("  arguments    '/bin/sh' '-c' 'echo x > " + touched + "'"), std::string::npos) << asked.err;
  EXPECT_NE(asked.err.find("RADAR_TEST_MARKER=" + marker), std::string::npos)
      << "an entry unlike the user's environment\n"
      << asked.err;
  EXPECT_NE(asked.err.find("  not loaded   " + library), std::string::npos) << asked.err;
  EXPECT_NE(asked.err.find("add --yes to run it"), std::string::npos) << asked.err;
  EXPECT_FALSE(std::ifstream(touched).good()) << "nothing ran";

  // With --yes it runs, without the recorded library (out of the sandbox,
  // where the marker would be seen).
  Result ran = radar({"debug", "--yes", dir, "sh", "--no-gdb", "--no-sandbox"});
  EXPECT_TRUE(std::ifstream(touched).good()) << "it ran\n" << ran.err;
  EXPECT_FALSE(std::ifstream(marker).good()) << "the recorded LD_PRELOAD was loaded:\n" << ran.err;
}

// The program is checked by content: the same size and modification time
// with other bytes is another program.
TEST(Debug, RefusesAProgramWhoseContentChanged) {
  const std::string scratch = testTempDir();
  const std::string program = scratch + "/pipes";
  ASSERT_EQ(shell("cp " + shellQuote(programPath("pipes")) + " " + shellQuote(program)).exit_code, 0);
  const std::string dir = scratch + "/rec";
  Result rec = radar({"record", "-o", dir, "--", program});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Result same = radar({"debug", "--yes", dir, std::to_string(load(dir).meta.root_pid()), "--no-gdb"});
  EXPECT_EQ(same.exit_code, 0) << same.err;

  struct stat before {};
  ASSERT_EQ(::stat(program.c_str(), &before), 0);
  {
    std::fstream f(program, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    const char last = static_cast<char>(f.get());
    f.seekp(-1, std::ios::end);
    f.put(static_cast<char>(last ^ 0x5a));
  }
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, program.c_str(), times, 0), 0);
  Result changed = radar({"debug", "--yes", dir, std::to_string(load(dir).meta.root_pid()), "--no-gdb"});
  EXPECT_EQ(changed.exit_code, 2) << changed.err;
  EXPECT_NE(changed.err.find("has changed since the recording (its content differs"), std::string::npos) << changed.err;
}

// A value from the log is checked before the re-run hands it to the
// program: a read of 16 bytes that returned 300 is damage, not a result.
TEST(Debug, RefusesAReceiveLargerThanItsBuffer) {
  FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 801, true).send(1, std::string(300, 'x'), 10, 11);
  rec.process("reader", 2).pipeEnd(1, 801, false).receiveIntoSmallerBuffer(1, std::string(300, 'x'), 16, 20, 21);
  auto trace = rec.load();
  const uint32_t reader = testing::processOfPid(*trace, 2);
  driver::Script script;
  std::string error;
  EXPECT_FALSE(driver::buildScript(*trace, reader, &script, &error));
  EXPECT_NE(error.find("moved 300 bytes with a buffer of 16"), std::string::npos) << error;
}

}  // namespace
// A program that keeps pointers in its epoll registrations re-runs: epoll_wait
// gives back what the re-run registered, not the recorded run's pointers
// (another address space: the re-run followed them and crashed). Five
// recordings, so that their heaps are not all where the re-run's is.
TEST(Debug, EpollGivesBackWhatTheReRunRegistered) {
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE(round);
    const std::string dir = testTempDir() + "/rec" + std::to_string(round);
    Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                       shellQuote(driverProgram("epoll_pointers")) + " | cat");
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    ASSERT_NE(rec.out.find("conn-1: world!"), std::string::npos) << rec.out;
    Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " epoll_pointers --no-gdb");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, rec.out);
    EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
  }
}

// A process that waits for signals in sigsuspend() and pause() (nginx's
// master) gets them in the re-run, where their sender does not run: the
// re-run waited for ever.
// Also signals whose handler ends a ppoll() or an epoll_pwait() that
// unblocks them. And the ones taken by sigwaitinfo(), sigtimedwait(),
// sigwait() and a signalfd (read and readv) are
// given back, with their sender, and the story tells them after the kill().
TEST(Debug, SignalsEndWaitsInSigsuspendAndPause) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                     shellQuote(driverProgram("signal_waits")) + " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out,
            "sigsuspend ended by 10\npause ended by 12\nsigwaitinfo took 10 from the child\n"
            "sigtimedwait: -1, timed out\nsigwait: 0, took 10\n"
            "signalfd: poll 1, read 128 bytes: signal 10 from the child\n"
            "signalfd: poll 1, readv 128 bytes in two buffers: signal 10 from the child\n"
            "ppoll: -1, interrupted, the handler got 12\nepoll_pwait: -1, interrupted, the handler got 12\n");
  const auto [pid, child] = parentAndChild(dir);
  ASSERT_FALSE(pid.empty());
  ASSERT_FALSE(child.empty());
  // The story: each signal taken is told after the kill() that sent it
  // (kill(), killpg(), sigqueue(), kill(-pgid)).
  Result story = radar({"events", dir});
  EXPECT_NE(story.out.find("sends signal 10 (SIGUSR1) to the process group of signal_waits[" + pid + "]"),
            std::string::npos)
      << story.out;
  std::vector<std::string> lines;
  std::istringstream in(story.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  int taken = 0, kills_before = 0;
  for (const auto& line : lines) {
    if (line.find("sends signal 10 (SIGUSR1)") != std::string::npos) ++kills_before;
    if (line.find("receives signal 10 (SIGUSR1) from") != std::string::npos &&
        line.find("waiting for it") != std::string::npos) {
      ++taken;
      EXPECT_GT(kills_before, taken) << "told before its kill(): " << line << "\n" << story.out;
    }
  }
  EXPECT_EQ(taken, 4) << story.out;
  EXPECT_EQ(kills_before, 5) << story.out;  // killpg() and sigqueue() among them
  EXPECT_NE(story.out.find("waits for a signal: none came before its timeout"), std::string::npos) << story.out;
  Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " " + pid + " --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, rec.out);
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
  // The child re-runs its signals' sending without sending them.
  Result sender = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " " + child + " --no-gdb");
  EXPECT_EQ(sender.exit_code, 0) << sender.err;
  EXPECT_NE(sender.err.find("as recorded"), std::string::npos) << sender.err;
}

// Handlers given to pthread_atfork make recorded calls around a fork: in
// the parent before its fork (the prepare and parent handlers), in the
// child first (as libuv's makes its signal lock anew, in Node's cluster
// workers). The parent and the child both re-run as recorded.
TEST(Debug, ForkHandlersRunInTheReRunAsInTheRecording) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                     shellQuote(driverProgram("fork_handlers")) + " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "parent: token 'p'; child: took 1 byte, 'c'\n");
  const auto [parent, child] = parentAndChild(dir);
  ASSERT_FALSE(parent.empty());
  ASSERT_FALSE(child.empty());
  for (const std::string& pid : {parent, child}) {
    Result r = shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(dir) + " " + pid + " --no-gdb");
    EXPECT_EQ(r.exit_code, 0) << pid << ":\n" << r.err;
    EXPECT_NE(r.err.find("as recorded"), std::string::npos) << pid << ":\n" << r.err;
  }
}

// Address-space randomization is off for the recorded program and for its
// re-run (as rr does): two recordings print the same addresses, and a
// re-run has the recorded ones, heap and mappings alike (the injected
// libraries keep out of the program's way, and the program sees the
// recorded environment). --aslr keeps it on.
TEST(Debug, AddressesAreTheRecordedOnes) {
  const std::string base = testTempDir();
  auto recordAddresses = [&](const std::string& dir, const std::string& options, const std::string& what) {
    Result rec = shell(shellQuote(radarPath()) + " record " + options + " -o " + shellQuote(dir) + " -- " +
                       shellQuote(driverProgram("addresses")) + " " + what + " | cat");
    EXPECT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_EQ(rec.err.find("cannot turn address-space randomization off"), std::string::npos) << rec.err;
    return rec.out;
  };
  {
    Result probe = shell(shellQuote(radarPath()) + " record -o " + shellQuote(base + "/probe") + " -- true");
    if (probe.err.find("cannot turn address-space randomization off") != std::string::npos)
      GTEST_SKIP() << "this machine does not let a process turn randomization off (personality): " << probe.err;
  }
  const std::string first = recordAddresses(base + "/one", "", "all");
  ASSERT_NE(first.find("heap 0x"), std::string::npos) << first;
  EXPECT_EQ(recordAddresses(base + "/two", "", "all"), first);
  const std::string recorded = recordAddresses(base + "/rerun", "", "rerun");
  ASSERT_NE(recorded.find("big 0x"), std::string::npos) << recorded;
  Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(base + "/rerun") + " addresses --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, recorded);
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
  // With randomization kept on, three recordings do not all print the same
  // (where the kernel randomizes at all).
  if (slurp("/proc/sys/kernel/randomize_va_space").rfind("0", 0) == 0) return;
  std::set<std::string> seen;
  for (int k = 0; k < 3; ++k) seen.insert(recordAddresses(base + "/on" + std::to_string(k), "--aslr", "all"));
  EXPECT_GT(seen.size(), 1u) << "--aslr: the same addresses three times";
}

// The re-run shows the program the environment it was recorded with, every
// variable in its order (radar's own too, and LD_PRELOAD as it was). Once
// it leaves the recording and runs on its own, what it starts gets neither
// the recording's variables nor the recorder's library: a child must not
// record itself into the user's recording.
TEST(Debug, TheReRunShowsTheRecordedEnvironmentAndChildrenDoNotRecord) {
  const std::string work = testTempDir();
  const std::string dir = work + "/rec", flag = work + "/flag";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                     shellQuote(driverProgram("environment")) + " " + shellQuote(flag) + " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_NE(rec.out.find("RADAR_DIR="), std::string::npos) << rec.out;
  ASSERT_NE(rec.out.find("libradar-preload.so"), std::string::npos) << rec.out;
  const std::string debug = "timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " environment --no-gdb";
  Result same = shell(debug);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, rec.out);
  EXPECT_NE(same.err.find("as recorded"), std::string::npos) << same.err;

  // Under gdb, the program goes on after its divergence (without gdb, the
  // re-run ends there).
  if (!haveGdb()) GTEST_SKIP() << "gdb is not installed: a re-run that goes on after its divergence is not tried";
  std::ofstream(flag) << "now the program execs env(1)";
  Result child =
      radar({"debug", "--yes", dir, "environment", "--batch", "-ex", "run", "-ex", "continue", "-ex", "continue"});
  EXPECT_NE((child.out + child.err).find("left the recording"), std::string::npos) << child.out << child.err;
  const auto at = child.out.find("-- env(1):\n");
  ASSERT_NE(at, std::string::npos) << child.out << child.err;
  const std::string env = child.out.substr(at);
  EXPECT_NE(env.find("PATH="), std::string::npos) << env;
  EXPECT_EQ(env.find("RADAR_DIR="), std::string::npos) << env;
  EXPECT_EQ(env.find("RADAR_RECORDING_ID="), std::string::npos) << env;
  EXPECT_EQ(env.find("libradar-preload.so"), std::string::npos) << env;
  EXPECT_EQ(env.find("RADAR_REPLAY_"), std::string::npos) << env;
  std::error_code ec;
  size_t logs = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) logs += f.path().extension() == ".rlog";
  EXPECT_EQ(logs, 1u) << "a child of the re-run recorded itself into " << dir;
}

// Signals a process sends itself reach it in the re-run: one it blocks and
// takes with sigwait() (the re-run waited for ever when kill() was not
// performed), one a handler takes (once, where recorded), one it ignores.
TEST(Debug, SignalsAProcessSendsItselfReachIt) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                     shellQuote(driverProgram("signals_to_self")) + " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "sigwait got 10\nhandler got 12\nignored\n");
  // kill() to itself, sigwait() (taking it: an event), the handler, the ignored one ...
  Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " signals_to_self --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, rec.out);
  EXPECT_NE(r.err.find("replayed 9 of 9 events"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
}

// A value the recording left out (radar record --redact) is the user's in
// the re-run only when asked for (--env NAME): which names were left out is
// the recording's word, and a recording must not get a variable of the
// user's by naming it. Without it the name is said, with how to give one.
TEST(Debug, RedactedValuesComeFromTheUsersEnvironmentWhenAskedFor) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell("MY_API_TOKEN=s3cr3t " + shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
                     " -- sh -c 'echo \"$MY_API_TOKEN\"' | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "s3cr3t\n");
  const std::string debug = radarDebug() + " --yes " + shellQuote(dir) + " sh --no-gdb";
  Result unasked = shell("MY_API_TOKEN=s3cr3t " + debug);
  EXPECT_NE(unasked.exit_code, 0) << unasked.err;
  EXPECT_EQ(unasked.out.find("s3cr3t"), std::string::npos) << unasked.out;
  EXPECT_NE(unasked.err.find("left out     MY_API_TOKEN (its value was left out of the recording; --env "
                             "MY_API_TOKEN gives yours)"),
            std::string::npos)
      << unasked.err;
  Result asked = shell("MY_API_TOKEN=s3cr3t " + debug + " --env MY_API_TOKEN");
  EXPECT_EQ(asked.exit_code, 0) << asked.err;
  EXPECT_EQ(asked.out, "s3cr3t\n");
  EXPECT_NE(asked.err.find("as recorded"), std::string::npos) << asked.err;
  Result without = shell("env -u MY_API_TOKEN " + debug);
  EXPECT_NE(without.exit_code, 0) << without.err;
  EXPECT_NE(without.err.find("left out     MY_API_TOKEN (its value was left out of the recording; --env "
                             "MY_API_TOKEN=VALUE gives one)"),
            std::string::npos)
      << without.err;
  Result given = shell("env -u MY_API_TOKEN " + debug + " --env MY_API_TOKEN=s3cr3t");
  EXPECT_EQ(given.exit_code, 0) << given.err;
  EXPECT_EQ(given.err.find("MY_API_TOKEN ("), std::string::npos) << given.err;
  Result unset = shell("env -u MY_API_TOKEN " + debug + " --env MY_API_TOKEN");
  EXPECT_EQ(unset.exit_code, 2) << unset.err;
  EXPECT_NE(unset.err.find("your environment has no MY_API_TOKEN"), std::string::npos) << unset.err;
}

// A process that moves bytes with splice(), tee() and vmsplice() re-runs:
// the bytes that never reached its memory are not needed.
TEST(Debug, SpliceTeeAndVmspliceReRun) {
  Recording rec = record({"sh", "-c", "printf 'hello world\\n' | " + shellQuote(programPath("splicer")) + " | cat"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " splicer --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
}

// Bytes spliced from a pipe into a file opened write-only (which radar
// cannot read back) are the sender's: the re-run writes them into the file,
// and the program reads back what it did.
TEST(Debug, SpliceIntoAWriteOnlyFileReRuns) {
  char dir[] = "/tmp/radar-splice-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  const std::string file = std::string(dir) + "/out";
  Recording rec = record(
      {"sh", "-c",
       "printf 'hello file\\n' | " + shellQuote(programPath("splice_to_file")) + " " + shellQuote(file) + " | cat"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.out.find("11 bytes in the file: hello file"), std::string::npos) << rec.out;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  ::unlink(file.c_str());
  Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " splice_to_file --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

// Re-runs that diverged though nothing differed: a vfork child that ends
// without an exec, a thread cancelled in read(), a program started with
// descriptors 0 to 2 closed, a program that exits while another thread
// waits in read(), a peek with MSG_TRUNC that returns more than its
// buffer holds, a child that closes what it inherited with closefrom() or
// close_range(), a program that points stdout at /dev/null and closes every
// descriptor it lists, a parent and child that meet at a FIFO (whose open
// waited in the re-run for a process that does not run there). Each re-runs
// as recorded, never waiting, and the story says what happened.
TEST(Debug, NoFalseDivergences) {
  struct Case {
    const char* mode;
    const char* shell_suffix;  // redirections for the recorded command
    const char* told;          // in `radar events`
  };
  for (const Case& c :
       {Case{"vfork", "", "its vfork child, process "}, Case{"cancel", "", "is cancelled in read() on pipe"},
        Case{"closed", " <&- >&- 2>&-", "creates pipe"}, Case{"exit", "", "(thread 2) starts"},
        Case{"peektrunc", "", "(252 bytes)"}, Case{"closefrom", "", "receives a message from rerun_traps["},
        Case{"close_range", "", "receives a message from rerun_traps["},
        Case{"devnull", "", "closes its end of pipe 2"}, Case{"fifo", "", "opens fifo /tmp/radar-fifo-"}}) {
    SCOPED_TRACE(c.mode);
    const std::string dir = testTempDir() + "/rec-" + c.mode;
    Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- sh -c " +
                       shellQuote("exec " + shellQuote(driverProgram("rerun_traps")) + " " + c.mode + c.shell_suffix) +
                       " | cat");
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    Result events = radar({"events", dir});
    EXPECT_NE(events.out.find(c.told), std::string::npos) << events.out;
    EXPECT_EQ(events.out.find("creates a process. "), std::string::npos) << events.out;
    Result check = radar({"check", "--strict", dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    // Every image of the program re-runs as recorded (a forked child too).
    std::vector<int> pids;
    for (const ProcessLog& log : load(dir).logs)
      if (log.exe() == "rerun_traps") pids.push_back(static_cast<int>(log.header.pid()));
    ASSERT_FALSE(pids.empty());
    for (int pid : pids) {
      Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " " +
                       shellQuote("rerun_traps[" + std::to_string(pid) + "]") + " --no-gdb");
      EXPECT_EQ(r.exit_code, 0) << pid << ": " << r.err;
      if (pids.size() == 1) {
        EXPECT_EQ(r.out, rec.out);
      }
      EXPECT_NE(r.err.find("as recorded"), std::string::npos) << pid << ": " << r.err;
    }
  }
}

// One small program per way processes meet, each recorded, checked,
// decoded, and every process re-run: exactly, as recorded, where radar
// records the mechanism; where it cannot see it (shared memory, named
// semaphores, raw system calls, io_uring), said and never blamed on a
// recorded process, and a re-run that stops saying so rather than hang.
TEST(Debug, EveryMechanismIsRecordedCheckedDecodedAndReRun) {
  const std::string scratch = testTempDir();
  std::ofstream(scratch + "/f.txt") << "sent by the kernel\n";
  const std::string sendfile_py =
      "/usr/bin/python3 -c \"import os; os.sendfile(1, os.open('f.txt', os.O_RDONLY), None, 100)\"";
  struct Case {
    const char* name;
    std::string shell;
    bool seen;
    const char* refused = "";  // a program whose re-run is refused: bytes the recording could not keep
    const char* options = "";  // radar record's
  };
  auto program = [](const char* name, const std::string& args) {
    return shellQuote(programPath(name)) + (args.empty() ? "" : " " + args);
  };
  const Case cases[] = {
      {"pipes", program("pipes", ""), true},
      {"fifo", "exec " + shellQuote(driverProgram("rerun_traps")) + " fifo", true},
      {"unix sockets, socketpairs, SCM_RIGHTS", program("unix_sockets", shellQuote(scratch + "/s.sock")), true},
      {"tcp and udp over IPv4", program("tcp", "4"), true},
      {"tcp and udp over IPv6", program("tcp", "6"), true},
      {"udp", program("udp_echo", ""), true},
      {"splice, tee, vmsplice", "printf 'hello world\\n' | " + program("splicer", "") + " | cat", true, "cat"},
      {"sendfile", sendfile_py + " | cat", true},
      {"POSIX message queues", program("message_queues", "pair"), true},
      {"System V message queues", program("message_queues", "sysv"), true},
      {"eventfds", program("eventfds", "pair"), true},
      {"shared memory", program("unseen", "shm"), false},
      {"named semaphore", program("unseen", "sem"), false},
      {"raw system call", program("unseen", "raw"), false},
      // (The interposer's account: by default the fallback recorder follows
      // the rings of a program that uses liburing, and radar debug cannot
      // re-run what it recorded yet.)
      {"io_uring", program("uring", "writer"), false, "", "--fallback off "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string dir = testTempDir() + "/rec";
    Result rec = shell("cd " + shellQuote(scratch) + " && " + shellQuote(radarPath()) + " record " + c.options + "-o " +
                       shellQuote(dir) + " -- sh -c " + shellQuote(c.shell) + " < /dev/null");
    if (rec.exit_code == 77) {
      std::printf("[  SKIPPED ] %s: the test program was built without it\n", c.name);
      continue;
    }
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const Result check = radar({"check", "--strict", dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_EQ(check.out.find("no-sender"), std::string::npos) << check.out;
    EXPECT_EQ(c.seen, check.out.find("not seen:") == std::string::npos) << check.out;
    EXPECT_EQ(radar({"events", "--decode", dir}).exit_code, 0);
    for (const ProcessLog& log : load(dir).logs) {
      const std::string who =
          "[" + std::to_string(log.header.pid()) + "." + std::to_string(log.header.generation()) + "]";
      const Result r =
          shell("cd " + shellQuote(scratch) + " && timeout 60 " + radarDebug() + " --yes --stall-after 3 " +
                shellQuote(dir) + " " + shellQuote(who) + " --no-gdb < /dev/null > /dev/null");
      // (An image that ends in an exec re-runs up to it: "execs here".)
      const bool as_recorded =
          r.err.find(", as recorded\n") != std::string::npos || r.err.find(" execs here: ") != std::string::npos;
      // Refused before it runs, saying which bytes the recording lacks
      // (those a splice moved inside the kernel, those written unseen).
      const bool refused = r.exit_code == 2 && r.err.find("cannot be re-run faithfully") != std::string::npos &&
                           (!c.seen || log.exe() == c.refused);
      // Stopped where it met what radar does not record, saying so.
      const bool stopped = !c.seen && r.exit_code == 1 && !as_recorded && r.err.find("not record") != std::string::npos;
      EXPECT_TRUE((r.exit_code == 0 && as_recorded) || refused || stopped) << who << ": " << r.err;
    }
  }
}

// A process whose input the shell redirected from a file reads that file in
// its re-run, from where the recorded process stood (it read /dev/null and
// printed 0: a divergence, or, with its output to a file, a wrong answer).
TEST(Debug, ARedirectedInputIsReadFromWhereItStood) {
  const std::string scratch = testTempDir();
  {
    std::ofstream f(scratch + "/f.txt");
    for (int i = 1; i <= 10; ++i) f << i << "\n";
  }
  struct Case {
    const char* shell;
    const char* printed;
  };
  for (const Case& c : {Case{"wc -l < f.txt", "10\n"}, Case{"(read first; wc -l) < f.txt", "9\n"}}) {
    SCOPED_TRACE(c.shell);
    const std::string dir = testTempDir() + "/rec";
    Result rec = shell("cd " + shellQuote(scratch) + " && " + shellQuote(radarPath()) + " record -o " +
                       shellQuote(dir) + " -- sh -c " + shellQuote(c.shell) + " | cat");
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    ASSERT_EQ(rec.out, c.printed);
    Result r = shell("cd " + shellQuote(scratch) + " && timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) +
                     " wc --no-gdb < /dev/null");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, c.printed);
    EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
  }
}

// Every write to a file or device is recorded as its length and checksum
// and compared by the re-run: one that writes other bytes, more or fewer
// writes, never ends "as recorded" (it printed another count and said it
// matched). Through write(), stdio, pwrite(), copies the kernel makes
// (cat's copy_file_range, sendfile), and a process killed by a signal
// after it wrote.
TEST(Debug, WritesToFilesAreComparedWithTheRecording) {
  const std::string scratch = testTempDir();
  auto lines = [&](int n) {
    std::ofstream f(scratch + "/f.txt", std::ios::trunc);
    for (int i = 1; i <= n; ++i) f << i << "\n";
  };
  struct Case {
    const char* name;
    const char* program;  // the image re-run
    std::string shell;
    int lines_then;  // f.txt in the re-run
    const char* said;
  };
  const char* pwrite_py =
      "import os; fd = os.open('o.bin', os.O_WRONLY | os.O_CREAT, 0o644); "
      "os.pwrite(fd, open('f.txt', 'rb').read(), 0)";
  const char* sendfile_py = "import os; os.sendfile(1, os.open('f.txt', os.O_RDONLY), None, 1000)";
  // An eventfd written at a number a file takes next: its write is no
  // file's, and must not stand for the file's first.
  const char* eventfd_py =
      "import os; e = os.eventfd(0); os.write(e, bytes([1, 0, 0, 0, 0, 0, 0, 0])); os.close(e); "
      "f = os.open('o.bin', os.O_WRONLY | os.O_CREAT, 0o644); os.write(f, open('f.txt', 'rb').read())";
  const char* killed_py = "import os; os.write(1, open('f.txt', 'rb').read()); os.kill(os.getpid(), 9)";
  const Case cases[] = {
      {"stdio", "wc", "wc -l < f.txt > out.txt", 12, "wrote 3 bytes to fd 1 "},
      {"fewer bytes", "head", "head -c 8 f.txt > out.txt", 2, "wrote 4 bytes to fd 1 "},
      {"no write", "dd", "dd if=f.txt of=out.txt status=none", 0,
       "did not make 1 of the recorded writes (21 bytes), the first to fd 1"},
      {"a write more", "dd", "dd if=f.txt of=out.txt bs=21 status=none", 20,
       "where the recording has no more writes there"},
      {"copy_file_range", "cat", "cat f.txt > out.txt", 11, "wrote 24 bytes to fd 1 "},
      {"sendfile", "python3", std::string("/usr/bin/python3 -c \"") + sendfile_py + "\" > out.txt", 11,
       "wrote 24 bytes to fd 1 "},
      {"eventfd, then a file", "python3", std::string("/usr/bin/python3 -c \"") + eventfd_py + "\"", 11,
       "wrote 24 bytes to fd "},
      {"pwrite", "python3", std::string("/usr/bin/python3 -c \"") + pwrite_py + "\"", 11, "wrote 24 bytes to fd "},
      {"killed", "python3", std::string("/usr/bin/python3 -c \"") + killed_py + "\" > out.txt", 11,
       "wrote 24 bytes to fd 1 "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    lines(10);
    const std::string dir = testTempDir() + "/rec";
    Result rec = shell("cd " + shellQuote(scratch) + " && " + shellQuote(radarPath()) + " record -o " +
                       shellQuote(dir) + " -- sh -c " + shellQuote(c.shell) + " 2>&1");
    ASSERT_EQ(std::string(c.name) == "killed" ? 137 : 0, rec.exit_code) << rec.out;
    const std::string debug = "cd " + shellQuote(scratch) + " && timeout 60 " + radarDebug() + " --yes " +
                              shellQuote(dir) + " " + c.program + " --no-gdb < /dev/null > /dev/null";
    // The verdict: the last line ("it will run, as recorded:" comes first).
    auto verdict = [](const std::string& err) {
      const size_t end = err.find_last_not_of('\n');
      return end == std::string::npos ? err : err.substr(err.rfind('\n', end) + 1);
    };
    Result same = shell(debug);
    EXPECT_EQ(same.exit_code, 0) << same.err;
    EXPECT_NE(verdict(same.err).find(", as recorded"), std::string::npos) << same.err;
    lines(c.lines_then);
    Result other = shell(debug);
    EXPECT_EQ(other.exit_code, 1) << other.err;
    EXPECT_EQ(verdict(other.err).find("as recorded"), std::string::npos) << other.err;
    EXPECT_NE(other.err.find("differs from the recording"), std::string::npos) << other.err;
    EXPECT_NE(other.err.find(c.said), std::string::npos) << other.err;
  }
  // Recorded with --keep-writes: the bytes that differ, shown.
  lines(10);
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell("cd " + shellQuote(scratch) + " && " + shellQuote(radarPath()) + " record --keep-writes -o " +
                     shellQuote(dir) + " -- sh -c 'wc -l < f.txt > out.txt' 2>&1");
  ASSERT_EQ(rec.exit_code, 0) << rec.out;
  lines(12);
  Result kept = shell("cd " + shellQuote(scratch) + " && timeout 60 " + radarDebug() + " --yes " + shellQuote(dir) +
                      " wc --no-gdb < /dev/null > /dev/null");
  EXPECT_EQ(kept.exit_code, 1) << kept.err;
  EXPECT_NE(
      kept.err.find("\"12\\n\" where the recording has 3 bytes (first difference at byte 1; recorded: \"10\\n\")"),
      std::string::npos)
      << kept.err;
}

// A program recorded under a small descriptor limit re-runs under the
// same limit: it runs out of descriptors where it did.
TEST(Debug, RecordedDescriptorLimitIsRestored) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell("sh -c " +
                     shellQuote("ulimit -S -n 8; exec " + shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
                                " -- " + shellQuote(programPath("fd_limit"))) +
                     " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_NE(rec.out.find(" more before EMFILE"), std::string::npos) << rec.out;
  Result r = shell("timeout 30 " + radarDebug() + " --yes " + shellQuote(dir) + " fd_limit --no-gdb | cat");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, rec.out);
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
}

// ---- the sandbox ------------------------------------------------------------------------------

// What sandbox_probe does to the world, seen from outside: a directory's
// files, a SysV segment, connections to a listening socket, a process
// named after the test.
class ProbedWorld {
 public:
  ProbedWorld() {
    dir_ = testTempDir();
    files_ = dir_ + "/files";
    tmp_ = dir_ + "/tmp";
    ::mkdir(tmp_.c_str(), 0700);
    key_ = 0x52440000 + (::getpid() & 0xffff);
    name_ = "rprobe" + std::to_string(::getpid() % 100000);
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(::listen(listener_, 16), 0);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    reset();
  }
  ~ProbedWorld() {
    reset();
    ::close(listener_);
  }
  std::vector<std::string> command() const {
    return {driverProgram("sandbox_probe"), files_, std::to_string(port_), std::to_string(key_), name_};
  }
  const std::string& tmp() const { return tmp_; }

  // The state before the program ran.
  void reset() {
    killLingering();
    std::filesystem::remove_all(files_);
    ::mkdir(files_.c_str(), 0755);
    std::ofstream(files_ + "/existing") << "old\n";
    ::chmod((files_ + "/existing").c_str(), 0644);
    std::ofstream(files_ + "/doomed") << "doomed\n";
    std::ofstream(files_ + "/moved") << "moved\n";
    const int id = ::shmget(key_, 0, 0);
    if (id >= 0) ::shmctl(id, IPC_RMID, nullptr);
    connections();
  }
  // Everything the program may have changed, as text.
  std::string state() {
    std::string out;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::recursive_directory_iterator(files_)) names.push_back(e.path().string());
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      struct stat st {};
      ::stat(n.c_str(), &st);
      char mode[16];
      std::snprintf(mode, sizeof(mode), "%o", st.st_mode & 07777);
      out += n.substr(files_.size()) + " " + mode + " " + (S_ISREG(st.st_mode) ? slurp(n) : "dir\n");
    }
    out += "segment: " + std::string(::shmget(key_, 0, 0) >= 0 ? "yes" : "no") + "\n";
    out += "connections: " + std::to_string(connections()) + "\n";
    out += "lingering: " + std::to_string(lingering().size()) + "\n";
    std::error_code ec;
    out += "left in TMPDIR: " +
           std::to_string(
               std::distance(std::filesystem::directory_iterator(tmp_, ec), std::filesystem::directory_iterator())) +
           "\n";
    return out;
  }

 private:
  int connections() {
    int n = 0;
    for (int fd; (fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0; ++n) ::close(fd);
    return n;
  }
  std::vector<pid_t> lingering() const {
    std::vector<pid_t> found;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string pid = e.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (slurp("/proc/" + pid + "/comm") == name_ + "\n") found.push_back(std::stoi(pid));
    }
    return found;
  }
  void killLingering() const {
    for (pid_t p : lingering()) ::kill(p, SIGKILL);
    for (int i = 0; i < 100 && !lingering().empty(); ++i) ::usleep(10000);
  }

  std::string dir_, files_, tmp_, name_;
  key_t key_ = 0;
  int listener_ = -1;
  int port_ = 0;
};

std::string joinQuoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shellQuote(w);
  return out;
}

// A re-run changes no file, leaves no IPC object, reaches no real service
// and leaves no process behind; without the sandbox (--no-sandbox) the same
// re-run does all of that, as the recorded program did.
TEST(Debug, SandboxedReRunLeavesTheWorldAsItWas) {
  if (!sandboxAvailable()) GTEST_SKIP() << "the kernel refuses new namespaces here: there is no sandbox to check";
  ProbedWorld world;
  const std::string before = world.state();
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " + joinQuoted(world.command()));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "done\n");
  const std::string changed = world.state();
  ASSERT_NE(changed, before);
  EXPECT_NE(changed.find("segment: yes"), std::string::npos) << changed;
  EXPECT_NE(changed.find("connections: 1"), std::string::npos) << changed;
  world.reset();
  ASSERT_EQ(world.state(), before);

  const std::string debug = "TMPDIR=" + shellQuote(world.tmp()) + " timeout 120 " + radarDebug() +
                            " --yes --env PROBE_LINGER=1 " + shellQuote(dir) + " sandbox_probe ";
  Result alone = shell(debug + "--no-gdb");
  EXPECT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(alone.out, "done\n");
  EXPECT_NE(alone.err.find("in a sandbox"), std::string::npos) << alone.err;
  EXPECT_NE(alone.err.find("as recorded"), std::string::npos) << alone.err;
  EXPECT_EQ(world.state(), before) << alone.err;

  if (haveGdb()) {
    // gdb is in the sandbox with it; when gdb quits, all of it goes.
    Result under_gdb = shell(debug + "--batch -ex run");
    EXPECT_EQ(under_gdb.exit_code, 0) << under_gdb.err;
    EXPECT_NE(under_gdb.out.find("done\n"), std::string::npos) << under_gdb.out;
    EXPECT_EQ(world.state(), before) << under_gdb.err;
  }

  Result unsandboxed = shell(debug + "--no-gdb --no-sandbox");
  EXPECT_EQ(unsandboxed.exit_code, 0) << unsandboxed.err;
  EXPECT_NE(unsandboxed.err.find("not sandboxed"), std::string::npos) << unsandboxed.err;
  const std::string outside = world.state();
  EXPECT_NE(outside.find("segment: yes"), std::string::npos) << outside;
  EXPECT_NE(outside.find("connections: 1"), std::string::npos) << outside;
  EXPECT_NE(outside.find("lingering: 1"), std::string::npos) << outside;
  EXPECT_NE(outside.find("/created 644 new"), std::string::npos) << outside;
}

// Ended from outside (a timeout's SIGTERM, a closed terminal's SIGHUP,
// Ctrl-C), radar debug ends the re-run with everything it started and
// removes its directory.
TEST(Debug, SandboxEndsWithRadarDebug) {
  if (!sandboxAvailable()) GTEST_SKIP() << "the kernel refuses new namespaces here: there is no sandbox to check";
  ProbedWorld world;
  const std::string before = world.state();
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " + joinQuoted(world.command()) +
                     " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  world.reset();
  const uint32_t last = eventNumber(dir, R"(sends a message to outside the recording)");
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    SCOPED_TRACE(strsignal(sig));
    const std::string err_path = testTempDir() + "/err";
    const pid_t debug = ::fork();
    ASSERT_GE(debug, 0);
    if (debug == 0) {
      const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      ::dup2(fd, 2);
      const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
      ::dup2(null, 0);
      ::dup2(null, 1);
      ::setenv("TMPDIR", world.tmp().c_str(), 1);
      ::signal(SIGINT, SIG_DFL);
      const std::string at = std::to_string(last);
      ::execl(radarPath().c_str(), "radar", "debug", "--yes", "--env", "PROBE_LINGER=1", dir.c_str(), "sandbox_probe",
              "--no-gdb", "--at-event", at.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::string err;
    for (int i = 0; i < 3000 && err.find("stopped itself") == std::string::npos; ++i) {
      ::usleep(10000);
      err = slurp(err_path);
    }
    ASSERT_NE(err.find("stopped itself"), std::string::npos) << err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(err, m, std::regex(R"(pid (\d+) stopped itself)"))) << err;
    const pid_t program = std::stoi(m[1]);
    EXPECT_EQ(::kill(program, 0), 0) << "the stopped re-run is there to attach to";
    ASSERT_EQ(::kill(debug, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(debug, &status, 0), debug);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig);
    EXPECT_NE(slurp(err_path).find("the re-run was ended"), std::string::npos) << slurp(err_path);
    EXPECT_NE(::kill(program, 0), 0) << "the re-run outlived radar debug";
    EXPECT_EQ(world.state(), before);
  }
}

// Where the kernel does not let radar debug make namespaces, it says so
// and what to do, and runs nothing; --no-sandbox runs it.
TEST(Debug, WithoutNamespacesSaysSoAndRunsOnlyWhenAsked) {
  // Where the kernel allows them, in a user namespace of its own that may
  // have no more below it; where it refuses them already, as it is.
  if (sandboxAvailable() && shell("unshare -Ur true").exit_code != 0)
    GTEST_SKIP() << "unshare -Ur: user namespaces are not allowed here, nested";
  ProbedWorld world;
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " + joinQuoted(world.command()));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  world.reset();
  const std::string no_namespaces =
      sandboxAvailable() ? "unshare -Ur sh -c 'echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"' - " : "";
  const std::string debug = shellQuote(radarPath()) + " debug --yes " + shellQuote(dir) + " sandbox_probe --no-gdb";
  Result refused = shell(no_namespaces + debug);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_EQ(refused.out, "");
  EXPECT_NE(refused.err.find("cannot sandbox the re-run: cannot make the sandbox's namespaces"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--no-sandbox re-runs it without one"), std::string::npos) << refused.err;
  EXPECT_EQ(world.state().find("/created"), std::string::npos) << "nothing ran";
  Result ran = shell(no_namespaces + debug + " --no-sandbox");
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out, "done\n");
}

}  // namespace radar::testing

namespace radar::testing {
namespace {

// A divergence that comes from an input radar does not record says what
// that input probably is: memory shared with a process that does not run
// in the re-run, a file read as it is now, the clock read live.
TEST(Debug, DivergenceNamesTheUnrecordedInputBehindIt) {
  const std::string scratch = testTempDir();
  const std::string file = scratch + "/said";
  std::ofstream(file) << "then\n";
  struct Case {
    std::vector<std::string> args;
    std::string recorded, cause;
    std::function<void()> before, change;
  };
  const std::vector<Case> cases = {
      {{"shared"},
       "the child wrote 42\n",
       "probable cause, an input radar does not record: memory this process shares with others (anonymous (4 KiB))",
       [] {},
       [] {}},
      {{"file", file},
       "the file says then\n",
       "probable cause, files it read (" + file + ") are read as they are now",
       [&] { std::ofstream(file) << "then\n"; },
       [&] { std::ofstream(file) << "now\n"; }},
      {{"file", file},
       "the file says then\n",
       "probable cause, files it looked for are not there now (" + file + ")",
       [&] { std::ofstream(file) << "then\n"; },
       [&] { ::unlink(file.c_str()); }},
      // A file missing then too is no cause: only the one read is named.
      {{"file", file, scratch + "/never"},
       "the file says then\n",
       "probable cause, files it read (" + file + ") are read as they are now",
       [&] { std::ofstream(file) << "then\n"; },
       [&] { std::ofstream(file) << "now\n"; }},
      {{"clock"},
       "the time is ",
       "probable cause, it read the clock, random numbers or its parent's pid 1 time live (recorded without --nondet, "
       "which "
       "records "
       "them)",
       [] {},
       [] { ::usleep(2000); }},
      // A name made since in the directory it ran in (git clone's destination).
      {{"exists", "made-since"},
       "made-since is not there\n",
       "probable cause, its working directory (" + std::filesystem::canonical(scratch).string() +
           ") changed since it was recorded",
       [&] { ::unlink((scratch + "/made-since").c_str()); },
       [&] { std::ofstream(scratch + "/made-since") << "\n"; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[0]);
    c.before();
    const std::string dir = testTempDir() + "/rec";
    std::vector<std::string> command = {driverProgram("unrecorded_inputs")};
    command.insert(command.end(), c.args.begin(), c.args.end());
    Result rec =
        shell("cd " + shellQuote(scratch) + " && " + shellQuote(radarPath()) + " record -o " + shellQuote(dir) +
              " -- " + joinQuoted(command) + (c.args[0] == "exists" ? " 2>&1" : "") + " | cat");
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    ASSERT_EQ(rec.out.rfind(c.recorded, 0), 0u) << rec.out;
    c.change();
    Result r = shell(radarDebug() + " --yes " + shellQuote(dir) + " " + std::to_string(load(dir).meta.root_pid()) +
                     " --no-gdb");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("left the recording at event"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.cause), std::string::npos) << r.err;
    if (c.args.size() == 3) {
      EXPECT_EQ(r.err.find("files it looked for"), std::string::npos) << r.err;
    }
    if (c.args[0] == "exists") {  // what it wrote where the recording has another call
      EXPECT_NE(r.err.find("the program calls write(fd 2, 28 bytes) \"made-since is there already\\n\" where the "
                           "recording has"),
                std::string::npos)
          << r.err;
    }
  }
  // A divergence with no such input names none.
  std::string printed;
  const std::string calc = recordCalc("10 - (2 + 3)\n", &printed);
  Result fixed = radar({"debug", "--yes", calc, "interpreter", "--no-gdb", "--env", "CALC_FIXED=1"});
  EXPECT_EQ(fixed.exit_code, 1) << fixed.err;
  EXPECT_EQ(fixed.err.find("cause"), std::string::npos) << fixed.err;
}

}  // namespace
}  // namespace radar::testing

namespace radar::testing {
namespace {

// A --nondet recording answers getpid() with the recorded pid; where the
// program hands it back to the kernel (F_SETOWN: nginx's channels), the
// re-run's real pid is meant, in a forked child's ancestor too.
TEST(Debug, TheRecordedPidHandedToTheKernelIsTheReRunsOwn) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record --nondet -o " + shellQuote(dir) + " -- " +
                     shellQuote(driverProgram("own_pid")) + " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "parent: F_SETOWN ok\nchild: F_SETOWN ok\n");
  Recording loaded = load(dir);
  ASSERT_EQ(loaded.logs.size(), 2u);
  for (const auto& l : loaded.logs) {
    const std::string spec = std::to_string(l.header.pid()) + "." + std::to_string(l.header.generation());
    SCOPED_TRACE(spec);
    Result r = radar({"debug", "--yes", dir, spec, "--no-gdb"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace radar::testing

namespace radar::testing {
namespace {

// How a connect in progress ended is the kernel's answer to the program
// (getsockopt SO_ERROR): recorded, told, and given to the re-run, whose
// stand-in socket never connected (pg_isready's re-run took a refused
// connection for an open one).
TEST(Debug, HowAConnectInProgressEndedIsRecordedAndReplayed) {
  const std::string dir = testTempDir() + "/rec";
  Result rec = shell(shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                     shellQuote(driverProgram("connect_outcome")) + " | cat");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "before listen: Connection refused\nlistening: connected\n");
  const std::string events = radar({"events", dir}).out;
  EXPECT_NE(events.find(" ended: it failed: Connection refused. Event"), std::string::npos) << events;
  EXPECT_NE(events.find(" ended: connected. Event"), std::string::npos) << events;
  Result r = shell(radarDebug() + " --yes " + shellQuote(dir) + " connect_outcome --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, rec.out);
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
}

}  // namespace
// A re-run without gdb never waits for good for what radar did not record:
// a parent waiting in sem_wait on a semaphore in shared memory its child
// posts. The waiter is ended, saying where it waited and what the
// recording says it used unseen; exit 1, never "as recorded".
TEST(Debug, AReRunWaitingForWhatWasNotRecordedIsEnded) {
  struct Case {
    const char* mode;
    bool child;        // the waiter is the forked child (else the parent)
    const char* call;  // where it waits
    const char* used;  // the not-seen line
  };
  for (const Case& c : {Case{"shm", false, "in futex (thread ", "maps shared memory (anonymous"}}) {
    SCOPED_TRACE(c.mode);
    Recording rec = record({programPath("unseen"), c.mode});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    int waiter = 0;
    for (const ProcessLog& log : rec.logs)
      if ((log.header.origin() == proto::FORKED) == c.child) waiter = static_cast<int>(log.header.pid());
    ASSERT_NE(waiter, 0);
    Result r = shell("timeout 60 " + radarDebug() + " --yes --stall-after 2 " + shellQuote(rec.dir) + " " +
                     std::to_string(waiter) + " --no-gdb");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find(c.call), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("it waits for something radar did not record"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(std::string("\n  not seen: unseen[") + std::to_string(rec.logs.front().header.pid())),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(c.used), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("0, as recorded"), std::string::npos) << r.err;
  }
}

}  // namespace radar::testing
