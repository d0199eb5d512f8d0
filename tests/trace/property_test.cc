// The merge on randomly generated executions: many processes, shared pipes
// with several writers and readers, blocking reads. The simulator knows
// which send produced every received byte; the merge must find exactly that,
// and its order, numbers, clocks and display states must be consistent.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>

#include "fake_recording.h"
#include "trace/clocks.h"
#include "trace/display.h"
#include "trace/merge.h"

namespace radar::testing {
namespace {

using trace::Edge;
using trace::kNone;
using trace::Trace;

struct Piece {
  int sender;             // process index
  uint64_t send_counter;  // that process's counter
  std::string bytes;
};

struct Truth {
  // (receiver, counter) -> [(sender, counter, bytes)]
  std::map<std::pair<int, uint64_t>, std::vector<std::tuple<int, uint64_t, uint32_t>>> received;
};

// Runs a random execution and writes its logs into `rec`.
Truth simulate(uint64_t seed, FakeRecording& rec, int processes, int channels, int steps) {
  std::mt19937_64 rng(seed);
  struct Proc {
    FakeProcess* log;
    std::vector<int> out, in;  // channels it writes / reads
    bool blocked = false;
    int blocked_on = -1;
    int64_t blocked_since = 0;
    uint64_t counter = 0;
  };
  std::vector<Proc> procs(processes);
  for (int p = 0; p < processes; ++p) procs[p].log = &rec.process("p" + std::to_string(p), 100 + p);
  std::vector<std::deque<Piece>> pipe(channels);
  for (int c = 0; c < channels; ++c) {
    // One or two writers, one or two readers, no process on both ends.
    std::vector<int> order(processes);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const int writers = 1 + static_cast<int>(rng() % 2), readers = 1 + static_cast<int>(rng() % 2);
    for (int k = 0; k < writers; ++k) procs[order[k]].out.push_back(c);
    for (int k = writers; k < writers + readers && k < processes; ++k) procs[order[k]].in.push_back(c);
  }
  for (int p = 0; p < processes; ++p) {
    for (int c : procs[p].out) procs[p].log->pipeEnd(c + 1, 1000 + c, true);
    for (int c : procs[p].in) procs[p].log->pipeEnd(c + 1, 1000 + c, false);
  }
  Truth truth;
  int64_t now = 1000;
  for (int step = 0; step < steps; ++step) {
    const int p = static_cast<int>(rng() % processes);
    Proc& me = procs[p];
    now += 1 + static_cast<int64_t>(rng() % 50);
    if (me.blocked) {
      auto& q = pipe[me.blocked_on];
      if (q.empty()) continue;
    }
    const bool can_send = !me.out.empty(), can_receive = !me.in.empty();
    const bool do_send = !me.blocked && can_send && (!can_receive || rng() % 2);
    if (do_send) {
      const int c = me.out[rng() % me.out.size()];
      std::string bytes(1 + rng() % 30, 'a');
      for (auto& ch : bytes) ch = static_cast<char>('a' + rng() % 26);
      me.log->send(c + 1, bytes, now, now + 1);
      pipe[c].push_back({p, ++me.counter, bytes});
      now += 1;
      continue;
    }
    if (!can_receive) continue;
    const int c = me.blocked ? me.blocked_on : me.in[rng() % me.in.size()];
    auto& q = pipe[c];
    if (q.empty()) {  // a blocking read: waits until something arrives
      me.blocked = true;
      me.blocked_on = c;
      me.blocked_since = now;
      continue;
    }
    const int64_t entry = me.blocked ? me.blocked_since : now;
    me.blocked = false;
    size_t want = 1 + rng() % 40;
    std::string got;
    auto& pieces = truth.received[{p, me.counter + 1}];
    while (want && !q.empty()) {
      Piece& head = q.front();
      const size_t take = std::min(want, head.bytes.size());
      got += head.bytes.substr(0, take);
      pieces.emplace_back(head.sender, head.send_counter, static_cast<uint32_t>(take));
      head.bytes.erase(0, take);
      want -= take;
      if (head.bytes.empty()) q.pop_front();
    }
    me.log->receive(c + 1, got, entry, now + 1);
    ++me.counter;
    now += 1;
  }
  for (auto& me : procs)
    if (me.blocked) me.log->blockedIn(log::Kind::Read, me.blocked_on + 1);
  return truth;
}

// Merges the recording of a random execution and checks it against what the
// simulator knows; *events tells how many it had.
void expectExactAndConsistent(uint64_t seed, std::mt19937_64& rng, int processes, int channels, int steps,
                              size_t* events = nullptr) {
  FakeRecording rec;
  Truth truth = simulate(seed, rec, processes, channels, steps);
  auto t = rec.load();
  ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
  if (events) *events = t->events.size();
  std::map<int32_t, uint32_t> by_pid;
  for (const auto& p : t->processes) by_pid[p.pid] = p.index;
  auto position = [&](int proc, uint64_t counter) { return t->counter_events[by_pid.at(100 + proc)].at(counter - 1); };

  // Every received byte is matched to the send that produced it.
  uint64_t edges = 0;
  for (const auto& [receiver, pieces] : truth.received) {
    const uint32_t r = position(receiver.first, receiver.second);
    auto [b, e] = t->incoming(r);
    std::vector<std::tuple<uint32_t, uint32_t>> got, want;
    for (; b != e; ++b)
      if (b->why == Edge::Why::Message) got.emplace_back(b->from, b->bytes);
    // Two pieces of one send in one receive are one edge.
    for (const auto& [s, counter, n] : pieces) {
      const uint32_t from = position(s, counter);
      if (!want.empty() && std::get<0>(want.back()) == from)
        std::get<1>(want.back()) += n;
      else
        want.emplace_back(from, n);
    }
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "receive " << r;
    edges += want.size();
  }

  // The matching marked the sends received whole and noted those received
  // in part: what the receives' edges say (peeks aside).
  std::map<uint32_t, uint64_t> received;
  for (const Edge& e : t->edges)
    if (e.why == Edge::Why::Message && !(t->events[e.to].flags & trace::kEventPeek)) received[e.from] += e.bytes;
  for (uint32_t i = 0; i < t->events.size(); ++i) {
    const auto& ev = t->events[i];
    if (log::categoryOf(ev.eventKind()) != log::Category::Send || ev.value == 0) continue;
    const uint64_t got = received.count(i) ? received[i] : 0;
    ASSERT_EQ((ev.flags & trace::kEventReceivedWhole) != 0, got >= ev.value) << "send " << i;
    const auto part = std::find_if(t->received_in_part.begin(), t->received_in_part.end(),
                                   [&](const auto& s) { return s.first == i; });
    if (got > 0 && got < ev.value) {
      ASSERT_NE(part, t->received_in_part.end()) << "send " << i;
      ASSERT_EQ(part->second, got) << "send " << i;
    } else {
      ASSERT_EQ(part, t->received_in_part.end()) << "send " << i;
    }
  }

  // Each event is where the process's lists say, whole.
  for (uint32_t p = 0; p < t->processes.size(); ++p) {
    const auto& list = t->counter_events[p];
    ASSERT_EQ(list.size(), t->process_events[p].size());
    for (size_t k = 0; k < list.size(); ++k) {
      ASSERT_EQ(t->events[list[k]].process, p) << "position " << list[k];
      ASSERT_EQ(t->events[list[k]].counter, k + 1) << "position " << list[k];
      ASSERT_EQ(t->events[t->process_events[p][k]].process, p);
      ASSERT_EQ(t->process_events[p][t->indexInProcess(t->process_events[p][k])], t->process_events[p][k]);
    }
  }

  // Order: edges go forward (a thread's message to another of its process
  // too); each process's events in the story's order, and each thread's in
  // counter order; RADAR's numbers are longest paths.
  if (t->placed_by_time == 0)
    for (const Edge& e : t->edges) {
      ASSERT_LT(e.from, e.to);
    }
  for (const auto& list : t->process_events)
    for (size_t k = 1; k < list.size(); ++k) {
      ASSERT_LT(list[k - 1], list[k]);
    }
  for (const auto& list : t->counter_events)
    for (size_t k = 0; k < list.size(); ++k)
      for (size_t j = k + 1; j < list.size(); ++j)
        if (t->events[list[j]].thread == t->events[list[k]].thread) {
          ASSERT_LT(list[k], list[j]);
          break;
        }
  for (uint32_t i = 0; i < t->events.size(); ++i) {
    uint32_t want = 0;
    if (const uint32_t pred = t->localPredecessor(i); pred != kNone) want = t->events[pred].number;
    for (auto [b, e] = t->incoming(i); b != e; ++b)
      if (t->events[b->from].process != t->events[i].process) want = std::max(want, t->events[b->from].number);
    ASSERT_EQ(t->events[i].number, want + 1);
  }

  // "happens before" agrees with reachability.
  const uint32_t n = static_cast<uint32_t>(t->events.size());
  const int queries = n > 10000 ? 10 : 150;  // each builds the graph anew
  for (int k = 0; k < queries && n > 1; ++k) {
    const uint32_t a = static_cast<uint32_t>(rng() % n), b = static_cast<uint32_t>(rng() % n);
    EXPECT_EQ(t->happensBefore(a, b), a != b && reaches(*t, a, b)) << "events " << a << " and " << b;
  }

  // The display state through checkpoints is the state replayed from 0.
  const uint32_t every = 1 + static_cast<uint32_t>(rng() % 50);
  trace::DisplayModel display(*t, every);
  const uint32_t stride = n > 10000 ? n / 10 : 7;  // each replay from 0 costs n
  for (uint32_t i = 0; i <= n; i += 1 + static_cast<uint32_t>(rng() % stride))
    ASSERT_EQ(display.stateAt(i), display.replayFromStart(i)) << "position " << i;
  ASSERT_EQ(display.stateAt(n), display.replayFromStart(n));
  // As the window asks while playing (the state at an event and before it,
  // then the next), stepping back, and jumping: states it asked for lately
  // are where it starts from, and the answers are the same.
  {
    trace::DisplayModel playing(*t, every);
    const uint32_t start = n ? static_cast<uint32_t>(rng() % n) : 0;
    std::vector<uint32_t> asked;
    for (uint32_t i = start; i <= n && i < start + 60; ++i) asked.insert(asked.end(), {i, i ? i - 1 : 0});
    for (uint32_t i = std::min(n, start + 30); i > start; --i) asked.push_back(i);
    for (int k = 0; k < 20; ++k) asked.push_back(static_cast<uint32_t>(rng() % (n + 1)));
    for (uint32_t i : asked) ASSERT_EQ(playing.stateAt(i), playing.replayFromStart(i)) << "position " << i;
  }
  // The same with the checkpoints made in the background, asked at once
  // (while they are made) and after.
  {
    { trace::DisplayModel dropped(*t, every, /*background=*/true); }  // left while made: stops, joins
    trace::DisplayModel background(*t, every, /*background=*/true);
    for (uint32_t i = n; i > 0; i -= std::min(i, 1 + static_cast<uint32_t>(rng() % stride)))
      ASSERT_EQ(background.stateAt(i), display.stateAt(i)) << "position " << i << ", while made";
    background.waitForCheckpoints();
    EXPECT_TRUE(background.checkpointsMade());
    EXPECT_EQ(background.checkpointCount(), display.checkpointCount());
    for (uint32_t i = 0; i <= n; i += 1 + static_cast<uint32_t>(rng() % stride))
      ASSERT_EQ(background.stateAt(i), display.stateAt(i)) << "position " << i;
  }
  // Same recording, same order, whenever it is merged.
  auto again = rec.load();
  ASSERT_EQ(again->events.size(), t->events.size());
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(again->events[i].process, t->events[i].process);
    ASSERT_EQ(again->events[i].counter, t->events[i].counter);
    ASSERT_EQ(again->events[i].number, t->events[i].number);
  }
  // The same edges in the same order (the matching shares streams among
  // threads: which thread takes which stream must not show).
  ASSERT_EQ(again->edges.size(), t->edges.size());
  for (size_t k = 0; k < t->edges.size(); ++k) {
    ASSERT_EQ(again->edges[k].from, t->edges[k].from) << "edge " << k;
    ASSERT_EQ(again->edges[k].to, t->edges[k].to) << "edge " << k;
    ASSERT_EQ(again->edges[k].bytes, t->edges[k].bytes) << "edge " << k;
    ASSERT_EQ(again->edges[k].why, t->edges[k].why) << "edge " << k;
  }
}

class RandomExecutions : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RandomExecutions, MergeIsExactAndConsistent) {
  const uint64_t seed = GetParam();
  std::mt19937_64 rng(seed * 7919);
  const int processes = 2 + static_cast<int>(rng() % 7);
  const int channels = 1 + static_cast<int>(rng() % 6);
  expectExactAndConsistent(seed, rng, processes, channels, 150 + static_cast<int>(rng() % 400));
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomExecutions, ::testing::Range<uint64_t>(1, 41));

