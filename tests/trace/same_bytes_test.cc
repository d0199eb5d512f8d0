// Sends kept once (log 1.15): a send whose log names the receive whose bytes
// it passed on. The merge checks the reference, the bytes are read through
// it (stage after stage of a pipeline), and one that does not hold is
// damage, never bytes shown as sent.
#include <gtest/gtest.h>

#include <string>

#include "fake_recording.h"
#include "trace/findings.h"
#include "trace/trace.h"

namespace radar::testing {
namespace {

using trace::Trace;

uint32_t at(const Trace& t, int32_t pid, uint32_t counter) {
  const uint32_t p = processOfPid(t, pid);
  return p == trace::kNone ? trace::kNone : t.positionOfCounter(p, counter);
}

std::string bytesOf(const Trace& t, uint32_t position, std::string* error = nullptr) {
  std::string bytes, why;
  uint64_t omitted = 0;
  EXPECT_TRUE(t.payload(position, &bytes, &why, &omitted)) << why;
  EXPECT_EQ(omitted, 0u);
  if (error) *error = why;
  return bytes;
}

std::string message(char c, size_t n) {
  std::string m;
  for (size_t i = 0; i < n; ++i) m += static_cast<char>(c + i % 23);
  return m;
}

// first -> stage -> stage -> last: each stage passes on what it received.
TEST(SameBytes, APipelinesStagesAreReadThroughTheirReferences) {
  const std::string a = message('a', 300), b = message('A', 5000);
  FakeRecording rec;
  FakeProcess& first = rec.process("first", 10).pipeEnd(1, 101, true);
  FakeProcess& one = rec.process("one", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
  FakeProcess& two = rec.process("two", 30).pipeEnd(1, 102, false).pipeEnd(2, 103, true);
  FakeProcess& last = rec.process("last", 40).pipeEnd(1, 103, false);
  first.send(1, a, 10, 11).send(1, b, 12, 13);
  one.receive(1, a, 5, 14).sendSameAs(2, a, 1, 0, 15, 16).receive(1, b, 17, 18).sendSameAs(2, b, 3, 0, 19, 20);
  two.receive(1, a, 5, 21).sendSameAs(2, a, 1, 0, 22, 23).receive(1, b, 24, 25).sendSameAs(2, b, 3, 0, 26, 27);
  last.receive(1, a, 5, 28).receive(1, b, 29, 30);
  for (FakeProcess* p : {&first, &one, &two, &last}) p->exit(0, 40);
  auto t = rec.load();
  ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
  EXPECT_EQ(t->bytes_matched, 3 * (a.size() + b.size()));
  // Asked from the end first: each stage is read through the one before.
  EXPECT_EQ(bytesOf(*t, at(*t, 40, 2)), b);
  EXPECT_EQ(bytesOf(*t, at(*t, 30, 4)), b);
  EXPECT_EQ(bytesOf(*t, at(*t, 20, 2)), a);
  EXPECT_EQ(bytesOf(*t, at(*t, 30, 2)), a);
  EXPECT_EQ(bytesOf(*t, at(*t, 40, 1)), a);
  EXPECT_TRUE(t->findings.empty()) << describe(*t, t->findings[0]);
}

// A reference to part of a receive: a proxy's send that a full socket cut.
TEST(SameBytes, APartOfAReceiveIsReadAndChecked) {
  const std::string m = message('0', 1000);
  FakeRecording rec;
  FakeProcess& first = rec.process("first", 10).pipeEnd(1, 101, true);
  FakeProcess& proxy = rec.process("proxy", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
  FakeProcess& last = rec.process("last", 30).pipeEnd(1, 102, false);
  first.send(1, m, 10, 11);
  proxy.receive(1, m, 5, 12).sendSameAs(2, m.substr(0, 400), 1, 0, 13, 14).sendSameAs(2, m.substr(400), 1, 400, 15, 16);
  last.receive(1, m, 5, 17);
  auto t = rec.load();
  ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
  EXPECT_EQ(bytesOf(*t, at(*t, 20, 3)), m.substr(400));
  EXPECT_EQ(bytesOf(*t, at(*t, 30, 1)), m);
}

// A log whose reference names bytes other than those the receive got: the
// load says the log has a problem; a part it cannot check then reads as
// bytes the recording does not have, never as other bytes.
TEST(SameBytes, AReferenceThatDoesNotHoldIsDamage) {
  const std::string m = message('a', 200);
  std::string other = m;
  other[100] ^= 1;
  {
    FakeRecording rec;
    FakeProcess& first = rec.process("first", 10).pipeEnd(1, 101, true);
    FakeProcess& stage = rec.process("stage", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
    first.send(1, m, 10, 11);
    stage.receive(1, m, 5, 12).sendSameAs(2, other, 1, 0, 13, 14);
    auto t = rec.load();
    ASSERT_EQ(t->problems.size(), 1u);
    EXPECT_NE(t->problems[0].message.find("says it sent the bytes of its event 1, which is a receive of other bytes"),
              std::string::npos)
        << t->problems[0].message;
  }
  for (uint64_t same_as : {2, 5}) {  // itself, and a later event
    FakeRecording rec;
    FakeProcess& stage = rec.process("stage", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
    stage.receive(1, m, 5, 12).sendSameAs(2, m, same_as, 0, 13, 14).receive(1, m, 15, 16);
    auto t = rec.load();
    ASSERT_EQ(t->problems.size(), 1u);
    EXPECT_NE(t->problems[0].message.find("which is a later event"), std::string::npos) << t->problems[0].message;
  }
  {
    FakeRecording rec;
    FakeProcess& first = rec.process("first", 10).pipeEnd(1, 101, true);
    FakeProcess& stage = rec.process("stage", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
    first.send(1, m, 10, 11);
    stage.receive(1, m, 5, 12).sendSameAs(2, other.substr(50, 100), 1, 50, 13, 14);
    auto t = rec.load();
    EXPECT_TRUE(t->problems.empty());
    std::string bytes, error;
    uint64_t omitted = 0;
    EXPECT_TRUE(t->payload(at(*t, 20, 2), &bytes, &error, &omitted)) << error;
    EXPECT_EQ(bytes, "");  // not the bytes it sent: not shown
    EXPECT_EQ(omitted, 100u);
  }
  {
    FakeRecording rec;
    FakeProcess& stage = rec.process("stage", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
    stage.receive(1, m, 5, 12).sendSameAs(2, m.substr(0, 150), 1, 100, 13, 14);
    auto t = rec.load();
    ASSERT_EQ(t->problems.size(), 1u);
    EXPECT_NE(t->problems[0].message.find("which is a receive of fewer bytes"), std::string::npos)
        << t->problems[0].message;
  }
}

// Two processes sending the same bytes back and forth, each send referring
// to the receive before it: the last one is read in one step, not by going
// back through the whole exchange.
TEST(SameBytes, ALongExchangeOfTheSameBytesIsReadAtOnce) {
  const std::string m = message('q', 100);
  const int rounds = 20000;
  FakeRecording rec;
  FakeProcess& a = rec.process("a", 10).pipeEnd(1, 101, true).pipeEnd(2, 102, false);
  FakeProcess& b = rec.process("b", 20).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
  int64_t now = 10;
  a.send(1, m, now, now + 1);
  for (int i = 0; i < rounds; ++i) {
    b.receive(1, m, now + 1, now + 2).sendSameAs(2, m, 2 * i + 1, 0, now + 3, now + 4);
    a.receive(2, m, now + 4, now + 5);
    if (i + 1 < rounds) a.sendSameAs(1, m, 2 * i + 2, 0, now + 6, now + 7);
    now += 8;
  }
  auto t = rec.load();
  ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
  EXPECT_EQ(bytesOf(*t, at(*t, 20, 2 * rounds)), m);
  EXPECT_EQ(bytesOf(*t, at(*t, 10, 2 * rounds)), m);
  EXPECT_EQ(bytesOf(*t, at(*t, 20, rounds)), m);
}

// A crafted pair of logs where each process passes on what the other
// passed on to it: the story contradicts itself (each receive would come
// after its own send) and the references go round in a circle. Reading
// them ends, and says the bytes are not known.
TEST(SameBytes, ReferencesInACircleAreNotKnownAndReadingThemEnds) {
  const std::string m = message('c', 100);
  FakeRecording rec;
  FakeProcess& p = rec.process("p", 10).pipeEnd(1, 101, false).pipeEnd(2, 102, true);
  FakeProcess& q = rec.process("q", 20).pipeEnd(1, 102, false).pipeEnd(2, 101, true);
  p.receive(1, m, 10, 11).sendSameAs(2, m, 1, 0, 12, 13);
  q.receive(1, m, 10, 11).sendSameAs(2, m, 1, 0, 12, 13);
  auto t = rec.load();
  for (int32_t pid : {10, 20}) {
    std::string bytes, error;
    uint64_t omitted = 0;
    ASSERT_TRUE(t->payload(at(*t, pid, 2), &bytes, &error, &omitted)) << error;
    EXPECT_EQ(bytes.size() + omitted, m.size());
    EXPECT_TRUE(bytes.empty() || bytes == m.substr(0, bytes.size()));
    ASSERT_TRUE(t->payload(at(*t, pid, 1), &bytes, &error, &omitted)) << error;
  }
}

// A receive from outside the recording that kept its bytes itself, passed
// on: read from the receive's own record.
TEST(SameBytes, BytesFromOutsideArePassedOnToo) {
  const std::string m = message('x', 500);
  FakeRecording rec;
  FakeProcess& stage = rec.process("stage", 20).inheritedPipeEnd(1, 101, false).pipeEnd(2, 102, true);
  FakeProcess& last = rec.process("last", 30).pipeEnd(1, 102, false);
  stage.receiveKeeping(1, m, 5, 12).sendSameAs(2, m, 1, 0, 13, 14);
  last.receive(1, m, 5, 17);
  auto t = rec.load();
  ASSERT_TRUE(t->problems.empty()) << t->problems[0].message;
  EXPECT_EQ(bytesOf(*t, at(*t, 30, 1)), m);
}

}  // namespace
}  // namespace radar::testing
