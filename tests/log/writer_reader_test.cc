// Round trips through LogWriter and LogReader.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zstd.h>

#include <csignal>

#include "log_test_util.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::log {
namespace {

using namespace testing;

void expectRoundTrip(const std::vector<OwnedEvent>& events, const WriterOptions& options, bool close = true) {
  const std::string path = makeTempDir() + "/log.rlog";
  auto counters = writeLog(path, events, options, close);
  ASSERT_EQ(counters.size(), events.size());
  std::string error;
  std::vector<std::string> payloads;
  auto records = readAll(path, &error, &payloads);
  EXPECT_EQ(error, "");
  ASSERT_EQ(records.size(), events.size());
  uint64_t expect_counter = 1;
  for (size_t i = 0; i < events.size(); ++i) {
    const bool counted = !events[i].is_channel;
    EXPECT_EQ(counters[i], counted ? expect_counter : 0u);
    EXPECT_EQ(compare(events[i], records[i], counted ? expect_counter : 0, payloads[i]), "")
        << "record " << i << " kind " << kindName(events[i].kind);
    if (counted) ++expect_counter;
  }
}

TEST(WriterReader, EveryKindRoundTrips) {
  EventGenerator gen(1, 4242);
  std::vector<OwnedEvent> events;
  events.push_back(gen.next());  // a channel definition
  for (Kind k : EventGenerator::allKinds()) {
    for (int variant = 0; variant < 4; ++variant) {
      OwnedEvent e = gen.next();
      while (e.is_channel) e = gen.next();
      e.kind = k;
      if (isSyncKind(k)) e.fd = -1;  // as the recorder writes them: the reader implies it
      if (!isData(k)) {
        e.has_offset = false;
        e.channel = variant;
        e.has_hash = false;
      } else {
        e.has_offset = false;  // offsets are checked by the stream tests
        e.channel = 0;
      }
      events.push_back(e);
    }
  }
  expectRoundTrip(events, {});
}

// An event made inside an MPI call carries kFlagInMpiCall: read back as
// Record::in_mpi_call, its own flags as they were. A CPU-time clock's id
// (negative: its high bits set) is a clock id, never that mark.
TEST(WriterReader, EventsMadeInsideAnMpiCallAreToldSoWithTheirOwnFlags) {
  EventGenerator gen(1, 77);
  auto made = [&](Kind kind, uint32_t flags) {
    OwnedEvent e = gen.next();
    while (e.is_channel) e = gen.next();
    e.kind = kind;
    e.channel = 0;
    e.has_offset = false;
    e.has_hash = false;
    e.flags = flags;
    return e;
  };
  const uint32_t cpu_clock = static_cast<uint32_t>((~int32_t{4321} << 3) | 6);
  const std::vector<OwnedEvent> events = {made(Kind::Poll, 0), made(Kind::Poll, kFlagInMpiCall),
                                          made(Kind::Recv, 0x2 | kFlagInMpiCall), made(Kind::Clock, cpu_clock),
                                          made(Kind::MpiSend, kFlagInMpiCall)};
  const std::string path = makeTempDir() + "/log.rlog";
  writeLog(path, events, {});
  std::string error;
  const auto records = readAll(path, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(records.size(), events.size());
  const bool inside[] = {false, true, true, false, false};
  const uint32_t flags[] = {0, 0, 0x2, cpu_clock, kFlagInMpiCall};
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(records[i].in_mpi_call, inside[i]) << i;
    EXPECT_EQ(records[i].flags, flags[i]) << i;
  }
}

TEST(WriterReader, HeaderAndControl) {
  const std::string path = makeTempDir() + "/h.rlog";
  LogWriter w;
  HeaderFields h = testHeader(777);
  h.origin = Origin::Forked;
  h.parent_counter = 41;
  ASSERT_EQ(w.open(path.c_str(), h), 0);
  w.control()->threads[0] = {777, static_cast<uint16_t>(Kind::Read), 0, 5, 2, 123, 9};
  w.abandon();  // as if killed: not closed

  LogError err;
  auto r = LogReader::open(path, &err);
  ASSERT_TRUE(r) << err.toString();
  EXPECT_EQ(r->header().pid(), 777);
  EXPECT_EQ(r->header().origin(), proto::FORKED);
  EXPECT_EQ(r->header().parent_counter(), 41u);
  EXPECT_EQ(r->header().executable(), "/usr/bin/prog");
  EXPECT_FALSE(r->control().closed);
  ASSERT_EQ(r->control().threads.size(), 1u);
  EXPECT_EQ(r->control().threads[0].fd, 5);
  EXPECT_EQ(r->control().threads[0].kind, static_cast<uint16_t>(Kind::Read));

  const std::string path2 = makeTempDir() + "/h2.rlog";
  LogWriter w2;
  ASSERT_EQ(w2.open(path2.c_str(), h), 0);
  w2.close();
  auto r2 = LogReader::open(path2, &err);
  ASSERT_TRUE(r2) << err.toString();
  EXPECT_TRUE(r2->control().closed);
  EXPECT_FALSE(r2->control().incomplete);
  // The tail's blocks were given back: the file uses less than its size.
  struct stat st {};
  ASSERT_EQ(::stat(path2.c_str(), &st), 0);
  EXPECT_LT(st.st_blocks * 512, st.st_size);
}

TEST(WriterReader, ManyFramesWithImplicitFields) {
  EventGenerator gen(2, 4242);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 60000; ++i) events.push_back(gen.next());
  WriterOptions small;
  small.tail_capacity = 16 * 1024;  // many frames
  expectRoundTrip(events, small);
  expectRoundTrip(events, small, /*close=*/false);  // last records only in the tail
}

