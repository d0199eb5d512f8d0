// radar record --sync on real programs: every lock, semaphore, condition
// variable and barrier numbered in the order it happened, and the merge's
// edges from each release to the acquisition it let go on.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <regex>
#include <set>

#include <unistd.h>

#include "recorded.h"
#include "trace/merge.h"

namespace radar::testing {
namespace {

using log::Kind;

std::string syncProgram(const std::string& name) { return std::string(RADAR_SYNC_PROGRAMS) + "/" + name; }

struct SyncOp {
  uint32_t position;
  Kind kind;
  std::string object;  // the record's address bytes, with the process for a private one
  uint64_t number;
  bool failed;
};

// Every synchronization event of the trace, with its object and number.
std::vector<SyncOp> syncOps(const trace::Trace& t) {
  std::vector<SyncOp> ops;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const Kind k = t.events[i].eventKind();
    if (!log::isSyncKind(k)) continue;
    log::Record r;
    std::string error;
    EXPECT_TRUE(t.record(i, &r, nullptr, nullptr, &error)) << error;
    std::string object(r.address);
    if (object.size() == 8) object += "/" + std::to_string(t.events[i].process);
    ops.push_back({i, k, object, r.offset, (t.events[i].flags & trace::kEventFailed) != 0});
  }
  return ops;
}

std::unique_ptr<trace::Trace> load(const std::string& dir) {
  std::string error;
  auto t = trace::loadTrace({dir}, trace::LoadOptions{}, &error);
  EXPECT_TRUE(t) << error;
  return t;
}

// The property, over random programs of 2 to 6 threads: each recorded with
// --sync prints what it prints bare; on each object the numbers are unique
// and a mutex's alternate lock, unlock; every edge of synchronization goes
// from a release (or, at a barrier, an event before it) to an acquisition
// of the same object, earlier in the story and before it by happens-before;
// every lock taken from another thread has its edge.
TEST(Sync, RandomProgramsEdgesInOrderAndHappensBefore) {
  for (unsigned seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const std::string threads = std::to_string(2 + seed % 5);
    const std::vector<std::string> program{syncProgram("sync_random"), std::to_string(seed), threads, "64"};
    const Result bare = shell(shellQuote(program[0]) + " " + program[1] + " " + program[2] + " " + program[3]);
    RecordOptions options;
    options.radar_args = {"--sync"};
    const Recording rec = record(program, options);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_EQ(rec.out, bare.out);
    auto t = load(rec.dir);
    ASSERT_TRUE(t);
    const std::vector<SyncOp> ops = syncOps(*t);
    ASSERT_GT(ops.size(), 100u);
    std::map<uint32_t, const SyncOp*> at;
    std::map<std::string, std::map<uint64_t, const SyncOp*>> by_object;
    for (const SyncOp& op : ops) {
      at[op.position] = &op;
      if (op.failed || !op.number) continue;
      EXPECT_TRUE(by_object[op.object].emplace(op.number, &op).second) << "number " << op.number << " taken twice";
    }
    for (const auto& [object, numbered] : by_object) {
      Kind expected = Kind::MutexLock;
      for (const auto& [number, op] : numbered) {
        if (op->kind != Kind::MutexLock && op->kind != Kind::MutexUnlock) break;
        EXPECT_EQ(op->kind, expected) << "number " << number;
        expected = expected == Kind::MutexLock ? Kind::MutexUnlock : Kind::MutexLock;
      }
    }
    size_t edges = 0;
    for (const trace::Edge& e : t->edges) {
      if (e.why != trace::Edge::Why::Sync) continue;
      ++edges;
      EXPECT_LT(e.from, e.to);
      EXPECT_TRUE(t->happensBefore(e.from, e.to));
      const SyncOp* to = at.at(e.to);
      if (to->kind == Kind::BarrierWait) continue;
      const SyncOp* from = at.at(e.from);
      EXPECT_TRUE(log::isSyncRelease(from->kind)) << log::kindName(from->kind);
      EXPECT_EQ(from->object, to->object);
      EXPECT_LT(from->number, to->number);
    }
    EXPECT_GT(edges, 10u);
    // A lock whose number follows another thread's unlock is told after it.
    for (const auto& [object, numbered] : by_object)
      for (auto it = numbered.begin(); it != numbered.end(); ++it) {
        if (it == numbered.begin() || it->second->kind != Kind::MutexLock) continue;
        const SyncOp* unlock = std::prev(it)->second;
        if (t->events[unlock->position].thread == t->events[it->second->position].thread) continue;
        bool has = false;
        for (auto [b, end] = t->incoming(it->second->position); b != end; ++b)
          has |= b->why == trace::Edge::Why::Sync && b->from == unlock->position;
        EXPECT_TRUE(has) << "lock at event " << it->second->position + 1;
      }
  }
}

// Two processes that take turns through two multiprocessing.Locks (POSIX
// named semaphores): each turn is an edge from one process's sem_post to
// the other's sem_wait, on the same object in both.
TEST(Sync, ProcessSharedLocksTieTwoProcesses) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) GTEST_SKIP() << "no " << python;
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record({python, syncProgram("lock_pingpong.py"), "20"}, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "rounds 20\n");
  auto t = load(rec.dir);
  ASSERT_TRUE(t);
  std::map<uint32_t, SyncOp> at;
  for (const SyncOp& op : syncOps(*t)) at.emplace(op.position, op);
  size_t across = 0;
  std::set<std::string> objects;
  for (const trace::Edge& e : t->edges) {
    if (e.why != trace::Edge::Why::Sync || t->events[e.from].process == t->events[e.to].process) continue;
    const SyncOp& from = at.at(e.from);
    const SyncOp& to = at.at(e.to);
    EXPECT_EQ(from.kind, Kind::SemPost);
    EXPECT_EQ(to.kind, Kind::SemWait);
    EXPECT_EQ(from.object.substr(0, 24), to.object.substr(0, 24));
    EXPECT_EQ(from.object.size(), 32u) << "known by its place in the file both map";
    EXPECT_TRUE(t->happensBefore(e.from, e.to));
    objects.insert(from.object.substr(0, 24));
    ++across;
  }
  EXPECT_EQ(across, 40u) << "20 rounds, two turns each: every turn told";
  EXPECT_EQ(objects.size(), 2u);
  const Result story = radar({"events", rec.dir});
  EXPECT_NE(story.out.find("waits on shared semaphore at inode"), std::string::npos) << story.out.substr(0, 2000);
  EXPECT_NE(story.out.find(", posted by lock_pingpong.py["), std::string::npos);
}

