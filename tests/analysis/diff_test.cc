// Two runs of one program compared: processes aligned by where they come
// from, not by pid; the first causal difference found and named.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "analysis/diff.h"
#include "fake_recording.h"
#include "log/crc32c.h"
#include "trace/load.h"

namespace radar::analysis {
namespace {

using radar::testing::FakeProcess;
using radar::testing::FakeRecording;
using Kind = RunDifference::Kind;

struct Run {
  std::string first_word = "hello";  // the first message
  bool b_first = false;              // the reader gets writer b's message first (a race)
  int64_t slow = 0;                  // added to the reader's waits
  bool extra_child = false;          // the parent starts one more child
  bool extra_first = false;          // ... before the others
  int32_t pids = 100;                // where pids start
  bool hashes = false;               // loaded keeping the checksums (as radar diff loads)
};

// A parent starts two writers and a reader on one pipe; each writer sends
// one message, the reader reads both.
std::unique_ptr<Trace> record(const Run& run) {
  FakeRecording rec;
  const int32_t p = run.pids;
  FakeProcess& parent = rec.process("parent", p);
  const int32_t q = run.extra_first ? p + 1 : p;  // the pids of the writers and the reader follow it
  if (run.extra_first) {
    parent.fork(p + 1, 8, 9);
    rec.child(parent, "helper", p + 1).exit(0, 30);
  }
  parent.fork(q + 1, 10, 11).fork(q + 2, 12, 13).fork(q + 3, 14, 15);
  if (run.extra_child) parent.fork(p + 4, 16, 17);
  FakeProcess& a = rec.child(parent, "writer", q + 1);
  FakeProcess& b = rec.child(parent, "writer", q + 2);
  FakeProcess& r = rec.child(parent, "reader", q + 3);
  if (run.extra_child) rec.child(parent, "helper", p + 4).exit(0, 30);
  a.pipeEnd(1, 7, true);
  b.pipeEnd(1, 7, true);
  r.pipeEnd(1, 7, false);
  const std::string first = run.first_word, second = "world";
  if (!run.b_first) {
    a.send(1, first, 20, 21);
    b.send(1, second, 30, 31);
    r.receive(1, first, 19, 22 + run.slow).receive(1, second, 23 + run.slow, 32 + run.slow);
  } else {
    b.send(1, second, 20, 21);
    a.send(1, first, 30, 31);
    r.receive(1, second, 19, 22 + run.slow).receive(1, first, 23 + run.slow, 32 + run.slow);
  }
  a.exit(0, 40);
  b.exit(0, 41);
  r.exit(0, 50 + run.slow);
  parent.exit(0, 60 + run.slow);
  trace::LoadOptions options;
  options.keep_hashes = run.hashes;
  return rec.load(options);
}

TEST(Diff, ProcessesAreAlignedByWhereTheyComeFrom) {
  auto t = record({});
  const auto keys = processKeys(*t);
  std::set<std::string> all(keys.begin(), keys.end());
  EXPECT_EQ(all, (std::set<std::string>{"parent", "parent/writer", "parent/writer#2", "parent/reader"}));
}

TEST(Diff, IdenticalRunsWithOtherPidsDoNotDiffer) {
  auto a = record({}), b = record({.pids = 5000});
  const RunDiff d = diffRuns(*a, *b);
  EXPECT_TRUE(d.differences.empty()) << d.differences[0].what;
  EXPECT_EQ(d.processes_matched, 4u);
  EXPECT_TRUE(d.channels.empty());
}

TEST(Diff, RunsDifferingOnlyInTimingHaveNoCausalDifference) {
  auto a = record({}), b = record({.slow = 5'000'000, .pids = 300});
  const RunDiff d = diffRuns(*a, *b, 1.0);
  EXPECT_TRUE(d.differences.empty()) << d.differences[0].what;
  ASSERT_EQ(d.channels.size(), 1u);  // the pipe: its messages waited 5 ms longer
  EXPECT_EQ(d.channels[0].messages_a, d.channels[0].messages_b);
  EXPECT_GT(d.channels[0].latency_ms_b, d.channels[0].latency_ms_a + 4);
  EXPECT_GT(d.duration_ns_b, d.duration_ns_a);
}

// By the bytes, and by the checksums radar diff's load keeps.
TEST(Diff, APlantedChangeOfContentsIsTheFirstDifference) {
  for (const bool hashes : {false, true}) {
    auto a = record({.hashes = hashes}), b = record({.first_word = "HELLO", .hashes = hashes});
    const RunDiff d = diffRuns(*a, *b);
    ASSERT_FALSE(d.differences.empty());
    const RunDifference& first = d.differences.front();
    EXPECT_EQ(first.kind, Kind::Contents) << first.what;
    EXPECT_EQ(a->processName(first.process_a), "writer");  // the send, before the receive that got it
    EXPECT_EQ(log::categoryOf(a->events[first.a].eventKind()), log::Category::Send);
    EXPECT_NE(first.what.find("differ from byte 0"), std::string::npos) << first.what;
    // The same runs: nothing.
    auto same = record({.pids = 700, .hashes = hashes});
    EXPECT_TRUE(diffRuns(*a, *same).differences.empty());
  }
}

// The checksums kept are each send's CRC-32C of its bytes.
TEST(Diff, TheChecksumsKeptAreTheMessages) {
  auto t = record({.hashes = true});
  ASSERT_EQ(t->hashes.size(), t->events.size());
  int sends = 0;
  for (uint32_t i = 0; i < t->events.size(); ++i) {
    const Event& e = t->events[i];
    if (log::categoryOf(e.eventKind()) != log::Category::Send) continue;
    ASSERT_TRUE(e.flags & kEventHasHash);
    const std::string word = t->processes[e.process].pid == 101 ? "hello" : "world";
    EXPECT_EQ(t->hashes[i], crc32c(0, word.data(), word.size())) << i;
    ++sends;
  }
  EXPECT_EQ(sends, 2);
  EXPECT_TRUE(record({}).get()->hashes.empty());
}

TEST(Diff, AReceiveThatTookAnotherMessageIsARace) {
  auto a = record({}), b = record({.b_first = true});
  const RunDiff d = diffRuns(*a, *b);
  bool race = false;
  for (const auto& x : d.differences) race |= x.kind == Kind::Race;
  EXPECT_TRUE(race);
  const RunDifference& first = d.differences.front();
  // In causal order the writers' sends come first: their times differ, not
  // their calls; the first to part is the reader's receive.
  EXPECT_EQ(first.kind, Kind::Race) << first.what;
  EXPECT_NE(first.what.find("from parent/writer in the first run, from parent/writer#2 in the second"),
            std::string::npos)
      << first.what;
}

// Told as the window tells it: the senders by each run's own names.
TEST(Diff, ARaceToldByEachRunsOwnNames) {
  auto a = record({}), b = record({.b_first = true, .pids = 5000});
  const RunDiff d = diffRuns(*a, *b, 1.0, DiffNames::Labels);
  const RunDifference& first = d.differences.front();
  ASSERT_EQ(first.kind, Kind::Race) << first.what;
  EXPECT_NE(first.what.find("from writer[101] in the first run, from writer[5002] in the second"), std::string::npos)
      << first.what;
  auto extra = record({.extra_child = true});
  int only = 0;
  for (const auto& x : diffRuns(*a, *extra, 1.0, DiffNames::Labels).differences)
    if (x.kind == Kind::OnlyInOne) {
      EXPECT_EQ(x.what, "process helper[104] is only in the second run");
      ++only;
    }
  EXPECT_EQ(only, 1);
}

// Findings of two runs as one list: the same finding (one kind, the same
// processes by where they come from, not by their place in the trace)
// once, marked in both; the others each in their run; errors first.
TEST(Diff, FindingsOfBothRunsArePairedByKindAndProcesses) {
  // The second run has one process more, forked first: the others' places differ.
  auto a = record({}), b = record({.extra_first = true, .pids = 5000});
  auto place = [](const Trace& t, const std::string& key) {
    const auto keys = processKeys(t);
    return static_cast<uint32_t>(std::find(keys.begin(), keys.end(), key) - keys.begin());
  };
  auto finding = [](Trace& t, Finding::Kind kind, Finding::Severity severity, uint32_t process) {
    ASSERT_LT(process, t.processes.size());
    Finding f{};
    f.kind = kind;
    f.severity = severity;
    f.processes = {process};
    t.findings.push_back(f);
  };
  finding(*a, Finding::Kind::NeverReceived, Finding::Severity::Warning, place(*a, "parent/reader"));
  finding(*a, Finding::Kind::NeverReceived, Finding::Severity::Warning, place(*a, "parent/writer"));
  finding(*b, Finding::Kind::Abnormal, Finding::Severity::Note, place(*b, "parent/reader"));
  finding(*b, Finding::Kind::NeverReceived, Finding::Severity::Warning, place(*b, "parent/reader"));
  finding(*b, Finding::Kind::NeverReceived, Finding::Severity::Warning, place(*b, "parent/writer#2"));
  finding(*b, Finding::Kind::Deadlock, Finding::Severity::Error, place(*b, "parent/helper"));
  ASSERT_NE(place(*a, "parent/reader"), place(*b, "parent/reader")) << "the test needs the places to differ";
  const auto pairs = pairFindings(*a, *b);
  ASSERT_EQ(pairs.size(), 5u);
  EXPECT_EQ(pairs[0].a, kNone) << "the second run's error first (the helper is in that run only)";
  EXPECT_EQ(pairs[0].b, 3u);
  EXPECT_EQ(pairs[1].a, 0u) << "the reader's never-received in both, one row";
  EXPECT_EQ(pairs[1].b, 1u);
  EXPECT_EQ(pairs[2].a, 1u) << "the first writer's, in the first run only";
  EXPECT_EQ(pairs[2].b, kNone);
  EXPECT_EQ(pairs[3].a, kNone) << "the second writer's, in the second run only";
  EXPECT_EQ(pairs[3].b, 2u);
  EXPECT_EQ(pairs[4].a, kNone);
  EXPECT_EQ(pairs[4].b, 0u);
}

TEST(Diff, AProcessInOneRunOnlyIsSaid) {
  auto a = record({}), b = record({.extra_child = true});
  const RunDiff d = diffRuns(*a, *b);
  bool only = false, call = false;
  for (const auto& x : d.differences) {
    only |= x.kind == Kind::OnlyInOne && x.what.find("parent/helper") != std::string::npos;
    call |= x.kind == Kind::Call;  // the parent's extra fork
  }
  EXPECT_TRUE(only);
  EXPECT_TRUE(call);
}

}  // namespace
}  // namespace radar::analysis
