// The merge on hand-made recordings whose answers are known.
#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <set>

#include <zstd.h>

#include "analysis/narrative.h"
#include "fake_recording.h"
#include "log/format.h"
#include "log/wire.h"
#include "log/writer.h"
#include "radar/proto/radarlog.pb.h"
#include "trace/display.h"
#include "trace/findings.h"
#include "trace/load.h"
#include "trace/merge.h"

namespace radar::testing {
namespace {

using trace::Edge;
using trace::Finding;
using trace::kNone;
using trace::Trace;

// Position of the n-th event (1-based counter) of the process with this pid.
uint32_t at(const Trace& t, int32_t pid, uint32_t counter) {
  for (const auto& p : t.processes)
    if (p.pid == pid) return t.counter_events[p.index].at(counter - 1);
  ADD_FAILURE() << "no process " << pid;
  return 0;
}

std::vector<std::pair<uint32_t, uint32_t>> messages(const Trace& t) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const Edge& e : t.edges)
    if (e.why == Edge::Why::Message) out.push_back({e.from, e.to});
  return out;
}

const Finding* findingOf(const Trace& t, Finding::Kind kind) {
  for (const auto& f : t.findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

// Every edge goes forward in the linear order (one between threads of a
// process too); every process's events are in the story's order, each
// thread's in counter order; numbers follow RADAR's rule.
void expectConsistent(const Trace& t) {
  for (const Edge& e : t.edges) EXPECT_LT(e.from, e.to);
  for (const auto& list : t.process_events)
    for (size_t k = 1; k < list.size(); ++k) EXPECT_LT(list[k - 1], list[k]);
  for (const auto& list : t.counter_events)
    for (size_t k = 1; k < list.size(); ++k) {
      EXPECT_EQ(t.events[list[k]].counter, t.events[list[k - 1]].counter + 1);
      for (size_t j = 0; j < k; ++j)
        if (t.events[list[j]].thread == t.events[list[k]].thread) {
          EXPECT_LT(list[j], list[k]);
        }
    }
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    uint32_t want = 0;
    const uint32_t pred = t.localPredecessor(i);
    if (pred != kNone) want = t.events[pred].number;
    auto [b, e] = t.incoming(i);
    for (; b != e; ++b)
      if (t.events[b->from].process != t.events[i].process) want = std::max(want, t.events[b->from].number);
    EXPECT_EQ(t.events[i].number, want + 1) << "event " << i;
  }
}

// The four cases of the Interaction Network paper (Fig. 2): blocking or
// non-blocking send, message or receiver first.
struct Case {
  bool blocking, message_first;
};
class InteractionNetwork : public ::testing::TestWithParam<Case> {};

TEST_P(InteractionNetwork, MatchedOrderedNumberedAndShown) {
  const Case c = GetParam();
  FakeRecording rec;
  FakeProcess& s = rec.process("sender", 100).pipeEnd(1, 11, true);
  FakeProcess& r = rec.process("receiver", 200).pipeEnd(1, 11, false);
  // The receiver is either in its receive before the message comes (from
  // t=5) or comes to it after the message waited (from t=20).
  const int64_t recv_entry = c.message_first ? 20 : 5;
  s.send(1, "message", 10, 11);
  r.receive(1, "message", recv_entry, 21);
  if (c.blocking) {
    // Synchronous: the sender waits for the receiver's unblocking reply.
    s.pipeEnd(2, 12, false).receive(2, "ack", 12, 41);
    r.pipeEnd(2, 12, true).send(2, "ack", 30, 31);
  }
  s.exit(0, 50);
  r.exit(0, 51);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t send = at(*t, 100, 1), receive = at(*t, 200, 1);
  auto m = messages(*t);
  ASSERT_GE(m.size(), 1u);
  EXPECT_EQ(m[0], std::make_pair(send, receive));
  EXPECT_EQ(t->bytes_matched, c.blocking ? 10u : 7u);
  EXPECT_TRUE(t->happensBefore(send, receive));
  EXPECT_FALSE(t->happensBefore(receive, send));
  EXPECT_EQ(t->events[send].number, 1u);
  EXPECT_EQ(t->events[receive].number, 2u);  // max(0, 1) + 1
  if (c.blocking) {
    const uint32_t ack = at(*t, 200, 2), unblocked = at(*t, 100, 2);
    EXPECT_EQ(m[1], std::make_pair(ack, unblocked));
    EXPECT_EQ(t->events[unblocked].number, 4u);  // max(1, 3) + 1
    EXPECT_TRUE(t->happensBefore(receive, unblocked));
  }

  // Between the send and the receive the message is queued at the
  // receiver; the receiver is blocked in its receive only if it came first.
  trace::DisplayModel display(*t, 2);
  const auto after_send = display.stateAt(send + 1);
  ASSERT_EQ(after_send.queued.size(), 1u);
  EXPECT_EQ(after_send.queued[0].send, send);
  EXPECT_EQ(after_send.queued[0].bytes_left, 7u);
  EXPECT_EQ(after_send.queued[0].to_process, t->events[receive].process);
  bool receiver_blocked = false;
  for (const auto& b : after_send.blocked) receiver_blocked |= b.event == receive;
  EXPECT_EQ(receiver_blocked, !c.message_first);
  const auto after_receive = display.stateAt(receive + 1);
  for (const auto& q : after_receive.queued) EXPECT_NE(q.send, send);
  EXPECT_TRUE(t->findings.empty()) << describe(*t, t->findings[0]);
}

INSTANTIATE_TEST_SUITE_P(Figure2, InteractionNetwork,
                         ::testing::Values(Case{true, true}, Case{true, false}, Case{false, true}, Case{false, false}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.blocking ? "Blocking" : "NonBlocking") +
                                  (param_info.param.message_first ? "MessageFirst" : "ReceiverFirst");
                         });

// RADAR report, section 3.3: a receive's count becomes the larger of its
// own and the sender's, plus one.
TEST(Merge, RadarCounterRule) {
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 10).pipeEnd(1, 5, true);
  FakeProcess& b = rec.process("b", 20).pipeEnd(1, 5, false);
  for (int i = 0; i < 5; ++i) a.user("step", 10 + i);
  a.send(1, "x", 20, 21);  // a's sixth event
  b.user("one", 1).user("two", 2);
  b.receive(1, "x", 30, 31);  // b's third event
  b.user("after", 40);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->events[at(*t, 10, 6)].number, 6u);
  EXPECT_EQ(t->events[at(*t, 20, 3)].number, 7u);  // max(2, 6) + 1
  EXPECT_EQ(t->events[at(*t, 20, 4)].number, 8u);
  // Unrelated events may share a number: b's first two are 1 and 2.
  EXPECT_EQ(t->events[at(*t, 20, 2)].number, 2u);
  EXPECT_EQ(t->events[at(*t, 10, 2)].number, 2u);
}

// A signal sent to a whole process group, kill(-pgid), as apache2 stops
// its children: the group is led by the sender, the target's parent. The
// signal follows that kill, not the kills to others before it.
TEST(Merge, ASignalToTheGroupFollowsTheKillThatSentIt) {
  FakeRecording rec;
  FakeProcess& parent = rec.process("apache2", 100);
  parent.fork(101, 10, 11);
  FakeProcess& child = rec.child(parent, "apache2", 101);
  for (int k = 0; k < 5; ++k) parent.kill(4242, SIGTERM, 20 + k, 21 + k);  // to another process
  parent.kill(-100, SIGTERM, 100, 110);
  child.signal(100, SIGTERM, 105);
  child.exit(0, 120);
  parent.exit(0, 130);
  auto t = rec.load();
  ASSERT_TRUE(t);
  expectConsistent(*t);
  const uint32_t kill = at(*t, 100, 7), signal = at(*t, 101, 1);
  ASSERT_EQ(t->events[kill].eventKind(), log::Kind::Kill);
  ASSERT_EQ(t->events[signal].eventKind(), log::Kind::Signal);
  EXPECT_TRUE(reaches(*t, kill, signal));
  EXPECT_LT(t->events[kill].number, t->events[signal].number);
}

// A message received hundreds of thousands of events after it was sent:
// the receive's number still comes from its send, though by then the merge
// has copied the send out to the linear order and given back the memory it
// was read from.
TEST(Merge, MessageReceivedLongAfterItWasSent) {
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 10).pipeEnd(1, 5, true);
  FakeProcess& b = rec.process("b", 20).pipeEnd(1, 5, false);
  for (int i = 0; i < 5; ++i) a.user("step", 10 + i);
  a.send(1, "early", 20, 21);  // a's sixth event
  int64_t now = 100;
  for (int i = 0; i < 300000; ++i) a.user("tick", now += 10);
  b.receive(1, "early", now + 10, now + 20);  // b's first event
  auto t = rec.load();
  ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
  EXPECT_EQ(t->events[at(*t, 10, 6)].number, 6u);
  EXPECT_EQ(t->events[at(*t, 20, 1)].number, 7u);  // max(0, 6) + 1
  EXPECT_EQ(t->events[at(*t, 10, 300006)].number, 300006u);
}

// The linearization compares times as one 64-bit number with the process
// when the recording's times allow, and as a wider one when they do not:
// calls 146 years apart are still placed by time.
TEST(Merge, TimesFarApartStillOrderByTime) {
  // 2^61 ns after the rest: with eight processes, three bits for the
  // process leave 61 for the time, and a far time taken modulo 2^61 would
  // come first. (Times from 2^62 on are damage: the reader refuses them.)
  constexpr int64_t kFar = int64_t{1} << 61;
  for (const int64_t late : {int64_t{1000}, kFar}) {
    FakeRecording rec;
    FakeProcess& a = rec.process("a", 10);
    FakeProcess& b = rec.process("b", 20);
    FakeProcess& c = rec.process("c", 30);
    FakeProcess& d = rec.process("d", 40);
    for (int k = 0; k < 4; ++k) rec.process(std::string(1, static_cast<char>('e' + k)), 50 + k).user("early", 1 + k);
    a.user("a1", 10).user("a2", late + 30);
    b.user("b1", 20).user("b2", late + 10);
    c.user("c1", late + 6);
    d.user("d1", 5).user("d2", late + 40);
    auto t = rec.load();
    ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
    std::vector<std::string> order;
    for (const auto& ev : t->events) order.push_back(t->processName(ev.process) + std::to_string(ev.counter));
    EXPECT_EQ(order, (std::vector<std::string>{"e1", "f1", "g1", "h1", "d1", "a1", "b1", "c1", "b2", "a2", "d2"}))
        << "late " << late;
  }
}

TEST(Merge, StreamsSplitAndJoinedAcrossReads) {
  FakeRecording rec;
  FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 7, true);
  FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 7, false);
  w.send(1, "abcdef", 10, 11).send(1, "gh", 12, 13);
  r.receive(1, "ab", 20, 21).receive(1, "cdefg", 22, 23).receive(1, "h", 24, 25);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t w1 = at(*t, 1, 1), w2 = at(*t, 1, 2);
  const uint32_t r1 = at(*t, 2, 1), r2 = at(*t, 2, 2), r3 = at(*t, 2, 3);
  auto [b, e] = t->incoming(r2);
  ASSERT_EQ(e - b, 2);
  EXPECT_EQ(b[0].from, w1);
  EXPECT_EQ(b[0].bytes, 4u);  // "cdef"
  EXPECT_EQ(b[1].from, w2);
  EXPECT_EQ(b[1].bytes, 1u);  // "g"
  EXPECT_EQ(t->incoming(r1).first->from, w1);
  EXPECT_EQ(t->incoming(r3).first->from, w2);
  // The bytes a receive got come from the senders' logs.
  std::string bytes, error;
  ASSERT_TRUE(t->payload(r2, &bytes, &error)) << error;
  EXPECT_EQ(bytes, "cdefg");
  ASSERT_TRUE(t->payload(r3, &bytes, &error)) << error;
  EXPECT_EQ(bytes, "h");
  EXPECT_EQ(t->bytes_matched, 8u);
}

// A send's bytes are shown without a copy: the view stays good while the
// other events of its process are read, and each receive of it takes its
// part from the one read of it.
TEST(Merge, SendViewOutlivesReadsOfItsProcess) {
  FakeRecording rec;
  FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 7, true);
  FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 7, false);
  const std::string big(300000, 'x');
  w.send(1, big + "tail", 10, 11).user("after", 12);
  r.receive(1, big.substr(0, 100000), 20, 21).receive(1, big.substr(100000) + "tail", 22, 23);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t send = at(*t, 1, 1);
  std::string_view view;
  std::string error;
  ASSERT_TRUE(t->payloadView(send, &view, &error)) << error;
  log::Record other;
  ASSERT_TRUE(t->record(at(*t, 1, 2), &other, nullptr, nullptr, &error)) << error;
  std::string part;
  ASSERT_TRUE(t->payload(at(*t, 2, 2), &part, &error)) << error;
  EXPECT_TRUE(part == big.substr(100000) + "tail") << "the second receive's bytes differ";
  ASSERT_EQ(view.size(), big.size() + 4);
  EXPECT_TRUE(view == big + "tail") << "the send's view changed under it";
}

