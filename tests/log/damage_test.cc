// Damaged logs: read up to the damage, with a clear error naming the file
// and the byte offset; never a crash or a hang.
#include <gtest/gtest.h>

#include <random>

#include "log/wire.h"
#include "log_test_util.h"

namespace radar::log {
namespace {

using namespace testing;

struct Sample {
  std::string path;
  std::string bytes;
  std::vector<OwnedEvent> events;
  std::vector<Record> records;
  std::vector<std::string> payloads;
};

// A log with several compressed frames and records left in the tail.
Sample makeSample(int count, uint32_t tail = 4096, uint64_t seed = 11) {
  Sample s;
  s.path = makeTempDir() + "/sample.rlog";
  EventGenerator gen(seed, 4242, 120);
  for (int i = 0; i < count; ++i) s.events.push_back(gen.next());
  WriterOptions options;
  options.tail_capacity = tail;
  writeLog(s.path, s.events, options, /*close=*/false);
  s.bytes = readFile(s.path);
  std::string error;
  s.records = readAll(s.path, &error, &s.payloads);
  EXPECT_EQ(error, "");
  EXPECT_EQ(s.records.size(), s.events.size());
  return s;
}

bool isPrefix(const std::vector<Record>& got, const std::vector<std::string>& got_payloads, const Sample& s) {
  if (got.size() > s.records.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i].counter != s.records[i].counter || got[i].kind != s.records[i].kind ||
        got[i].entry_ns != s.records[i].entry_ns || got[i].offset != s.records[i].offset ||
        got_payloads[i] != s.payloads[i])
      return false;
  }
  return true;
}

std::string errorOf(const std::string& bytes, std::vector<Record>* records = nullptr) {
  const std::string path = makeTempDir() + "/damaged.rlog";
  writeFile(path, bytes);
  std::string error;
  auto r = readAll(path, &error);
  if (records) *records = r;
  return error;
}

TEST(Damage, NotALog) {
  EXPECT_NE(errorOf("hello world, this is not a log at all").find("not a radar log (bad magic)"), std::string::npos);
  EXPECT_NE(errorOf("").find("empty file"), std::string::npos);
  const std::string dir = makeTempDir();
  EXPECT_NE(errorOf(std::string(100, '\0')).find("bad magic"), std::string::npos);
  std::string error;
  readAll(dir, &error);
  EXPECT_NE(error.find("not a regular file"), std::string::npos);
  readAll(dir + "/missing.rlog", &error);
  EXPECT_NE(error.find("No such file"), std::string::npos);
}

TEST(Damage, NewerMajorVersionIsRefusedClearly) {
  Sample s = makeSample(10);
  std::string bytes = s.bytes;
  bytes[16] = 2;  // FileControl::format_major
  const std::string error = errorOf(bytes);
  EXPECT_NE(error.find("log format 2." + std::to_string(kFormatMinor) + " is newer than this radar reads (1.x)"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("offset 16"), std::string::npos) << error;
}

TEST(Damage, CorruptFrameNamesItsOffset) {
  Sample s = makeSample(3000);
  const size_t frames_start = kControlSize + 4096;
  ASSERT_GT(s.bytes.size(), frames_start + 2000);
  // Find the second frame: skip the first by its declared size via zstd.
  std::string bytes = s.bytes;
  bytes[frames_start + 40] ^= 0x55;
  std::vector<Record> got;
  const std::string error = errorOf(bytes, &got);
  EXPECT_NE(error.find("offset " + std::to_string(frames_start) + ": corrupt zstd frame"), std::string::npos) << error;
  EXPECT_TRUE(got.empty());
}

TEST(Damage, AbsurdRecordLengthInTheTail) {
  Sample s = makeSample(5, 4096);  // everything is still in the tail
  std::string bytes = s.bytes;
  // The header record starts the tail: give the next record an absurd length.
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data()) + kControlSize;
  uint64_t len = 0;
  const uint8_t* q = p;
  ASSERT_TRUE(wire::getVarint(q, p + 10, len));
  const size_t second = kControlSize + static_cast<size_t>(q - p) + len;
  bytes[second] = '\xff';
  bytes[second + 1] = '\xff';
  bytes[second + 2] = '\x7f';
  std::vector<Record> got;
  const std::string error = errorOf(bytes, &got);
  EXPECT_NE(error.find("offset " + std::to_string(second) + ": truncated record"), std::string::npos) << error;
  EXPECT_TRUE(got.empty());
}