// radar declares each frame's size; other zstd writers may not, and then
// the reader streams the frame in pieces. Every frame of a log written with
// big tails is recompressed without its size: the records read are the same.
TEST(WriterReader, FramesWithoutADeclaredSizeAreStreamed) {
  EventGenerator gen(7, 4242, 120);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 20000; ++i) events.push_back(gen.next());
  const std::string path = makeTempDir() + "/sized.rlog";
  WriterOptions options;
  options.tail_capacity = 256 * 1024;  // frames of up to 256 KiB, streamed 64 KiB at a time
  writeLog(path, events, options);
  const std::string bytes = readFile(path);
  std::string error;
  std::vector<std::string> payloads;
  const auto records = readAll(path, &error, &payloads);
  ASSERT_EQ(error, "");
  ASSERT_EQ(records.size(), events.size());

  std::string unsized = bytes.substr(0, kControlSize + options.tail_capacity);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  size_t frames = 0, biggest = 0;
  for (size_t at = unsized.size(); at < bytes.size();) {
    const void* frame = bytes.data() + at;
    const size_t size = ZSTD_findFrameCompressedSize(frame, bytes.size() - at);
    ASSERT_FALSE(ZSTD_isError(size)) << "at " << at;
    const unsigned long long content_size = ZSTD_getFrameContentSize(frame, size);
    if (content_size == ZSTD_CONTENTSIZE_ERROR) {  // a skippable frame: kept as it is
      unsized += bytes.substr(at, size);
      at += size;
      continue;
    }
    ASSERT_NE(content_size, ZSTD_CONTENTSIZE_UNKNOWN);
    std::string content(content_size, '\0'), again(ZSTD_compressBound(content_size), '\0');
    ASSERT_EQ(ZSTD_decompress(content.data(), content.size(), frame, size), content_size);
    const size_t n = ZSTD_compress2(cctx, again.data(), again.size(), content.data(), content.size());
    ASSERT_FALSE(ZSTD_isError(n));
    ASSERT_EQ(ZSTD_getFrameContentSize(again.data(), n), ZSTD_CONTENTSIZE_UNKNOWN);
    unsized.append(again.data(), n);
    ++frames;
    biggest = std::max<size_t>(biggest, content_size);
    at += size;
  }
  ZSTD_freeCCtx(cctx);
  EXPECT_GE(frames, 3u);
  EXPECT_GT(biggest, 64u * 1024);

  const std::string unsized_path = makeTempDir() + "/unsized.rlog";
  writeFile(unsized_path, unsized);
  std::vector<std::string> unsized_payloads;
  const auto unsized_records = readAll(unsized_path, &error, &unsized_payloads);
  EXPECT_EQ(error, "");
  ASSERT_EQ(unsized_records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_EQ(compare(events[i], unsized_records[i], records[i].counter, unsized_payloads[i]), "") << "record " << i;
  }
}

