// radar record --on deadlock's test of a look: a cycle counts once every
// call in it has been blocked for as long as asked.
#include <gtest/gtest.h>

#include "cli/deadlock_watch.h"
#include "fake_recording.h"
#include "trace/findings.h"

namespace radar::testing {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(DeadlockWatch, ACycleCountsOnceEachOfItsCallsHasLasted) {
  FakeRecording rec;
  // alpha blocked since 1 s, beta since 1.4 s (CLOCK_MONOTONIC).
  rec.process("alpha", 1).pipeEnd(1, 101, true).pipeEnd(2, 102, false).blockedIn(log::Kind::Read, 2, 3, 0, 1000 * kMs);
  rec.process("beta", 2).pipeEnd(1, 101, false).pipeEnd(2, 102, true).blockedIn(log::Kind::Read, 1, 3, 0, 1400 * kMs);
  const auto t = rec.load();
  const int64_t offset = t->processes[0].realtime_offset;
  const auto at = [&](int64_t monotonic_ms) {
    return cli::DeadlockWatch::lastingDeadlocks(*t, offset + monotonic_ms * kMs, 500 * kMs).size();
  };
  EXPECT_EQ(at(1600), 0u);  // beta only 0.2 s: it may yet be woken
  EXPECT_EQ(at(1950), 1u);
  const auto found = cli::DeadlockWatch::lastingDeadlocks(*t, offset + 1950 * kMs, 500 * kMs);
  const std::string json = cli::DeadlockWatch::json(*t, *found[0]);
  EXPECT_NE(json.find("\"name\":\"alpha[1]\",\"pid\":1"), std::string::npos) << json;
  EXPECT_NE(json.find("alpha[1] waits for beta[2] on pipe"), std::string::npos) << json;
}

TEST(DeadlockWatch, ActionsAreReadAsWritten) {
  cli::DeadlockAction action;
  std::string error;
  EXPECT_TRUE(cli::parseDeadlockAction("stop", &action, &error));
  EXPECT_EQ(action.kind, cli::DeadlockAction::Kind::Stop);
  EXPECT_TRUE(cli::parseDeadlockAction("run logger -t radar", &action, &error));
  EXPECT_EQ(action.kind, cli::DeadlockAction::Kind::Run);
  EXPECT_EQ(action.command, "logger -t radar");
  EXPECT_FALSE(cli::parseDeadlockAction("run ", &action, &error));
  EXPECT_FALSE(cli::parseDeadlockAction("halt", &action, &error));
  EXPECT_NE(error.find("expected stop, mark or 'run COMMAND'"), std::string::npos) << error;
}

}  // namespace
}  // namespace radar::testing
