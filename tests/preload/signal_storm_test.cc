// The interposer under a storm of signals whose handler makes recorded
// calls, while threads make every family of hooked calls: the program must
// behave as it does bare, and the log must hold exactly what it did.
// (The reentrancy rule these tests keep is written at the top of hooks.cc.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "recorded.h"

namespace radar::testing {
namespace {

using log::Kind;

// handler_writes=N handler_events=N ... as a map.
std::map<std::string, long> parseCounts(const std::string& out) {
  std::map<std::string, long> counts;
  std::istringstream in(out);
  std::string word;
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq != std::string::npos) counts[word.substr(0, eq)] = std::atol(word.c_str() + eq + 1);
  }
  return counts;
}

std::string stormSeconds() {
  const char* s = std::getenv("RADAR_STORM_SECONDS");
  return s && *s ? s : "3";
}

void checkStorm(const std::string& interval_us, const std::string& threads) {
  Recording rec = record({programPath("signal_storm"), stormSeconds(), interval_us, threads});
  ASSERT_EQ(rec.exit_code, 0) << rec.err << "\nrecording kept in " << rec.dir;
  auto counts = parseCounts(rec.out);
  ASSERT_TRUE(counts.count("handler_writes")) << rec.out << rec.err;
  ASSERT_GT(counts["handler_writes"], 0);

  const ProcessLog* root = rec.byPid(rec.meta.root_pid());
  ASSERT_TRUE(root) << rec.dir;
  SCOPED_TRACE("recording kept in " + rec.dir);
  for (const auto& l : rec.logs) {
    EXPECT_EQ(l.error, "") << l.path;
    EXPECT_FALSE(l.control.incomplete) << l.path;
    EXPECT_TRUE(l.notes.empty()) << l.path << ": " << (l.notes.empty() ? "" : l.notes[0]);
    uint64_t expect = 1;
    for (const auto& e : l.events) {
      ASSERT_EQ(e.r.counter, expect++) << l.path;
    }
  }

  // What the handlers did, call by call, as the program counted it.
  long bangs = 0, ticks = 0, datagrams = 0, bang_bytes_read = 0, forks = 0, unnamed_channels = 0;
  uint64_t notify_ino = 0;
  for (const auto& e : root->events) {
    if (e.kind() == Kind::Write && e.r.result == 1 && e.payload == "!") {
      ++bangs;
      const auto* c = root->channel(e.r.channel);
      ASSERT_TRUE(c) << "a handler's write names a channel the log defines";
      if (!notify_ino) notify_ino = c->ino();
      EXPECT_EQ(c->ino(), notify_ino);
    }
    if (e.kind() == Kind::User) {
      ASSERT_EQ(e.strings.size(), 1u) << "a deferred user event keeps its name";
      if (e.strings[0] == "tick") {
        ++ticks;
        EXPECT_EQ(e.payload, "t");
      }
    }
    if (e.kind() == Kind::Send && e.r.result == 4) {
      EXPECT_EQ(e.payload, "tick");
      ++datagrams;
    }
    if (e.kind() == Kind::Fork) ++forks;
    if (log::isData(e.kind()) && e.r.channel && !root->channel(e.r.channel)) ++unnamed_channels;
  }
  for (const auto& e : root->events) {
    if (e.kind() != Kind::Read || e.r.result <= 0) continue;
    const auto* c = root->channel(e.r.channel);
    if (c && c->ino() == notify_ino) bang_bytes_read += e.r.result;
  }
  EXPECT_EQ(bangs, counts["handler_writes"]);
  EXPECT_EQ(bang_bytes_read, counts["handler_writes"]);
  EXPECT_EQ(ticks, counts["handler_events"]);
  EXPECT_EQ(datagrams, counts["handler_datagrams"]);
  EXPECT_EQ(forks, counts["forks"]);
  EXPECT_EQ(static_cast<long>(rec.logs.size()), 1 + counts["forks"]);
  EXPECT_EQ(unnamed_channels, 0) << "every channel used is defined, also those made in handlers";

  // The story told from it has nothing wrong in it.
  const Result check = radar({"check", rec.dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("no findings"), std::string::npos) << check.out;
}

// The reproduction: one thread in a loop of 1-byte writes and reads on a
// pipe, a 50 µs interval timer whose handler records.
TEST(SignalStorm, OneThreadUnderA50MicrosecondTimer) { checkStorm("50", "1"); }

// Three threads with timers of their own, and a process-wide one.
TEST(SignalStorm, ThreadsUnderA50MicrosecondTimerEach) { checkStorm("50", "3"); }

// Faster, with fewer threads, so the program itself is not all handlers.
TEST(SignalStorm, TwoThreadsUnderA20MicrosecondTimer) { checkStorm("20", "1"); }

}  // namespace
}  // namespace radar::testing
