// A recording still being made: which of its events are told for good.
#include <gtest/gtest.h>

#include "analysis/narrative.h"
#include "fake_recording.h"
#include "log/kinds.h"
#include "trace/live.h"

namespace radar::testing {
namespace {

using trace::LiveTimes;
using trace::Trace;

constexpr int64_t kMs = 1'000'000;

// Times of a look `after` ns past the return of the story's last event.
LiveTimes lookedAt(const Trace& t, int64_t after) {
  LiveTimes times;
  int64_t last = 0;
  for (uint32_t i = 0; i < t.events.size(); ++i) last = std::max(last, t.wallReturnTime(i));
  times.now_wall = last + after;
  return times;
}

TEST(Live, ACallJustReturnedMayStillBeBeingLogged) {
  FakeRecording rec;
  rec.process("a", 1).user("one", 100).user("two", 200 * kMs);
  const auto t = rec.load();
  ASSERT_EQ(t->events.size(), 2u);
  // The second returned 50 ms before the look: another call that returned
  // just before it may not be in its log yet.
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, 50 * kMs)), 1u);
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, 150 * kMs)), 2u);
}

TEST(Live, AReceiveWaitsForTheSendInProgressThatWroteItsBytes) {
  FakeRecording rec;
  rec.process("reader", 2).pipeEnd(1, 77, false).user("before", 100).receive(1, "abc", 200, 300).user("after", 400);
  FakeProcess& writer = rec.process("writer", 1).pipeEnd(1, 77, true).user("start", 50);
  writer.blockedIn(log::Kind::Write, 1);  // its write() has not returned
  const auto t = rec.load();
  ASSERT_EQ(t->events.size(), 4u);
  // The writer's start and the reader's first event are sure; the receive
  // is not: once the write returns it goes after it.
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, kMs * 1000)), 2u);
}

TEST(Live, AReceiveNoSendInProgressExplainsIsToldAsItIs) {
  FakeRecording rec;
  rec.process("reader", 2).pipeEnd(1, 77, false).user("before", 100).receive(1, "abc", 200, 300).user("after", 400);
  rec.process("writer", 1).pipeEnd(1, 77, true).user("start", 50);
  const auto t = rec.load();
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, kMs * 1000)), 4u);
}

TEST(Live, AChildWhoseLogIsNotThereYetHoldsTheStory) {
  FakeRecording rec;
  rec.process("parent", 1).fork(55, 100, 110).user("then", 200);
  const auto t = rec.load();
  ASSERT_EQ(t->events.size(), 2u);
  // The child's calls come after the fork: nothing after it is sure while
  // its log may yet appear; after a while it is taken for unseen.
  LiveTimes soon = lookedAt(*t, 500 * kMs);
  EXPECT_EQ(trace::settledEvents(*t, soon), 0u);
  LiveTimes later = lookedAt(*t, soon.new_log_wait_ns + kMs);
  EXPECT_EQ(trace::settledEvents(*t, later), 2u);
}

TEST(Live, ASendWaitsAWhileForItsReceiver) {
  FakeRecording rec;
  rec.process("writer", 1).pipeEnd(1, 77, true).send(1, "abc", 100, 110);
  rec.process("reader", 2).pipeEnd(1, 77, false);
  const auto t = rec.load();
  ASSERT_EQ(t->events.size(), 1u);
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, 500 * kMs)), 0u);
  const LiveTimes later = lookedAt(*t, 2000 * kMs);
  EXPECT_EQ(trace::settledEvents(*t, later), 1u);
  // Told then without a receiver, and not as one nobody ever receives.
  EXPECT_NE(analysis::Narrator(*t, true).describe(0).find("sends a message on pipe"), std::string::npos);
  EXPECT_NE(analysis::Narrator(*t, true).describe(0).find(", not received yet"), std::string::npos);
  EXPECT_NE(analysis::Narrator(*t).describe(0).find(", which nobody receives"), std::string::npos);
}

TEST(Live, ACallInProgressDoesNotHoldWhatReturnedMeanwhile) {
  // A server blocked in accept() for the whole run: what its workers do
  // meanwhile is told, as it goes after everything returned before it.
  FakeRecording rec;
  FakeProcess& server = rec.process("server", 1).user("listening", 100);
  server.blockedIn(log::Kind::Accept, 0);
  rec.process("worker", 2).user("w1", 200).user("w2", 300);
  const auto t = rec.load();
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, 1000 * kMs)), 3u);
}

TEST(Live, AnEndedProcessIsNotWaitedFor) {
  FakeRecording rec;
  rec.process("gone", 1).user("x", 100).exit(0, 200);
  const auto t = rec.load();
  EXPECT_FALSE(trace::runningLogUnreadable(*t));
  EXPECT_EQ(trace::settledEvents(*t, lookedAt(*t, 200 * kMs)), t->events.size());
}

}  // namespace
}  // namespace radar::testing