// Records re-read by location, in order (each frame decoded once, going on
// from the record before), backwards, at random, and between records the
// sequential reader returns: always the record written.
TEST(WriterReader, RecordsReReadByLocationInAnyOrder) {
  EventGenerator gen(5, 4242);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 20000; ++i) events.push_back(gen.next());
  WriterOptions small;
  small.tail_capacity = 16 * 1024;
  const std::string path = makeTempDir() + "/log.rlog";
  auto counters = writeLog(path, events, small, /*close=*/false);  // the last ones in the tail
  std::string error;
  auto records = readAll(path, &error);
  ASSERT_EQ(records.size(), events.size()) << error;
  LogError err;
  auto reader = LogReader::open(path, &err);
  ASSERT_TRUE(reader) << err.toString();
  auto check = [&](size_t i) {
    Record r;
    ASSERT_TRUE(reader->readRecord(records[i].location, &r, &err)) << i << ": " << err.toString();
    EXPECT_EQ(compare(events[i], r, counters[i], std::string(r.payload)), "")
        << "record " << i << " kind " << kindName(events[i].kind);
  };
  std::vector<size_t> order;
  for (size_t i = 0; i < events.size(); i += 3) order.insert(order.end(), {i, i});  // forwards, each twice
  for (size_t i = events.size(); i-- > 0;) order.push_back(i);                      // backwards
  std::mt19937 rng(9);
  for (int k = 0; k < 3000; ++k) order.push_back(rng() % events.size());  // anywhere
  for (size_t i : order) {
    check(i);
    if (::testing::Test::HasFailure()) return;
  }
  // Sequential reading in between spoils nothing.
  Record seq;
  for (size_t i = 0; i < 5000; ++i) {
    ASSERT_TRUE(reader->next(seq));
    if (i % 7 == 0) check(i + 1);
    if (i % 11 == 0) check(i / 2);
    if (::testing::Test::HasFailure()) return;
  }
}

// The tail is read only as far as its records go (its first 16 KiB, then 4
// times more while records go on): tails of one record to nearly full, and
// records cut by a read, come back whole, by sequence and by location.
TEST(WriterReader, TailsOfEveryFillAreReadWhole) {
  const std::string dir = makeTempDir();
  int cut_by_first_read = 0;
  uint64_t most_used = 0;
  for (int n : {1, 2, 60, 90, 100, 110, 120, 130, 400, 470, 500, 530, 1400, 1700, 1900, 2300}) {
    EventGenerator gen(static_cast<uint64_t>(n), 4242);
    std::vector<OwnedEvent> events;
    for (int i = 0; i < n; ++i) events.push_back(gen.next());
    const std::string path = dir + "/log" + std::to_string(n) + ".rlog";
    auto counters = writeLog(path, events, {}, /*close=*/false);  // everything in the tail
    std::string error;
    std::vector<std::string> payloads;
    auto records = readAll(path, &error, &payloads);
    ASSERT_EQ(error, "") << n;
    ASSERT_EQ(records.size(), events.size()) << n;
    LogError err;
    auto reader = LogReader::open(path, &err);
    ASSERT_TRUE(reader) << err.toString();
    Record r;
    while (reader->next(r)) {
    }
    const uint64_t used = reader->tailUsed();
    EXPECT_LT(used, reader->control().tail_capacity) << n;
    most_used = std::max(most_used, used);
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(compare(events[i], records[i], counters[i], payloads[i]), "") << n << ": record " << i;
      ASSERT_TRUE(reader->readRecord(records[i].location, &r, &err)) << n << ": " << i << ": " << err.toString();
      EXPECT_EQ(r.counter, records[i].counter);
      const uint64_t start = records[i].location.offset;
      if (records[i].location.frame_offset == Location::kTailFrame && start < 16 * 1024 && i + 1 < records.size() &&
          records[i + 1].location.offset > 16 * 1024)
        ++cut_by_first_read;
    }
  }
  EXPECT_GT(cut_by_first_read, 0) << "no record straddled the first read";
  EXPECT_GT(most_used, 64u * 1024) << "no tail needed a third read";
}