// Real CPython, a multiprocessing Pool and a Manager: recorded with --sync
// it prints what it prints bare; its queues' locks (shared semaphores) tie
// its processes, its interpreter lock (a mutex and a condition variable)
// each process's threads, every such edge in happens-before order, and no
// order of the logs contradicts another.
TEST(Sync, PythonPoolAndManagerTiedThroughTheirLocks) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) GTEST_SKIP() << "no " << python;
  const std::vector<std::string> program{python, syncProgram("pool.py")};
  const Result bare = shell(std::string(python) + " " + shellQuote(program[1]));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  RecordOptions options;
  options.radar_args = {"--sync", "--nondet"};  // --nondet: the manager authenticates with random keys
  const Recording rec = record(program, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  auto t = load(rec.dir);
  ASSERT_TRUE(t);
  size_t across = 0, threads = 0;
  for (const trace::Edge& e : t->edges) {
    if (e.why != trace::Edge::Why::Sync) continue;
    EXPECT_TRUE(t->happensBefore(e.from, e.to));
    const trace::Event &from = t->events[e.from], &to = t->events[e.to];
    if (from.process != to.process) {
      ++across;
      EXPECT_EQ(from.eventKind(), Kind::SemPost);
    } else {
      threads += from.eventKind() == Kind::MutexUnlock && to.eventKind() == Kind::MutexLock;
    }
  }
  EXPECT_GT(across, 0u) << "the queues' locks between the processes";
  EXPECT_GT(threads, 0u) << "the interpreter lock between threads";
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.out.find("contradiction"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("lock-order"), std::string::npos) << check.out;
}

