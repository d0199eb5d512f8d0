// radar patterns on hand-built recordings: each shape found with its
// count and events, joined between processes; nothing found in random
// sequences; a unit planted in noise found where it was planted.
#include <gtest/gtest.h>

#include <random>

#include "analysis/patterns.h"
#include "fake_recording.h"

namespace radar::analysis {
namespace {

using radar::testing::FakeProcess;
using radar::testing::FakeRecording;

const Pattern* patternOf(const Trace& t, const Patterns& found, const std::string& name) {
  const Pattern* out = nullptr;
  for (const Pattern& p : found.patterns)
    if (p.process_name == name) {
      EXPECT_EQ(out, nullptr) << "two patterns in " << name;
      out = &p;
    }
  (void)t;
  return out;
}

uint32_t at(const Trace& t, int32_t pid, uint32_t counter) {
  for (const Process& p : t.processes)
    if (p.pid == pid) return t.counter_events[p.index].at(counter - 1);
  ADD_FAILURE() << "no pid " << pid;
  return kNone;
}

// A client asks 40 times and a server answers: request/response on both
// sides, joined.
TEST(Patterns, RequestResponseOnBothSidesJoined) {
  FakeRecording rec;
  radar::testing::clientAndServer(rec, 40);
  auto t = rec.load();
  const Patterns found = findPatterns(*t);
  ASSERT_EQ(found.patterns.size(), 2u);
  const Pattern* s = patternOf(*t, found, "server");
  const Pattern* c = patternOf(*t, found, "client");
  ASSERT_TRUE(s && c);
  EXPECT_EQ(s->kind, Pattern::Kind::RequestResponse);
  EXPECT_EQ(c->kind, Pattern::Kind::RequestResponse);
  EXPECT_EQ(s->text(), "receives from client, sends to client");
  EXPECT_EQ(c->text(), "sends to server, receives from server");
  EXPECT_EQ(s->repetitions, 40u);
  EXPECT_EQ(c->repetitions, 40u);
  EXPECT_EQ(s->example, (std::vector<uint32_t>{at(*t, 200, 1), at(*t, 200, 2)}));
  EXPECT_EQ(s->first_event, at(*t, 200, 1));
  EXPECT_EQ(s->last_event, at(*t, 200, 80));
  EXPECT_LT(s->chance, kChance);
  ASSERT_EQ(found.links.size(), 1u);
  EXPECT_EQ(found.links[0].kind, PatternLink::Kind::RequestResponse);
  EXPECT_EQ(found.links[0].patterns.size(), 2u);
}

// A three-stage pipeline, source → upper → sink, fed 30 lines, the source
// also sending each line's copy to the sink: after the line, or before it
// (then the sink begins before the stage between them).
void threeStages(FakeRecording& rec, bool copy_first) {
  FakeProcess& source = rec.process("source", 1).pipeEnd(1, 11, true).pipeEnd(2, 12, true);
  FakeProcess& upper = rec.process("upper", 2).pipeEnd(1, 11, false).pipeEnd(2, 13, true);
  FakeProcess& sink = rec.process("sink", 3).pipeEnd(1, 13, false).pipeEnd(2, 12, false);
  int64_t now = 100;
  for (int k = 0; k < 30; ++k, now += 100) {
    if (copy_first) {
      source.send(2, "copy", now, now + 1).send(1, "line", now + 2, now + 3);
      sink.receive(2, "copy", now + 1, now + 2);
      upper.receive(1, "line", now + 3, now + 4).send(2, "LINE", now + 5, now + 6);
      sink.receive(1, "LINE", now + 6, now + 7);
    } else {
      source.send(1, "line", now, now + 1).send(2, "copy", now + 2, now + 3);
      upper.receive(1, "line", now + 1, now + 4).send(2, "LINE", now + 5, now + 6);
      sink.receive(1, "LINE", now + 6, now + 7).receive(2, "copy", now + 8, now + 9);
    }
  }
  source.exit(0, now);
  upper.exit(0, now + 1);
  sink.exit(0, now + 2);
}

// The source sends each line to two receivers (a round); the stages are
// joined as a pipeline.
TEST(Patterns, PipelineStagesAndRoundsAreJoined) {
  FakeRecording rec;
  threeStages(rec, /*copy_first=*/false);
  auto t = rec.load();
  const Patterns found = findPatterns(*t);
  const Pattern* s = patternOf(*t, found, "source");
  const Pattern* u = patternOf(*t, found, "upper");
  const Pattern* k = patternOf(*t, found, "sink");
  ASSERT_TRUE(s && u && k);
  EXPECT_EQ(s->kind, Pattern::Kind::Round);
  EXPECT_EQ(s->text(), "sends to upper, sends to sink");
  EXPECT_EQ(u->kind, Pattern::Kind::Stage);
  EXPECT_EQ(u->text(), "receives from source, sends to sink");
  EXPECT_EQ(u->repetitions, 30u);
  ASSERT_EQ(found.links.size(), 1u);
  EXPECT_EQ(found.links[0].kind, PatternLink::Kind::Pipeline);
  ASSERT_EQ(found.links[0].patterns.size(), 3u);
  EXPECT_EQ(found.patterns[found.links[0].patterns[0]].process_name, "source");
}

// A pipeline's stages are told in the order the messages go, not in the
// order they began: here the sink begins first (the source sends it a
// copy before the line it sends the stage).
TEST(Patterns, PipelineStagesInTheOrderTheMessagesGo) {
  FakeRecording rec;
  threeStages(rec, /*copy_first=*/true);
  auto t = rec.load();
  const Patterns found = findPatterns(*t);
  ASSERT_EQ(found.links.size(), 1u);
  std::vector<std::string> order;
  for (uint32_t p : found.links[0].patterns) order.push_back(found.patterns[p].process_name);
  EXPECT_EQ(order, (std::vector<std::string>{"source", "upper", "sink"}));
  const Pattern* k = patternOf(*t, found, "sink");
  const Pattern* u = patternOf(*t, found, "upper");
  ASSERT_TRUE(k && u);
  EXPECT_LT(k->first_event, u->first_event) << "the sink began first, as this test means";
}

// Sends that wait in the channel together: a burst, with how many waited.
// The same run of sends, each received at once, is no burst.
TEST(Patterns, SendsThatQueueAreABurst) {
  for (const bool queued : {true, false}) {
    FakeRecording rec;
    FakeProcess& producer = rec.process("producer", 1).pipeEnd(1, 11, true);
    FakeProcess& consumer = rec.process("consumer", 2).pipeEnd(1, 11, false);
    for (int k = 0; k < 12; ++k) {
      producer.send(1, "m", 10 + 10 * k, 11 + 10 * k);
      // Queued: the consumer reads each after the last send.
      const int64_t read = queued ? 1000 + 10 * k : 12 + 10 * k;
      consumer.receive(1, "m", read, read + 1);
    }
    producer.exit(0, 2000);
    consumer.exit(0, 2001);
    auto t = rec.load();
    const Patterns found = findPatterns(*t);
    const Pattern* p = patternOf(*t, found, "producer");
    if (!queued) {
      EXPECT_EQ(p, nullptr) << p->text();
      continue;
    }
    ASSERT_TRUE(p);
    EXPECT_EQ(p->kind, Pattern::Kind::Burst);
    EXPECT_EQ(p->most_queued, 12u);
    EXPECT_EQ(p->unit.size(), 1u);
    EXPECT_EQ(p->unit[0].max_run, 12u);
  }
}

// Two workers of one name: the first looked at answers three requests
// (too few to be beyond chance alone), the second forty. The first's three
// are the same pattern, whichever process is looked at first.
TEST(Patterns, AFewRepetitionsOfANamesakesPatternAreCountedInAnyOrder) {
  for (const int alone : {0, 1}) {
    FakeRecording rec;
    FakeProcess& boss = rec.process("boss", 1).pipeEnd(1, 11, true).pipeEnd(2, 12, false);
    FakeProcess& few = rec.process("worker", 2).pipeEnd(1, 11, false).pipeEnd(2, 12, true);
    const int reps = 3;
    for (int k = 0; k < reps; ++k) {
      boss.send(1, "q", 10 + 10 * k, 11 + 10 * k).receive(2, "a", 14 + 10 * k, 15 + 10 * k);
      few.receive(1, "q", 11 + 10 * k, 12 + 10 * k).send(2, "a", 13 + 10 * k, 14 + 10 * k);
    }
    few.exit(0, 500);
    if (!alone) {
      boss.pipeEnd(3, 13, true).pipeEnd(4, 14, false);
      FakeProcess& many = rec.process("worker", 3).pipeEnd(1, 13, false).pipeEnd(2, 14, true);
      for (int k = 0; k < 40; ++k) {
        boss.send(3, "q", 1000 + 10 * k, 1001 + 10 * k).receive(4, "a", 1004 + 10 * k, 1005 + 10 * k);
        many.receive(1, "q", 1001 + 10 * k, 1002 + 10 * k).send(2, "a", 1003 + 10 * k, 1004 + 10 * k);
      }
      many.exit(0, 2000);
    }
    boss.exit(0, 2001);
    auto t = rec.load();
    const Patterns found = findPatterns(*t);
    const Pattern* w = patternOf(*t, found, "worker");
    if (alone) {
      EXPECT_EQ(w, nullptr) << "three repetitions alone are chance: " << w->text();
      continue;
    }
    ASSERT_TRUE(w);
    EXPECT_EQ(w->text(), "receives from boss, sends to boss");
    EXPECT_EQ(w->processes.size(), 2u);
    EXPECT_EQ(w->repetitions, 43u);
  }
}

// A call that fails again and again is a retry.
TEST(Patterns, ACallFailingAgainAndAgainIsARetry) {
  FakeRecording rec;
  FakeProcess& p = rec.process("writer", 1).pipeEnd(1, 11, true);
  rec.process("reader", 2).pipeEnd(1, 11, false).receive(1, "x", 5, 6).close(1, 7);
  p.send(1, "x", 1, 2);
  for (int k = 0; k < 30; ++k) p.failedSend(1, EPIPE, 10 + 10 * k, 11 + 10 * k).user("sleep", 12 + 10 * k);
  p.exit(1, 1000);
  auto t = rec.load();
  const Patterns found = findPatterns(*t);
  const Pattern* w = patternOf(*t, found, "writer");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->kind, Pattern::Kind::Retry);
  EXPECT_EQ(w->repetitions, 30u);
  EXPECT_EQ(w->text(), "sends to reader (fails), logs a user event");
}

// A process talking to four peers in a random order (random channel,
// random direction): no pattern, in any of 20 seeds. The same with a unit
// of three calls repeated 25 times planted in the middle: that unit is
// found, where it was planted, and nothing else.
TEST(Patterns, NothingInRandomSequencesAndAPlantedUnitIsFound) {
  for (int seed = 1; seed <= 20; ++seed) {
    for (const bool planted : {false, true}) {
      std::mt19937 rng(seed);
      FakeRecording rec;
      FakeProcess& hub = rec.process("hub", 1);
      std::vector<FakeProcess*> peers;
      for (uint32_t c = 1; c <= 4; ++c) {
        hub.socketEnd(c, 10 * c, 10 * c + 1);
        peers.push_back(&rec.process("peer" + std::to_string(c), static_cast<int32_t>(10 + c)));
        peers.back()->socketEnd(1, 10 * c + 1, 10 * c);
      }
      int64_t now = 10;
      auto step = [&](uint32_t c, bool send) {
        if (send) {
          hub.send(c, "m", now, now + 1);
          peers[c - 1]->receive(1, "m", now + 1, now + 2);
        } else {
          peers[c - 1]->send(1, "m", now, now + 1);
          hub.receive(c, "m", now + 1, now + 2);
        }
        now += 10;
      };
      const int n = 1200, plant_at = 500, reps = 25;
      uint32_t first_planted = 0;
      for (int k = 0; k < n; ++k) {
        if (planted && k == plant_at) {
          first_planted = static_cast<uint32_t>(hub.counter()) + 1;
          for (int r = 0; r < reps; ++r) {
            step(1, false);
            step(2, true);
            step(3, true);
          }
        }
        step(1 + rng() % 4, rng() % 2 == 0);
      }
      hub.exit(0, now);
      for (auto* p : peers) p->exit(0, now + 1);
      auto t = rec.load();
      const Patterns found = findPatterns(*t);
      if (!planted) {
        for (const Pattern& p : found.patterns)
          ADD_FAILURE() << "seed " << seed << ": " << p.process_name << ": " << patternKindName(p.kind) << " × "
                        << p.repetitions << ": " << p.text() << " (chance " << p.chance << ")";
        continue;
      }
      const Pattern* h = patternOf(*t, found, "hub");
      ASSERT_TRUE(h) << "seed " << seed;
      EXPECT_EQ(h->unit.size(), 3u) << h->text();
      // Found at the planted calls (or a call or two earlier, where the
      // random neighbour happens to continue the unit); elsewhere only as
      // often as chance has it, in two or three.
      const uint32_t lo = at(*t, 1, first_planted - 3), hi = at(*t, 1, first_planted + 3);
      int at_plant = 0;
      for (const auto& st : h->stretches) {
        if (st.first >= lo && st.first <= hi) {
          ++at_plant;
          EXPECT_GE(st.repetitions, static_cast<uint64_t>(reps) - 1) << "seed " << seed;
          EXPECT_LE(st.repetitions, static_cast<uint64_t>(reps) + 1) << "seed " << seed;
        } else {
          EXPECT_LE(st.repetitions, 3u) << "seed " << seed;
        }
      }
      EXPECT_EQ(at_plant, 1) << "seed " << seed;
      for (const Pattern& p : found.patterns)
        if (&p != h && p.process_name == "hub") ADD_FAILURE() << "seed " << seed << ": also " << p.text();
    }
  }
}

}  // namespace
}  // namespace radar::analysis
