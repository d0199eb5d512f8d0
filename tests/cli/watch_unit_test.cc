// radar record --on CONDITION --do ACTION, a look at a time: a cycle counts
// once every call in it has been blocked for as long as asked, and an event
// once it matches every term of the condition.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/watch.h"
#include "fake_recording.h"
#include "log/stop_at.h"
#include "trace/findings.h"
#include "trace/select.h"

namespace radar::testing {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(RecordingWatch, ACycleCountsOnceEachOfItsCallsHasLasted) {
  FakeRecording rec;
  // alpha blocked since 1 s, beta since 1.4 s (CLOCK_MONOTONIC).
  rec.process("alpha", 1).pipeEnd(1, 101, true).pipeEnd(2, 102, false).blockedIn(log::Kind::Read, 2, 3, 0, 1000 * kMs);
  rec.process("beta", 2).pipeEnd(1, 101, false).pipeEnd(2, 102, true).blockedIn(log::Kind::Read, 1, 3, 0, 1400 * kMs);
  const auto t = rec.load();
  const int64_t offset = t->processes[0].realtime_offset;
  const auto at = [&](int64_t monotonic_ms) {
    return cli::RecordingWatch::lastingDeadlocks(*t, offset + monotonic_ms * kMs, 500 * kMs).size();
  };
  EXPECT_EQ(at(1600), 0u);  // beta only 0.2 s: it may yet be woken
  EXPECT_EQ(at(1950), 1u);
  const auto found = cli::RecordingWatch::lastingDeadlocks(*t, offset + 1950 * kMs, 500 * kMs);
  const std::string json = cli::RecordingWatch::deadlock(*t, *found[0]).json;
  EXPECT_NE(json.find("\"name\":\"alpha[1]\",\"pid\":1"), std::string::npos) << json;
  EXPECT_NE(json.find("alpha[1] waits for beta[2] on pipe"), std::string::npos) << json;
}

TEST(RecordingWatch, ActionsAreReadAsWritten) {
  cli::WatchAction action;
  std::string error;
  EXPECT_TRUE(cli::parseWatchAction("stop", &action, &error));
  EXPECT_EQ(action.kind, cli::WatchAction::Kind::Stop);
  EXPECT_TRUE(cli::parseWatchAction("snapshot", &action, &error));
  EXPECT_EQ(action.kind, cli::WatchAction::Kind::Snapshot);
  EXPECT_TRUE(cli::parseWatchAction("run logger -t radar", &action, &error));
  EXPECT_EQ(action.kind, cli::WatchAction::Kind::Run);
  EXPECT_EQ(action.command, "logger -t radar");
  EXPECT_FALSE(cli::parseWatchAction("run ", &action, &error));
  EXPECT_FALSE(cli::parseWatchAction("halt", &action, &error));
  EXPECT_NE(error.find("expected stop, mark, snapshot or 'run COMMAND'"), std::string::npos) << error;
}

TEST(RecordingWatch, ConditionsAreReadAsWritten) {
  cli::WatchCondition c;
  std::string error;
  ASSERT_TRUE(cli::parseWatchCondition("deadlock", &c, &error)) << error;
  EXPECT_TRUE(c.deadlock);
  ASSERT_TRUE(cli::parseWatchCondition("process=worker  kind=send contains=\"HTTP/1.1 500\"", &c, &error)) << error;
  EXPECT_FALSE(c.deadlock);
  EXPECT_EQ(c.processes, std::vector<std::string>{"worker"});
  EXPECT_EQ(c.kinds, std::vector<std::string>{"send"});
  EXPECT_EQ(c.contains, std::vector<std::string>{"HTTP/1.1 500"});
  for (const char* bad : {"", "deadlocks", "process", "process=", "colour=red", "contains=\"open"}) {
    EXPECT_FALSE(cli::parseWatchCondition(bad, &c, &error)) << bad;
    EXPECT_NE(error.find("--on"), std::string::npos) << error;
  }
}

// Which events a condition names: every term must hold.
TEST(RecordingWatch, AnEventMatchesEveryTermOrNone) {
  FakeRecording rec;
  rec.process("client", 1)
      .pipeEnd(1, 101, true)
      .send(1, "GET /ok", 10, 20)
      .send(1, "GET /fail", 30, 40)
      .user("checkpoint", 50)
      .user("other", 60);
  rec.process("server", 2).pipeEnd(1, 101, false).receive(1, "GET /ok", 25, 26).receive(1, "GET /fail", 45, 46);
  const auto t = rec.load();
  const auto matching = [&](const std::string& text) {
    cli::WatchCondition c;
    std::string error;
    EXPECT_TRUE(cli::parseWatchCondition(text, &c, &error)) << error;
    trace::EventFilter filter;
    std::vector<std::string> said;
    if (!c.names(*t, &filter)) return said;
    for (uint32_t i = 0; i < t->events.size(); ++i)
      if (filter.wants(*t, i) && cli::RecordingWatch::matches(*t, i, c))
        said.push_back(cli::RecordingWatch::event(*t, i).text);
    return said;
  };
  EXPECT_EQ(matching("contains=fail").size(), 2u);  // its send and its receive
  const auto sent = matching("contains=fail kind=send process=client");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_NE(sent[0].find("client[1] sends a message to server[2]"), std::string::npos) << sent[0];
  EXPECT_TRUE(matching("contains=fail process=nobody").empty());
  EXPECT_TRUE(matching("contains=fail kind=user").empty());
  const auto user = matching("user=checkpoint");
  ASSERT_EQ(user.size(), 1u);
  EXPECT_NE(user[0].find("checkpoint"), std::string::npos) << user[0];
  const std::string json = cli::RecordingWatch::event(*t, 0).json;
  EXPECT_NE(json.find("\"kind\":\"event\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"pid\":"), std::string::npos) << json;
}

// What each process's recorder is told of a --do stop condition, and how
// it judges an event by it: the same terms as radar record's, on what the
// recorder has (a send's bytes across its buffers, a user event's name).
TEST(RecordingWatch, TheRecorderJudgesWhatItCanAlone) {
  const auto told = [](const std::string& text) {
    cli::WatchCondition c;
    std::string error;
    EXPECT_TRUE(cli::parseWatchCondition(text, &c, &error)) << error;
    return c.forRecorder();
  };
  EXPECT_EQ(told("deadlock"), "");
  EXPECT_EQ(told("process=client contains=x"), "") << "a process's name is radar record's to judge";
  EXPECT_EQ(told("channel=\"pipe 1\" kind=send"), "");
  EXPECT_EQ(told("kind=MPI_Allreduce"), "");
  const std::string spec = told("kind=write kind=sendmsg contains=\"b,c\" user=go");
  // user= makes user events one of the kinds, as radar record's filter has it.
  EXPECT_EQ(spec, "k:7772697465,k:73656e646d7367,k:75736572,u:676f,c:622c63");
  EXPECT_EQ(told("contains=" + std::string(300, 'x')), "") << "longer than the recorder keeps";

  log::EventFields e;
  e.kind = log::Kind::Write;
  const std::string first = "ab", second = ",cd";
  const log::Iov parts[2] = {{first.data(), first.size()}, {second.data(), second.size()}};
  e.payload = parts;
  e.payload_iov_count = 2;
  e.payload_len = 5;
  const std::string holds_bc = told("kind=send contains=\"b,c\"");
  EXPECT_TRUE(log::stopAtMatches(holds_bc.c_str(), e)) << "across the two buffers";
  e.payload_len = 3;  // "ab,": only these bytes were kept
  EXPECT_FALSE(log::stopAtMatches(holds_bc.c_str(), e));
  e.payload_len = 5;
  EXPECT_FALSE(log::stopAtMatches(told("kind=read contains=ab").c_str(), e));
  EXPECT_TRUE(log::stopAtMatches(told("kind=read kind=write").c_str(), e)) << "any of the kinds";
  EXPECT_FALSE(log::stopAtMatches(told("contains=ab contains=zz").c_str(), e)) << "every text";

  log::EventFields user;
  user.kind = log::Kind::User;
  const char* name[] = {"go"};
  user.strings = name;
  user.string_count = 1;
  EXPECT_TRUE(log::stopAtMatches(told("user=go").c_str(), user));
  EXPECT_TRUE(log::stopAtMatches(told("kind=send user=go").c_str(), user));
  log::EventFields note;
  note.kind = log::Kind::Note;
  EXPECT_FALSE(log::stopAtMatches(told("kind=note").c_str(), note)) << "radar's own records are no event";
  EXPECT_FALSE(log::stopAtMatches(told("user=stop").c_str(), user));
  EXPECT_FALSE(log::stopAtMatches("", user)) << "nothing asked";
  EXPECT_FALSE(log::stopAtMatches("u:67", user)) << "half a byte";
  EXPECT_FALSE(log::stopAtMatches("x:676f", user)) << "an unknown key";
}

// --do stop acts on a pid some time after its process was recorded: by
// then the process may have ended and its pid be another's, which started
// after the recorded one ran, or was never a descendant of radar record.
TEST(RecordingWatch, APidIsStoppedOnlyWhileItIsTheRecordedProcess) {
  const auto monotonicNs = [] {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
  };
  const int64_t before = monotonicNs();
  ::usleep(100'000);  // ten of the kernel's ticks at least
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const auto state = [&] {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
  };
  // Recorded running before it started: the pid is another's now.
  EXPECT_FALSE(cli::stillTheImage(child, {child, before}));
  EXPECT_FALSE(cli::stopIfStillTheImage({child, before}));
  EXPECT_FALSE(cli::stopIfStillTheImage({child, INT64_MAX})) << "never seen running: nothing to tell";
  EXPECT_FALSE(cli::stillTheImage(::getppid(), {::getppid(), monotonicNs()})) << "not a descendant";
  ::usleep(100'000);
  EXPECT_NE(state(), 'T') << "another process was stopped";

  EXPECT_TRUE(cli::stillTheImage(child, {child, monotonicNs()}));
  EXPECT_TRUE(cli::stopIfStillTheImage({child, monotonicNs()}));
  for (int tries = 0; tries < 500 && state() != 'T'; ++tries) ::usleep(10'000);
  EXPECT_EQ(state(), 'T');

  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_FALSE(cli::stopIfStillTheImage({child, monotonicNs()})) << "an ended process";
}

}  // namespace
}  // namespace radar::testing