// Sends' bytes kept in memory by the load (for the pcapng export) are the
// logs' bytes: whole, in part when the budget runs out (the rest read from
// the log), and never for a send the recording cut, nor after it.
TEST(Merge, SentBytesKeptInMemoryAreTheLogsBytes) {
  FakeRecording rec;
  FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 7, true);
  FakeProcess& v = rec.process("cutter", 3).pipeEnd(1, 8, true);
  FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 7, false).pipeEnd(2, 8, false);
  std::string all;
  int64_t at = 10;
  for (int k = 0; k < 40; ++k) {
    const std::string bytes(static_cast<size_t>(k * 37 % 300), static_cast<char>('a' + k % 26));
    w.send(1, bytes, at, at + 1);
    if (k % 5 == 0) w.user("mark", at + 2);
    all += bytes;
    at += 10;
  }
  r.receive(1, all, at, at + 1);
  v.send(1, "first", 10, 11).sendCut(1, "cu", 5, 12, 13).send(1, "after", 14, 15);
  r.receive(2, "first", at + 2, at + 3).receive(2, "cu", at + 4, at + 5).receive(2, "after", at + 6, at + 7);
  rec.write();
  auto fromLogs = rec.load();
  trace::LoadOptions whole, part;
  whole.keep_sent_bytes = 1 << 20;
  part.keep_sent_bytes = all.size() / 2;
  for (const trace::LoadOptions* options : {&whole, &part}) {
    SCOPED_TRACE(options == &whole ? "all kept" : "half kept");
    auto kept = rec.load(*options);
    ASSERT_EQ(kept->events.size(), fromLogs->events.size());
    for (uint32_t i = 0; i < kept->events.size(); ++i) {
      if (!log::isData(kept->events[i].eventKind())) continue;
      std::string a, b, error;
      uint64_t omitted_a = 0, omitted_b = 0;
      ASSERT_TRUE(kept->payload(i, &a, &error, &omitted_a)) << error;
      ASSERT_TRUE(fromLogs->payload(i, &b, &error, &omitted_b)) << error;
      EXPECT_EQ(a, b) << "event " << i + 1;
      EXPECT_EQ(omitted_a, omitted_b) << "event " << i + 1;
    }
    // What was kept: the writer's events (sends and user events) up to
    // where the budget ran out; the cutter's up to its cut send.
    const uint32_t writer = processOfPid(*kept, 1), cutter = processOfPid(*kept, 3);
    ASSERT_EQ(kept->sent_bytes.size(), kept->processes.size());
    const size_t writer_events = kept->process_events[writer].size();
    if (options == &whole)
      EXPECT_EQ(kept->sent_bytes[writer].ends.size(), writer_events);
    else
      EXPECT_LT(kept->sent_bytes[writer].ends.size(), writer_events);
    // (Half kept: the budget may be gone before the cutter's log is read.)
    if (options == &whole)
      EXPECT_EQ(kept->sent_bytes[cutter].ends.size(), 1u);
    else
      EXPECT_LE(kept->sent_bytes[cutter].ends.size(), 1u);
  }
  EXPECT_TRUE(fromLogs->sent_bytes.empty());
}

TEST(Merge, SharedPipeWithTwoWritersAfterFork) {
  FakeRecording rec;
  FakeProcess& parent = rec.process("parent", 1).pipeEnd(1, 9, true);
  parent.send(1, "P1", 10, 11);
  parent.fork(2, 12, 13);
  FakeProcess& child = rec.child(parent, "child", 2);
  child.pipeEnd(1, 9, true).send(1, "C1", 20, 21);
  parent.send(1, "P2", 30, 31);
  FakeProcess& reader = rec.process("reader", 3).pipeEnd(1, 9, false);
  reader.receive(1, "P1C1", 40, 41).receive(1, "P2", 42, 43);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t first = at(*t, 3, 1);
  auto [b, e] = t->incoming(first);
  ASSERT_EQ(e - b, 2);
  EXPECT_EQ(b[0].from, at(*t, 1, 1));
  EXPECT_EQ(b[1].from, at(*t, 2, 1));
  EXPECT_EQ(t->incoming(at(*t, 3, 2)).first->from, at(*t, 1, 3));
  // The child was created by the fork: its first event follows it.
  EXPECT_TRUE(t->happensBefore(at(*t, 1, 1), at(*t, 2, 1)));
  EXPECT_EQ(t->processes[t->events[at(*t, 2, 1)].process].parent, t->events[at(*t, 1, 1)].process);
}

TEST(Merge, DeadlockOfTwo) {
  FakeRecording rec;
  rec.process("alpha", 1).pipeEnd(1, 101, true).pipeEnd(2, 102, false).blockedIn(log::Kind::Read, 2);
  rec.process("beta", 2).pipeEnd(1, 101, false).pipeEnd(2, 102, true).blockedIn(log::Kind::Read, 1);
  auto t = rec.load();
  const Finding* d = findingOf(*t, Finding::Kind::Deadlock);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->processes.size(), 2u);
  EXPECT_EQ(d->channels.size(), 2u);
  EXPECT_NE(describe(*t, *d).find("alpha[1] waits for beta[2] on pipe"), std::string::npos) << describe(*t, *d);
  EXPECT_NE(describe(*t, *d).find("beta[2] waits for alpha[1] on pipe"), std::string::npos) << describe(*t, *d);
  EXPECT_TRUE(findingOf(*t, Finding::Kind::NeverEnded));
}

TEST(Merge, DeadlockOfThree) {
  FakeRecording rec;
  rec.process("a", 1).pipeEnd(1, 201, true).pipeEnd(3, 203, false).blockedIn(log::Kind::Read, 3);
  rec.process("b", 2).pipeEnd(1, 201, false).pipeEnd(2, 202, true).blockedIn(log::Kind::Read, 1);
  rec.process("c", 3).pipeEnd(2, 202, false).pipeEnd(3, 203, true).blockedIn(log::Kind::Read, 2);
  // A bystander blocked on a pipe whose writer has exited is not part of it.
  rec.process("d", 4).pipeEnd(1, 204, false).blockedIn(log::Kind::Read, 1);
  rec.process("e", 5).pipeEnd(1, 204, true).exit(0, 5);
  auto t = rec.load();
  int deadlocks = 0;
  for (const auto& f : t->findings)
    if (f.kind == Finding::Kind::Deadlock) {
      ++deadlocks;
      EXPECT_EQ(f.processes.size(), 3u) << describe(*t, f);
      EXPECT_EQ(describe(*t, f).find("d[4]"), std::string::npos) << describe(*t, f);
    }
  EXPECT_EQ(deadlocks, 1);
}

// A process whose last call never returned (it was in it when the
// recording ended, or when it was killed) is blocked from then on, also
// when that call came before any event of its own (a child that reads at
// once after its fork): the display shows it blocked while it is there.
TEST(Merge, AProcessInACallThatNeverReturnedIsShownBlocked) {
  FakeRecording rec;
  FakeProcess& parent = rec.process("parent", 1);
  parent.pipeEnd(1, 301, true).fork(2, 10, 11);
  FakeProcess& child = rec.child(parent, "child", 2);  // created by the fork
  child.pipeEnd(2, 302, false).blockedIn(log::Kind::Read, 2);
  parent.user("later", 20).send(1, "x", 30, 31).exit(0, 40);
  rec.process("reader", 3)
      .pipeEnd(1, 301, false)
      .receive(1, "x", 32, 33)
      .user("then", 34)
      .blockedIn(log::Kind::Read, 1);
  auto t = rec.load();
  trace::DisplayModel display(*t, 2);
  auto blockedIn = [&](uint32_t position, int32_t pid) {
    for (const auto& b : display.stateAt(position).blocked)
      if (t->processes[b.process].pid == pid) return true;
    return false;
  };
  auto alive = [&](uint32_t position, int32_t pid) {
    for (uint32_t p : display.stateAt(position).alive)
      if (t->processes[p].pid == pid) return true;
    return false;
  };
  const uint32_t later = at(*t, 1, 2), then = at(*t, 3, 2);
  ASSERT_TRUE(alive(later + 1, 2));
  EXPECT_TRUE(blockedIn(later + 1, 2));  // the child, with no event of its own
  EXPECT_FALSE(blockedIn(then, 3));      // the reader, busy with its own events
  EXPECT_TRUE(blockedIn(then + 1, 3));   // then in its read for good
  EXPECT_EQ(display.stateAt(then + 1), display.replayFromStart(then + 1));
}

// A finding is one click from where to look: each deadlocked process's
// last event, or, for one blocked before it did anything (a child that
// reads at once), the event that created it.
TEST(Merge, DeadlockFindingPointsAtWhereEachProcessWasLastSeen) {
  FakeRecording rec;
  auto& parent = rec.process("parent", 1);
  parent.pipeEnd(1, 401, true).pipeEnd(2, 402, false).user("started", 5).fork(2, 10, 11);
  rec.child(parent, "child", 2).pipeEnd(1, 401, false).pipeEnd(2, 402, true).blockedIn(log::Kind::Read, 1);
  parent.send(1, "", 20, 20).blockedIn(log::Kind::Read, 2);
  auto t = rec.load();
  const Finding* d = findingOf(*t, Finding::Kind::Deadlock);
  ASSERT_TRUE(d);
  const uint32_t fork = at(*t, 1, 2), last = at(*t, 1, 3);
  ASSERT_EQ(t->events[fork].eventKind(), log::Kind::Fork);
  ASSERT_EQ(d->events.size(), 2u);
  EXPECT_NE(std::find(d->events.begin(), d->events.end(), last), d->events.end());
  EXPECT_NE(std::find(d->events.begin(), d->events.end(), fork), d->events.end());
  for (const auto& f : t->findings)
    if (f.kind == Finding::Kind::NeverEnded) {
      EXPECT_EQ(f.events.size(), 1u) << describe(*t, f);
    }
}

// Two processes talking both ways, each with a thread that reads what the
// other sends, looked at while they run (3 s in): both readers wait, yet
// a process whose other thread was busy a moment ago, or is in a call that
// began a moment ago (a poll that may time out), may still send. One whose
// other thread has been quiet for two seconds waits too. After the end, a
// blocked call counts as it did.
TEST(Merge, NoDeadlockWhileAnotherThreadOfTheProcessMayStillSend) {
  constexpr int64_t kS = 1'000'000'000;
  struct Look {
    log::Kind kind;  // the other thread's call, or none
    int64_t at;      // since when it is in it, or when its last event was
    bool running, deadlock;
  };
  for (const Look c : {Look{log::Kind{}, 2'900'000'000, true, false}, Look{log::Kind::Poll, 2'500'000'000, true, false},
                       Look{log::Kind{}, kS / 10, true, true}, Look{log::Kind::Poll, kS / 2, true, true},
                       Look{log::Kind::Read, kS, true, true}, Look{log::Kind{}, 2'900'000'000, false, true}}) {
    FakeRecording rec;
    for (const int32_t pid : {1, 2}) {
      FakeProcess& p = rec.process(pid == 1 ? "client" : "server", pid);
      p.socketEnd(1, pid == 1 ? 11 : 12, pid == 1 ? 12 : 11)
          .user("busy", c.at - 1000, "")
          .blockedIn(log::Kind::Read, 1);
      if (c.kind == log::Kind{})
        p.thread(100 * pid, log::Kind{}, 0, 0, 1);
      else
        p.thread(100 * pid, c.kind, c.kind == log::Kind::Read ? 1 : 0, c.at);
    }
    trace::LoadOptions options;
    if (c.running) options.running_at_ns = 1'700'000'000'000'000'000 + 3 * kS;
    auto t = rec.load(options);
    EXPECT_EQ(findingOf(*t, Finding::Kind::Deadlock) != nullptr, c.deadlock)
        << log::kindName(c.kind) << " at " << c.at << (c.running ? ", running" : ", ended");
  }
}

TEST(Merge, NoDeadlockWhenTheWriterCouldStillSend) {
  FakeRecording rec;
  rec.process("reader", 1).pipeEnd(1, 301, false).blockedIn(log::Kind::Read, 1);
  rec.process("writer", 2).pipeEnd(1, 301, true).user("busy", 1);  // alive, not blocked on reader
  auto t = rec.load();
  EXPECT_FALSE(findingOf(*t, Finding::Kind::Deadlock));
  const Finding* never = findingOf(*t, Finding::Kind::NeverEnded);
  ASSERT_TRUE(never);
  EXPECT_NE(describe(*t, *never).find("blocked in read on pipe"), std::string::npos) << describe(*t, *never);
}

// A message read in pieces is received once all its pieces are; one read
// in part counts the bytes nobody read.
TEST(Merge, MessagesReceivedInPartCountTheBytesLeft) {
  FakeRecording rec;
  rec.process("talker", 1).pipeEnd(1, 402, true).send(1, "0123456789", 10, 11).send(1, "abcdef", 12, 13).exit(0, 14);
  rec.process("reader", 2).pipeEnd(1, 402, false).receive(1, "0123", 20, 21).receive(1, "456789ab", 22, 23).exit(0, 30);
  auto t = rec.load();
  const Finding* f = findingOf(*t, Finding::Kind::NeverReceived);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->bytes, 4u);
  ASSERT_EQ(f->events.size(), 1u);
  EXPECT_EQ(f->events[0], at(*t, 1, 2));
  EXPECT_NE(describe(*t, *f).find("1 message (4 bytes) sent by talker[1] on pipe 1 never received"), std::string::npos)
      << describe(*t, *f);
}

// A finding holds ids: told again by the names a network description
// gives, without searching the trace again.
TEST(Merge, AFindingIsToldByTheNamesShownNow) {
  FakeRecording rec;
  rec.process("talker", 1).pipeEnd(1, 401, true).send(1, "hello?", 10, 11).exit(0, 14);
  rec.process("deaf", 2).pipeEnd(1, 401, false).exit(0, 20);
  auto t = rec.load();
  const Finding* f = findingOf(*t, Finding::Kind::NeverReceived);
  ASSERT_TRUE(f);
  const size_t findings = t->findings.size();
  EXPECT_EQ(describe(*t, *f), "1 message (6 bytes) sent by talker[1] on pipe 1 never received");
  t->described.processes.assign(t->processes.size(), "");
  t->described.channels.assign(t->channels.size(), "");
  t->described.processes[f->processes[0]] = "speaker";
  t->described.channels[f->channels[0]] = "speaker.out -> listener.in";
  EXPECT_EQ(describe(*t, *f), "1 message (6 bytes) sent by speaker[1] on speaker.out -> listener.in never received");
  EXPECT_EQ(t->findings.size(), findings);
}

TEST(Merge, MessageNeverReceived) {
  FakeRecording rec;
  rec.process("talker", 1).pipeEnd(1, 401, true).send(1, "hello?", 10, 11).send(1, "anyone?", 12, 13).exit(0, 14);
  rec.process("deaf", 2).pipeEnd(1, 401, false).exit(0, 20);
  auto t = rec.load();
  const Finding* f = findingOf(*t, Finding::Kind::NeverReceived);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->bytes, 13u);
  EXPECT_EQ(f->events.size(), 2u);
  EXPECT_NE(describe(*t, *f).find("2 messages (13 bytes) sent by talker[1] on pipe 1 never received"),
            std::string::npos)
      << describe(*t, *f);
  trace::DisplayModel display(*t);
  EXPECT_EQ(display.stateAt(static_cast<uint32_t>(t->events.size())).queued.size(), 2u);
  analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.sentence(at(*t, 1, 1)).find("which nobody receives"), std::string::npos);
}