// A reader re-reads tail records from the tail it read last, and reads the
// tail again for records a live writer added after it.
TEST(WriterReader, TailRecordsOfALiveWriterAreReReadByLocation) {
  const std::string path = makeTempDir() + "/live.rlog";
  EventGenerator gen(11, 4242);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 400; ++i) events.push_back(gen.next());
  LogWriter w;
  ASSERT_EQ(w.open(path.c_str(), testHeader(4242), {}), 0);
  std::vector<uint64_t> counters;
  for (int i = 0; i < 200; ++i) counters.push_back(appendEvent(w, events[i]));
  LogError err;
  auto reader = LogReader::open(path, &err);
  ASSERT_TRUE(reader) << err.toString();
  auto first = readAll(path);
  ASSERT_EQ(first.size(), 200u);
  Record r;
  for (size_t i : {0, 5, 6, 7, 150, 199}) {
    ASSERT_TRUE(reader->readRecord(first[i].location, &r, &err)) << i << ": " << err.toString();
    EXPECT_EQ(compare(events[i], r, counters[i], std::string(r.payload)), "") << i;
  }
  for (int i = 200; i < 400; ++i) counters.push_back(appendEvent(w, events[i]));
  auto all = readAll(path);
  ASSERT_EQ(all.size(), 400u);
  for (size_t i : {199, 200, 201, 300, 399, 3}) {
    ASSERT_EQ(all[i].location.frame_offset, Location::kTailFrame) << i;
    ASSERT_TRUE(reader->readRecord(all[i].location, &r, &err)) << i << ": " << err.toString();
    EXPECT_EQ(compare(events[i], r, counters[i], std::string(r.payload)), "") << i;
  }
  w.abandon();
}

TEST(WriterReader, LargeRecordsGetTheirOwnFrames) {
  EventGenerator gen(3, 4242, 100);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 400; ++i) {
    OwnedEvent e = gen.next();
    events.push_back(e);
  }
  // Payloads across block boundaries (128 KiB) and iovec boundaries.
  for (size_t big : {5000ul, 40000ul, 131072ul, 131073ul, 400000ul}) {
    OwnedEvent e;
    e.kind = Kind::Write;
    e.entry_ns = 5'000'000'000;
    e.return_ns = 5'000'000'100;
    e.channel = 1;
    e.has_offset = true;
    e.offset = 0;
    e.result = static_cast<int64_t>(big);
    e.payload.resize(big);
    for (size_t k = 0; k < big; ++k) e.payload[k] = static_cast<char>(k * 7);
    events.push_back(e);
  }
  // Offsets on channel 1 must stay consistent for the comparison: rebuild.
  uint64_t next[2][1000] = {};
  for (auto& e : events)
    if (e.has_offset) {
      const int dir = categoryOf(e.kind) == Category::Send ? 0 : 1;
      e.offset = next[dir][e.channel];
      next[dir][e.channel] += bytesMoved(e.kind, e.result, e.flags, e.lengths.data(), e.lengths.size());
    }
  WriterOptions options;
  options.tail_capacity = 64 * 1024;
  expectRoundTrip(events, options);
}

