// The critical path on hand-made recordings with known answers, and on
// random executions: its segments add up exactly to the time it explains,
// and each of its steps is a happens-before edge.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>

#include "analysis/critical_path.h"
#include "analysis/interactions.h"
#include "fake_recording.h"

namespace radar::analysis {
namespace {

using radar::testing::FakeProcess;
using radar::testing::FakeRecording;
using Kind = PathSegment::Kind;

uint32_t at(const Trace& t, int32_t pid, uint32_t counter) {
  for (const auto& p : t.processes)
    if (p.pid == pid) return t.counter_events[p.index].at(counter - 1);
  ADD_FAILURE() << "no process " << pid;
  return 0;
}

// The path's segments as (kind, ns, pid), consecutive ones of one kind and
// process summed.
std::vector<std::tuple<Kind, int64_t, int32_t>> shape(const Trace& t, const CriticalPath& path) {
  std::vector<std::tuple<Kind, int64_t, int32_t>> out;
  for (const auto& s : path.segments) {
    const int32_t pid = t.processes[s.process].pid;
    if (!out.empty() && std::get<0>(out.back()) == s.kind && std::get<2>(out.back()) == pid)
      std::get<1>(out.back()) += s.ns();
    else
      out.emplace_back(s.kind, s.ns(), pid);
  }
  return out;
}

void expectWhole(const Trace& t, const CriticalPath& path) {
  ASSERT_FALSE(path.events.empty());
  int64_t at_ns = path.begin_ns, sum = 0;
  for (const auto& s : path.segments) {
    EXPECT_EQ(s.begin_ns, at_ns);  // each begins where the previous ended
    EXPECT_GT(s.end_ns, s.begin_ns);
    at_ns = s.end_ns;
    sum += s.ns();
  }
  EXPECT_EQ(at_ns, path.end_ns);
  EXPECT_EQ(sum, path.end_ns - path.begin_ns);
  for (size_t k = 1; k < path.events.size(); ++k)
    EXPECT_TRUE(t.happensBefore(path.events[k - 1], path.events[k]))
        << "step " << path.events[k - 1] + 1 << " -> " << path.events[k] + 1;
}

// client[100] asks server[200] over one pipe and gets the answer over
// another; the server was waiting for the question, the client for the
// answer.
TEST(CriticalPath, ARequestAndItsReplyAreRunningAndTransit) {
  FakeRecording rec;
  rec.process("client", 100)
      .pipeEnd(1, 11, true)
      .pipeEnd(2, 12, false)
      .send(1, "question", 10, 11)
      .receive(2, "answer", 12, 22)
      .exit(0, 25);
  rec.process("server", 200)
      .pipeEnd(1, 11, false)
      .pipeEnd(2, 12, true)
      .receive(1, "question", 5, 12)
      .send(2, "answer", 20, 21)
      .exit(0, 30);
  auto t = rec.load();
  CriticalPath path;
  std::string error;
  // Channel definitions are not events: the send is the client's first.
  const uint32_t ask = at(*t, 100, 1), answered = at(*t, 100, 2);
  ASSERT_TRUE(criticalPath(*t, ask, answered, &path, &error)) << error;
  expectWhole(*t, path);
  EXPECT_EQ(path.events, (std::vector<uint32_t>{ask, at(*t, 200, 1), at(*t, 200, 2), answered}));
  EXPECT_EQ(path.end_ns - path.begin_ns, 12);
  using S = std::tuple<Kind, int64_t, int32_t>;
  EXPECT_EQ(shape(*t, path), (std::vector<S>{S{Kind::Running, 1, 100},     // the client's send
                                             S{Kind::Transit, 1, 200},     // to the waiting server
                                             S{Kind::Running, 9, 200},     // its work and its send
                                             S{Kind::Transit, 1, 100}}));  // to the waiting client
  // The other way into the server's receive: its own previous call, early.
  ASSERT_FALSE(path.branches.empty());
}

// The server busy when the question comes: from the question on, its wait
// in the channel is queued; without a start, the server's own work leads.
TEST(CriticalPath, AMessageWaitingForABusyReceiverIsQueued) {
  FakeRecording rec;
  rec.process("client", 100).pipeEnd(1, 11, true).send(1, "question", 10, 11).exit(0, 50);
  rec.process("server", 200).pipeEnd(1, 11, false).user("busy", 2).receive(1, "question", 30, 31).exit(0, 40);
  auto t = rec.load();
  const uint32_t ask = at(*t, 100, 1), taken = at(*t, 200, 2);
  CriticalPath path;
  std::string error;
  ASSERT_TRUE(criticalPath(*t, ask, taken, &path, &error)) << error;
  expectWhole(*t, path);
  using S = std::tuple<Kind, int64_t, int32_t>;
  EXPECT_EQ(shape(*t, path),
            (std::vector<S>{S{Kind::Running, 1, 100}, S{Kind::Queued, 19, 200}, S{Kind::Running, 1, 200}}));
  ASSERT_TRUE(criticalPath(*t, kNone, taken, &path, &error)) << error;
  expectWhole(*t, path);
  for (const auto& s : path.segments) EXPECT_NE(s.kind, Kind::Queued);
  EXPECT_EQ(t->processes[t->events[path.events.front()].process].pid, 200);  // the server's own past
  // The message had slack: it could have come 19 ns later.
  bool found = false;
  for (const auto& b : path.branches) found |= b.from == ask && b.slack_ns == 19;
  EXPECT_TRUE(found);
}

// Waiting for what the recording does not link (input from a terminal).
TEST(CriticalPath, WaitingForTheUnknownIsBlocked) {
  FakeRecording rec;
  rec.process("reader", 100).terminal(1).user("start", 1).receive(1, "typed\n", 2, 50).exit(0, 51);
  auto t = rec.load();
  CriticalPath path;
  std::string error;
  ASSERT_TRUE(criticalPath(*t, kNone, at(*t, 100, 3), &path, &error)) << error;
  expectWhole(*t, path);
  using S = std::tuple<Kind, int64_t, int32_t>;
  EXPECT_EQ(shape(*t, path),
            (std::vector<S>{S{Kind::Running, 1, 100}, S{Kind::Blocked, 48, 100}, S{Kind::Running, 1, 100}}));
}

// A token passed along five processes, each waiting for it.
TEST(CriticalPath, ThroughFiveProcesses) {
  FakeRecording rec;
  for (int i = 0; i < 5; ++i) {
    FakeProcess& p = rec.process("stage" + std::to_string(i), 100 + i);
    const int64_t base = 10 * i;
    if (i > 0) p.pipeEnd(1, 50 + i, false).receive(1, "token", 1, base + 2);
    if (i < 4) p.pipeEnd(2, 51 + i, true).send(2, "token", base + 5, base + 6);
    p.exit(0, 100 + i);
  }
  auto t = rec.load();
  CriticalPath path;
  std::string error;
  const uint32_t first = at(*t, 100, 1), last = at(*t, 104, 1);
  ASSERT_TRUE(criticalPath(*t, first, last, &path, &error)) << error;
  expectWhole(*t, path);
  EXPECT_EQ(path.events.size(), 8u);  // a send and a receive in each hop
  std::map<int32_t, int> pids;
  std::map<Kind, int64_t> by_kind;
  for (const auto& s : path.segments) {
    ++pids[t->processes[s.process].pid];
    by_kind[s.kind] += s.ns();
  }
  EXPECT_EQ(pids.size(), 5u);
  EXPECT_EQ(by_kind[Kind::Transit], 4 * 6);    // each hop: sent at +6, received at +12
  EXPECT_EQ(path.end_ns - path.begin_ns, 37);  // from the first send's entry (5) to the last return (42)
}

// Equal times: the thread's own call wins, the same way every time.
TEST(CriticalPath, TiesGoToTheThreadsOwnCall) {
  FakeRecording rec;
  rec.process("sender", 100).pipeEnd(1, 11, true).send(1, "x", 10, 20).exit(0, 60);
  rec.process("receiver", 200).pipeEnd(1, 11, false).user("ready", 20).receive(1, "x", 20, 21).exit(0, 70);
  auto t = rec.load();
  CriticalPath path;
  std::string error;
  const uint32_t got = at(*t, 200, 2);
  ASSERT_TRUE(criticalPath(*t, kNone, got, &path, &error)) << error;
  expectWhole(*t, path);
  ASSERT_GE(path.events.size(), 2u);
  EXPECT_EQ(path.events[path.events.size() - 2], at(*t, 200, 1));
}

TEST(CriticalPath, AnEndThatDoesNotFollowFromTheStartIsRefused) {
  FakeRecording rec;
  rec.process("a", 100).user("one", 10).exit(0, 20);
  rec.process("b", 200).user("two", 15).exit(0, 25);
  auto t = rec.load();
  CriticalPath path;
  std::string error;
  EXPECT_FALSE(criticalPath(*t, at(*t, 100, 1), at(*t, 200, 2), &path, &error));  // b's exit
  EXPECT_NE(error.find("does not follow from event"), std::string::npos) << error;
  EXPECT_FALSE(criticalPath(*t, kNone, 99999, &path, &error));
}

// Random executions: processes exchanging messages over pipes at random
// moments. Every path from a random start to a random later event adds up
// and steps along happens-before.
class CriticalPaths : public ::testing::TestWithParam<uint64_t> {};

TEST_P(CriticalPaths, SegmentsAddUpAndEveryStepIsAnEdge) {
  std::mt19937_64 rng(GetParam() * 6151);
  const int n = 2 + static_cast<int>(rng() % 5);
  FakeRecording rec;
  std::vector<FakeProcess*> procs;
  std::vector<int64_t> clock(n, 0);
  for (int i = 0; i < n; ++i) procs.push_back(&rec.process("p" + std::to_string(i), 100 + i));
  // A pipe from each process to each other: index 1 + 2 * other writes, 2 + 2 * other reads.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) {
        procs[i]->pipeEnd(1 + 2 * j, 1000 + i * 16 + j, true);
        procs[i]->pipeEnd(2 + 2 * j, 1000 + j * 16 + i, false);
      }
  struct Sent {
    int64_t ret;
    std::string bytes;
  };
  std::map<std::pair<int, int>, std::deque<Sent>> pipes;  // (from, to)
  for (int step = 0; step < 300; ++step) {
    const int i = static_cast<int>(rng() % n);
    int from = -1;
    for (int j = 0; j < n; ++j)
      if (j != i && !pipes[{j, i}].empty() && rng() % 2) from = j;
    if (from >= 0) {
      const Sent s = pipes[{from, i}].front();
      pipes[{from, i}].pop_front();
      const int64_t entry = clock[i] + static_cast<int64_t>(rng() % 50);
      const int64_t ret = std::max(entry, s.ret) + 1 + static_cast<int64_t>(rng() % 20);
      procs[i]->receive(2 + 2 * from, s.bytes, entry, ret);
      clock[i] = ret;
    } else {
      int to = static_cast<int>(rng() % (n - 1));
      if (to >= i) ++to;
      const int64_t entry = clock[i] + 1 + static_cast<int64_t>(rng() % 50);
      const int64_t ret = entry + 1 + static_cast<int64_t>(rng() % 10);
      const std::string bytes = "m" + std::to_string(step);
      procs[i]->send(1 + 2 * to, bytes, entry, ret);
      pipes[{i, to}].push_back({ret, bytes});
      clock[i] = ret;
    }
  }
  auto t = rec.load();
  const uint32_t total = static_cast<uint32_t>(t->events.size());
  int checked = 0;
  for (int k = 0; k < 40; ++k) {
    const uint32_t a = static_cast<uint32_t>(rng() % total), b = static_cast<uint32_t>(rng() % total);
    CriticalPath path;
    std::string error;
    const bool follows = a == b || t->happensBefore(a, b);
    ASSERT_EQ(criticalPath(*t, a, b, &path, &error), follows) << error;
    if (!follows) continue;
    expectWhole(*t, path);
    EXPECT_EQ(path.events.front(), a);
    EXPECT_EQ(path.events.back(), b);
    ++checked;
    ASSERT_TRUE(criticalPath(*t, kNone, b, &path, &error)) << error;
    expectWhole(*t, path);
    EXPECT_EQ(path.events.back(), b);
  }
  EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CriticalPaths, ::testing::Range<uint64_t>(1, 31));

}  // namespace
}  // namespace radar::analysis