// A writer radar did not see (a raw write system call) put "BBBB" into the
// pipe before the recorded "AAAA": the first receive's checksum says its
// bytes are not the recorded send's, so it is blamed on nobody recorded and
// the send goes to the receive that got it.
TEST(Merge, ReceivedBytesAreCheckedAgainstTheSendsContent) {
  FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 402, true).send(1, "AAAA", 10, 11).exit(0, 12);
  rec.process("reader", 2).pipeEnd(1, 402, false).receive(1, "BBBB", 20, 21).receive(1, "AAAA", 22, 23).exit(0, 24);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->incoming(at(*t, 2, 1)).first, t->incoming(at(*t, 2, 1)).second) << "no sender for BBBB";
  ASSERT_NE(t->incoming(at(*t, 2, 2)).first, t->incoming(at(*t, 2, 2)).second);
  EXPECT_EQ(t->incoming(at(*t, 2, 2)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->bytes_matched, 4u);
  const Finding* orphan = findingOf(*t, Finding::Kind::NoSender);
  ASSERT_TRUE(orphan);
  EXPECT_EQ(orphan->bytes, 4u);
  EXPECT_EQ(findingOf(*t, Finding::Kind::NeverReceived), nullptr);
  analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.sentence(at(*t, 2, 1)).find("that no recorded process sent"), std::string::npos);

  // Whole sends taken by one receive are checked together: right content,
  // matched; one byte changed, not.
  for (const char* got : {"onetwo", "onetwO"}) {
    SCOPED_TRACE(got);
    FakeRecording two;
    two.process("writer", 1).pipeEnd(1, 403, true).send(1, "one", 10, 11).send(1, "two", 12, 13).exit(0, 14);
    two.process("reader", 2).pipeEnd(1, 403, false).receive(1, got, 20, 21).exit(0, 24);
    auto u = two.load();
    EXPECT_EQ(u->bytes_matched, got == std::string("onetwo") ? 6u : 0u);
  }
}

// A writer killed after its write() returned and before it recorded the
// call: the reader got the bytes, the writer's log has only its thread's
// slot saying it was in write() on the pipe. The receive's bytes are not
// blamed on nobody: a note names the call that may have sent them. A slot
// in a receive, or in a write on another channel, explains nothing.
TEST(Merge, BytesFromAWriteItsLogEndedInAreANoteNamingIt) {
  FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 405, true).pipeEnd(2, 406, true).blockedIn(log::Kind::Write, 1, 4);
  rec.process("reader", 2).pipeEnd(1, 405, false).receive(1, "r", 20, 21).exit(0, 22);
  auto t = rec.load();
  expectConsistent(*t);
  const Finding* orphan = findingOf(*t, Finding::Kind::NoSender);
  ASSERT_TRUE(orphan);
  EXPECT_EQ(orphan->severity, Finding::Severity::Note);
  EXPECT_NE(describe(*t, *orphan).find(": writer[1] was in write() on it when its log ended"), std::string::npos)
      << describe(*t, *orphan);
  analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.sentence(at(*t, 2, 1))
                .find("receives a message from writer[1], whose log ended inside its write(), on pipe"),
            std::string::npos)
      << narrator.sentence(at(*t, 2, 1));

  // Sent by the thread after its last recorded event: a receive that
  // happened before that event cannot hold them (the reader's "go" let
  // the writer's read return first).
  {
    FakeRecording before;
    before.process("writer", 1)
        .pipeEnd(1, 405, true)
        .pipeEnd(3, 407, false)
        .receive(3, "go", 30, 31)
        .blockedIn(log::Kind::Write, 1, 4, 1);
    before.process("reader", 2)
        .pipeEnd(1, 405, false)
        .pipeEnd(3, 407, true)
        .receive(1, "r", 20, 21)
        .send(3, "go", 22, 23)
        .exit(0, 40);
    auto u = before.load();
    const Finding* still = findingOf(*u, Finding::Kind::NoSender);
    ASSERT_TRUE(still);
    EXPECT_EQ(still->severity, Finding::Severity::Warning) << describe(*u, *still);
  }
  // On a socket pair, a thread of the receiver itself in send() sends to
  // the other side: it explains nothing the receiver got.
  {
    FakeRecording self;
    self.process("client", 1).socketEnd(1, 501, 502).receive(1, "r", 20, 21).blockedIn(log::Kind::Send, 1, 4);
    self.process("server", 2).socketEnd(1, 502, 501).exit(0, 30);
    auto u = self.load();
    const Finding* still = findingOf(*u, Finding::Kind::NoSender);
    ASSERT_TRUE(still);
    EXPECT_EQ(still->severity, Finding::Severity::Warning) << describe(*u, *still);
    analysis::Narrator self_narrator(*u);
    EXPECT_NE(self_narrator.sentence(at(*u, 1, 1)).find("that no recorded process sent"), std::string::npos)
        << self_narrator.sentence(at(*u, 1, 1));
  }

  for (const auto& [kind, channel] : {std::pair(log::Kind::Read, 1u), std::pair(log::Kind::Write, 2u)}) {
    SCOPED_TRACE(log::kindName(kind) + std::string(" on channel ") + std::to_string(channel));
    FakeRecording other;
    other.process("writer", 1).pipeEnd(1, 405, true).pipeEnd(2, 406, true).blockedIn(kind, channel, 4);
    other.process("reader", 2).pipeEnd(1, 405, false).receive(1, "r", 20, 21).exit(0, 22);
    auto u = other.load();
    const Finding* still = findingOf(*u, Finding::Kind::NoSender);
    ASSERT_TRUE(still);
    EXPECT_EQ(still->severity, Finding::Severity::Warning);
    EXPECT_NE(describe(*u, *still).find("got bytes no recorded process sent (1 byte)"), std::string::npos);
    EXPECT_EQ(describe(*u, *still).find("was in"), std::string::npos) << describe(*u, *still);
  }
}

// A receive whose checksum does not match its sends' (pages given with
// vmsplice() and changed before the reader read them) while the next
// receive does not have those bytes either: the checksum is wrong, not the
// order, and no later receive is shifted off its sends.
TEST(Merge, OneBadChecksumDoesNotShiftTheStream) {
  FakeRecording rec;
  rec.process("writer", 1)
      .pipeEnd(1, 404, true)
      .send(1, "ping1", 10, 11)
      .send(1, "ping2", 12, 13)
      .send(1, "ping3", 14, 15)
      .exit(0, 16);
  rec.process("reader", 2)
      .pipeEnd(1, 404, false)
      .receive(1, "pXng1", 20, 21)
      .receive(1, "ping2", 22, 23)
      .receive(1, "ping3", 24, 25)
      .exit(0, 26);
  auto t = rec.load();
  expectConsistent(*t);
  for (uint32_t k = 1; k <= 3; ++k) {
    auto [b, e] = t->incoming(at(*t, 2, k));
    ASSERT_NE(b, e) << "receive " << k;
    EXPECT_EQ(b->from, at(*t, 1, k)) << "receive " << k;
  }
  EXPECT_EQ(t->bytes_matched, 15u);
  EXPECT_EQ(findingOf(*t, Finding::Kind::NoSender), nullptr);
  EXPECT_EQ(findingOf(*t, Finding::Kind::NeverReceived), nullptr);

  // Two receives in a row of bytes a writer radar did not see, then the
  // recorded send: both foreign, the send matched to the third.
  FakeRecording two;
  two.process("writer", 1).pipeEnd(1, 405, true).send(1, "AAAA", 10, 11).exit(0, 12);
  two.process("reader", 2)
      .pipeEnd(1, 405, false)
      .receive(1, "BBBB", 20, 21)
      .receive(1, "CCCC", 22, 23)
      .receive(1, "AAAA", 24, 25)
      .exit(0, 26);
  auto u = two.load();
  expectConsistent(*u);
  EXPECT_EQ(u->incoming(at(*u, 2, 1)).first, u->incoming(at(*u, 2, 1)).second) << "no sender for BBBB";
  EXPECT_EQ(u->incoming(at(*u, 2, 2)).first, u->incoming(at(*u, 2, 2)).second) << "no sender for CCCC";
  ASSERT_NE(u->incoming(at(*u, 2, 3)).first, u->incoming(at(*u, 2, 3)).second);
  EXPECT_EQ(u->incoming(at(*u, 2, 3)).first->from, at(*u, 1, 1));
  EXPECT_EQ(u->bytes_matched, 4u);
}

// End of file comes after the last writer let go of its end: here the
// writer never closes it and exits while the reader is already waiting, so
// the reader's call began first; the story must still tell the exit first.
TEST(Merge, EndOfFileComesAfterTheWriterExits) {
  FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 404, true).send(1, "x", 10, 11).exit(0, 50);
  rec.process("reader", 2)
      .pipeEnd(1, 404, false)
      .receive(1, "x", 20, 21)
      .receiveIntoSmallerBuffer(1, "", 16, 40, 60)  // returns 0: end of file
      .exit(0, 70);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t eof = at(*t, 2, 2), exit = at(*t, 1, 2);
  EXPECT_TRUE(t->events[eof].flags & trace::kEventEof);
  EXPECT_LT(exit, eof) << "the exit that closed the pipe comes first";
  bool edge = false;
  for (auto [b, e] = t->incoming(eof); b != e; ++b) edge |= b->why == Edge::Why::Eof && b->from == exit;
  EXPECT_TRUE(edge);
}

// A peer that shuts down its sending side gives the other end of file
// while both are still open (an MPI rank's connection to mpirun at
// MPI_Finalize): the end of file comes after the shutdown, which began
// after the reader started waiting. Shutting down the receiving side
// gives the other nothing.
TEST(Merge, EndOfFileComesAfterThePeerShutsDownItsSendingSide) {
  for (const int how : {SHUT_WR, SHUT_RDWR, SHUT_RD}) {
    FakeRecording rec;
    rec.process("a", 1).socketEnd(1, 70, 71).send(1, "hi", 10, 11).shutdown(1, how, 45).exit(0, 90);
    rec.process("b", 2)
        .socketEnd(1, 71, 70)
        .receive(1, "hi", 20, 21)
        .receiveIntoSmallerBuffer(1, "", 16, 40, 60)  // returns 0: end of file
        .close(1, 80)
        .exit(0, 95);
    auto t = rec.load();
    expectConsistent(*t);
    const uint32_t eof = at(*t, 2, 2), shutdown = at(*t, 1, 2);
    bool edge = false;
    for (auto [b, e] = t->incoming(eof); b != e; ++b) edge |= b->why == Edge::Why::Eof && b->from == shutdown;
    EXPECT_EQ(edge, how != SHUT_RD) << "how " << how;
    if (how != SHUT_RD) {
      EXPECT_LT(t->events[shutdown].number, t->events[eof].number) << "how " << how;
    }
  }
}

// Two writers whose writes overlap in time: the second to return wrote
// first. The receive's content says so, and the matching follows it.
TEST(Merge, OverlappingWritersOrderedByWhatWasReceived) {
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 1).pipeEnd(1, 88, true);
  FakeProcess& b = rec.process("b", 2).pipeEnd(1, 88, true);
  FakeProcess& r = rec.process("reader", 3).pipeEnd(1, 88, false);
  a.send(1, "from a..", 10, 30);  // returns last, but its bytes came first
  b.send(1, "from b..", 12, 20);
  r.receive(1, "from a..", 5, 25).receive(1, "from b..", 31, 32);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->incoming(at(*t, 3, 1)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 3, 2)).first->from, at(*t, 2, 1));
  std::string bytes, error;
  ASSERT_TRUE(t->payload(at(*t, 3, 1), &bytes, &error)) << error;
  EXPECT_EQ(bytes, "from a..");
}

// Processes of one machine share one monotonic clock: one whose start-up
// clock reading was delayed must not see its calls shifted against the
// others'. Two writers, one of them with a 5 ms lag: their order by time
// stays the true one.
TEST(Merge, OneWallClockPerMachine) {
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 1).pipeEnd(1, 92, true);
  FakeProcess& b = rec.process("b", 2).pipeEnd(1, 92, true).clockLag(5'000'000);
  FakeProcess& r = rec.process("reader", 3).pipeEnd(1, 92, false);
  a.send(1, "first", 10, 11);
  b.send(1, "second", 20, 21);
  r.receive(1, "firstsecond", 30, 31);
  auto t = rec.load();
  EXPECT_EQ(t->processes[0].realtime_offset, t->processes[1].realtime_offset);
  EXPECT_LT(t->wallTime(at(*t, 1, 1)), t->wallTime(at(*t, 2, 1)));
  auto [first, end] = t->incoming(at(*t, 3, 1));
  ASSERT_EQ(end - first, 2);
  EXPECT_EQ(first->from, at(*t, 1, 1));
}