// Big enough for the linearization to hand its output to the copying
// thread in several windows (of 65 536 positions), giving input pages back.
TEST(RandomExecutions, ManyEventsMergeIsExactAndConsistent) {
  std::mt19937_64 rng(4242);
  size_t events = 0;
  expectExactAndConsistent(4242, rng, 12, 9, 500000, &events);
  EXPECT_GT(events, 3u * 65536);
}

// Random executions with every relation the kernel imposes between
// processes that the logs can show: a fork before the child's events (the
// child links to its parent's counter before the fork is recorded, as the
// interposer does), a child's exit before the wait that reaps it, a send
// before the receives that got its bytes, the writer's close or exit
// before the end of file it causes, a connect before the accept that
// returns its connection, and a kill before the handler's run for it. The
// simulator knows every such pair; the story must have each in order, by
// position and by RADAR's number.
class CausalRelations : public ::testing::TestWithParam<uint64_t> {};

TEST_P(CausalRelations, EveryPairIsInOrder) {
  std::mt19937_64 rng(GetParam() * 104729);
  FakeRecording rec;
  struct Proc {
    FakeProcess* log;
    int32_t pid;
    int parent;
    bool exited = false, reaped = false;
  };
  struct Pipe {
    int writer, reader;
    uint32_t w_index, r_index;
    std::deque<std::pair<uint64_t, std::string>> queued;  // writer's counter, bytes
    bool writer_gone = false;
    uint64_t gone_at = 0;  // the writer's close or exit
    bool eof_read = false;
  };
  using Place = std::pair<int32_t, uint64_t>;  // pid, counter
  std::vector<std::pair<Place, Place>> truth;
  std::vector<Proc> procs;
  std::vector<Pipe> pipes;
  // Connections asked for and not yet accepted (a listener's backlog), and
  // signals sent and not yet handled (one at a time per process: the kernel
  // merges a second of the same signal into the first).
  struct Pending {
    int from, to;
    uint64_t at;  // the connect's or the kill's counter
    uint32_t c_index;
    uint64_t ino;
    int sig;
  };
  std::vector<Pending> connecting, signalled;
  uint64_t next_socket_ino = 90000;  // a connection's two ends: this and the next
  std::vector<uint32_t> next_index;
  int64_t now = 1'000'000;
  auto tick = [&] { return now += 1000 + static_cast<int64_t>(rng() % 5000); };
  procs.push_back({&rec.process("p0", 100), 100, -1});
  next_index.push_back(1);
  const int steps = 800 + static_cast<int>(rng() % 400);
  for (int step = 0; step < steps; ++step) {
    const int i = static_cast<int>(rng() % procs.size());
    if (procs[i].exited) continue;
    Proc& me = procs[i];
    const unsigned what = rng() % 100;
    if (what < 8 && procs.size() < 12) {
      // fork
      const int32_t pid = 100 + static_cast<int32_t>(procs.size());
      FakeProcess& child = rec.child(*me.log, "p" + std::to_string(procs.size()), pid);
      const int64_t entry = tick(), ret = tick();
      me.log->fork(pid, entry, ret);
      const Place fork_at{me.pid, me.log->counter()};
      procs.push_back({&child, pid, i});
      next_index.push_back(1);
      // Its first event (a user event) comes after the fork.
      child.user("start", tick());
      truth.push_back({fork_at, {pid, child.counter()}});
    } else if (what < 14 && procs.size() >= 2) {
      // connect to another live process, which accepts later
      const int j = static_cast<int>(rng() % procs.size());
      if (j == i || procs[j].exited) continue;
      const uint64_t ino = next_socket_ino += 2;
      const uint32_t c_index = next_index[i]++;
      me.log->socketEnd(c_index, ino, ino + 1);
      const int64_t entry = tick(), ret = tick();
      me.log->connect(c_index, entry, ret);
      connecting.push_back({i, j, me.log->counter(), c_index, ino, 0});
    } else if (what < 20) {
      // accept a connection asked of me: from then on, a channel the
      // connecting process writes and I read
      for (size_t k = 0; k < connecting.size(); ++k) {
        const Pending c = connecting[k];
        if (c.to != i) continue;
        connecting.erase(connecting.begin() + static_cast<ptrdiff_t>(k));
        if (procs[c.from].exited) break;  // its end closed: nothing to read
        const uint32_t a_index = next_index[i]++;
        me.log->socketEnd(a_index, c.ino + 1, c.ino);
        const int64_t entry = tick(), ret = tick();
        me.log->accept(a_index, entry, ret);
        truth.push_back({{procs[c.from].pid, c.at}, {me.pid, me.log->counter()}});
        pipes.push_back({c.from, i, c.c_index, a_index, {}});
        break;
      }
    } else if (what < 25 && procs.size() >= 2) {
      // kill another live process that has no signal pending
      const int j = static_cast<int>(rng() % procs.size());
      if (j == i || procs[j].exited) continue;
      if (std::any_of(signalled.begin(), signalled.end(), [&](const Pending& p) { return p.to == j; })) continue;
      const int sig = rng() % 2 ? 10 : 12;  // SIGUSR1, SIGUSR2
      const int64_t entry = tick(), ret = tick();
      me.log->kill(procs[j].pid, sig, entry, ret);
      signalled.push_back({i, j, me.log->counter(), 0, 0, sig});
    } else if (what < 31) {
      // run my handler for a signal sent to me
      for (size_t k = 0; k < signalled.size(); ++k) {
        const Pending sg = signalled[k];
        if (sg.to != i) continue;
        signalled.erase(signalled.begin() + static_cast<ptrdiff_t>(k));
        me.log->signal(procs[sg.from].pid, sg.sig, tick());
        truth.push_back({{procs[sg.from].pid, sg.at}, {me.pid, me.log->counter()}});
        break;
      }
    } else if (what < 38 && procs.size() >= 2) {
      // a pipe from me to another live process
      const int j = static_cast<int>(rng() % procs.size());
      if (j == i || procs[j].exited) continue;
      Pipe p{i, j, next_index[i]++, next_index[j]++, {}};
      const uint64_t ino = 5000 + pipes.size();
      me.log->pipeEnd(p.w_index, ino, true);
      procs[j].log->pipeEnd(p.r_index, ino, false);
      pipes.push_back(p);
    } else if (what < 60) {
      // send on one of my open pipes
      for (Pipe& p : pipes)
        if (p.writer == i && !p.writer_gone) {
          const std::string bytes(1 + rng() % 40, static_cast<char>('a' + rng() % 26));
          const int64_t entry = tick(), ret = tick();
          me.log->send(p.w_index, bytes, entry, ret);
          p.queued.push_back({me.log->counter(), bytes});
          break;
        }
    } else if (what < 83) {
      // receive on one of my pipes: queued bytes, or the end of file
      for (Pipe& p : pipes) {
        if (p.reader != i || p.eof_read) continue;
        if (p.queued.empty() && !p.writer_gone) continue;
        const int64_t entry = tick(), ret = tick();
        if (p.queued.empty()) {
          me.log->receive(p.r_index, "", entry, ret);
          p.eof_read = true;
          truth.push_back({{procs[p.writer].pid, p.gone_at}, {me.pid, me.log->counter()}});
          break;
        }
        // Whole sends, one or more.
        std::string got;
        std::vector<uint64_t> from;
        const size_t take = 1 + rng() % p.queued.size();
        for (size_t k = 0; k < take; ++k) {
          got += p.queued.front().second;
          from.push_back(p.queued.front().first);
          p.queued.pop_front();
        }
        me.log->receive(p.r_index, got, entry, ret);
        for (uint64_t c : from) truth.push_back({{procs[p.writer].pid, c}, {me.pid, me.log->counter()}});
        break;
      }
    } else if (what < 88) {
      // close a write end (what is queued stays readable)
      for (Pipe& p : pipes)
        if (p.writer == i && !p.writer_gone) {
          me.log->close(p.w_index, tick());
          p.writer_gone = true;
          p.gone_at = me.log->counter();
          break;
        }
    } else if (what < 90 && i != 0) {
      // exit: the write ends it held close with it
      me.log->exit(0, tick());
      me.exited = true;
      for (Pipe& p : pipes)
        if (p.writer == i && !p.writer_gone) {
          p.writer_gone = true;
          p.gone_at = me.log->counter();
        }
    } else {
      // reap an exited child
      for (Proc& c : procs)
        if (c.parent == i && c.exited && !c.reaped) {
          const int64_t entry = tick(), ret = tick();
          me.log->wait(c.pid, 0, entry, ret);
          c.reaped = true;
          truth.push_back({{c.pid, c.log->counter()}, {me.pid, me.log->counter()}});
          break;
        }
    }
  }
  auto t = rec.load();
  ASSERT_TRUE(t);
  std::map<int32_t, uint32_t> by_pid;
  for (const auto& p : t->processes) by_pid[p.pid] = p.index;
  auto position = [&](const Place& place) {
    const auto& list = t->counter_events[by_pid.at(place.first)];
    return list[place.second - 1];
  };
  std::map<std::string, int> kinds;
  for (const auto& [a, b] : truth) {
    const uint32_t from = position(a), to = position(b);
    ++kinds[std::string(log::kindName(t->events[from].eventKind())) + " -> " +
            log::kindName(t->events[to].eventKind())];
    EXPECT_LT(from, to) << a.first << "#" << a.second << " -> " << b.first << "#" << b.second;
    EXPECT_LT(t->events[from].number, t->events[to].number)
        << a.first << "#" << a.second << " -> " << b.first << "#" << b.second;
  }
  EXPECT_GT(truth.size(), 10u);
  // Every kind of relation in every run, but for one of the ends of file
  // (after a close, after an exit) that a run may not reach.
  for (const char* kind :
       {"fork -> user event", "write -> read", "exit -> wait", "connect -> accept", "kill -> signal"})
    EXPECT_TRUE(kinds.count(kind)) << kind << " never happened in this run";
  EXPECT_GE(kinds.size(), 6u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CausalRelations, ::testing::Range<uint64_t>(1, 31));

// Many processes: the clocks keep checkpoints, not a clock per event, and
// still answer exactly.
TEST(Clocks, CheckpointedClocksAnswerExactly) {
  FakeRecording rec;
  Truth truth = simulate(4242, rec, 40, 30, 6000);
  auto t = rec.load();
  EXPECT_GT(t->clocks().checkpointInterval(), 1u);
  std::mt19937_64 rng(5);
  const uint32_t n = static_cast<uint32_t>(t->events.size());
  for (int k = 0; k < 300; ++k) {
    const uint32_t a = static_cast<uint32_t>(rng() % n), b = static_cast<uint32_t>(rng() % n);
    ASSERT_EQ(t->happensBefore(a, b), a != b && reaches(*t, a, b)) << a << " " << b;
  }
}

}  // namespace
}  // namespace radar::testing