// Two threads that take two mutexes in opposite orders can deadlock, even
// where this run did not (they ran one after the other): a finding. Not
// when a third mutex keeps them apart, nor when one thread does both.
TEST(Sync, LockOrderInversionFound) {
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record({syncProgram("lock_order")}, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const Result check = radar({"check", "--strict", rec.dir});
  EXPECT_NE(check.exit_code, 0) << "a finding, with --strict";
  EXPECT_TRUE(std::regex_search(
      check.out, std::regex(R"(lock-order: lock_order\[\d+\] \(thread 2\) took mutex 0x[0-9a-f]+ while holding mutex )"
                            R"(0x[0-9a-f]+ \(events \d+, \d+\), lock_order\[\d+\] \(thread 3\) took)")))
      << check.out;
  auto t = load(rec.dir);
  ASSERT_TRUE(t);
  size_t found = 0;
  for (const trace::Finding& f : t->findings) found += f.kind == trace::Finding::Kind::LockOrder;
  EXPECT_EQ(found, 1u);
  for (const char* variant : {"gated", "same"}) {
    SCOPED_TRACE(variant);
    const Recording safe = record({syncProgram("lock_order"), variant}, options);
    ASSERT_EQ(safe.exit_code, 0) << safe.err;
    EXPECT_EQ(radar({"check", safe.dir}).out.find("lock-order"), std::string::npos);
  }
  // The random programs never hold two mutexes at once.
  const Recording random = record({syncProgram("sync_random"), "5", "4", "64"}, options);
  EXPECT_EQ(radar({"check", random.dir}).out.find("lock-order"), std::string::npos);
}

// Two threads each holding the mutex the other waits for, killed so: a
// deadlock through locks, told round its cycle; the barrier they met at
// ties each to the other's arrival.
TEST(Sync, LockDeadlockFound) {
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record({syncProgram("lock_deadlock")}, options);
  ASSERT_NE(rec.exit_code, 0) << "killed";
  const Result check = radar({"check", rec.dir});
  EXPECT_TRUE(std::regex_search(
      check.out,
      std::regex(R"(lock-deadlock: lock_deadlock\[\d+\] \(thread (\d)\) waits for mutex (0x[0-9a-f]+), held by )"
                 R"(lock_deadlock\[\d+\] \(thread (\d)\) since event \d+; lock_deadlock\[\d+\] \(thread \3\) waits )"
                 R"(for mutex (0x[0-9a-f]+), held by lock_deadlock\[\d+\] \(thread \1\) since event \d+: none of )"
                 R"(them can go on)")))
      << check.out;
  auto t = load(rec.dir);
  ASSERT_TRUE(t);
  size_t barrier_edges = 0;
  for (const trace::Edge& e : t->edges)
    barrier_edges += e.why == trace::Edge::Why::Sync && t->events[e.to].eventKind() == Kind::BarrierWait;
  EXPECT_EQ(barrier_edges, 2u) << "each thread left the barrier after the other came";
}

// Two processes that pass turns through two semaphores in shared memory
// until each waits for a turn the other never gives: a deadlock through
// semaphores, each waiting for the only process that ever posted its own.
TEST(Sync, SemaphoreDeadlockFound) {
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record({syncProgram("sem_deadlock")}, options);
  ASSERT_NE(rec.exit_code, 0) << "ended by its alarm";
  const Result check = radar({"check", rec.dir});
  EXPECT_TRUE(std::regex_search(
      check.out,
      std::regex(R"(lock-deadlock: sem_deadlock\[(\d+)\] waits for shared semaphore at inode \d+ \+ (\d+), )"
                 R"(posted only by sem_deadlock\[(\d+)\], last at event \d+; sem_deadlock\[\3\] waits for )"
                 R"(shared semaphore at inode \d+ \+ (?!\2)\d+, posted only by sem_deadlock\[\1\], last at )"
                 R"(event \d+: none of them can go on, unless a thread that never did so posts or signals)")))
      << check.out;
}

// Re-runs each recorded process of `dir` `times` times (radar debug
// --no-gdb): "" when every re-run ended as recorded (`in_order`: with no
// thread let go out of its recorded order), else the first report of one
// that did not.
std::string reRunEach(const std::string& dir, int times, bool in_order = false) {
  auto t = load(dir);
  if (!t) return "the recording does not load";
  for (const trace::Process& p : t->processes) {
    const std::string which = std::to_string(p.pid) + "." + std::to_string(p.generation);
    for (int run = 1; run <= times; ++run) {
      const Result r = shell(radarDebug() + " --yes " + shellQuote(dir) + " " + which + " --no-gdb");
      if (r.exit_code != 0 || r.err.find(", as recorded") == std::string::npos ||
          (in_order && r.err.find("out of its recorded order") != std::string::npos))
        return which + ", re-run " + std::to_string(run) + ": " + r.err;
    }
  }
  return "";
}

// Threads whose output is the order they met in (a mutex, a try, a read
// lock, a queue under condition variables, a semaphore): recorded with
// --sync, the re-run holds each thread to its turn on each object and
// prints the recorded output, ten times in a row. Recorded without it, the
// same program's re-runs meet in other orders and say so.
TEST(Sync, ReRunHoldsThreadsToTheRecordedOrder) {
  const std::vector<std::string> program{syncProgram("sync_order"), "4", "50"};
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record(program, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(reRunEach(rec.dir, 10), "");

  const Recording live = record(program);
  ASSERT_EQ(live.exit_code, 0) << live.err;
  int diverged = 0;
  for (int run = 0; run < 3; ++run)
    diverged += shell(radarDebug() + " --yes " + shellQuote(live.dir) + " sync_order --no-gdb").exit_code != 0;
  EXPECT_GT(diverged, 0) << "without the order, another interleaving prints another log";
}

// Random programs of mutexes, timed condition waits, semaphores and
// barriers, and two threads taking two locks in opposite orders: each
// re-run as recorded.
TEST(Sync, RandomProgramsReRunAsRecorded) {
  RecordOptions options;
  options.radar_args = {"--sync"};
  for (const char* seed : {"1", "2", "3"}) {
    const Recording rec = record({syncProgram("sync_random"), seed, "4", "48"}, options);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    EXPECT_EQ(reRunEach(rec.dir, 3), "") << "seed " << seed;
  }
  const Recording rec = record({syncProgram("lock_order")}, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(reRunEach(rec.dir, 3), "");
}

// Whether a thread of the recording waited for CPython's interpreter lock
// until its wait timed out (a condition wait that ended so): it then asked
// the holder to let go by a flag the holder reads without a lock, which a
// re-run cannot place (docs/threads.md).
bool threadsCompetedForTheInterpreterLock(const std::string& dir) {
  auto t = load(dir);
  if (!t) return false;
  for (uint32_t i = 0; i < t->events.size(); ++i) {
    if (t->events[i].eventKind() != Kind::CondWait) continue;
    log::Record r;
    if (t->record(i, &r, nullptr, nullptr, nullptr) && r.result == ETIMEDOUT) return true;
  }
  return false;
}

// Records a CPython program with --sync and --nondet (CPython seeds its
// hashes at random; a Manager authenticates with random keys) and re-runs
// each process ten times: "" when every re-run ended as recorded. Threads
// that share memory with no synchronization radar records can still go
// another way (docs/threads.md): a re-run that did must say so, naming
// the unsynchronized read (threads that raced to a call the order does not
// hold, as two creating descriptors, are named so too), or the thread it
// had to let go out of its recorded order; such a recording is made again,
// up to five times. `skipped`: why no recording re-ran as recorded.
std::string reRunPythonAsRecorded(const std::vector<std::string>& program, std::string* skipped) {
  RecordOptions options;
  options.radar_args = {"--sync", "--nondet"};
  std::string failure;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const Recording rec = record(program, options);
    if (rec.exit_code != 0) return "the recording failed: " + rec.err;
    failure = reRunEach(rec.dir, 10);
    if (failure.empty()) return "";
    if (failure.find("probable cause, memory one thread wrote and another read with no synchronization") ==
            std::string::npos &&
        failure.find("probable cause, another order of threads: ") == std::string::npos)
      return failure;
  }
  *skipped =
      "in five recordings, a re-run went another way where threads met through memory radar does not "
      "record, which it named; the last: " +
      failure;
  return "";
}

// Real CPython, three threads computing longer than the interpreter lock's
// switch interval between their writes: a thread waiting for the lock
// times out and asks the holder to let go by a flag the holder reads
// between bytecodes, with no call. The re-run holds each thread, between
// its calls, until the others' events recorded before its next one are
// replayed -- the request set under the lock among them -- so the holder
// lets go where it did. One more flag is read with no lock of its own (the
// lock's last holder, which a thread letting go reads to decide whether to
// wait for the switch): where its write is counted after the read, a
// re-run can still go another way, and says so. So: a recording whose
// threads competed re-runs as recorded five times in a row, no thread let
// go out of its recorded order, in at most five recordings (without the
// holds, none did: docs/threads.md).
TEST(Sync, PythonThreadsCompetingForTheInterpreterLockReRunAsRecorded) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) GTEST_SKIP() << "no " << python;
  RecordOptions options;
  options.radar_args = {"--sync", "--nondet"};
  std::string failure;
  int competed = 0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const Recording rec = record({python, syncProgram("gil_handover.py"), "6"}, options);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    if (!threadsCompetedForTheInterpreterLock(rec.dir)) continue;
    ++competed;
    failure = reRunEach(rec.dir, 5, true);
    if (failure.empty()) return;
    ASSERT_NE(failure.find("probable cause, memory one thread wrote and another read with no synchronization"),
              std::string::npos)
        << failure;
  }
  if (competed == 0) GTEST_SKIP() << "in five recordings no thread's wait for the interpreter lock timed out";
  ADD_FAILURE() << "none of " << competed << " recordings re-ran as recorded; the last: " << failure;
}