// End of file from a peer on another machine, whose clock says nothing
// here (5 s ahead, and the close "after" the end of file by it): the end
// of file is its FIN, so it comes after the peer's close (`shut` false),
// or after its first shutdown of the sending side and not after its later
// close (`shut` true).
TEST(Merge, EndOfFileFromAnotherMachineComesAfterThePeerLetGo) {
  for (const bool shut : {false, true}) {
    FakeRecording rec;
    const std::string a = inet4("10.0.0.1", 80), b = inet4("10.0.0.2", 5000);
    FakeProcess& server = rec.process("server", 1).onHost("a", "boot-a", 0).tcpEnd(1, 11, a, b);
    FakeProcess& client = rec.process("client", 2).onHost("b", "boot-b", -5'000'000'000).tcpEnd(1, 12, b, a);
    server.send(1, "bye", 10, 11);
    if (shut) server.shutdown(1, SHUT_WR, 30);
    server.close(1, 100).exit(0, 110);
    client.receive(1, "bye", 20, 21).receiveIntoSmallerBuffer(1, "", 16, 40, 60).exit(0, 70);
    auto t = rec.load();
    expectConsistent(*t);
    const uint32_t eof = at(*t, 2, 2), close = at(*t, 1, shut ? 3 : 2), shutdown = shut ? at(*t, 1, 2) : kNone;
    ASSERT_TRUE(t->events[eof].flags & trace::kEventEof);
    std::set<uint32_t> from;
    for (auto [e, end] = t->incoming(eof); e != end; ++e)
      if (e->why == Edge::Why::Eof) from.insert(e->from);
    EXPECT_EQ(from, shut ? std::set<uint32_t>{shutdown} : std::set<uint32_t>{close}) << "shut " << shut;
    EXPECT_LT(t->events[*from.begin()].number, t->events[eof].number);
  }
}

// Machines do not share a clock. A client on host b, whose wall clock is
// 3 s ahead of host a's, asks a server on host a over TCP and gets its
// answer: the messages both ways bound b's clock against a's to 3 s ± 60 µs
// behind, and b's times are moved by the middle of that; with messages one
// way only (`answered` false), by the least that puts every receive after
// its send. A third host that exchanged nothing is not aligned.
TEST(Merge, HostClocksAreAlignedByTheMessagesBetweenThem) {
  constexpr int64_t kAhead = 3'000'000'000, kUs = 1000;
  for (const bool answered : {true, false}) {
    FakeRecording rec;
    const std::string a = inet4("10.0.0.1", 80), b = inet4("10.0.0.2", 5000);
    FakeProcess& server = rec.process("server", 1).onHost("a", "boot-a", 0).tcpEnd(1, 11, a, b);
    FakeProcess& client = rec.process("client", 2).onHost("b", "boot-b", kAhead).tcpEnd(1, 12, b, a);
    rec.process("idle", 3).onHost("c", "boot-c", 7 * kAhead).user("tick", 10 * kUs);
    client.send(1, "q", 0, kUs);
    server.receive(1, "q", 50 * kUs, 60 * kUs);
    if (answered) {
      server.send(1, "a", 100 * kUs, 101 * kUs);
      client.receive(1, "a", 150 * kUs, 160 * kUs);
    }
    auto t = rec.load();
    expectConsistent(*t);
    ASSERT_EQ(t->host_clocks.size(), 3u);
    const auto& hb = t->host_clocks[t->processes[processOfPid(*t, 2)].boot];
    const auto& hc = t->host_clocks[t->processes[processOfPid(*t, 3)].boot];
    EXPECT_EQ(hb.host, "b");
    EXPECT_TRUE(hb.aligned);
    EXPECT_EQ(hb.against, t->processes[processOfPid(*t, 1)].boot);
    EXPECT_EQ(hb.high_ns, -kAhead + 60 * kUs);
    if (answered) {
      EXPECT_EQ(hb.low_ns, -kAhead - 60 * kUs);
      EXPECT_EQ(hb.shift_ns, -kAhead);
      EXPECT_EQ(hb.edges, 2u);
    } else {
      EXPECT_EQ(hb.low_ns, -std::numeric_limits<int64_t>::max());
      EXPECT_EQ(hb.shift_ns, -kAhead + 60 * kUs);
    }
    EXPECT_FALSE(hc.aligned);
    EXPECT_EQ(hc.shift_ns, 0);
    const uint32_t boot_b = t->processes[processOfPid(*t, 2)].boot;
    EXPECT_EQ(t->describeHostClock(boot_b),
              answered ? "b's clock: moved by -3.000000 s to line up with a's (the 2 messages between them allow "
                         "-3.000060 s to -2.999940 s)"
                       : "b's clock: moved by -2.999940 s to line up with a's (the 1 message between them allows at "
                         "most -2.999940 s)");
    EXPECT_EQ(t->warnings, std::vector<std::string>{t->describeHostClock(t->processes[processOfPid(*t, 3)].boot)});
    EXPECT_NE(t->warnings.front().find("c's clock: not lined up with the others'"), std::string::npos);
    // Every receive after its send, in wall time.
    for (const Edge& e : t->edges) EXPECT_LE(t->wallTime(e.from), t->wallReturnTime(e.to));
    EXPECT_EQ(t->wallTime(at(*t, 2, 1)) - t->wallTime(at(*t, 1, 1)), answered ? -50 * kUs : 10 * kUs);
  }
}

// Machines kept in time (by NTP, say): every message agrees with the
// clocks as read, and they are left as read.
TEST(Merge, HostClocksThatAgreeWithTheMessagesAreLeftAsRead) {
  FakeRecording rec;
  const std::string a = inet4("10.0.0.1", 80), b = inet4("10.0.0.2", 5000);
  FakeProcess& server = rec.process("server", 1).onHost("a", "boot-a", 0).tcpEnd(1, 11, a, b);
  FakeProcess& client = rec.process("client", 2).onHost("b", "boot-b", 20'000).tcpEnd(1, 12, b, a);
  client.send(1, "q", 0, 1000);
  server.receive(1, "q", 50'000, 60'000).send(1, "a", 100'000, 101'000);
  client.receive(1, "a", 150'000, 160'000);
  auto t = rec.load();
  ASSERT_EQ(t->host_clocks.size(), 2u);
  for (const auto& clock : t->host_clocks) {
    EXPECT_TRUE(clock.aligned);
    EXPECT_EQ(clock.shift_ns, 0);
  }
  EXPECT_EQ(t->wallTime(at(*t, 2, 1)) - t->wallTime(at(*t, 1, 1)), -30'000);
}

// A length, then the message it announces, written at once and read in two
// reads: the reads are checked together against the whole write.
TEST(Merge, ReadsOfOneWriteCheckedTogether) {
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 1).pipeEnd(1, 91, true);
  FakeProcess& b = rec.process("b", 2).pipeEnd(1, 91, true);
  FakeProcess& r = rec.process("reader", 3).pipeEnd(1, 91, false);
  a.send(1, "\x05hello", 10, 30);
  b.send(1,
         "\x03"
         "bye",
         12, 20);  // returned first, wrote second
  r.receive(1, "\x05", 5, 25).receive(1, "hello", 26, 27).receive(1, "\x03", 28, 29).receive(1, "bye", 31, 32);
  auto t = rec.load();
  EXPECT_EQ(t->incoming(at(*t, 3, 1)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 3, 2)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 3, 4)).first->from, at(*t, 2, 1));
  EXPECT_EQ(t->bytes_ambiguous, 0u);
}

// Two readers of one pipe whose reads overlap: the first to return got the
// second message.
TEST(Merge, OverlappingReadersOrderedByWhatTheyGot) {
  FakeRecording rec;
  FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 89, true);
  FakeProcess& r1 = rec.process("r1", 2).pipeEnd(1, 89, false);
  FakeProcess& r2 = rec.process("r2", 3).pipeEnd(1, 89, false);
  w.send(1, "request 1", 10, 11).send(1, "request 2", 12, 13);
  r1.receive(1, "request 2", 5, 20);
  r2.receive(1, "request 1", 6, 21);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->incoming(at(*t, 2, 1)).first->from, at(*t, 1, 2));
  EXPECT_EQ(t->incoming(at(*t, 3, 1)).first->from, at(*t, 1, 1));
  // Calls that do not overlap keep their order whatever the bytes say: the
  // bytes are then simply not those sent (reported, not rearranged).
  FakeRecording late;
  FakeProcess& w2 = late.process("writer", 1).pipeEnd(1, 90, true);
  late.process("r1", 2).pipeEnd(1, 90, false).receive(1, "request 2", 20, 21);
  late.process("r2", 3).pipeEnd(1, 90, false).receive(1, "request 1", 30, 31);
  w2.send(1, "request 1", 10, 11).send(1, "request 2", 12, 13);
  auto t2 = late.load();
  EXPECT_EQ(t2->incoming(at(*t2, 2, 1)).first->from, at(*t2, 1, 1));
}

// A self-pipe between two threads: the reading thread's call returned (and
// was counted) before the writing thread's did. The bytes are matched and
// nothing is reported lost, and the order stays the process's own.
TEST(Merge, MessagesBetweenThreadsOfOneProcess) {
  FakeRecording rec;
  FakeProcess& p = rec.process("server", 100).pipeEnd(1, 77, true).pipeEnd(2, 77, false);
  p.receive(2, "wake", 10, 31, 101);  // counter 1, thread 101
  p.send(1, "wake", 20, 32, 100);     // counter 2, the main thread
  p.send(1, "up", 40, 41, 100);
  p.receive(2, "up", 42, 43, 101);
  p.exit(0, 50);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t r1 = at(*t, 100, 1), s1 = at(*t, 100, 2), s2 = at(*t, 100, 3), r2 = at(*t, 100, 4);
  auto [b, e] = t->incoming(r1);
  ASSERT_EQ(e - b, 1);
  EXPECT_EQ(b->from, s1);
  EXPECT_EQ(t->incoming(r2).first->from, s2);
  std::string bytes, error;
  ASSERT_TRUE(t->payload(r1, &bytes, &error)) << error;
  EXPECT_EQ(bytes, "wake");
  EXPECT_EQ(t->bytes_matched, 6u);
  EXPECT_FALSE(findingOf(*t, Finding::Kind::NeverReceived));
  // The reading thread's call was logged first, but the story tells the
  // send first: the writing thread's call is pulled ahead of it.
  EXPECT_LT(s1, r1);
  EXPECT_EQ(t->events[s1].number, 1u);
  EXPECT_EQ(t->events[r1].number, 2u);
  EXPECT_TRUE(t->happensBefore(s1, r1));
  EXPECT_FALSE(t->happensBefore(r1, s1));
  EXPECT_EQ(t->localPredecessor(r1), s1);
  EXPECT_EQ(t->indexInProcess(s1), 0u);
  EXPECT_EQ(t->placed_by_time, 0u);
  trace::DisplayModel display(*t);
  for (uint32_t i = 0; i <= t->events.size(); ++i) EXPECT_EQ(display.stateAt(i), display.replayFromStart(i)) << i;
  EXPECT_TRUE(display.stateAt(static_cast<uint32_t>(t->events.size())).queued.empty());
  analysis::Narrator narrator(*t);
  EXPECT_EQ(narrator.describe(s1), "Process server[100] sends a message to itself on pipe 1 (4 bytes)");
  EXPECT_EQ(narrator.describe(r1), "Process server[100] (thread 2) receives a message from itself on pipe 1 (4 bytes)");
}

// The reading thread's call is logged before the writing thread's, and a
// third thread's call between them: the writing thread's calls up to its
// send come first, the third thread keeps its place after the receive.
TEST(Merge, AThreadsSendIsToldBeforeTheReceiveLoggedFirst) {
  FakeRecording rec;
  FakeProcess& p = rec.process("server", 100).pipeEnd(1, 77, true).pipeEnd(2, 77, false).pipeEnd(3, 78, true);
  p.receive(2, "ab", 10, 31, 101);  // counter 1, thread 101
  p.send(3, "x", 30, 33, 102);      // counter 2, thread 102
  p.user("before", 12);             // counter 3, the main thread, before its send
  p.send(1, "ab", 20, 34);          // counter 4, the main thread
  p.exit(0, 50);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t r = at(*t, 100, 1), x = at(*t, 100, 2), u = at(*t, 100, 3), s = at(*t, 100, 4);
  EXPECT_LT(u, s);
  EXPECT_LT(s, r);
  EXPECT_LT(r, x);
  EXPECT_TRUE(t->happensBefore(u, r));
  EXPECT_EQ(t->placed_by_time, 0u);
  const auto& story = t->process_events[t->events[r].process];
  ASSERT_EQ(story.size(), 5u);
  EXPECT_EQ(std::vector<uint32_t>(story.begin(), story.end()), (std::vector<uint32_t>{u, s, r, x, at(*t, 100, 5)}));
}

// A message from one thread goes through another process and comes back to
// another thread, whose receive was logged before the first send: the
// cycle the logs' order makes is resolved by the send going first, not by
// time.
TEST(Merge, AThreadsMessageBackThroughAnotherProcessComesAfterIt) {
  FakeRecording rec;
  FakeProcess& p = rec.process("client", 100).pipeEnd(1, 77, true).pipeEnd(2, 78, false);
  FakeProcess& q = rec.process("echo", 200).pipeEnd(1, 77, false).pipeEnd(2, 78, true);
  p.receive(2, "ping", 10, 40, 101);  // counter 1: thread 101 reads the echo
  p.send(1, "ping", 20, 41);          // counter 2: the main thread's send returned late
  q.receive(1, "ping", 5, 25);
  q.send(2, "ping", 26, 27);
  p.exit(0, 50);
  q.exit(0, 51);
  auto t = rec.load();
  expectConsistent(*t);
  const uint32_t pr = at(*t, 100, 1), ps = at(*t, 100, 2), qr = at(*t, 200, 1), qs = at(*t, 200, 2);
  EXPECT_LT(ps, qr);
  EXPECT_LT(qs, pr);
  EXPECT_TRUE(t->happensBefore(ps, pr));
  EXPECT_EQ(t->placed_by_time, 0u);
  EXPECT_TRUE(t->problems.empty());
}

