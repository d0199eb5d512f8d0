// Bytes kept once, on real programs: a pipeline of cat, and a proxy in
// front of an echo server that sends back what it got, with one byte
// changed in every other message (which must stay a copy). Each is merged
// with every byte matched and read through the references, its stages
// re-run as recorded, and its logs hold the bytes about once where
// `--copies` holds them at every stage.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "recorded.h"
#include "trace/load.h"
#include "trace/merge.h"
#include "trace/trace.h"

namespace radar::testing {
namespace {

std::string driverProgram(const std::string& name) { return std::string(RADAR_DRIVER_PROGRAMS) + "/" + name; }

uint64_t logBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".rlog") total += std::filesystem::file_size(entry.path());
  return total;
}

// The bytes a log keeps in its records' payloads.
uint64_t keptBytes(const ProcessLog& log) {
  uint64_t total = 0;
  for (const Event& e : log.events) total += e.payload.size();
  return total;
}

// Sends of `log` that moved at least 64 bytes, and how many of them refer
// to a receive of their own process instead of keeping the bytes.
std::pair<size_t, size_t> referring(const ProcessLog& log) {
  size_t sends = 0, refer = 0;
  for (const Event& e : log.events) {
    if (log::categoryOf(e.kind()) != log::Category::Send || e.r.result < 64) continue;
    ++sends;
    if (e.r.same_as) {
      ++refer;
      EXPECT_TRUE(e.payload.empty());
      EXPECT_LT(e.r.same_as, e.r.counter);
    }
  }
  return {sends, refer};
}

// Every message's bytes as the merge reads them, and what `radar check`
// says of the recording.
void expectEveryByteMatched(const std::string& dir) {
  std::string error;
  auto t = trace::loadTrace({dir}, trace::LoadOptions{}, &error);
  ASSERT_TRUE(t) << error;
  EXPECT_TRUE(t->problems.empty()) << t->problems[0].message;
  EXPECT_EQ(t->bytes_received, t->bytes_matched + t->bytes_external);
  for (uint32_t i = 0; i < t->events.size(); ++i) {
    if (!log::isData(t->events[i].eventKind()) || !t->events[i].value) continue;
    std::string bytes;
    uint64_t omitted = 0;
    ASSERT_TRUE(t->payload(i, &bytes, &error, &omitted)) << error;
    EXPECT_EQ(bytes.size() + omitted, t->events[i].value);
    EXPECT_EQ(omitted, 0u);
  }
  Result check = radar({"check", "--json", dir});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("\"bytes_unmatched\":0,"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("\"findings\":[]"), std::string::npos) << check.out;
}

void expectReRunAsRecorded(const std::string& dir, const ProcessLog& log) {
  const std::string image = std::to_string(log.header.pid()) + "." + std::to_string(log.header.generation());
  Result r = shell("timeout 60 " + radarDebug() + " --yes " + shellQuote(dir) + " " + image + " --no-gdb");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("as recorded"), std::string::npos) << r.err;
}

TEST(SameBytes, APipelineOfCatKeepsTheBytesOnce) {
  const std::string line = "seq 1 40000 | cat | cat | cat | md5sum";
  Recording once = record({"sh", "-c", line});
  ASSERT_EQ(once.exit_code, 0) << once.err;
  Recording copies = record({"sh", "-c", line}, {.radar_args = {"--copies"}});
  ASSERT_EQ(copies.exit_code, 0) << copies.err;
  EXPECT_EQ(once.out, copies.out);
  const std::vector<const ProcessLog*> cats = once.byExe("cat");
  ASSERT_EQ(cats.size(), 3u);
  for (const ProcessLog* cat : cats) {
    auto [sends, refer] = referring(*cat);
    EXPECT_GT(sends, 0u);
    EXPECT_EQ(refer, sends) << cat->path;
  }
  for (const ProcessLog* cat : copies.byExe("cat")) EXPECT_EQ(referring(*cat).second, 0u) << cat->path;
  // seq's 228 894 bytes, kept by seq alone; with --copies by every stage.
  const uint64_t seq_bytes = 228894;
  EXPECT_EQ(keptBytes(*once.onlyExe("seq")), seq_bytes);
  for (const ProcessLog* cat : cats) EXPECT_EQ(keptBytes(*cat), 0u) << cat->path;
  for (const ProcessLog* cat : copies.byExe("cat")) EXPECT_EQ(keptBytes(*cat), seq_bytes) << cat->path;
  EXPECT_LT(logBytes(once.dir), logBytes(copies.dir));
  expectEveryByteMatched(once.dir);
  expectReRunAsRecorded(once.dir, *cats[1]);
}

TEST(SameBytes, AProxyPassesBytesOnOnceAndAnEchoThatChangesOneKeepsItsCopy) {
  const int rounds = 40;
  Recording rec = record({driverProgram("forwarding"), std::to_string(rounds)});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_EQ(rec.logs.size(), 3u);
  const ProcessLog* client = rec.byPid(static_cast<int>(rec.meta.root_pid()));
  ASSERT_NE(client, nullptr);
  const ProcessLog *server = nullptr, *proxy = nullptr;
  for (const ProcessLog& log : rec.logs) {
    if (&log == client) continue;
    // The server forked first: its counter at the fork is the lower.
    if (!server || log.header.parent_counter() < server->header.parent_counter()) {
      proxy = server;
      server = &log;
    } else {
      proxy = &log;
    }
  }
  ASSERT_NE(proxy, nullptr);
  EXPECT_EQ(referring(*client).second, 0u);
  EXPECT_EQ(referring(*proxy), std::make_pair(size_t{2 * rounds}, size_t{2 * rounds}));
  // The server's echoes: the even rounds' the same bytes, the odd ones' not.
  std::vector<bool> refers;
  for (const Event& e : server->events)
    if (log::categoryOf(e.kind()) == log::Category::Send) refers.push_back(e.r.same_as != 0);
  ASSERT_EQ(refers.size(), static_cast<size_t>(rounds));
  for (int round = 0; round < rounds; ++round) EXPECT_EQ(refers[round], round % 2 == 0) << "round " << round;
  expectEveryByteMatched(rec.dir);
  expectReRunAsRecorded(rec.dir, *proxy);
  expectReRunAsRecorded(rec.dir, *server);
}

}  // namespace
}  // namespace radar::testing