// Real CPython: a multiprocessing Manager with a Pool, four processes that
// meet through shared semaphores, each with threads under the interpreter
// lock: every process re-run as recorded, ten times in a row. A process's
// semaphores shared with processes that do not run in the re-run are
// answered from the recording.
TEST(Sync, PythonPoolAndManagerReRunAsRecorded) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) GTEST_SKIP() << "no " << python;
  std::string skipped;
  EXPECT_EQ(reRunPythonAsRecorded({python, syncProgram("pool.py")}, &skipped), "");
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

// Real CPython, threads under the interpreter lock talking over sockets
// and pipes: a ThreadingHTTPServer (a thread per connection) serving a
// pool of two client threads, and asyncio handing blocking work to a
// thread-pool executor; each re-run as recorded, ten times in a row.
TEST(Sync, PythonThreadedServerAndExecutorReRunAsRecorded) {
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) GTEST_SKIP() << "no " << python;
  std::string skipped;
  EXPECT_EQ(reRunPythonAsRecorded({python, syncProgram("threaded_http.py"), "20"}, &skipped), "");
  EXPECT_EQ(reRunPythonAsRecorded({python, syncProgram("executor.py")}, &skipped), "");
  if (!skipped.empty()) GTEST_SKIP() << skipped;
}

// A thread that spins on a flag another sets with no call between: the
// recorded order would hold the setter behind the spinner's next call for
// ever. The re-run never hangs: it lets the setter go, ends as recorded,
// and says which thread ran without a recorded call. Recorded without
// --sync, the running thread may as well poll a lock the held one took
// (CPython's interpreter lock), and the note says that too.
TEST(Sync, ReRunOfASpinningThreadGoesOnAndSaysSo) {
  for (const bool sync : {true, false}) {
    SCOPED_TRACE(sync ? "--sync" : "without --sync");
    RecordOptions options;
    if (sync) options.radar_args = {"--sync"};
    const Recording rec = record({syncProgram("spin_flag")}, options);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    ASSERT_EQ(rec.out, "setting the flag\ngot 2 bytes\n");
    const Result debug = shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " spin_flag --no-gdb");
    EXPECT_EQ(debug.exit_code, 0) << debug.err;
    EXPECT_NE(debug.err.find("exits with status 0, as recorded"), std::string::npos) << debug.err;
    const std::string why = sync ? "a spin)"
                                 : "a spin, or for a lock the held thread had taken: recorded without --sync, which "
                                   "records the order threads take their locks in)";
    EXPECT_NE(debug.err.find("behind a thread that ran all along without a recorded call (it probably waited on memory "
                             "another thread sets, " +
                             why),
              std::string::npos)
        << debug.err;
    EXPECT_NE(debug.err.find("The running thread's next event: Process spin_flag["), std::string::npos) << debug.err;
  }
}