TEST(Merge, CrashedProcess) {
  FakeRecording rec;
  FakeProcess& parent = rec.process("parent", 1);
  parent.fork(2, 1, 2);
  FakeProcess& child = rec.child(parent, "worker", 2);
  child.user("working", 5);
  parent.wait(2, SIGSEGV | 0x80, 3, 10);  // killed by SIGSEGV, core dumped
  parent.exit(1, 11);
  auto t = rec.load();
  const Finding* f = findingOf(*t, Finding::Kind::Abnormal);
  ASSERT_TRUE(f);
  EXPECT_NE(describe(*t, *f).find("worker[2] crashed: Segmentation fault, core dumped"), std::string::npos)
      << describe(*t, *f);
  // The wait follows the child's last event.
  EXPECT_TRUE(t->happensBefore(at(*t, 2, 1), at(*t, 1, 2)));
  analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.sentence(at(*t, 1, 2)).find("learns that worker[2] was killed by signal 11 (SIGSEGV)"),
            std::string::npos)
      << narrator.sentence(at(*t, 1, 2));
}

TEST(Merge, DamagedAndMissingLogs) {
  FakeRecording rec;
  FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 501, true);
  for (int i = 0; i < 300; ++i) w.send(1, std::string(20, 'w'), 10 + 2 * i, 11 + 2 * i);
  FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 501, false);
  for (int i = 0; i < 300; ++i) r.receive(1, std::string(20, 'w'), 1000 + 2 * i, 1001 + 2 * i);
  rec.write();
  // Cut the writer's log inside its last frame (the first ones, and the
  // header, survive); add a file that is not a log at all.
  const std::string writer_log = rec.dir() + "/1-0-writer.rlog";
  std::ifstream in(writer_log, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(bytes.size(), 4096u + 4096u + 2000u);
  bytes.resize(bytes.size() - 100);
  std::ofstream(writer_log, std::ios::binary | std::ios::trunc) << bytes;
  std::ofstream(rec.dir() + "/9-0-junk.rlog") << "not a log";
  std::string error;
  auto t = trace::loadTrace({rec.dir()}, {}, &error);
  ASSERT_TRUE(t) << error;
  bool junk = false, cut = false;
  for (const auto& p : t->problems) {
    junk |= p.path.find("junk") != std::string::npos && p.message.find("bad magic") != std::string::npos;
    cut |= p.path.find("writer") != std::string::npos;
  }
  EXPECT_TRUE(junk);
  EXPECT_TRUE(cut);
  EXPECT_TRUE(findingOf(*t, Finding::Kind::Damaged));
  // What the lost sends carried was received: with no recorded sender.
  const Finding* orphan = findingOf(*t, Finding::Kind::NoSender);
  ASSERT_TRUE(orphan);
  EXPECT_GT(orphan->bytes, 0u);
  EXPECT_GT(t->bytes_matched, 0u);
  expectConsistent(*t);

  // A directory with nothing readable: a clear error.
  const std::string empty = rec.dir() + "/empty";
  ::mkdir(empty.c_str(), 0700);
  EXPECT_FALSE(trace::loadTrace({empty}, {}, &error));
  EXPECT_NE(error.find("no readable log"), std::string::npos) << error;
  EXPECT_FALSE(trace::loadTrace({rec.dir() + "/missing"}, {}, &error));
  EXPECT_NE(error.find("no such file"), std::string::npos) << error;
}

// radar's writer counts a process's events one by one and stops at the
// first it loses, so a log whose counters skip is damaged: it is read up to
// the gap, and the damage says which events are missing, in which file.
TEST(Merge, LogWhoseCountersSkipIsReadUpToTheGap) {
  FakeRecording rec;
  rec.process("steady", 1).user("one", 10).user("two", 20).exit(0, 30);
  rec.write();
  const std::string path = rec.dir() + "/2-0-skipper.rlog";
  {
    static const uint8_t id[16] = {9};
    const char* argv[] = {"skipper", nullptr};
    log::HeaderFields h;
    h.recording_id = id;
    h.log_id = 77;
    h.host_name = "test";
    h.boot_id = "boot";
    h.pid = 2;
    h.ppid = 1;
    h.executable = "/bin/skipper";
    h.argv = argv;
    log::LogWriter w;
    ASSERT_EQ(w.open(path.c_str(), h), 0);
    w.close();  // the header only
  }
  // Records as another writer could put them: counters 1, 2, then 7.
  std::string content;
  for (const uint64_t counter : {1, 2, 7}) {
    proto::Event e;
    e.set_kind(proto::USER);
    e.set_counter(counter);
    e.set_tid(2);
    e.set_entry_delta_ns(100);
    const std::string body = e.SerializeAsString();
    uint8_t len[10];
    content.append(reinterpret_cast<char*>(len), wire::putVarint(len, body.size()) - len);
    content += body;
  }
  std::string frame(ZSTD_compressBound(content.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), content.data(), content.size(), 1));
  const auto frame_offset = static_cast<uint64_t>(std::ifstream(path, std::ios::binary | std::ios::ate).tellg());
  std::ofstream(path, std::ios::binary | std::ios::app) << frame;

  std::string error;
  auto t = trace::loadTrace({rec.dir()}, {}, &error);
  ASSERT_TRUE(t) << error;
  uint32_t skipper = kNone;
  for (const auto& p : t->processes)
    if (p.pid == 2) skipper = p.index;
  ASSERT_NE(skipper, kNone);
  EXPECT_EQ(t->process_events[skipper].size(), 2u);
  bool reported = false;
  for (const auto& p : t->problems)
    reported |= p.path == path && p.message.find("offset " + std::to_string(frame_offset) +
                                                 ": event counter 7 after 2 (in the frame at this offset): "
                                                 "events 3 to 6 are missing") != std::string::npos;
  EXPECT_TRUE(reported);
  EXPECT_TRUE(findingOf(*t, Finding::Kind::Damaged));
  expectConsistent(*t);
}

// A writer killed between storing a record and counting it leaves a log
// with more events than its control block says: the loader reads it again,
// and the matching must see the second reading only.
// A writer's five messages to a reader, written, with the writer's control
// block then claiming `counted` events.
void writeFiveMessagesClaiming(FakeRecording& rec, uint64_t counted) {
  FakeProcess& w = rec.process("writer", 1).pipeEnd(1, 601, true);
  for (int i = 0; i < 5; ++i) w.send(1, "msg" + std::to_string(i), 10 + 2 * i, 11 + 2 * i);
  FakeProcess& r = rec.process("reader", 2).pipeEnd(1, 601, false);
  for (int i = 0; i < 5; ++i) r.receive(1, "msg" + std::to_string(i), 100 + 2 * i, 101 + 2 * i);
  rec.write();
  const int fd = ::open((rec.dir() + "/1-0-writer.rlog").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  // (The control block follows an 8-byte frame head.)
  ASSERT_EQ(::pwrite(fd, &counted, sizeof(counted), 8 + offsetof(log::FileControl, last_counter)),
            static_cast<ssize_t>(sizeof(counted)));
  ::close(fd);
}

TEST(Merge, LogWithMoreEventsThanItsControlBlockSays) {
  FakeRecording rec;
  writeFiveMessagesClaiming(rec, 2);  // of 5
  std::string error;
  auto t = trace::loadTrace({rec.dir()}, {}, &error);
  ASSERT_TRUE(t) << error;
  expectConsistent(*t);
  EXPECT_EQ(t->events.size(), 10u);
  for (uint32_t k = 1; k <= 5; ++k) {
    auto [b, e] = t->incoming(at(*t, 2, k));
    ASSERT_EQ(e - b, 1) << "receive " << k;
    EXPECT_EQ(b->from, at(*t, 1, k));
  }
  EXPECT_EQ(t->bytes_sent, 20u);
  EXPECT_EQ(t->bytes_received, 20u);
  EXPECT_EQ(t->bytes_matched, 20u);
  EXPECT_FALSE(findingOf(*t, Finding::Kind::NoSender));
  EXPECT_FALSE(findingOf(*t, Finding::Kind::NeverReceived));
}

// A control block is the file's claim, not a size to allocate: a log whose
// count says 2^31 - 1 (or 10^8) events is read for the events it holds,
// without exhausting memory.
TEST(Merge, LogWhoseControlBlockClaimsBillionsOfEvents) {
  for (const uint64_t claimed : {uint64_t{2147483647}, uint64_t{100000000}}) {
    FakeRecording rec;
    writeFiveMessagesClaiming(rec, claimed);
    std::string error;
    auto t = trace::loadTrace({rec.dir()}, {}, &error);
    ASSERT_TRUE(t) << error;
    expectConsistent(*t);
    EXPECT_EQ(t->events.size(), 10u);
    EXPECT_EQ(t->bytes_matched, 20u);
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    EXPECT_LT(usage.ru_maxrss, 512 * 1024) << "peak KiB after a claim of " << claimed;
  }
}

// A child whose log lost its end (cut inside its last frame) and which its
// parent reaped with status 0: the damage is the finding, not an exec
// through a raw system call that nothing shows.
TEST(Merge, ALogThatLostItsEndIsNotAnUnseenExec) {
  FakeRecording rec;
  auto& parent = rec.process("parent", 1);
  parent.fork(2, 10, 11);
  FakeProcess& child = rec.child(parent, "child", 2).pipeEnd(1, 601, true);
  for (int i = 0; i < 300; ++i) child.send(1, std::string(20, 'w'), 20 + 2 * i, 21 + 2 * i);
  child.exit(0, 700);
  parent.pipeEnd(1, 601, false).wait(2, 0, 800, 801).exit(0, 900);
  rec.write();
  const std::string child_log = rec.dir() + "/2-0-child.rlog";
  std::string bytes;
  {
    std::ifstream in(child_log, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 2000u);
  bytes.resize(bytes.size() - 100);
  std::ofstream(child_log, std::ios::binary | std::ios::trunc) << bytes;
  std::string error;
  auto t = trace::loadTrace({rec.dir()}, {}, &error);
  ASSERT_TRUE(t) << error;
  EXPECT_TRUE(findingOf(*t, Finding::Kind::Damaged));
  for (const auto& f : t->findings)
    EXPECT_EQ(describe(*t, f).find("without radar seeing it exit"), std::string::npos) << describe(*t, f);
}

// Recordings given together are merged when a channel joins them. When
// some share no channel (two runs of a program, say), they are refused
// with the groups named and a pointer to radar diff; asked to, they are
// merged with a warning that says which groups are unrelated.
TEST(Merge, RecordingsThatShareNoChannelAreRefusedUnlessAsked) {
  FakeRecording writer, reader, alone;
  // Three recordings: three ids (one id is one recording, in parts).
  writer.recordingId(1);
  reader.recordingId(2);
  alone.recordingId(3);
  writer.process("writer", 1).pipeEnd(1, 901, true).send(1, "hi", 10, 11).exit(0, 12);
  reader.process("reader", 2).pipeEnd(1, 901, false).receive(1, "hi", 20, 21).exit(0, 22);
  alone.process("alone", 3).pipeEnd(1, 902, true).send(1, "x", 30, 31).exit(0, 32);
  writer.write();
  reader.write();
  alone.write();
  std::string error;
  auto joined = trace::loadTrace({writer.dir(), reader.dir()}, {}, &error);
  ASSERT_TRUE(joined) << error;
  EXPECT_TRUE(joined->warnings.empty()) << joined->warnings[0];
  EXPECT_TRUE(joined->unrelated_groups.empty());
  EXPECT_EQ(joined->bytes_matched, 2u);

  EXPECT_FALSE(trace::loadTrace({writer.dir(), reader.dir(), alone.dir()}, {}, &error));
  EXPECT_NE(error.find("share no channel"), std::string::npos) << error;
  EXPECT_NE(error.find("{" + writer.dir() + ", " + reader.dir() + "}"), std::string::npos) << error;
  EXPECT_NE(error.find("{" + alone.dir() + "}"), std::string::npos) << error;
  EXPECT_NE(error.find("radar diff"), std::string::npos) << error;
  EXPECT_NE(error.find("--merge-unrelated"), std::string::npos) << error;

  trace::LoadOptions asked;
  asked.merge_unrelated = true;
  auto apart = trace::loadTrace({writer.dir(), reader.dir(), alone.dir()}, asked, &error);
  ASSERT_TRUE(apart) << error;
  ASSERT_EQ(apart->warnings.size(), 1u);
  const std::string& w = apart->warnings[0];
  EXPECT_NE(w.find("share no channel"), std::string::npos) << w;
  EXPECT_NE(w.find("{" + writer.dir() + ", " + reader.dir() + "}"), std::string::npos) << w;
  EXPECT_NE(w.find("{" + alone.dir() + "}"), std::string::npos) << w;
  ASSERT_EQ(apart->unrelated_groups.size(), 2u);
  EXPECT_EQ(apart->processes.size(), 3u);
}

// A log copied from another recording into a directory is not told as a
// process of this one: the load refuses it, naming it, whether the
// directory's recording.txt gives the id or most of its logs do; with
// --merge-unrelated it is read, with a warning.
TEST(Merge, ALogOfAnotherRecordingIsRefusedUnlessAsked) {
  FakeRecording here, elsewhere;
  here.process("writer", 1).pipeEnd(1, 901, true).send(1, "hi", 10, 11).exit(0, 12);
  here.process("reader", 2).pipeEnd(1, 901, false).receive(1, "hi", 20, 21).exit(0, 22);
  elsewhere.recordingId(7);
  elsewhere.process("stranger", 3).pipeEnd(1, 902, true).send(1, "x", 30, 31).exit(0, 32);
  here.write();
  elsewhere.write();
  std::string error;
  ASSERT_TRUE(trace::loadTrace({here.dir()}, {}, &error)) << error;
  const std::string copied = here.dir() + "/3-0-stranger.rlog";
  std::filesystem::copy_file(elsewhere.dir() + "/3-0-stranger.rlog", copied);
  for (bool with_meta : {false, true}) {
    SCOPED_TRACE(with_meta ? "recording.txt names the id" : "most logs carry the id");
    if (with_meta) {
      proto::Recording meta;
      meta.set_recording_id(std::string(1, '\x09') + std::string(15, '\0'));
      std::string text;
      ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(meta, &text));
      std::ofstream(here.dir() + "/recording.txt") << text;
      std::filesystem::remove(here.dir() + "/2-0-reader.rlog");  // the stranger is no longer outnumbered
    }
    EXPECT_FALSE(trace::loadTrace({here.dir()}, {}, &error));
    EXPECT_NE(error.find(copied + " is a log of another recording"), std::string::npos) << error;
    EXPECT_NE(error.find("--merge-unrelated"), std::string::npos) << error;
    trace::LoadOptions asked;
    asked.merge_unrelated = true;
    auto t = trace::loadTrace({here.dir()}, asked, &error);
    ASSERT_TRUE(t) << error;
    bool warned = false;
    for (const std::string& w : t->warnings) warned |= w.find(copied + " is a log of another recording") == 0;
    EXPECT_TRUE(warned);
  }
}

// A process created by a recorded one and absent from the recording is a
// finding (check --strict fails on it), and so is a log that cannot be read
// at all.
TEST(Merge, ChildrenWithoutALogAndUnreadableLogsAreFindings) {
  FakeRecording rec;
  auto& parent = rec.process("parent", 1);
  parent.fork(2, 10, 11);
  rec.child(parent, "child", 2).exit(0, 15);
  parent.fork(3, 12, 13).wait(2, 0, 20, 21).wait(3, 0, 22, 23).exit(0, 30);
  rec.write();
  { std::ofstream(rec.dir() + "/9-0-garbage.rlog") << "not a log"; }
  std::string error;
  auto t = trace::loadTrace({rec.dir()}, {}, &error);
  ASSERT_TRUE(t) << error;
  std::vector<const Finding*> unrecorded, damaged;
  for (const auto& f : t->findings) {
    if (f.kind == Finding::Kind::Unrecorded) unrecorded.push_back(&f);
    if (f.kind == Finding::Kind::Damaged) damaged.push_back(&f);
  }
  ASSERT_EQ(unrecorded.size(), 1u);
  EXPECT_NE(describe(*t, *unrecorded[0]).find("created process 3, which the recording has no log of"),
            std::string::npos)
      << describe(*t, *unrecorded[0]);
  ASSERT_EQ(unrecorded[0]->events.size(), 1u);
  EXPECT_EQ(unrecorded[0]->events[0], at(*t, 1, 2));
  ASSERT_EQ(damaged.size(), 1u);
  EXPECT_NE(describe(*t, *damaged[0]).find("9-0-garbage.rlog: cannot be read"), std::string::npos)
      << describe(*t, *damaged[0]);
}

// Killed together while a message to B was in flight: B's read was about
// to return it, so B waited for nobody and there is no deadlock. The
// message itself was never received: that much is true.
TEST(Merge, NoDeadlockWhileAMessageToTheBlockedReaderIsInFlight) {
  FakeRecording rec;
  rec.process("a", 1).socketEnd(1, 501, 502).send(1, "sixteen bytes!!!", 10, 11).blockedIn(log::Kind::Read, 1);
  rec.process("b", 2).socketEnd(1, 502, 501).blockedIn(log::Kind::Read, 1);
  auto t = rec.load();
  EXPECT_FALSE(findingOf(*t, Finding::Kind::Deadlock)) << describe(*t, *findingOf(*t, Finding::Kind::Deadlock));
  const Finding* lost = findingOf(*t, Finding::Kind::NeverReceived);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->bytes, 16u);
}