// radar record's summary reads the events of logs holding gigabytes of
// messages: a large message's bytes are then neither read nor checked.
TEST(WriterReader, LargePayloadsSkippedAreNeitherReadNorChecked) {
  EventGenerator gen(5, 4242, 3000);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 300; ++i) events.push_back(gen.next());
  // Below the writer's own-frame size, between it and the skipping size,
  // and above, across raw blocks (128 KiB); between small events.
  size_t at = events.size() / 2;
  std::string damaged_part;
  for (size_t big : {5000ul, 12000ul, 40000ul, 131072ul, 131073ul, 400000ul}) {
    OwnedEvent e = gen.next();
    while (e.is_channel) e = gen.next();
    e.kind = Kind::Write;
    e.channel = 0;
    e.has_offset = false;
    e.has_hash = false;
    e.result = static_cast<int64_t>(big);
    e.payload_omitted = 0;
    e.payload.resize(big);
    std::mt19937 bytes(static_cast<unsigned>(big));
    for (auto& c : e.payload) c = static_cast<char>(bytes());
    if (big == 400000) damaged_part = e.payload.substr(200000, 64);
    events.insert(events.begin() + static_cast<long>(at), e);
    at += 9;
  }
  const std::string path = makeTempDir() + "/big.rlog";
  WriterOptions options;
  options.tail_capacity = 64 * 1024;  // own frames above 8 KiB
  writeLog(path, events, options);

  bool damaged = false;  // then the skipped bytes are not all there to fetch
  auto expectEvents = [&](LogReader::Payloads mode, size_t* skipped) {
    std::string error;
    std::vector<std::string> payloads;
    auto records = readAll(path, &error, &payloads, mode);
    EXPECT_EQ(error, "");
    ASSERT_EQ(records.size(), events.size());
    uint64_t counter = 1;
    for (size_t i = 0; i < events.size(); ++i) {
      const bool counted = !events[i].is_channel;
      // Skipped: frames of 16 KiB of content or more.
      const bool skip = mode == LogReader::Payloads::SkipLarge && events[i].payload.size() >= 16384;
      if (payloads[i].empty() && !events[i].payload.empty()) ++*skipped;
      if (skip) {
        EXPECT_EQ(payloads[i], "") << "record " << i;
        OwnedEvent without = events[i];
        without.payload.clear();
        EXPECT_EQ(compare(without, records[i], counter, ""), "") << "record " << i;
        // Where the bytes are is told all the same.
        LogError err;
        auto whole = LogReader::open(path, &err);
        ASSERT_TRUE(whole);
        std::string bytes;
        if (!damaged) {
          EXPECT_TRUE(whole->readPayload(records[i].payload_location, events[i].payload.size(), &bytes, &err))
              << err.toString();
          EXPECT_TRUE(bytes == events[i].payload) << "record " << i << ": the payload's location is wrong";
        }
      } else {
        EXPECT_EQ(compare(events[i], records[i], counted ? counter : 0, payloads[i]), "") << "record " << i;
      }
      if (counted) ++counter;
    }
  };
  size_t skipped = 0;
  expectEvents(LogReader::Payloads::Read, &skipped);
  EXPECT_EQ(skipped, 0u);
  expectEvents(LogReader::Payloads::SkipLarge, &skipped);
  EXPECT_EQ(skipped, 4u);

  // A byte of the 400 000-byte message damaged: reading it finds the frame's
  // checksum wrong; skipping it finds every event.
  std::string bytes = readFile(path);
  const size_t where = bytes.find(damaged_part);
  ASSERT_NE(where, std::string::npos);
  ASSERT_EQ(bytes.find(damaged_part, where + 1), std::string::npos);
  bytes[where] ^= 1;
  writeFile(path, bytes);
  damaged = true;
  std::string error;
  readAll(path, &error);
  EXPECT_NE(error.find("corrupt zstd frame"), std::string::npos) << error;
  skipped = 0;
  expectEvents(LogReader::Payloads::SkipLarge, &skipped);
  EXPECT_EQ(skipped, 4u);
}

