// A description bound to a recording: the names it gives are an overlay
// over the recorded ones, which the binding never changes.
#include <gtest/gtest.h>

#include "analysis/narrative.h"
#include "binding/binding.h"
#include "fake_recording.h"

namespace radar::netdesc {
namespace {

std::unique_ptr<trace::Trace> producerConsumer() {
  testing::FakeRecording rec;
  rec.process("producer", 100).pipeEnd(1, 7, true).send(1, "hello", 10, 11).exit(0, 60);
  rec.process("consumer", 200).pipeEnd(1, 7, false).receive(1, "hello", 30, 31).exit(0, 70);
  return rec.load();
}

std::shared_ptr<const Description> describe(const std::string& text) {
  std::vector<Problem> problems;
  std::shared_ptr<const Description> d = Description::parse(text, "/tmp/t.netdesc", &problems);
  EXPECT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  return d;
}

TEST(Binding, NamesAreAnOverlayOverTheRecordedOnes) {
  auto t = producerConsumer();
  const uint32_t producer = testing::processOfPid(*t, 100), consumer = testing::processOfPid(*t, 200);
  uint32_t pipe = trace::kNone;
  for (const auto& c : t->channels)
    if (c.type == log::ChannelType::Pipe) pipe = c.index;
  ASSERT_NE(pipe, trace::kNone);
  const std::string pipe_name = t->channelName(pipe);
  ASSERT_EQ(t->processName(producer), "producer");

  std::vector<std::string> unmatched;
  auto first = Binding::apply(describe(R"(
    process { name: "writer" match { program: "producer" } port { name: "out" direction: OUT fd: 3 } }
    process { name: "reader" match { program: "consumer" } port { name: "in" direction: IN fd: 3 } }
    connect { from: "writer.out" to: "reader.in" name: "words" }
  )"),
                              *t, &unmatched);
  ASSERT_TRUE(first);
  // Matching reads the trace and leaves it as it was: the names are the binding's.
  EXPECT_EQ(t->processName(producer), "producer");
  EXPECT_EQ(first->names().processes[producer], "writer");
  t->described = first->names();
  EXPECT_EQ(t->processName(producer), "writer");
  EXPECT_EQ(t->label(consumer), "reader[200]");
  EXPECT_EQ(t->channelName(pipe), "words");
  // Under the overlay, the recording's own names, untouched.
  EXPECT_EQ(t->processes[producer].recorded_name, "producer");
  EXPECT_EQ(t->channels[pipe].recorded_name, pipe_name);
  analysis::Narrator narrator(*t);
  EXPECT_NE(narrator.describe(t->counter_events[producer].at(0)).find("writer[100]"), std::string::npos)
      << narrator.describe(t->counter_events[producer].at(0));

  // Another description is matched against the recorded names and replaces
  // the overlay: what it does not name is shown by its recorded name again.
  auto second = Binding::apply(describe(R"(
    process { name: "sink" match { program: "consumer" } }
  )"),
                               *t, &unmatched);
  ASSERT_TRUE(second);
  t->described = second->names();
  EXPECT_EQ(t->processName(producer), "producer");
  EXPECT_EQ(t->processName(consumer), "sink");
  EXPECT_EQ(t->channelName(pipe), pipe_name);
}

}  // namespace
}  // namespace radar::netdesc