TEST(Merge, InputFromTheTerminalIsExternal) {
  FakeRecording rec;
  rec.process("shell", 1).terminal(1).receive(1, "ls\n", 5, 6).send(1, "file\n", 7, 8).exit(0, 9);
  auto t = rec.load();
  EXPECT_EQ(t->bytes_external, 3u);
  EXPECT_TRUE(t->findings.empty()) << describe(*t, t->findings[0]);
  analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.sentence(0).find("from terminal"), std::string::npos) << narrator.sentence(0);
  EXPECT_NE(narrator.sentence(1).find("to terminal"), std::string::npos) << narrator.sentence(1);
}

TEST(Merge, SocketPairBothWays) {
  FakeRecording rec;
  rec.process("client", 1).socketEnd(1, 601, 602).send(1, "GET", 10, 11).receive(1, "200", 30, 31);
  rec.process("server", 2).socketEnd(1, 602, 601).receive(1, "GET", 15, 16).send(1, "200", 20, 21);
  auto t = rec.load();
  expectConsistent(*t);
  ASSERT_EQ(messages(*t).size(), 2u);
  EXPECT_EQ(t->channels.size(), 1u);
  EXPECT_TRUE(t->happensBefore(at(*t, 1, 1), at(*t, 1, 2)));
  EXPECT_TRUE(t->happensBefore(at(*t, 2, 1), at(*t, 1, 2)));
  EXPECT_FALSE(t->happensBefore(at(*t, 2, 2), at(*t, 2, 1)));
}

// Datagrams go one to one, the oldest unreceived of that length first; one
// lost on the way is a send never received.
TEST(Merge, DatagramsOfASocketPair) {
  FakeRecording rec;
  rec.process("client", 1)
      .socketEnd(1, 701, 702, log::ChannelType::UnixDgram)
      .send(1, "ping", 10, 11)
      .send(1, "lost!", 12, 13)
      .send(1, "pong", 14, 15);
  rec.process("server", 2)
      .socketEnd(1, 702, 701, log::ChannelType::UnixDgram)
      .receive(1, "ping", 20, 21)
      .receive(1, "pong", 22, 23);
  auto t = rec.load();
  expectConsistent(*t);
  const auto got = messages(*t);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(t->incoming(at(*t, 2, 1)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 2, 2)).first->from, at(*t, 1, 3));
  EXPECT_EQ(t->bytes_matched, 8u);
  const Finding* lost = findingOf(*t, Finding::Kind::NeverReceived);
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->bytes, 5u);
}

// A datagram peeked at, then received: tied to its send twice, counted once
// (a peek moves nothing).
// Processes are named as ps names them by their command: the program, the
// script an interpreter runs; a process whose arguments hold a title (a
// child inherits its parent's at fork) by its program, not by the last
// word after a '/' in that title.
TEST(Names, LikePsNamesThem) {
  EXPECT_EQ(trace::processName({"/usr/bin/calc", "-v"}, "/usr/bin/calc"), "calc");
  EXPECT_EQ(trace::processName({"python3", "-u", "/srv/app.py"}, "/usr/bin/python3.11"), "app.py");
  EXPECT_EQ(trace::processName({"nginx: worker process"}, "/usr/sbin/nginx"), "nginx");
  EXPECT_EQ(
      trace::processName({"nginx: master process /usr/sbin/nginx -c /etc/nginx/nginx.conf", "", ""}, "/usr/sbin/nginx"),
      "nginx");
  EXPECT_EQ(trace::processName({"postgres: 15/main: checkpointer "}, "/usr/lib/postgresql/15/bin/postgres"),
            "postgres");
  EXPECT_EQ(trace::processName({"/opt/My App/bin/tool"}, "/opt/My App/bin/tool"), "tool");
  EXPECT_EQ(trace::processName({}, "/usr/bin/env"), "env");
}

TEST(Merge, DatagramPeekedAtIsCountedOnce) {
  FakeRecording rec;
  rec.process("client", 1).socketEnd(1, 701, 702, log::ChannelType::UnixDgram).send(1, "ping", 10, 11);
  rec.process("server", 2)
      .socketEnd(1, 702, 701, log::ChannelType::UnixDgram)
      .peek(1, "ping", 20, 21)
      .receive(1, "ping", 22, 23);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->incoming(at(*t, 2, 1)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 2, 2)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->bytes_received, 4u);
  EXPECT_EQ(t->bytes_matched, 4u);
  EXPECT_EQ(t->bytes_external, 0u);
}

// A send interrupted on its way out of the kernel by a signal handler (or
// preempted there) returns long after its datagram was received; sends
// after it returned earlier. Each receive still takes its own datagram.
TEST(Merge, DatagramWhoseSendReturnedAfterItsReceive) {
  FakeRecording rec;
  rec.process("client", 1)
      .socketEnd(1, 701, 702, log::ChannelType::UnixDgram)
      .send(1, "tick", 10, 1000)  // a handler ran before the call returned
      .send(1, "tick", 500, 510)
      .send(1, "tick", 600, 610);
  rec.process("server", 2)
      .socketEnd(1, 702, 701, log::ChannelType::UnixDgram)
      .receive(1, "tick", 15, 20)
      .receive(1, "tick", 520, 530)
      .receive(1, "tick", 620, 630);
  auto t = rec.load();
  expectConsistent(*t);
  ASSERT_EQ(messages(*t).size(), 3u);
  EXPECT_EQ(t->incoming(at(*t, 2, 1)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 2, 2)).first->from, at(*t, 1, 2));
  EXPECT_EQ(t->incoming(at(*t, 2, 3)).first->from, at(*t, 1, 3));
  EXPECT_EQ(t->bytes_external, 0u);
  EXPECT_FALSE(findingOf(*t, Finding::Kind::NeverReceived));
}

// A message queue is one queue whoever holds it: two processes take two
// alike messages from it, the later receiver first in the log order. Each
// receive gets the oldest message still queued when it returned: the first
// receiver in time the first message, whatever order their logs are read.
TEST(Merge, TwoReceiversShareOneMessageQueue) {
  FakeRecording rec;
  rec.process("late", 1).socketEnd(1, 900, 0, log::ChannelType::MessageQueue).receive(1, "job", 30, 31);
  rec.process("early", 2).socketEnd(1, 900, 0, log::ChannelType::MessageQueue).receive(1, "job", 15, 16);
  rec.process("boss", 3)
      .socketEnd(1, 900, 0, log::ChannelType::MessageQueue)
      .send(1, "job", 10, 11)
      .send(1, "job", 20, 21);
  auto t = rec.load();
  expectConsistent(*t);
  ASSERT_EQ(t->channels.size(), 1u);
  EXPECT_EQ(t->channels[0].recorded_name.rfind("message queue", 0), 0u) << t->channels[0].recorded_name;
  ASSERT_EQ(messages(*t).size(), 2u);
  EXPECT_EQ(t->incoming(at(*t, 2, 1)).first->from, at(*t, 3, 1));
  EXPECT_EQ(t->incoming(at(*t, 1, 1)).first->from, at(*t, 3, 2));
  EXPECT_EQ(t->bytes_matched, 6u);
  EXPECT_EQ(t->bytes_external, 0u);
  EXPECT_FALSE(findingOf(*t, Finding::Kind::NeverReceived));
}

// A process that queues messages for itself (its threads share the queue's
// descriptor): its receives take its own messages.
TEST(Merge, AProcessTakesWhatItQueuedItself) {
  FakeRecording rec;
  rec.process("pool", 1)
      .socketEnd(1, 901, 0, log::ChannelType::MessageQueue)
      .send(1, "task", 10, 11)
      .receive(1, "task", 20, 21);
  auto t = rec.load();
  expectConsistent(*t);
  ASSERT_EQ(messages(*t).size(), 1u);
  EXPECT_EQ(t->incoming(at(*t, 1, 2)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->bytes_external, 0u);
}

// Logs that contradict each other (each process received what the other
// sent only later): the story must tell one receive before its send, and
// says so as a finding naming both processes and both events, not as a
// damaged log of nobody's.
TEST(Merge, LogsThatContradictEachOtherAreAFindingNamingTheirEvents) {
  FakeRecording rec;
  rec.process("a", 1).pipeEnd(1, 801, false).pipeEnd(2, 802, true).receive(1, "x", 10, 20).send(2, "y", 30, 40);
  rec.process("b", 2).pipeEnd(1, 802, false).pipeEnd(2, 801, true).receive(1, "y", 11, 21).send(2, "x", 31, 41);
  auto t = rec.load();
  EXPECT_FALSE(findingOf(*t, Finding::Kind::Damaged));
  EXPECT_TRUE(t->problems.empty());
  ASSERT_EQ(t->contradictions.size(), 1u);
  const Trace::Contradiction& c = t->contradictions[0];
  EXPECT_LT(c.event, c.after);
  EXPECT_EQ(c.why, Edge::Why::Message);
  EXPECT_NE(t->events[c.event].process, t->events[c.after].process);
  // The edge really points back: the one receive told before its send.
  uint32_t backwards = 0;
  for (const Edge& e : t->edges) backwards += e.from > e.to;
  EXPECT_EQ(backwards, 1u);
  const Finding* f = findingOf(*t, Finding::Kind::Contradiction);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->processes.size(), 2u);
  EXPECT_EQ(f->events, (std::vector<uint32_t>{c.event, c.after}));
  const std::string receiver = t->label(t->events[c.event].process), sender = t->label(t->events[c.after].process);
  EXPECT_EQ(describe(*t, *f).rfind(receiver + "'s event " + std::to_string(c.event + 1) + " receives bytes that " +
                                       sender + " sends at event " + std::to_string(c.after + 1),
                                   0),
            0u)
      << describe(*t, *f);
}