// Cutting the file at any byte: every complete frame before the cut is
// read, the error names an offset at or before the cut, nothing crashes.
TEST(Damage, TruncatedAtEveryOffset) {
  Sample s = makeSample(400);
  const std::string path = makeTempDir() + "/cut.rlog";
  // Frame boundaries from the records' locations.
  std::vector<std::pair<uint64_t, size_t>> frame_ends;  // (end offset, records before it)
  std::vector<uint64_t> starts;
  for (const auto& r : s.records)
    if (r.payload_location.frame_offset != Location::kTailFrame &&
        (starts.empty() || starts.back() != r.payload_location.frame_offset))
      starts.push_back(r.payload_location.frame_offset);
  ASSERT_GE(starts.size(), 3u) << "the sample should span several frames";
  size_t in_tail = 0;
  for (const auto& r : s.records) in_tail += r.payload_location.frame_offset == Location::kTailFrame;
  ASSERT_GT(in_tail, 0u) << "the sample should leave records in the tail";

  for (size_t cut = 0; cut <= s.bytes.size(); ++cut) {
    writeFile(path, s.bytes.substr(0, cut));
    std::string error;
    std::vector<std::string> payloads;
    auto got = readAll(path, &error, &payloads);
    ASSERT_TRUE(isPrefix(got, payloads, s)) << "cut at " << cut;
    // Records expected: those of frames that end at or before the cut.
    size_t expect = 0;
    for (size_t f = 0; f < starts.size(); ++f) {
      const uint64_t end = f + 1 < starts.size() ? starts[f + 1] : s.bytes.size();
      if (end > cut) break;
      expect = 0;
      for (const auto& r : s.records)
        if (r.payload_location.frame_offset != Location::kTailFrame && r.payload_location.frame_offset <= starts[f])
          ++expect;
    }
    if (cut == s.bytes.size()) {
      EXPECT_EQ(got.size(), s.records.size());
      EXPECT_EQ(error, "");
    } else {
      ASSERT_EQ(got.size(), expect) << "cut at " << cut;
      ASSERT_FALSE(error.empty()) << "cut at " << cut;
    }
  }
}

TEST(Damage, RandomCorruptionNeverCrashes) {
  Sample s = makeSample(2000, 8192);
  std::mt19937_64 rng(99);
  const std::string path = makeTempDir() + "/corrupt.rlog";
  const size_t frames_start = kControlSize + 8192;
  int detected = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    std::string bytes = s.bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    bool only_frames = true;
    for (int k = 0; k < flips; ++k) {
      // Mostly in the frames, sometimes anywhere.
      const size_t at = rng() % 4 ? frames_start + rng() % (bytes.size() - frames_start) : rng() % bytes.size();
      only_frames &= at >= frames_start;
      bytes[at] ^= static_cast<char>(1 + rng() % 255);
    }
    if (rng() % 8 == 0) bytes.resize(rng() % bytes.size());
    writeFile(path, bytes);
    LogError err;
    auto r = LogReader::open(path, &err);
    if (!r) {
      EXPECT_FALSE(err.message.empty());
      ++detected;
      continue;
    }
    std::vector<Record> got;
    std::vector<std::string> payloads;
    Record rec;
    while (r->next(rec)) {
      got.push_back(rec);
      payloads.emplace_back(rec.payload);
      std::string back;
      r->readPayload(rec.payload_location, rec.payload.size(), &back, &err);
    }
    if (r->error()) ++detected;
    // Frames carry checksums: damage there never yields wrong records.
    if (only_frames && bytes.size() == s.bytes.size()) {
      EXPECT_TRUE(isPrefix(got, payloads, s));
    }
  }
  EXPECT_GT(detected, 1000);
}

}  // namespace
}  // namespace radar::log
