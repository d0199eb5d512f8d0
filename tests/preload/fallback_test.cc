// The fallback recorder (radarlog/fallback/): programs the interposer cannot
// see into, recorded from outside through ptrace, into the same logs. Each
// call family it records is checked against the interposer's own log of
// the same program; a statically linked program is recorded where it was
// said not to be, its bytes matched, its output unchanged.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "log/escape.h"
#include "recorded.h"

namespace radar::testing {
namespace {

// A recording's logs, in the order their pids were handed out (counted
// from the first process's, as pids wrap around at pid_max), then image order.
std::vector<const ProcessLog*> inOrder(const Recording& rec) {
  std::vector<const ProcessLog*> logs;
  for (const ProcessLog& l : rec.logs) logs.push_back(&l);
  long pid_max = 4194304;
  std::istringstream(slurp("/proc/sys/kernel/pid_max")) >> pid_max;
  int64_t first = 0;
  for (const ProcessLog* l : logs)
    if (l->header.origin() == proto::ROOT) first = l->header.pid();
  auto rank = [&](const ProcessLog* l) {
    return std::make_pair((l->header.pid() - first + pid_max) % pid_max, l->header.generation());
  };
  std::sort(logs.begin(), logs.end(), [&](const ProcessLog* a, const ProcessLog* b) { return rank(a) < rank(b); });
  return logs;
}

// A payload as one line of text, as radar dump writes it (every byte that
// is not printable ASCII, a quote and a backslash escaped): a shape's
// lines, and the patterns applied to them, never depend on the bytes.
std::string payloadText(const std::string& bytes) {
  std::string out;
  log::appendEscaped(out, bytes, log::Escaping::Ascii);
  return out;
}

// What two recordings of one program share, whoever made them: each log's
// events with every field that does not name a pid, an inode, a port or a
// time (pids as their rank in the recording; a readiness call's descriptors
// and timeout included), and each channel as its type, its descriptor, its
// access and how it came.
std::string shape(const Recording& rec) {
  const std::vector<const ProcessLog*> logs = inOrder(rec);
  std::map<int32_t, size_t> rank;
  for (const ProcessLog* l : logs) rank.emplace(l->header.pid(), rank.size());
  auto who = [&](int32_t pid) { return rank.count(pid) ? "p" + std::to_string(rank[pid]) : std::to_string(pid); };
  std::ostringstream out;
  for (const ProcessLog* l : logs) {
    out << "log " << who(l->header.pid()) << "." << l->header.generation() << " origin " << l->header.origin()
        << " argv";
    for (const auto& a : l->header.argv()) out << " " << a;
    out << "\n";
    for (const auto& [index, c] : l->channels)
      out << "  channel " << index << " type " << c.type() << " fd " << c.fd() << " access " << c.access() << " origin "
          << c.origin() << " external " << c.external() << "\n";
    for (const Event& e : l->events) {
      const log::Record& r = e.r;
      const bool names_a_pid = r.kind == log::Kind::Fork || r.kind == log::Kind::Vfork || r.kind == log::Kind::Wait;
      const std::string result =
          names_a_pid && r.result > 0 ? who(static_cast<int32_t>(r.result)) : std::to_string(r.result);
      out << "  " << log::kindName(r.kind) << " fd " << r.fd << " ch " << r.channel << " size " << r.size << " result "
          << result << " error " << r.error << " flags " << r.flags << " status " << r.status << " signal " << r.signal
          << " peer " << (r.peer_pid ? who(r.peer_pid) : "-") << " offset " << r.offset << " hash "
          << (r.has_hash ? r.hash : 0) << " payload \"" << payloadText(e.payload) << "\" omitted " << r.payload_omitted
          << " address " << e.address.size() << " fds";
      for (int32_t fd : r.fds) out << " " << fd;
      for (uint64_t n : r.lengths) out << " len " << n;
      for (const log::ReadyFd& ready : r.ready)
        out << " ready " << ready.fd << "/" << ready.events << "/" << ready.data;
      if (r.has_timeout) out << " timeout " << r.timeout_ms;
      for (const std::string& s : e.strings) out << " '" << s << "'";
      out << "\n";
    }
  }
  return out.str();
}

// The first lines where two shapes part (the whole of them is long).
std::string firstDifference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string left, right;
  for (int line = 1;; ++line) {
    const bool more_left = static_cast<bool>(std::getline(x, left)),
               more_right = static_cast<bool>(std::getline(y, right));
    if (!more_left && !more_right) return "";
    if (left != right || more_left != more_right)
      return "line " + std::to_string(line) + ":\n  " + left + "\n  " + right;
  }
}

std::string recorderOf(const ProcessLog& l) { return l.header.recorder_version(); }

TEST(Fallback, EachCallFamilyIsRecordedAsTheInterposerRecordsIt) {
  const Recording interposed = record({programPath("call_families")});
  const Recording traced = record({programPath("call_families")}, {{"--fallback", "always"}});
  ASSERT_EQ(interposed.exit_code, 0) << interposed.err;
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(traced.out, interposed.out);
  EXPECT_EQ(traced.out, "call families: done\n");
  ASSERT_EQ(traced.logs.size(), 4u) << traced.err;
  for (const ProcessLog& l : traced.logs)
    EXPECT_NE(recorderOf(l).find("(fallback: ptrace)"), std::string::npos) << l.path;
  for (const ProcessLog& l : interposed.logs) EXPECT_EQ(recorderOf(l).find("fallback"), std::string::npos);
  EXPECT_EQ(firstDifference(shape(traced), shape(interposed)), "");
  const Result check = radar({"check", traced.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(", 0 with no recorded sender"), std::string::npos) << check.out;
}

// A two-process test program run in `mode`, recorded by the interposer and
// by the fallback, each run as it runs bare; the second one's story is
// checked: every byte received had its recorded sender.
std::pair<Recording, Recording> recordedBothWays(const std::string& program, const std::string& mode) {
  std::pair<Recording, Recording> both{record({programPath(program), mode}),
                                       record({programPath(program), mode}, {{"--fallback", "always"}})};
  const auto& [interposed, traced] = both;
  EXPECT_EQ(interposed.exit_code, 0) << interposed.err;
  EXPECT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(traced.out, interposed.out);
  EXPECT_EQ(traced.logs.size(), 2u) << traced.err;
  const Result check = radar({"check", traced.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(", 0 with no recorded sender"), std::string::npos) << check.out;
  return both;
}

// Eventfds made, inherited, counted through (read, write, poll, epoll):
// the fallback's logs are the interposer's, and both processes' counts
// are matched.
TEST(Fallback, EventfdsAreRecordedAsTheInterposerRecordsThem) {
  for (const char* mode : {"pair", "reuse", "count"}) {
    const auto [interposed, traced] = recordedBothWays("eventfds", mode);
    EXPECT_EQ(firstDifference(shape(traced), shape(interposed)), "") << mode;
    // The count an inherited eventfd held, which the merge pairs ends by
    // (the kernel prints it in hex: 26 is "1a").
    if (std::string(mode) == "count")
      for (const Recording* rec : {&interposed, &traced}) {
        std::vector<uint64_t> counts;
        for (const ProcessLog& l : rec->logs)
          for (const auto& [index, c] : l.channels)
            if (c.type() == proto::EVENTFD) counts.push_back(c.count());
        EXPECT_EQ(counts, (std::vector<uint64_t>{26, 26})) << rec->dir;
      }
  }
}

// POSIX message queues opened, messages sent and taken by priority, the
// attributes asked, a notification by signal, the queues unlinked; a
// System V queue's messages taken by type, its state asked: the
// fallback's logs are the interposer's.
TEST(Fallback, MessageQueuesAreRecordedAsTheInterposerRecordsThem) {
  for (const char* mode : {"pair", "notify", "sysv"}) {
    const auto [interposed, traced] = recordedBothWays("message_queues", mode);
    // What differs from run to run: the POSIX queues are named after the
    // parent's pid, the kernel numbers a System V queue, whose state
    // (msgctl's payload) has times and pids.
    auto runFree = [](std::string shape) {
      shape = std::regex_replace(shape, std::regex(R"((/radar-mq-[a-z]+-)\d+)"), "$1PID");
      shape = std::regex_replace(shape, std::regex(R"((msgget fd -1 ch \d+ size \d+ result )\d+)"), "$1ID");
      return std::regex_replace(shape, std::regex(R"((msgctl .* payload ")(\\.|[^"\\])*)"), "$1STATE");
    };
    EXPECT_EQ(firstDifference(runFree(shape(traced)), runFree(shape(interposed))), "") << mode;
  }
}

// io_uring's requests, recorded by the fallback as the calls they stand
// for (a READ as a read, a SEND as a send ...): a program's log through its
// rings is the interposer's log of its twin, which makes the same calls
// through the C library; every byte is matched to its send.
TEST(Fallback, IoUringRequestsAreRecordedAsTheCallsTheyStandFor) {
  for (const std::string mode : {"pipe", "socket"}) {
    SCOPED_TRACE(mode);
    // (By default: a program that uses liburing is the fallback's.)
    const Recording traced = record({programPath("uring"), mode});
    if (traced.exit_code == 77)
      GTEST_SKIP() << "the test program was built without liburing (apt-get install liburing-dev)";
    const Recording twin = record({programPath("uring"), mode, "libc"}, {{"--fallback", "off"}});
    ASSERT_EQ(traced.exit_code, 0) << traced.err;
    ASSERT_EQ(twin.exit_code, 0) << twin.err;
    for (const ProcessLog& l : twin.logs) EXPECT_EQ(recorderOf(l).find("fallback"), std::string::npos) << l.path;
    EXPECT_EQ(traced.out, twin.out);
    EXPECT_EQ(traced.err.find("not seen"), std::string::npos) << traced.err;
    for (const ProcessLog& l : traced.logs)
      EXPECT_NE(recorderOf(l).find("(fallback: ptrace)"), std::string::npos) << l.path;
    const std::string twin_shape = std::regex_replace(shape(twin), std::regex(" libc\n"), "\n");
    EXPECT_EQ(firstDifference(shape(traced), twin_shape), "");
    const Result check = radar({"check", traced.dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    const std::string matched = mode == "pipe" ? "received 14: 14 matched" : "received 48: 48 matched";
    EXPECT_NE(check.out.find(matched), std::string::npos) << check.out;
    EXPECT_NE(check.out.find(", 0 with no recorded sender"), std::string::npos) << check.out;
  }
}

// A request's arguments as the kernel took them: the readv's vector, gone
// from the program's memory before the data came, still says where the
// bytes went.
TEST(Fallback, AnIoUringRequestIsReadAsTheKernelTookIt) {
  const Recording rec = record({programPath("uring"), "reuse"});
  if (rec.exit_code == 77) GTEST_SKIP() << "the test program was built without liburing (apt-get install liburing-dev)";
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "child read: hello\n");
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("received 7: 7 matched"), std::string::npos) << check.out;
  size_t found = 0;
  for (const ProcessLog& l : rec.logs)
    for (const Event& e : l.events)
      if (e.r.kind == log::Kind::Readv) found += e.r.size == 15 && e.r.result == 6 && e.r.has_hash;
  EXPECT_EQ(found, 1u);
}

// The same program run by a shell: its exec is traced, its rings followed.
TEST(Fallback, AProgramExecutedThatUsesIoUringIsRecordedByTheFallback) {
  const Recording rec = record({"sh", "-c", shellQuote(programPath("uring")) + " pipe"});
  if (rec.exit_code == 77) GTEST_SKIP() << "the test program was built without liburing (apt-get install liburing-dev)";
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "child read 14: one\ntwo three\n");
  size_t traced = 0;
  for (const ProcessLog& l : rec.logs) traced += recorderOf(l).find("(fallback: ptrace)") != std::string::npos;
  EXPECT_EQ(traced, 2u) << rec.err;  // the program and its child, not the shell
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("received 14: 14 matched"), std::string::npos) << check.out;
}

// A ring the kernel polls takes requests with no system call: the fallback
// cannot follow it, and says so; what the reader got is blamed on nobody.
TEST(Fallback, AnIoUringRingTheKernelPollsIsSaidUnseen) {
  const Recording traced = record({programPath("uring"), "sqpoll"}, {{"--fallback", "always"}});
  if (traced.exit_code == 77)
    GTEST_SKIP() << "the test program was built without liburing (apt-get install liburing-dev)";
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_EQ(traced.out, "child read 14: one\ntwo three\n");
  EXPECT_NE(traced.err.find("uses io_uring (a ring the kernel polls)"), std::string::npos) << traced.err;
  const Result check = radar({"check", traced.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(", 0 with no recorded sender"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("not seen: uring["), std::string::npos) << check.out;
}

// What the fallback does not record either (memory shared between
// processes, a POSIX semaphore) is said as the interposer says it, never
// left silent.
TEST(Fallback, SharedMemoryAndSemaphoresAreSaidUnseen) {
  for (const auto& [mode, said] : {std::pair<std::string, std::string>{"shm", "maps shared memory (anonymous, 1 KiB)"},
                                   {"sem", "opens a POSIX semaphore"}}) {
    SCOPED_TRACE(mode);
    const Recording traced = record({programPath("unseen"), mode}, {{"--fallback", "always"}});
    ASSERT_EQ(traced.exit_code, 0) << traced.err;
    EXPECT_NE(traced.err.find("unseen: " + said + ": "), std::string::npos) << traced.err;
    const Result check = radar({"check", "--strict", traced.dir});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("] " + said), std::string::npos) << check.out;
  }
}

// Statically linked: the interposer cannot be loaded into it, the fallback
// records it; the same program dynamic, recorded by the interposer, has
// the same story.
TEST(Fallback, AStaticallyLinkedProgramIsRecordedAsItsDynamicTwin) {
  const Recording twin = record({programPath("call_families")});
  const Recording rec = record({programPath("static_call_families")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "call families: done\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  ASSERT_EQ(rec.logs.size(), 4u) << rec.err;
  std::string expected = shape(twin), got = shape(rec);
  // Their argv[0] differs; the glibc startup of the static one reads no
  // channel, nor does the dynamic one's.
  for (std::string* s : {&expected, &got})
    for (size_t at; (at = s->find("static_call_families")) != std::string::npos;) s->replace(at, 20, "call_families");
  EXPECT_EQ(firstDifference(got, expected), "");
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

// A static program radar record runs: recorded, where it used to be said
// not recorded; off, it is as it was.
TEST(Fallback, AStaticProgramRunByRadarRecordIsRecorded) {
  const Recording rec = record({programPath("static_upper")}, {{}, "hello\nworld\n"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "HELLO\nWORLD\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  ASSERT_EQ(rec.logs.size(), 1u) << rec.err;
  const ProcessLog& l = rec.logs[0];
  EXPECT_NE(recorderOf(l).find("(fallback: ptrace)"), std::string::npos);
  // Its standard output is a file: what it wrote there, as a checksum.
  ASSERT_EQ(l.outputs.size(), 1u);
  EXPECT_EQ(l.outputs[0].result, 12);
  EXPECT_EQ(l.outputs[0].hash, crc("HELLO\nWORLD\n"));
  ASSERT_NE(l.first(log::Kind::Exit), nullptr);
  EXPECT_EQ(l.first(log::Kind::Exit)->r.status, 0);
  const Recording off = record({programPath("static_upper")}, {{"--fallback", "off"}, "hello\n"});
  EXPECT_EQ(off.out, "HELLO\n");
  EXPECT_TRUE(off.logs.empty());
  EXPECT_NE(off.err.find("not recorded: statically linked"), std::string::npos) << off.err;
}

// A whole shell pipeline recorded by the fallback: its output unchanged,
// every byte matched to its send, the images of each process linked.
TEST(Fallback, AShellPipelineRecordedWhollyMatchesEveryByte) {
  const std::string line = "printf 'one\\ntwo\\nthree\\n' | tr a-z A-Z | sort -r | cat";
  const Recording rec = record({"sh", "-c", line}, {{"--fallback", "always"}});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "TWO\nTHREE\nONE\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("bytes sent 42, received 42: 42 matched to their sends"), std::string::npos) << check.out;
  const Result told = radar({"events", rec.dir});
  EXPECT_NE(told.out.find("bin/tr"), std::string::npos) << told.out;  // (where PATH finds it)
  EXPECT_NE(told.out.find("exits with status 0"), std::string::npos) << told.out;
}

// The program radar record runs, once it runs: a child of radar record.
pid_t programOf(pid_t recorder) {
  for (int tries = 0; tries < 1000; ++tries) {
    std::istringstream children(
        slurp("/proc/" + std::to_string(recorder) + "/task/" + std::to_string(recorder) + "/children"));
    pid_t pid = 0;
    while (children >> pid)
      if (slurp("/proc/" + std::to_string(pid) + "/comm") == "static_upper\n") return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

// Killed with SIGKILL while it writes: every call it completed is in its
// log, which reads as any other.
TEST(Fallback, AProcessKilledMidRunLosesNoCompletedCall) {
  const std::string dir = testTempDir() + "/killed";
  const std::string out = testTempDir() + "/received";
  const pid_t recorder = spawn({"/bin/sh", "-c",
                                "exec " + shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- " +
                                    shellQuote(programPath("static_upper")) + " < /dev/zero > " + shellQuote(out)},
                               -1, -1);
  ASSERT_GT(recorder, 0);
  const pid_t program = programOf(recorder);
  if (program > 0) {
    // Some of its writes done, then killed.
    for (int tries = 0; tries < 1000 && slurp(out).size() < 100000; ++tries)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(program, SIGKILL);
  } else {
    ::kill(recorder, SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(recorder, &status, 0), recorder);
  ASSERT_GT(program, 0) << "static_upper never ran under radar record";
  const Recording rec = load(dir);
  ASSERT_EQ(rec.logs.size(), 1u);
  EXPECT_TRUE(rec.logs[0].error.empty()) << rec.logs[0].error;
  uint64_t written = 0;
  for (const log::Record& r : rec.logs[0].outputs) written += static_cast<uint64_t>(r.result);
  const uint64_t received = slurp(out).size();
  EXPECT_GE(received, 100000u);
  // What the file got is what the log says was written, but for the one
  // write the kill may have cut between its return and its record.
  EXPECT_LE(written, received);
  EXPECT_GE(written + 4096, received);
}

// A set-user-ID program executed under the fallback: traced, it would run
// without its privileges. It is let go, and said not recorded, as under
// the interposer.
TEST(Fallback, ASetUserIdProgramIsLetGoNotStrippedOfItsPrivileges) {
  struct stat st {};
  if (::stat("/usr/bin/mount", &st) != 0 || !(st.st_mode & S_ISUID)) GTEST_SKIP() << "no set-user-ID /usr/bin/mount";
  const Recording rec =
      record({"sh", "-c", "/usr/bin/mount --version > /dev/null && echo done"}, {{"--fallback", "always"}});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "done\n");
  EXPECT_NE(rec.err.find("/usr/bin/mount: not recorded: set-user-ID or set-group-ID"), std::string::npos) << rec.err;
  EXPECT_TRUE(rec.byExe("mount").empty());
  const Result told = radar({"events", rec.dir});
  EXPECT_NE(told.out.find("executes /usr/bin/mount"), std::string::npos) << told.out;
}

// A process that kills itself never returns from kill: the kill is told
// at its entry, as the interposer tells it before the call.
TEST(Fallback, AKillOfItselfThatNeverReturnsIsRecorded) {
  const Recording rec = record({"sh", "-c", "kill -KILL $$"}, {{"--fallback", "always"}});
  EXPECT_EQ(rec.exit_code, 128 + SIGKILL) << rec.err;
  ASSERT_EQ(rec.logs.size(), 1u) << rec.err;
  const Event* kill = rec.logs[0].first(log::Kind::Kill);
  ASSERT_NE(kill, nullptr) << "no KILL in the log";
  EXPECT_EQ(kill->r.signal, SIGKILL);
  EXPECT_EQ(kill->r.peer_pid, rec.logs[0].header.pid());
}

// A program that traces others needs what radar traces: strace attaching
// to its child, gdb's child asking to be traced (PTRACE_TRACEME). Each
// works as it would without radar; the process let go is said unseen from
// there.
TEST(Fallback, AProgramThatTracesIsNotBroken) {
  if (::access("/usr/bin/strace", X_OK) != 0 || ::access("/usr/bin/gdb", X_OK) != 0)
    GTEST_SKIP() << "strace or gdb is missing";
  const Recording straced =
      record({"/usr/bin/strace", "-f", "-o", "/dev/null", "/bin/echo", "traced"}, {{"--fallback", "always"}});
  ASSERT_EQ(straced.exit_code, 0) << straced.err;
  EXPECT_EQ(straced.out, "traced\n");
  const Result check = radar({"check", straced.dir});
  EXPECT_NE(check.out.find("is traced by another program (by process "), std::string::npos) << check.out;
  const Recording debugged = record({"/usr/bin/gdb", "-nx", "-batch", "-ex", "run", "--args", "/bin/echo", "debugged"},
                                    {{"--fallback", "always"}});
  ASSERT_EQ(debugged.exit_code, 0) << debugged.err;
  EXPECT_NE(debugged.out.find("debugged\n"), std::string::npos) << debugged.out;
  EXPECT_NE(debugged.out.find("exited normally"), std::string::npos) << debugged.out;
  const Result told = radar({"check", debugged.dir});
  EXPECT_NE(told.out.find("is traced by another program (PTRACE_TRACEME: its parent traces it)"), std::string::npos)
      << told.out;
}

// Job control through the tracer: a stopped child stays stopped until
// SIGCONT, then ends as it would have.
TEST(Fallback, AStoppedProcessStaysStoppedUntilContinued) {
  const std::string line =
      "sleep 1 & p=$!; kill -STOP $p; sleep 0.3; grep State /proc/$p/status; kill -CONT $p; wait $p; echo ended $?";
  const auto started = std::chrono::steady_clock::now();
  const Recording rec = record({"sh", "-c", line}, {{"--fallback", "always"}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  // Stopped ("t (tracing stop)" under a tracer, "T (stopped)" without).
  EXPECT_TRUE(rec.out.find("State:\tt") == 0 || rec.out.find("State:\tT") == 0) << rec.out;
  EXPECT_NE(rec.out.find("ended 0"), std::string::npos) << rec.out;
  EXPECT_LT(seconds, 30.0);
}

// The log `child` is linked to (its header's parent log), or null.
const ProcessLog* parentOf(const Recording& rec, const ProcessLog& child) {
  for (const ProcessLog& l : rec.logs)
    if (l.header.log_id() == child.header.parent_log_id()) return &l;
  return nullptr;
}

bool byTheFallback(const ProcessLog& l) { return recorderOf(l).find("(fallback: ptrace)") != std::string::npos; }

// A static program in the middle of a pipeline a dynamic shell runs: the
// shell's child asks radar record to trace it through its exec, and the
// static image is recorded by the fallback, linked to the shell's EXEC,
// between two images the interposer records. Off, it is as it was.
TEST(Fallback, ADynamicParentExecingAStaticChildHasItRecorded) {
  const std::string line = "printf 'hello\\nworld\\n' | " + shellQuote(programPath("static_upper")) + " | cat";
  const Recording rec = record({"sh", "-c", line});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "HELLO\nWORLD\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const ProcessLog* upper = rec.onlyExe("static_upper");
  ASSERT_NE(upper, nullptr) << rec.err;
  EXPECT_TRUE(byTheFallback(*upper));
  EXPECT_EQ(upper->header.origin(), proto::EXECED);
  EXPECT_EQ(upper->header.generation(), 1u);
  const ProcessLog* shell = parentOf(rec, *upper);
  ASSERT_NE(shell, nullptr);
  EXPECT_FALSE(byTheFallback(*shell));
  EXPECT_EQ(shell->header.pid(), upper->header.pid());
  ASSERT_NE(shell->first(log::Kind::Exec), nullptr);
  EXPECT_EQ(upper->header.parent_counter(), shell->first(log::Kind::Exec)->r.counter);
  ASSERT_NE(rec.onlyExe("cat"), nullptr);
  EXPECT_FALSE(byTheFallback(*rec.onlyExe("cat")));
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("bytes sent 24, received 24: 24 matched to their sends"), std::string::npos) << check.out;
  const Recording off = record({"sh", "-c", line}, {{"--fallback", "off"}});
  EXPECT_EQ(off.out, "HELLO\nWORLD\n");
  EXPECT_TRUE(off.byExe("static_upper").empty());
  EXPECT_NE(off.err.find("static_upper: not recorded: statically linked"), std::string::npos) << off.err;
}

// A static program whose children are traced too: its forks are followed,
// and nothing it runs is recorded twice.
TEST(Fallback, AStaticChildsOwnChildrenAreTracedWithIt) {
  const Recording rec = record({"sh", "-c", shellQuote(programPath("static_call_families")) + "; echo $?"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "call families: done\n0\n");
  const std::vector<const ProcessLog*> logs = rec.byExe("static_call_families");
  ASSERT_EQ(logs.size(), 4u) << rec.err;
  for (const ProcessLog* l : logs) EXPECT_TRUE(byTheFallback(*l)) << l->path;
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(", 0 with no recorded sender"), std::string::npos) << check.out;
}

// A static program executed by a thread other than the first, found along
// PATH (execvp): the kernel tells the exec under the process's id; its
// image is recorded, linked to that thread's EXEC, and no other log is
// made for the process.
TEST(Fallback, AStaticProgramExecutedByASecondThreadIsRecorded) {
  const std::string programs = programPath("static_upper").substr(0, programPath("static_upper").rfind('/'));
  const Recording rec = record(
      {"/usr/bin/env", "PATH=/nonexistent:" + programs + ":/usr/bin:/bin", programPath("thread_exec"), "static_upper"},
      {{}, "hello\n"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "HELLO\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const ProcessLog* upper = rec.onlyExe("static_upper");
  ASSERT_NE(upper, nullptr) << rec.err;
  EXPECT_TRUE(byTheFallback(*upper));
  const ProcessLog* parent = parentOf(rec, *upper);
  ASSERT_NE(parent, nullptr);
  EXPECT_EQ(parent->exe(), "thread_exec");
  for (const ProcessLog& l : rec.logs)
    EXPECT_TRUE(&l == upper || !byTheFallback(l)) << l.path << " (a stray log of the fallback)";
}

// Python starts a static program as a vfork child (subprocess): traced
// from the vfork child's exec. An exec that fails (the file is not
// executable) lets the thread go: it goes on untraced, recorded by the
// interposer.
TEST(Fallback, AVforkChildsStaticProgramIsRecordedAndAFailedExecLetGo) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 is missing";
  const std::string unrunnable = testTempDir() + "/static_upper";
  ASSERT_EQ(shell("cp " + shellQuote(programPath("static_upper")) + " " + unrunnable + " && chmod -x " + unrunnable)
                .exit_code,
            0);
  const std::string script =
      "import os, subprocess\n"
      "try:\n"
      "    os.execv('" +
      unrunnable +
      "', ['x'])\n"
      "except OSError as e:\n"
      "    print('failed', e.errno)\n"
      "print([l for l in open('/proc/self/status') if l.startswith('TracerPid')][0].split()[1])\n"
      "print(subprocess.run(['" +
      programPath("static_upper") +
      "'], input=b'abc', "
      "capture_output=True).stdout.decode())\n";
  const Recording rec = record({"/usr/bin/python3", "-c", script});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "failed 13\n0\nABC\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const ProcessLog* upper = rec.onlyExe("static_upper");
  ASSERT_NE(upper, nullptr) << rec.err;
  EXPECT_TRUE(byTheFallback(*upper));
  EXPECT_EQ(upper->header.origin(), proto::VFORKED);
  const ProcessLog* python = parentOf(rec, *upper);
  ASSERT_NE(python, nullptr);
  EXPECT_FALSE(byTheFallback(*python));
  EXPECT_NE(python->first(log::Kind::ExecFailed), nullptr);
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("bytes sent 6, received 6: 6 matched to their sends"), std::string::npos) << check.out;
}

// Python's os.posix_spawn of a static program: the process spawned is
// traced from its exec, linked to its spawner's story as a spawn.
TEST(Fallback, AStaticProgramStartedByPosixSpawnIsRecorded) {
  if (::access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "/usr/bin/python3 is missing";
  const std::string script =
      "import os\n"
      "pid = os.posix_spawn('" +
      programPath("static_upper") +
      "', ['static_upper'], os.environ)\n"
      "print(os.waitpid(pid, 0)[1])\n";
  const Recording rec = record({"/usr/bin/python3", "-c", script}, {{}, "abc\n"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "ABC\n0\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const ProcessLog* upper = rec.onlyExe("static_upper");
  ASSERT_NE(upper, nullptr) << rec.err;
  EXPECT_TRUE(byTheFallback(*upper));
  EXPECT_EQ(upper->header.origin(), proto::SPAWNED);
  const ProcessLog* python = parentOf(rec, *upper);
  ASSERT_NE(python, nullptr);
  EXPECT_FALSE(byTheFallback(*python));
  ASSERT_NE(python->first(log::Kind::Spawn), nullptr);
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  for (const ProcessLog& l : rec.logs)
    EXPECT_TRUE(&l == upper || !byTheFallback(l)) << l.path << " (a stray log of the fallback)";
}

}  // namespace
}  // namespace radar::testing