namespace radar::analysis {
namespace {

// A server answering two clients over socket pairs, twice each, with known
// times: each interaction's parts, and the percentiles over them.
TEST(Interactions, RequestsAndRepliesSplitIntoTheirParts) {
  FakeRecording rec;
  // Client 1 asks at 10..11; the server, waiting since 5, gets it at 12,
  // answers 20..21; the client, waiting since 12, has it at 22.
  // Then again at 30..31, the server busy until it calls at 40, gets it at
  // 41, answers 45..46; the client calls at 50 and has it at 51.
  rec.process("client", 100)
      .socketEnd(1, 1, 2)
      .send(1, "q1", 10, 11)
      .receive(1, "a1", 12, 22)
      .send(1, "q2", 30, 31)
      .receive(1, "a2", 50, 51)
      .exit(0, 60);
  rec.process("server", 200)
      .socketEnd(1, 2, 1)
      .receive(1, "q1", 5, 12)
      .send(1, "a1", 20, 21)
      .receive(1, "q2", 40, 41)
      .send(1, "a2", 45, 46)
      .exit(0, 70);
  auto t = rec.load();
  const Interactions found = findInteractions(*t);
  ASSERT_EQ(found.all.size(), 2u);  // the client, who spoke first, serves nothing
  ASSERT_EQ(found.groups.size(), 1u);
  ASSERT_EQ(found.groups[0].servers.size(), 1u);
  EXPECT_EQ(t->processes[found.groups[0].servers[0]].pid, 200);
  const Interaction& first = found.all[0];
  EXPECT_EQ(first.request_send, at(*t, 100, 1));
  EXPECT_EQ(first.request_receive, at(*t, 200, 1));
  EXPECT_EQ(first.reply_send, at(*t, 200, 2));
  EXPECT_EQ(first.reply_receive, at(*t, 100, 2));
  using P = Interaction;
  EXPECT_EQ(first.ns, (std::array<int64_t, P::kParts>{1, 0, 1, 9, 0, 1}));
  EXPECT_EQ(first.total(), 22 - 10);
  const Interaction& second = found.all[1];
  EXPECT_EQ(second.ns, (std::array<int64_t, P::kParts>{1, 9, 1, 5, 4, 1}));
  EXPECT_EQ(second.total(), 51 - 30);
  std::vector<int64_t> totals{first.total(), second.total()};
  EXPECT_EQ(percentile(totals, 0.5), 12);
  EXPECT_EQ(percentile(totals, 0.99), 21);
}

// Random request/response runs: every interaction's parts add up to its
// response time, from the request's send to the reply's receive, also
// where the reply's send returned after the client had it.
TEST(Interactions, PartsAddUpToTheResponseTime) {
  std::mt19937_64 rng(77);
  FakeRecording rec;
  FakeProcess& server = rec.process("server", 200);
  std::vector<FakeProcess*> clients;
  for (int c = 0; c < 3; ++c) {
    clients.push_back(&rec.process("client" + std::to_string(c), 100 + c));
    clients.back()->socketEnd(1, 10 + c, 20 + c);
    server.socketEnd(1 + c, 20 + c, 10 + c);
  }
  int64_t now = 100;
  for (int k = 0; k < 60; ++k) {
    const int c = static_cast<int>(rng() % 3);
    const std::string q = "q" + std::to_string(k), a = "a" + std::to_string(k);
    const int64_t ask = now + static_cast<int64_t>(rng() % 10);
    clients[c]->send(1, q, ask, ask + 1);
    const int64_t got = ask + 2 + static_cast<int64_t>(rng() % 10);
    server.receive(1 + c, q, ask - 1, got);
    const int64_t answer = got + static_cast<int64_t>(rng() % 20);
    // Half the time the server is preempted before its send returns: the
    // client has the reply (moved at answer + 1) before that.
    const int64_t late = rng() % 2 ? static_cast<int64_t>(rng() % 30) : 0;
    server.send(1 + c, a, answer, answer + 1 + late);
    const int64_t call = ask + 1 + static_cast<int64_t>(rng() % 40);
    clients[c]->receive(1, a, call, std::max(call, answer + 1) + 1);
    now = std::max(call, answer + 1 + late) + 2;
  }
  auto t = rec.load();
  const Interactions found = findInteractions(*t);
  ASSERT_EQ(found.all.size(), 60u);
  for (const Interaction& in : found.all) {
    ASSERT_NE(in.request_send, kNone);
    ASSERT_NE(in.reply_receive, kNone);
    const int64_t start = t->wallTime(in.request_send);
    const int64_t end = t->wallTime(in.reply_receive) + t->events[in.reply_receive].durationNs();
    EXPECT_EQ(in.total(), end - start);
    for (int64_t v : in.ns) EXPECT_GE(v, 0);
  }
}

}  // namespace
}  // namespace radar::analysis
