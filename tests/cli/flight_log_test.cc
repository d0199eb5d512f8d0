// The flight recorder's trimming and freezing (record/flight.h) on logs
// written here, with the checks a reader makes at every step.
#include "record/flight.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "log/log_test_util.h"
#include "log/reader.h"
#include "log/writer.h"

namespace radar::record {
namespace {

using log::testing::OwnedEvent;

// A write of 200 bytes on channel 1, the `n`th.
OwnedEvent writeNumber(uint64_t n) {
  OwnedEvent e;
  e.kind = log::Kind::Write;
  e.tid = 42;
  e.entry_ns = 2'000'000'000 + static_cast<int64_t>(n) * 1000;
  e.return_ns = e.entry_ns + 100;
  e.fd = 5;
  e.channel = 1;
  e.has_offset = true;
  e.offset = n * 200;
  e.size = 200;
  e.result = 200;
  // Bytes that do not compress, behind the number.
  e.payload.resize(200);
  uint64_t x = n * 0x9E3779B97F4A7C15ull + 1;
  for (char& c : e.payload) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<char>(x);
  }
  e.payload.replace(0, std::to_string(n).size(), std::to_string(n));
  return e;
}

OwnedEvent pipeChannel() {
  OwnedEvent c;
  c.kind = log::Kind::Channel;
  c.is_channel = true;
  c.channel_info.index = 1;
  c.channel_info.type = log::ChannelType::Pipe;
  c.channel_info.ino = 777;
  return c;
}

uint64_t allocated(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_blocks) * 512 : 0;
}

// What a reader finds in the log: no damage, the header, the channel, and
// counted events from some counter on, one by one, up to `last`.
void expectWhole(const std::string& path, uint64_t last) {
  std::string error;
  std::vector<std::string> payloads;
  const std::vector<log::Record> records = log::testing::readAll(path, &error, &payloads);
  ASSERT_EQ(error, "") << path;
  bool channel = false;
  uint64_t previous = 0;
  for (size_t k = 0; k < records.size(); ++k) {
    const log::Record& r = records[k];
    if (r.kind == log::Kind::Channel) channel = true;
    if (!r.counter) continue;
    ASSERT_TRUE(channel) << "event " << r.counter << " before its channel's definition";
    if (previous) {
      ASSERT_EQ(r.counter, previous + 1);
    }
    ASSERT_EQ(r.offset, (r.counter - 1) * 200) << "event " << r.counter;
    ASSERT_EQ(payloads[k].substr(0, std::to_string(r.counter - 1).size()), std::to_string(r.counter - 1));
    previous = r.counter;
  }
  EXPECT_EQ(previous, last);
}

TEST(FlightLog, KeepsTheNewestFramesAndWhatTheyNeed) {
  const std::string dir = log::testing::makeTempDir();
  const std::string path = dir + "/1-0-prog.rlog";
  log::WriterOptions options;
  options.flight = true;
  options.tail_capacity = 8192;  // a frame every few dozen events
  log::LogWriter w;
  ASSERT_EQ(w.open(path.c_str(), log::testing::testHeader(1), options), 0);
  log::testing::appendEvent(w, pipeChannel());
  FlightLog flight(path);
  constexpr uint64_t kKeep = 64 * 1024;
  uint64_t n = 0;
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 100; ++k) log::testing::appendEvent(w, writeNumber(n++));
    std::string error;
    ASSERT_TRUE(flight.trim(kKeep, &error)) << error;
    // Between trims, the log holds its header, its channel and the newest
    // events, with nothing missing between them.
    if (round % 40 == 0) expectWhole(path, n);
    EXPECT_LE(allocated(path), kKeep + 3 * options.tail_capacity + 3 * 4096 + 64 * 1024) << "round " << round;
  }
  EXPECT_GT(flight.droppedBytes(), 10 * kKeep);
  EXPECT_LE(flight.framesKept(), kKeep + 32 * 1024);
  EXPECT_GE(flight.framesKept(), kKeep / 2);
  w.close();
  expectWhole(path, n);
}

TEST(FlightLog, LeavesAnOrdinaryLogAlone) {
  const std::string dir = log::testing::makeTempDir();
  const std::string path = dir + "/1-0-prog.rlog";
  log::testing::writeLog(path, {pipeChannel(), writeNumber(0)}, log::WriterOptions{});
  const std::string before = log::testing::readFile(path);
  FlightLog flight(path);
  std::string error;
  EXPECT_FALSE(flight.trim(1024, &error));
  EXPECT_NE(error.find("not a flight log"), std::string::npos) << error;
  EXPECT_EQ(log::testing::readFile(path), before);
}

