// The re-run's check of its script (single-process-driver/rerun/
// script_check.cc), called directly: no LD_PRELOAD, no re-run. A script is
// input; a damaged one is refused with the reason, never followed.
#include "rerun/script_check.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "driver/script_builder.h"
#include "fake_recording.h"

namespace radar {
namespace {

using driver::ScriptEvent;
using driver::ScriptHeader;

// A script as radar debug makes it: a writer's pipe read by a reader, its
// bytes, a fork, a user event and an exit, for the reader.
std::string makeScript() {
  testing::FakeRecording rec;
  rec.process("writer", 1)
      .pipeEnd(1, 801, true)
      .send(1, "hello", 10, 11)
      .user("tick", 12, "data")
      .send(1, "world", 13, 14)
      .exit(0, 15);
  rec.process("reader", 2).pipeEnd(1, 801, false).receive(1, "hello", 20, 21).receive(1, "world", 22, 23).exit(0, 24);
  auto trace = rec.load();
  const uint32_t reader = testing::processOfPid(*trace, 2);
  driver::Script script;
  std::string error;
  EXPECT_TRUE(driver::buildScript(*trace, reader, &script, &error)) << error;
  return std::string(script.bytes.view());
}

// The script in 8-byte aligned memory, as the re-run maps it.
struct Mapped {
  explicit Mapped(const std::string& bytes) : words((bytes.size() + 7) / 8) {
    std::memcpy(words.data(), bytes.data(), bytes.size());
    size = bytes.size();
  }
  const uint8_t* base() const { return reinterpret_cast<const uint8_t*>(words.data()); }
  uint8_t* base() { return reinterpret_cast<uint8_t*>(words.data()); }
  ScriptHeader& header() { return *reinterpret_cast<ScriptHeader*>(base()); }
  ScriptEvent& event(uint32_t i) { return reinterpret_cast<ScriptEvent*>(base() + header().events_offset)[i]; }
  const char* check(rerun::ScriptTables* t = nullptr) const {
    rerun::ScriptTables ignored;
    return rerun::checkScript(base(), size, 4096, t ? t : &ignored);
  }
  std::vector<uint64_t> words;
  size_t size;
};

TEST(ScriptCheck, AScriptRadarDebugMadeIsTrustedAndItsTablesFound) {
  Mapped m(makeScript());
  rerun::ScriptTables t;
  ASSERT_EQ(m.check(&t), nullptr);
  const ScriptHeader& h = m.header();
  ASSERT_GT(h.event_count, 0u);
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(t.events), m.base() + h.events_offset);
  EXPECT_EQ(t.data, m.base() + h.data_offset);
  // What the reader received is there to be delivered.
  bool hello = false;
  for (uint32_t i = 0; i < h.event_count; ++i) {
    const ScriptEvent& e = t.events[i];
    if (e.data.size == 5 && std::memcmp(t.data + e.data.offset, "hello", 5) == 0) hello = true;
  }
  EXPECT_TRUE(hello);
}

TEST(ScriptCheck, EachKindOfDamageIsRefusedWithItsReason) {
  const std::string good = makeScript();
  struct Case {
    const char* what;
    void (*damage)(Mapped&);
    const char* reason;
  };
  const Case cases[] = {
      {"magic", [](Mapped& m) { m.base()[0] = 'X'; }, "not a replay script"},
      {"version", [](Mapped& m) { m.header().version += 1; }, "another version"},
      {"events beyond the file", [](Mapped& m) { m.header().event_count = 1u << 30; }, "tables do not fit"},
      {"misaligned table", [](Mapped& m) { m.header().threads_offset += 4; }, "tables do not fit"},
      {"outputs beyond the file", [](Mapped& m) { m.header().output_count = 1u << 30; }, "tables do not fit"},
      {"data beyond the file", [](Mapped& m) { m.header().data_size = m.size; }, "tables do not fit"},
      {"no segment", [](Mapped& m) { m.header().segment_count = 0; }, "tables do not fit"},
      {"too many threads", [](Mapped& m) { m.header().thread_count = 5000; }, "tables do not fit"},
      {"label unterminated",
       [](Mapped& m) {
         auto& l = m.header().label;
         m.base()[m.header().data_offset + l.offset + l.size - 1] = 'x';
       },
       "(label)"},
      {"an event's thread", [](Mapped& m) { m.event(0).thread = m.header().thread_count; }, "an event points outside"},
      {"an event's next", [](Mapped& m) { m.event(0).next_in_thread = m.header().event_count; },
       "an event points outside"},
      {"an event's segment", [](Mapped& m) { m.event(0).segment = m.header().segment_count; },
       "an event points outside"},
      {"an event's bytes",
       [](Mapped& m) {
         m.event(0).data.offset = m.header().data_size - 2;
         m.event(0).data.size = 3;
       },
       "an event points outside"},
      {"an event's bytes wrapping round",
       [](Mapped& m) {
         m.event(0).data.offset = ~uint64_t{0} - 4;
         m.event(0).data.size = 8;
       },
       "an event points outside"},
      {"an event's narrative unterminated",
       [](Mapped& m) {
         const auto& text = m.event(0).text;
         m.base()[m.header().data_offset + text.offset + text.size - 1] = '!';
       },
       "an event points outside"},
      {"a thread's first event",
       [](Mapped& m) {
         reinterpret_cast<driver::ScriptThread*>(m.base() + m.header().threads_offset)[0].first_event =
             m.header().event_count + 7;
       },
       "(threads)"},
      {"cut short", [](Mapped& m) { m.size = sizeof(ScriptHeader) - 1; }, "not a replay script"},
  };
  for (const Case& c : cases) {
    Mapped m(good);
    ASSERT_EQ(m.check(), nullptr);
    c.damage(m);
    const char* why = m.check();
    ASSERT_NE(why, nullptr) << c.what << ": accepted";
    EXPECT_NE(std::string(why).find(c.reason), std::string::npos) << c.what << ": " << why;
  }
}

// Random damage: refused, or, when accepted, every table and blob really is
// inside the file (what the hooks then read). Under ASan a read outside
// fails the test too.
TEST(ScriptCheck, RandomDamageIsRefusedOrHarmless) {
  const std::string good = makeScript();
  std::mt19937 random(7);
  int refused = 0;
  for (int round = 0; round < 3000; ++round) {
    Mapped m(good);
    for (int k = 0, n = 1 + static_cast<int>(random() % 4); k < n; ++k)
      m.base()[random() % good.size()] ^= static_cast<uint8_t>(1 + random() % 255);
    rerun::ScriptTables t;
    if (m.check(&t)) {
      ++refused;
      continue;
    }
    const ScriptHeader& h = m.header();
    const uint8_t* end = m.base() + m.size;
    ASSERT_LE(reinterpret_cast<const uint8_t*>(t.events + h.event_count), end);
    ASSERT_LE(t.data + h.data_size, end);
    for (uint32_t i = 0; i < h.event_count; ++i) {
      const ScriptEvent& e = t.events[i];
      ASSERT_LT(e.thread, h.thread_count);
      ASSERT_LE(e.data.offset + e.data.size, h.data_size);
      ASSERT_LE(e.text.offset + e.text.size, h.data_size);
      if (e.text.size) {
        ASSERT_EQ(t.data[e.text.offset + e.text.size - 1], 0);
      }
    }
  }
  EXPECT_GT(refused, 100);  // the damage did reach the parts checked
}

}  // namespace
}  // namespace radar