// A close the recorder counted after another thread had made its number
// again (the close freed it at once, lingered a second, and returned only
// then) is no sign of a descriptor inherited at that number: the re-run
// puts no stand-in there, makes the socket and the pipe at their numbers,
// and ends as recorded.
TEST(Sync, CloseCountedAfterItsNumberWasMadeAgainReRunsAsRecorded) {
  const Recording rec = record({syncProgram("late_close")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "the pipe's read end has the closed socket's number: yes; a byte went through it: yes\n");
  const std::string story = radar({"events", rec.dir}).out;
  const size_t pipe = story.find("creates pipe"), late = story.find("(thread 2) closes its end of tcp");
  ASSERT_NE(pipe, std::string::npos) << story;
  ASSERT_NE(late, std::string::npos) << story;
  ASSERT_LT(pipe, late) << "the close was not counted late: " << story;
  const Result debug = shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " late_close --no-gdb");
  EXPECT_EQ(debug.exit_code, 0) << debug.err;
  EXPECT_NE(debug.err.find("exits with status 0, as recorded"), std::string::npos) << debug.err;
  EXPECT_EQ(debug.out, rec.out);
}

// The same, the close counted 20 000 events after the pipe took its number
// (a thread that waited long for a CPU between its close and the record).
TEST(Sync, CloseCountedFarAfterItsNumberWasMadeAgainReRunsAsRecorded) {
  const Recording rec = record({syncProgram("late_close"), "10000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.out, "the pipe's read end has the closed socket's number: yes; a byte went through it: yes\n");
  const std::string story = radar({"events", rec.dir}).out;
  std::smatch pipe, late;
  ASSERT_TRUE(std::regex_search(story, pipe, std::regex(R"(creates pipe \d+\. Event (\d+)\.)"))) << story;
  ASSERT_TRUE(std::regex_search(story, late, std::regex(R"(\(thread 2\) closes its end of tcp[^\n]*Event (\d+)\.)")));
  ASSERT_GT(std::stoul(late[1]) - std::stoul(pipe[1]), 20000u) << "the close was not counted far later";
  const Result debug = shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " late_close --no-gdb");
  EXPECT_EQ(debug.exit_code, 0) << debug.err;
  EXPECT_NE(debug.err.find("exits with status 0, as recorded"), std::string::npos) << debug.err;
  EXPECT_EQ(debug.out, rec.out);
}

// A thousand threads, each making a pipe and sending itself 100 bytes
// through it (204 002 events): numbers freed by one thread's close are made
// again by another's pipe, often before that close returns. Each re-run
// puts every pipe at its recorded numbers and ends as recorded; so do a
// hundred threads, recorded four times.
TEST(Sync, AThousandThreadsMakingPipesReRunAsRecorded) {
  const auto reRun = [](const std::string& threads, int recordings, int reruns) {
    for (int n = 0; n < recordings; ++n) {
      const Recording rec = record({syncProgram("thread_pipes"), threads, "100"});
      ASSERT_EQ(rec.exit_code, 0) << rec.err;
      ASSERT_EQ(rec.out, threads + " threads, 100 round trips each\n");
      for (int k = 0; k < reruns; ++k) {
        const Result debug =
            shell("timeout 240 " + radarDebug() + " --yes " + shellQuote(rec.dir) + " thread_pipes --no-gdb");
        EXPECT_EQ(debug.exit_code, 0) << debug.err;
        EXPECT_NE(debug.err.find("exits with status 0, as recorded"), std::string::npos) << debug.err;
        EXPECT_EQ(debug.out, rec.out);
      }
    }
  };
  reRun("1000", 1, 2);
  reRun("100", 4, 1);
}

// Without --sync nothing of it is recorded: the hooks only pass the calls on.
// What an operation costs is mostly its clock reads: one that cannot block,
// or finds its object free, is told at one instant; one that waited keeps
// its wait, from its entry to its return. No synchronization event stores
// a descriptor: each is read back as -1.
TEST(Sync, AnOperationThatDidNotWaitIsOneInstantAndAWaitKeepsItsLength) {
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record({syncProgram("lock_wait"), "100"}, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.logs.size(), 1u);
  const ProcessLog& log = rec.logs[0];
  std::vector<const Event*> waited, instant;
  for (const Event& e : log.events) {
    if (!log::isSyncKind(e.kind())) continue;
    EXPECT_EQ(e.r.fd, -1) << log::kindName(e.kind());
    (e.r.return_ns - e.r.entry_ns > 0 ? waited : instant).push_back(&e);
  }
  // The waiter's lock and semaphore wait, each about 200 ms.
  ASSERT_EQ(waited.size(), 2u) << "only the two waits take time";
  EXPECT_EQ(waited[0]->kind(), Kind::MutexLock);
  EXPECT_EQ(waited[1]->kind(), Kind::SemWait);
  for (const Event* e : waited) {
    EXPECT_NE(e->r.tid, 0u) << "the waiter, not main";
    EXPECT_GE(e->r.return_ns - e->r.entry_ns, 50'000'000) << log::kindName(e->kind());
  }
  // main's lock, its unlocks, the post, the waiter's unlock; then 100 rounds
  // of lock, unlock, post and wait.
  EXPECT_GE(instant.size(), 4u + 400u);
}

// The critical path to a lock that waited goes through its holder: the
// holder's time up to its unlock, then the hand-over, named by who woke
// whom and on what; the same for a semaphore's wait and its post.
TEST(Sync, CriticalPathToAWaitNamesItsHolder) {
  RecordOptions options;
  options.radar_args = {"--sync"};
  const Recording rec = record({syncProgram("lock_wait"), "1"}, options);
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string events = radar({"events", rec.dir}).out;
  for (const std::string what : {"takes mutex", "waits on semaphore"}) {
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(events, m,
                          std::regex(R"((lock_wait\[\d+\]) \(thread 2\) )" + what +
                                     R"( (0x[0-9a-f]+), \w+ by lock_wait\[\d+\] at event (\d+)\. Event (\d+)\.)")))
        << events;
    const std::string self = m[1], object = m[2], release = m[3], wait = m[4];
    const Result path = radar({"critical-path", "--to", wait, rec.dir});
    ASSERT_EQ(path.exit_code, 0) << path.err;
    const std::string kind = what == "takes mutex" ? "mutex" : "semaphore";
    EXPECT_TRUE(std::regex_search(
        path.out, std::regex(R"(running +)" + std::regex_replace(self, std::regex(R"([\[\]])"), R"(\$&)") + R"( +)" +
                             release + ":")))
        << "the holder's time, up to its release\n"
        << path.out;
    EXPECT_NE(path.out.find("transit  " + self + " (thread 2), woken by " + self + " (" + kind + " " + object + ")"),
              std::string::npos)
        << path.out;
    const Result json = radar({"critical-path", "--json", "--to", wait, rec.dir});
    EXPECT_NE(json.out.find("\"thread\":2,\"channel\":null,\"event\":" + wait + ",\"woken_by\":" + release + "}"),
              std::string::npos)
        << json.out;
  }
}

TEST(Sync, NotRecordedUnlessAsked) {
  const Recording rec = record({syncProgram("sync_random"), "3", "3", "32"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  for (const ProcessLog& log : rec.logs)
    for (const Event& e : log.events) EXPECT_FALSE(log::isSyncKind(e.kind())) << log::kindName(e.kind());
}

}  // namespace
}  // namespace radar::testing