// Two clients' datagrams of one length reach a UDP server in the other
// order than their sends began (the first sender was preempted in its
// call). Where each came from, and what it holds, say whose it is; and the
// client whose socket the kernel bound at its first send gets its replies.
TEST(Merge, DatagramsOfTwoClientsAreTheirsWhateverOrderTheirSendsBegan) {
  const std::string server_at = inet4("127.0.0.1", 5000), a_at = inet4("127.0.0.1", 6000),
                    b_at = inet4("127.0.0.1", 6001);
  FakeRecording rec;
  rec.process("a", 1)  // sendto from an unbound socket
      .udpEnd(1, 11, inet4("0.0.0.0", 0))
      .sendTo(1, "ping A", server_at, 10, 30)
      .receiveFrom(1, "pong A", server_at, 31, 40);
  rec.process("b", 2)  // connected: bound before its send
      .udpEnd(1, 12, b_at)
      .sendTo(1, "ping B", server_at, 12, 13)
      .receiveFrom(1, "pong B", server_at, 14, 24);
  rec.process("server", 3)
      .udpEnd(1, 10, server_at)
      .receiveFrom(1, "ping B", b_at, 5, 14)
      .receiveFrom(1, "ping A", a_at, 15, 16)
      .sendTo(1, "pong B", b_at, 20, 21)
      .sendTo(1, "pong A", a_at, 22, 23);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->incoming(at(*t, 3, 1)).first->from, at(*t, 2, 1));
  EXPECT_EQ(t->incoming(at(*t, 3, 2)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->incoming(at(*t, 2, 2)).first->from, at(*t, 3, 3));
  EXPECT_EQ(t->incoming(at(*t, 1, 2)).first->from, at(*t, 3, 4));
  EXPECT_EQ(t->bytes_matched, 24u);
  EXPECT_EQ(t->bytes_external, 0u);
}

// The same without addresses (a Unix datagram socket two clients share by
// path): the bytes decide.
TEST(Merge, DatagramsOfOneLengthAreMatchedByTheirBytes) {
  FakeRecording rec;
  rec.process("a", 1).socketEnd(1, 701, 702, log::ChannelType::UnixDgram).send(1, "ping A", 10, 30);
  rec.process("b", 2).socketEnd(1, 703, 702, log::ChannelType::UnixDgram).send(1, "ping B", 12, 13);
  rec.process("server", 3)
      .socketEnd(1, 702, 0, log::ChannelType::UnixDgram)
      .receive(1, "ping B", 5, 14)
      .receive(1, "ping A", 15, 16);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(t->incoming(at(*t, 3, 1)).first->from, at(*t, 2, 1));
  EXPECT_EQ(t->incoming(at(*t, 3, 2)).first->from, at(*t, 1, 1));
  EXPECT_EQ(t->bytes_external, 0u);
}

TEST(Merge, DisplayStateFromCheckpointsEqualsReplayFromStart) {
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 1).pipeEnd(1, 701, true).pipeEnd(2, 702, false);
  FakeProcess& b = rec.process("b", 2).pipeEnd(1, 701, false).pipeEnd(2, 702, true);
  for (int i = 0; i < 40; ++i) {
    a.send(1, "ping" + std::to_string(i), 100 * i, 100 * i + 5);
    b.receive(1, "ping" + std::to_string(i), 100 * i + 2, 100 * i + 10);
    b.send(2, "pong", 100 * i + 20, 100 * i + 25);
    if (i % 3) a.receive(2, "pong", 100 * i + 30, 100 * i + 40);
  }
  auto t = rec.load();
  trace::DisplayModel display(*t, 7);
  for (uint32_t n = 0; n <= t->events.size(); ++n) EXPECT_EQ(display.stateAt(n), display.replayFromStart(n)) << n;
}

// A child exists from the fork: it is on stage from then on, though its
// first event of its own comes much later (a message sent to it meanwhile
// waits at its box, not at the sender's).
TEST(Merge, AForkedChildIsOnStageFromItsFork) {
  FakeRecording rec;
  FakeProcess& parent = rec.process("parent", 1);
  parent.user("start", 5);
  FakeProcess& child = rec.child(parent, "child", 2);
  parent.fork(2, 10, 11).user("busy", 20).user("still busy", 30);
  child.user("first of its own", 40);
  auto t = rec.load();
  const uint32_t fork = at(*t, 1, 2), first = at(*t, 2, 1);
  ASSERT_LT(fork, first);
  EXPECT_EQ(t->createdAt(t->events[first].process), fork);
  EXPECT_EQ(t->createdAt(t->events[fork].process), kNone);  // the first process: nobody made it
  trace::DisplayModel display(*t);
  const uint32_t child_index = t->events[first].process;
  auto alive = [&](uint32_t position) {
    const auto state = display.stateAt(position);
    return std::binary_search(state.alive.begin(), state.alive.end(), child_index);
  };
  EXPECT_FALSE(alive(fork));     // before the fork
  EXPECT_TRUE(alive(fork + 1));  // the fork shown
  EXPECT_TRUE(alive(first));     // before its own first event
  EXPECT_TRUE(alive(first + 1));
}

// A program radar could not record (statically linked ...) that a recorded
// image exec'd is an image of its own: named with why, holding the ends
// open at the exec, ended as its parent reaped it, and on stage from the
// exec to its end.
TEST(Merge, AProgramRadarCouldNotRecordIsAnImageOfItsOwn) {
  FakeRecording rec;
  FakeProcess& shell = rec.process("sh", 1);
  FakeProcess& writer = rec.child(shell, "sh", 2);
  FakeProcess& upper = rec.child(shell, "sh", 3);
  FakeProcess& reader = rec.child(shell, "cat", 4);
  shell.fork(2, 1, 2).fork(3, 3, 4).fork(4, 5, 6);
  writer.pipeEnd(1, 7, true).send(1, "hello", 10, 11).exit(0, 12);
  upper.pipeEnd(1, 7, false).pipeEnd(2, 8, true).pipeEnd(3, 9, true).close(3, 19).exec("/opt/bin/upper", 20);
  reader.pipeEnd(1, 8, false).receive(1, "HELLO", 30, 31).exit(0, 32);
  shell.wait(3, 0, 40, 41);
  rec.notRecorded(3, "/opt/bin/upper", "not recorded: statically linked");
  auto t = rec.load();
  uint32_t unrecorded = kNone;
  for (const auto& p : t->processes)
    if (p.external) unrecorded = p.index;
  ASSERT_NE(unrecorded, kNone);
  const trace::Process& q = t->processes[unrecorded];
  EXPECT_EQ(q.pid, 3);
  EXPECT_EQ(q.recorded_name, "upper");
  EXPECT_EQ(q.executable, "/opt/bin/upper");
  EXPECT_EQ(q.not_recorded, "not recorded: statically linked");
  EXPECT_EQ(q.event_count, 0u);
  EXPECT_EQ(q.end, trace::Process::End::Exited);  // as sh reaped it
  const uint32_t image = t->processes[q.parent].index;
  EXPECT_EQ(t->processes[image].next_image, unrecorded);
  // The pipe it reads and the one it writes, not the end closed before.
  std::set<uint64_t> held;
  for (const auto& ep : t->endpoints)
    if (ep.process == unrecorded) held.insert(ep.ino);
  EXPECT_EQ(held, (std::set<uint64_t>{7, 8}));
  // The story names it, and the wait that reaped it.
  const uint32_t exec = at(*t, 3, 2), wait = at(*t, 1, 4);
  const analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.sentence(exec).find("Process sh[3] executes /opt/bin/upper, not recorded: statically linked"),
            std::string::npos)
      << narrator.sentence(exec);
  EXPECT_NE(narrator.sentence(wait).find("Process sh[1] learns that upper[3] exited with status 0"), std::string::npos)
      << narrator.sentence(wait);
  // On stage from the exec to the end.
  trace::DisplayModel display(*t);
  auto alive = [&](uint32_t position) {
    const auto state = display.stateAt(position);
    return std::binary_search(state.alive.begin(), state.alive.end(), unrecorded);
  };
  EXPECT_FALSE(alive(exec));
  EXPECT_TRUE(alive(exec + 1));
  EXPECT_TRUE(alive(static_cast<uint32_t>(t->events.size())));
  // Still a finding: what it did is not in the recording.
  EXPECT_TRUE(std::any_of(t->findings.begin(), t->findings.end(),
                          [](const trace::Finding& f) { return f.kind == trace::Finding::Kind::Unrecorded; }));
}

// ==== MPI ====================================================================

// The senders of the event at `position` by message edges.
std::vector<uint32_t> sendersOf(const Trace& t, uint32_t position, Edge::Why why = Edge::Why::Message) {
  std::vector<uint32_t> out;
  for (auto [b, e] = t.incoming(position); b != e; ++b)
    if (b->why == why) out.push_back(b->from);
  return out;
}

// MPI's non-overtaking rule: messages of one sender with one tag are taken
// by the receives in the order those were posted, whatever order their
// completions were recorded in (MPI_Waitany completed the second first);
// another tag is matched on its own.
TEST(Merge, MpiReceivesTakeMessagesInTheOrderTheyWerePosted) {
  FakeRecording rec;
  rec.process("app", 10)
      .mpiCommunicator(1, "job/w", 0, 2)
      .mpiInit(1, 0, 2, 5)
      .mpiSend(1, "first", 1, 5, 10, 11)
      .mpiSend(1, "second", 1, 5, 12, 13)
      .mpiSend(1, "other", 1, 6, 14, 15)
      .exit(0, 60);
  rec.process("app", 11)
      .mpiCommunicator(1, "job/w", 1, 2)
      .mpiInit(1, 1, 2, 5)
      .mpiIrecv(1, 0, 5, 1, 8)
      .mpiIrecv(1, 0, 5, 2, 9)
      .mpiRecv(1, "other", 0, 6, 16, 20)
      .mpiRecv(1, "second", 0, 5, 21, 22, 2)
      .mpiRecv(1, "first", 0, 5, 23, 24, 1)
      .exit(0, 70);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(sendersOf(*t, at(*t, 11, 4)), std::vector<uint32_t>{at(*t, 10, 4)}) << "tag 6";
  EXPECT_EQ(sendersOf(*t, at(*t, 11, 5)), std::vector<uint32_t>{at(*t, 10, 3)}) << "posted second";
  EXPECT_EQ(sendersOf(*t, at(*t, 11, 6)), std::vector<uint32_t>{at(*t, 10, 2)}) << "posted first";
  EXPECT_EQ(t->bytes_matched, 16u);
  EXPECT_EQ(findingOf(*t, Finding::Kind::NeverReceived), nullptr);
  EXPECT_EQ(t->processName(t->processes[1].index), "app rank 1");
  EXPECT_EQ(t->channelName(t->endpoints[t->events[at(*t, 11, 4)].endpoint].channel), "MPI_COMM_WORLD");
}

// A wildcard receive (MPI_ANY_SOURCE) is matched by the source its status
// gave, on its communicator only: the same ranks' messages on another
// communicator are others.
TEST(Merge, MpiWildcardReceiveIsMatchedByTheSourceItGot) {
  FakeRecording rec;
  FakeProcess& one = rec.process("w", 21).mpiCommunicator(1, "job/w", 1, 3).mpiCommunicator(2, "job/w/1", 1, 3);
  FakeProcess& two = rec.process("w", 22).mpiCommunicator(1, "job/w", 2, 3);
  FakeProcess& master = rec.process("m", 20).mpiCommunicator(1, "job/w", 0, 3).mpiCommunicator(2, "job/w/1", 0, 3);
  one.mpiSend(2, "dup", 0, 1, 5, 6).mpiSend(1, "from1", 0, 1, 10, 11).exit(0, 50);
  two.mpiSend(1, "from2", 0, 1, 8, 9).exit(0, 50);
  master.mpiRecv(1, "from2", 2, 1, 7, 12)
      .mpiRecv(1, "from1", 1, 1, 13, 14)
      .mpiRecv(2, "dup", 1, 1, 15, 16)
      .mpiRecv(1, "ghost", 1, 1, 17, 18)
      .exit(0, 60);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(sendersOf(*t, at(*t, 20, 1)), std::vector<uint32_t>{at(*t, 22, 1)});
  EXPECT_EQ(sendersOf(*t, at(*t, 20, 2)), std::vector<uint32_t>{at(*t, 21, 2)});
  EXPECT_EQ(sendersOf(*t, at(*t, 20, 3)), std::vector<uint32_t>{at(*t, 21, 1)});
  EXPECT_TRUE(sendersOf(*t, at(*t, 20, 4)).empty());
  EXPECT_TRUE(t->events[at(*t, 20, 4)].flags & trace::kEventUnmatched) << "no rank sent it";
}