TEST(WriterReader, PayloadsByLocation) {
  EventGenerator gen(4, 4242, 12000);
  std::vector<OwnedEvent> events;
  // 300 events or more, the last with a small payload: it stays in the
  // tail (the log is not closed; a big one would take a frame of its own).
  for (int i = 0; i < 300 || events.back().payload.empty() || events.back().payload.size() > 2000; ++i)
    events.push_back(gen.next());
  const std::string path = makeTempDir() + "/p.rlog";
  WriterOptions options;
  options.tail_capacity = 64 * 1024;
  writeLog(path, events, options, /*close=*/false);

  LogError err;
  auto r = LogReader::open(path, &err);
  ASSERT_TRUE(r);
  std::vector<std::pair<Location, std::string>> seen;
  Record rec;
  bool tail_seen = false, frame_seen = false;
  while (r->next(rec)) {
    if (rec.payload.empty()) continue;
    seen.emplace_back(rec.payload_location, std::string(rec.payload));
    (rec.payload_location.frame_offset == Location::kTailFrame ? tail_seen : frame_seen) = true;
  }
  EXPECT_TRUE(tail_seen);
  EXPECT_TRUE(frame_seen);
  // Fetch them back in reverse order (defeats the one-frame cache).
  for (auto it = seen.rbegin(); it != seen.rend(); ++it) {
    std::string bytes;
    ASSERT_TRUE(r->readPayload(it->first, it->second.size(), &bytes, &err)) << err.toString();
    EXPECT_EQ(bytes, it->second);
  }
  std::string bytes;
  EXPECT_FALSE(r->readPayload({r->fileSize() + 10, 0}, 4, &bytes, &err));
}

// A file-size limit must never kill the program with SIGXFSZ: the writer
// stops, keeps what fits, and says where the loss starts.
TEST(WriterReader, FileSizeLimitLosesEventsVisibly) {
  const std::string path = makeTempDir() + "/limited.rlog";
  EventGenerator gen(5, 4242, 2000);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 20000; ++i) events.push_back(gen.next());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    struct rlimit lim = {150 * 1024, 150 * 1024};
    setrlimit(RLIMIT_FSIZE, &lim);
    WriterOptions options;
    options.tail_capacity = 64 * 1024;
    auto counters = writeLog(path, events, options, /*close=*/false);
    _exit(counters.size() == events.size() ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);

  LogError err;
  auto r = LogReader::open(path, &err);
  ASSERT_TRUE(r) << err.toString();
  EXPECT_TRUE(r->control().incomplete);
  EXPECT_EQ(r->control().lost_errno, EFBIG);
  const uint64_t lost_from = r->control().lost_from_counter;
  EXPECT_GT(lost_from, 1u);
  Record rec;
  uint64_t last = 0;
  while (r->next(rec))
    if (rec.counter) last = rec.counter;
  EXPECT_EQ(r->error(), std::nullopt) << r->error()->toString();
  EXPECT_EQ(last + 1, lost_from) << "every event before the loss is readable";
}

// Big buffers given back are handed out again (no fresh pages for the
// kernel to zero), by size rounded to a power of two; other sizes get
// other memory.
TEST(BigBuffers, FreedBuffersAreHandedOutAgain) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "under ASan nothing is kept, so that a use after free is seen";
#endif
  void* a = allocateBig(3 << 20);
  std::memset(a, 1, 3 << 20);
  freeBig(a, 3 << 20);
  void* b = allocateBig(4 << 20);  // rounded alike: the same block
  EXPECT_EQ(a, b);
  void* c = allocateBig(5 << 20);  // 8 MiB: not the one in use
  EXPECT_NE(c, b);
  freeBig(c, 5 << 20);
  freeBig(b, 4 << 20);
  {
    Bytes v;
    v.resize(3 << 20);  // a vector of bytes takes it too
    EXPECT_EQ(static_cast<void*>(v.data()), a);
  }
  EXPECT_EQ(allocateBig(7 << 20), c);
  freeBig(c, 7 << 20);
}

}  // namespace
}  // namespace radar::log