// A server that runs for days writes terabytes: the way from the carried
// frame to the frames kept crosses them in hops a skippable frame can say,
// and the two halves' ways never share a relay.
TEST(FlightLog, TheWayToTheFramesKeptCrossesAnyDistance) {
  constexpr uint64_t kFramesAt = 4096 + 256 * 1024 + log::kFlightSlot;
  constexpr uint64_t kLongestHop = 8 + uint64_t{0xFFFFFFFF};
  for (uint64_t kept_from : {kFramesAt, kFramesAt + 4096, uint64_t{5} << 30, uint64_t{3} << 40}) {
    const std::vector<uint64_t> zero = flightRelays(kFramesAt, 0, kept_from);
    const std::vector<uint64_t> one = flightRelays(kFramesAt, 1, kept_from);
    for (const auto* relays : {&zero, &one}) {
      uint64_t at = kFramesAt - log::kFlightSlot / 2;  // a carried frame's end, in the slot
      for (uint64_t relay : *relays) {
        EXPECT_GE(relay, kFramesAt);  // where frames were dropped, not in the slot
        EXPECT_LE(relay + 8, kept_from);
        EXPECT_LE(relay - at, kLongestHop);
        at = relay;
      }
      // The last hop reaches frames kept up to a gigabyte further on.
      EXPECT_LE(kept_from + (uint64_t{1} << 30) - at, kLongestHop) << kept_from;
    }
    for (uint64_t relay : zero) EXPECT_EQ(std::count(one.begin(), one.end(), relay), 0) << relay;
  }
}

// radar record may look at a log its process is still making: it waits.
TEST(FlightLog, WaitsForALogBeingMade) {
  const std::string dir = log::testing::makeTempDir();
  const std::string path = dir + "/1-0-prog.rlog";
  log::testing::writeFile(path, std::string(8192, '\0'));  // created, not written yet
  FlightLog flight(path);
  std::string error;
  EXPECT_TRUE(flight.trim(1024, &error)) << error;
  ASSERT_EQ(::unlink(path.c_str()), 0);
  log::WriterOptions options;
  options.flight = true;
  options.tail_capacity = 4096;
  std::vector<OwnedEvent> events = {pipeChannel()};
  for (uint64_t n = 0; n < 2000; ++n) events.push_back(writeNumber(n));
  log::testing::writeLog(path, events, options, /*close=*/false);
  EXPECT_TRUE(flight.trim(64 * 1024, &error)) << error;
  EXPECT_GT(flight.droppedBytes(), 0u);
  expectWhole(path, 2000);
}

// A freeze copies a log its process is writing and the keeper trimming:
// every copy is a log a reader reads whole.
TEST(FlightLog, FreezesWhileTheLogIsWrittenAndTrimmed) {
  const std::string dir = log::testing::makeTempDir();
  const std::string path = dir + "/1-0-prog.rlog";
  log::WriterOptions options;
  options.flight = true;
  options.tail_capacity = 8192;
  log::LogWriter w;
  ASSERT_EQ(w.open(path.c_str(), log::testing::testHeader(1), options), 0);
  log::testing::appendEvent(w, pipeChannel());
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> written{0};
  // As a busy process writes: bursts of events, a breath between them. (A
  // writer that never pauses outran the copies on a loaded machine, and
  // filled the disk meanwhile: 59 GB in a test's five minutes.)
  std::thread writer([&] {
    for (uint64_t n = 0; !stop; ++n) {
      log::testing::appendEvent(w, writeNumber(n));
      written = n + 1;
      if (n % 64 == 63) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  while (written < 2000) std::this_thread::yield();
  FlightKeeper keeper(dir, 64 * 1024);
  proto::Recording recording;
  recording.set_flight(64 * 1024);
  for (int k = 1; k <= 20; ++k) {
    keeper.trimAll(nullptr, nullptr);
    const std::string into = nextFreezeDirectory(dir);
    EXPECT_EQ(into, dir + "/flight-" + std::to_string(k));
    std::string error;
    const bool frozen = freezeRecording(dir, into, recording, &error);
    EXPECT_TRUE(frozen) << error;
    if (!frozen) break;  // (the writer is stopped below, not left running)
    std::string read_error;
    const std::vector<log::Record> records = log::testing::readAll(into + "/1-0-prog.rlog", &read_error);
    EXPECT_EQ(read_error, "") << into;
    uint64_t previous = 0;
    for (const log::Record& r : records) {
      if (!r.counter) continue;
      if (previous) {
        EXPECT_EQ(r.counter, previous + 1) << into;
      }
      previous = r.counter;
    }
    EXPECT_GT(previous, 0u) << into;
    EXPECT_LE(previous, written.load() + 1) << into;
  }
  stop = true;
  writer.join();
  w.close();
}

}  // namespace
}  // namespace radar::record