// The n-th collective on a communicator is one across its ranks: a rank
// leaves a barrier only after every other arrived (edges from each other
// rank's event before it); a broadcast's ranks wait for the root only.
TEST(Merge, MpiCollectivesWaitForTheRanksTheyNeed) {
  FakeRecording rec;
  for (int32_t rank = 0; rank < 3; ++rank)
    rec.process("c", 30 + rank)
        .mpiCommunicator(1, "job/w", rank, 3)
        .mpiInit(1, rank, 3, 1)
        .mpiCollective(1, "MPI_Barrier", -1, 10 + rank, 40)
        .mpiInit(1, rank, 3, 41)  // something between the two collectives
        .mpiCollective(1, "MPI_Bcast", 0, 50 + rank, 60)
        .exit(0, 90);
  auto t = rec.load();
  expectConsistent(*t);
  for (int32_t rank = 0; rank < 3; ++rank) {
    std::vector<uint32_t> barrier = sendersOf(*t, at(*t, 30 + rank, 2), Edge::Why::Collective);
    std::vector<uint32_t> want;
    for (int32_t other = 0; other < 3; ++other)
      if (other != rank) want.push_back(at(*t, 30 + other, 1));
    std::sort(barrier.begin(), barrier.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(barrier, want) << "barrier, rank " << rank;
    const std::vector<uint32_t> bcast = sendersOf(*t, at(*t, 30 + rank, 4), Edge::Why::Collective);
    if (rank == 0) {
      EXPECT_TRUE(bcast.empty());
    } else {
      EXPECT_EQ(bcast, std::vector<uint32_t>{at(*t, 30, 3)}) << "bcast, rank " << rank;
    }
  }
}

// What an MPI library does on its own is told apart: a rank's calls inside
// its MPI calls (on the same thread, after the call's entry) and on a
// thread that began inside one; not the rank's own calls between them, nor
// a thread it started itself, nor a process that is no rank.
TEST(Merge, MpiLibraryEventsAreTheCallsInsideMpiCallsAndOnTheLibrarysThreads) {
  FakeRecording rec;
  rec.process("r", 40)
      .mpiCommunicator(1, "job/w", 0, 1)
      .pipeEnd(2, 900, true)
      .mpiInit(1, 0, 1, 1)
      .send(2, "mine", 10, 11)                      // 2: the rank's own
      .send(2, "lib", 21, 22)                       // 3: inside the barrier
      .send(2, "thread", 25, 26, 7)                 // 4: a thread begun inside the barrier
      .send(2, "t", 27, 28, 7)                      // 5: the same thread, later
      .send(2, "lib", 29, 30)                       // 6: inside the barrier
      .mpiCollective(1, "MPI_Barrier", -1, 20, 40)  // 7
      .send(2, "mine", 50, 51)                      // 8
      .send(2, "own thread", 55, 56, 8)             // 9: a thread of the rank's own
      .send(2, "mine", 60, 61, 7)                   // 10: the library's thread, still
      .exit(0, 90);
  rec.process("launcher", 41).user("ready", 35).exit(0, 91);
  auto t = rec.load();
  expectConsistent(*t);
  std::vector<uint32_t> library;
  for (uint32_t i = 0; i < t->events.size(); ++i)
    if (t->byMpiLibrary(i)) library.push_back(i);
  std::vector<uint32_t> want = {at(*t, 40, 3), at(*t, 40, 4), at(*t, 40, 5), at(*t, 40, 6), at(*t, 40, 10)};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(library, want);
  EXPECT_FALSE(t->byMpiLibrary(at(*t, 41, 1)));

  FakeRecording no_mpi;
  no_mpi.process("p", 50).pipeEnd(1, 901, true).send(1, "x", 1, 2).exit(0, 3);
  EXPECT_TRUE(no_mpi.load()->mpi_library.empty());
}

// Ranks that call their collectives in another order (the classic MPI
// bug) are a finding, and the collectives after they part are not tied
// across ranks; a rank that calls fewer is one too.
TEST(Merge, MpiRanksCallingDifferentCollectivesAreAFinding) {
  FakeRecording rec;
  rec.process("m", 40)
      .mpiCommunicator(1, "job/w", 0, 2)
      .mpiInit(1, 0, 2, 1)
      .mpiCollective(1, "MPI_Bcast", 0, 10, 11)
      .mpiCollective(1, "MPI_Barrier", -1, 12, 30)
      .exit(0, 90);
  rec.process("m", 41)
      .mpiCommunicator(1, "job/w", 1, 2)
      .mpiInit(1, 1, 2, 1)
      .mpiCollective(1, "MPI_Barrier", -1, 10, 30)
      .mpiCollective(1, "MPI_Bcast", 0, 31, 32)
      .exit(0, 90);
  auto t = rec.load();
  expectConsistent(*t);
  const Finding* f = findingOf(*t, Finding::Kind::MpiMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->nth, 1u);
  EXPECT_EQ(trace::describe(*t, *f),
            "the ranks call different collectives on MPI_COMM_WORLD: as its 1st, m rank 0[40] calls MPI_Bcast where m "
            "rank 1[41] calls MPI_Barrier");
  for (int32_t pid : {40, 41})
    for (uint32_t k : {2u, 3u}) EXPECT_TRUE(sendersOf(*t, at(*t, pid, k), Edge::Why::Collective).empty());

  FakeRecording fewer;
  fewer.process("m", 50)
      .mpiCommunicator(1, "job/w", 0, 2)
      .mpiCollective(1, "MPI_Barrier", -1, 10, 20)
      .mpiCollective(1, "MPI_Allreduce", -1, 21, 22)
      .exit(0, 90);
  fewer.process("m", 51).mpiCommunicator(1, "job/w", 1, 2).mpiCollective(1, "MPI_Barrier", -1, 10, 20).exit(0, 90);
  auto u = fewer.load();
  const Finding* g = findingOf(*u, Finding::Kind::MpiMismatch);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(trace::describe(*u, *g),
            "m[51] calls 1 collective on MPI_COMM_WORLD and no 2nd, where m[50] calls MPI_Allreduce: a rank waiting "
            "there waits for it");
  FakeRecording agree;
  for (int32_t pid : {60, 61})
    agree.process("m", pid)
        .mpiCommunicator(1, "job/w", pid - 60, 2)
        .mpiCollective(1, "MPI_Barrier", -1, 10, 20)
        .exit(0, 90);
  EXPECT_EQ(findingOf(*agree.load(), Finding::Kind::MpiMismatch), nullptr);
}

// A rank killed while it waited in a collective: still in it when the
// recording ended (its thread's slot says which), which another rank had
// left, or had not come to. Its place counts as a collective called, so
// that the ranks' sequences are compared as far as they went.
TEST(Merge, MpiRankStillInACollectiveOthersLeftOrNeverCameToIsAFinding) {
  const int32_t barrier = static_cast<int32_t>(trace::mpiCollectiveCode("MPI_Barrier"));
  const int32_t bcast = static_cast<int32_t>(trace::mpiCollectiveCode("MPI_Bcast"));
  FakeRecording absent;
  absent.process("m", 100)
      .mpiCommunicator(1, "job/w", 0, 2)
      .mpiCollective(1, "MPI_Bcast", 0, 10, 11)
      .blockedIn(log::Kind::MpiCollective, 1, barrier);
  absent.process("m", 101)
      .mpiCommunicator(1, "job/w", 1, 2)
      .mpiCollective(1, "MPI_Bcast", 0, 10, 12)
      .blockedIn(log::Kind::MpiRecv, 1, -1);
  auto t = absent.load();
  expectConsistent(*t);
  const Finding* f = findingOf(*t, Finding::Kind::MpiStuck);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(trace::describe(*t, *f),
            "m[100] was still in MPI_Barrier, its 2nd collective on MPI_COMM_WORLD, when the recording ended; m[101] "
            "had not come to it (it was in no collective there)");
  const Finding* g = findingOf(*t, Finding::Kind::MpiMismatch);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(trace::describe(*t, *g),
            "m[101] calls 1 collective on MPI_COMM_WORLD and no 2nd, where m[100] calls MPI_Barrier: a rank waiting "
            "there waits for it");
  const Finding* n = findingOf(*t, Finding::Kind::NeverEnded);
  ASSERT_NE(n, nullptr);
  EXPECT_NE(trace::describe(*t, *n).find("blocked in MPI_Barrier on MPI_COMM_WORLD"), std::string::npos);

  FakeRecording left;
  left.process("m", 110).mpiCommunicator(1, "job/w", 0, 2).blockedIn(log::Kind::MpiCollective, 1, bcast);
  left.process("m", 111).mpiCommunicator(1, "job/w", 1, 2).mpiCollective(1, "MPI_Bcast", 1, 10, 11).exit(0, 20);
  auto u = left.load();
  const Finding* h = findingOf(*u, Finding::Kind::MpiStuck);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(trace::describe(*u, *h),
            "m[110] was still in MPI_Bcast, its 1st collective on MPI_COMM_WORLD, when the recording ended; m[111] had "
            "left it");
  EXPECT_EQ(findingOf(*u, Finding::Kind::MpiMismatch), nullptr) << "the same collective, not yet left";

  // One waiting in its 2nd, another still in its 1st (which the first
  // left): only the second is named, and as one the other had left.
  FakeRecording behind;
  behind.process("m", 130)
      .mpiCommunicator(1, "job/w", 0, 2)
      .mpiCollective(1, "MPI_Bcast", 0, 10, 11)
      .blockedIn(log::Kind::MpiCollective, 1, barrier);
  behind.process("m", 131).mpiCommunicator(1, "job/w", 1, 2).blockedIn(log::Kind::MpiCollective, 1, bcast);
  auto w = behind.load();
  const Finding* k = findingOf(*w, Finding::Kind::MpiStuck);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(trace::describe(*w, *k),
            "m[131] was still in MPI_Bcast, its 1st collective on MPI_COMM_WORLD, when the recording ended; m[130] had "
            "left it");
  EXPECT_EQ(std::count_if(w->findings.begin(), w->findings.end(),
                          [](const Finding& each) { return each.kind == Finding::Kind::MpiStuck; }),
            1);

  // Both waiting in it: neither is named (the one they wait for is not a rank there).
  FakeRecording both;
  for (int32_t pid : {120, 121})
    both.process("m", pid).mpiCommunicator(1, "job/w", pid - 120, 2).blockedIn(log::Kind::MpiCollective, 1, barrier);
  auto v = both.load();
  EXPECT_EQ(findingOf(*v, Finding::Kind::MpiStuck), nullptr);
  EXPECT_EQ(findingOf(*v, Finding::Kind::MpiMismatch), nullptr);
}

// A receive from any source races when another rank's send, of a tag it
// takes and not got by an earlier receive, does not follow it: either
// message could have come first. Named once per receiving rank, with the
// other candidate.
TEST(Merge, MpiWildcardReceiveThatAnotherRanksSendCouldHaveMatchedIsARace) {
  FakeRecording rec;
  rec.process("w", 71).mpiCommunicator(1, "job/w", 1, 4).mpiSend(1, "a1", 0, 1, 5, 6).exit(0, 50);
  rec.process("w", 72).mpiCommunicator(1, "job/w", 2, 4).mpiSend(1, "a2", 0, 1, 5, 6).exit(0, 50);
  rec.process("w", 73).mpiCommunicator(1, "job/w", 3, 4).mpiSend(1, "t9", 0, 9, 5, 6).exit(0, 50);
  rec.process("m", 70)
      .mpiCommunicator(1, "job/w", 0, 4)
      .mpiRecvAny(1, "a2", 2, 1, 1, 10)
      .mpiRecvAny(1, "a1", 1, 1, 11, 12)
      .mpiRecvAny(1, "t9", 3, 9, 13, 14)
      .exit(0, 60);
  auto t = rec.load();
  expectConsistent(*t);
  const Finding* f = findingOf(*t, Finding::Kind::WildcardRace);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->nth, 1u) << "the second got the last message of tag 1; tag 9 had one sender";
  EXPECT_EQ(f->events, (std::vector<uint32_t>{at(*t, 70, 1), at(*t, 72, 1), at(*t, 71, 1)}));
  EXPECT_EQ(trace::describe(*t, *f),
            "1 receive from any source by m[70] on MPI_COMM_WORLD could have got another rank's message: it got "
            "w[72]'s, and w[71]'s send could have come first; which one a receive gets depends on timing");
  EXPECT_EQ(std::count_if(t->findings.begin(), t->findings.end(),
                          [](const Finding& g) { return g.kind == Finding::Kind::WildcardRace; }),
            1);

  // Any tag: another rank's message of another tag could have come first.
  FakeRecording tags;
  tags.process("w", 91).mpiCommunicator(1, "job/w", 1, 3).mpiSend(1, "seven", 0, 7, 5, 6).exit(0, 50);
  tags.process("w", 92).mpiCommunicator(1, "job/w", 2, 3).mpiSend(1, "five", 0, 5, 5, 6).exit(0, 50);
  tags.process("m", 90)
      .mpiCommunicator(1, "job/w", 0, 3)
      .mpiRecvAny(1, "five", 2, 5, 1, 10, true)
      .mpiRecv(1, "seven", 1, 7, 11, 12)
      .exit(0, 60);
  auto u = tags.load();
  const Finding* g = findingOf(*u, Finding::Kind::WildcardRace);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->events.back(), at(*u, 91, 1));
}

// No race where the other rank sends only after the receive (it waits for
// a message the receiving rank sent after it), nor on a receive that
// named its source.
TEST(Merge, MpiWildcardReceiveDoesNotRaceWithASendThatFollowsIt) {
  FakeRecording rec;
  rec.process("w", 81)
      .mpiCommunicator(1, "job/w", 1, 3)
      .mpiRecv(1, "go", 0, 1, 13, 14)
      .mpiSend(1, "a1", 0, 1, 15, 16)
      .exit(0, 50);
  rec.process("w", 82).mpiCommunicator(1, "job/w", 2, 3).mpiSend(1, "a2", 0, 1, 5, 6).exit(0, 50);
  rec.process("m", 80)
      .mpiCommunicator(1, "job/w", 0, 3)
      .mpiRecvAny(1, "a2", 2, 1, 1, 10)
      .mpiSend(1, "go", 1, 1, 11, 12)
      .mpiRecvAny(1, "a1", 1, 1, 30, 31)
      .exit(0, 60);
  auto t = rec.load();
  expectConsistent(*t);
  EXPECT_EQ(sendersOf(*t, at(*t, 80, 3)), std::vector<uint32_t>{at(*t, 81, 2)});
  EXPECT_EQ(findingOf(*t, Finding::Kind::WildcardRace), nullptr);

  FakeRecording named;
  named.process("w", 86).mpiCommunicator(1, "job/w", 1, 3).mpiSend(1, "a1", 0, 1, 5, 6).exit(0, 50);
  named.process("w", 87).mpiCommunicator(1, "job/w", 2, 3).mpiSend(1, "a2", 0, 1, 5, 6).exit(0, 50);
  named.process("m", 85)
      .mpiCommunicator(1, "job/w", 0, 3)
      .mpiRecv(1, "a2", 2, 1, 1, 10)
      .mpiRecv(1, "a1", 1, 1, 11, 12)
      .exit(0, 60);
  EXPECT_EQ(findingOf(*named.load(), Finding::Kind::WildcardRace), nullptr);
}

}  // namespace
}  // namespace radar::testing
