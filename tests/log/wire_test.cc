// The hand-written encoder and decoder against libprotobuf, both ways.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "log/crc32c.h"
#include "log/encode.h"
#include "log/wire.h"
#include "log_test_util.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::log {
namespace {

using testing::EventGenerator;
using testing::OwnedEvent;

TEST(Wire, VarintRoundTripAndSize) {
  const uint64_t values[] = {0, 1, 127, 128, 300, 16383, 16384, (1ULL << 32) - 1, 1ULL << 32, ~0ULL};
  for (uint64_t v : values) {
    uint8_t buf[10];
    uint8_t* end = wire::putVarint(buf, v);
    EXPECT_EQ(static_cast<size_t>(end - buf), wire::varintSize(v));
    const uint8_t* p = buf;
    uint64_t back = 0;
    ASSERT_TRUE(wire::getVarint(p, end, back));
    EXPECT_EQ(back, v);
    EXPECT_EQ(p, end);
    // Every truncation is detected.
    for (const uint8_t* cut = buf; cut < end - 1; ++cut) {
      const uint8_t* q = buf;
      EXPECT_FALSE(wire::getVarint(q, cut + 1, back)) << v;
    }
  }
  for (int64_t s : std::initializer_list<int64_t>{0, -1, 1, -64, 63, INT64_MIN, INT64_MAX})
    EXPECT_EQ(wire::unzigzag(wire::zigzag(s)), s);
}

TEST(Wire, KindsMirrorTheProto) {
  const auto* desc = proto::Kind_descriptor();
  for (int i = 0; i < desc->value_count(); ++i) {
    const auto* v = desc->value(i);
    const Kind k = static_cast<Kind>(v->number());
    if (v->number() == 0) continue;
    EXPECT_NE(categoryOf(k), Category::Unknown) << v->name();
    EXPECT_STRNE(kindName(k), "unknown") << v->name();
  }
  for (unsigned n = 1; n < 256; ++n) {
    if (categoryOf(static_cast<Kind>(n)) == Category::Unknown) continue;
    EXPECT_NE(desc->FindValueByNumber(static_cast<int>(n)), nullptr) << n;
  }
  EXPECT_EQ(proto::ChannelType_descriptor()->value_count(), 16);
  EXPECT_EQ(static_cast<int>(ChannelType::Other), proto::OTHER);
  EXPECT_EQ(static_cast<int>(ChannelType::MessageQueue), proto::MESSAGE_QUEUE);
  EXPECT_EQ(static_cast<int>(ChannelType::SysvMessageQueue), proto::SYSV_MESSAGE_QUEUE);
  EXPECT_EQ(static_cast<int>(ChannelType::EventFd), proto::EVENTFD);
  EXPECT_EQ(static_cast<int>(ChannelType::MpiCommunicator), proto::MPI_COMMUNICATOR);
  EXPECT_EQ(static_cast<int>(Origin::Unhooked), proto::UNHOOKED);
  EXPECT_EQ(static_cast<int>(Origin::Attached), proto::ATTACHED);
  EXPECT_EQ(static_cast<int>(ChannelOrigin::Received), proto::RECEIVED);
}

TEST(Wire, HandEncoderIsReadByLibprotobuf) {
  EventGenerator gen(7, 100);
  for (int i = 0; i < 3000; ++i) {
    OwnedEvent e = gen.next();
    std::vector<const char*> scratch;
    ChannelFields cf;
    Iov iov;
    EventFields f = e.fields(scratch, cf, iov);
    Explicit x;
    x.counter = true;
    x.counter_value = 1000 + i;
    x.tid = true;
    x.tid_value = 77;
    x.entry_delta_ns = -12345 + i;
    x.offset = e.has_offset;
    wire::SizeSink size;
    encodeEventPrefix(size, f, x);
    std::string buf(size.n + f.payload_len, '\0');
    wire::BufferSink sink{reinterpret_cast<uint8_t*>(buf.data())};
    encodeEventPrefix(sink, f, x);
    ASSERT_EQ(sink.p, reinterpret_cast<uint8_t*>(buf.data()) + size.n);
    gatherPayload(sink.p, f.payload, f.payload_iov_count, f.payload_len);

    proto::Event pe;
    ASSERT_TRUE(pe.ParseFromString(buf)) << i;
    EXPECT_EQ(static_cast<int>(pe.kind()), static_cast<int>(f.kind));
    EXPECT_EQ(pe.counter(), 1000u + i);
    EXPECT_EQ(pe.tid(), 77u);
    EXPECT_EQ(pe.entry_delta_ns(), -12345 + i);
    EXPECT_EQ(pe.has_offset(), e.has_offset);
    if (e.is_channel) {
      EXPECT_EQ(pe.channel_info().index(), e.channel_info.index);
      EXPECT_EQ(pe.channel_info().ino(), e.channel_info.ino);
      EXPECT_EQ(pe.channel_info().path(), e.channel_info.path);
      EXPECT_EQ(pe.channel_info().mpi_rank(), e.channel_info.mpi_rank);
      EXPECT_EQ(pe.channel_info().mpi_size(), e.channel_info.mpi_size);
      continue;
    }
    EXPECT_EQ(pe.duration_ns(), static_cast<uint64_t>(e.return_ns - e.entry_ns));
    EXPECT_EQ(pe.fd(), isSyncKind(e.kind) ? 0 : e.fd);  // a sync event's -1 is implied
    EXPECT_EQ(pe.channel(), e.channel);
    if (e.has_offset) {
      EXPECT_EQ(pe.offset(), e.offset);
    }
    EXPECT_EQ(pe.size(), e.size);
    EXPECT_EQ(pe.result(), e.result);
    EXPECT_EQ(pe.error(), e.error);
    EXPECT_EQ(pe.flags(), e.flags);
    EXPECT_EQ(pe.hash(), e.has_hash ? e.hash : 0u);
    EXPECT_EQ(pe.payload(), e.payload);
    EXPECT_EQ(pe.payload_omitted(), e.payload_omitted);
    EXPECT_EQ(pe.peer_pid(), e.peer_pid);
    EXPECT_EQ(pe.status(), e.status);
    EXPECT_EQ(pe.signal(), e.signal);
    EXPECT_EQ(pe.address(), e.address);
    ASSERT_EQ(pe.fds_size(), static_cast<int>(e.fds.size()));
    for (size_t k = 0; k < e.fds.size(); ++k) EXPECT_EQ(pe.fds(static_cast<int>(k)), e.fds[k]);
    ASSERT_EQ(pe.strings_size(), static_cast<int>(e.strings.size()));
    for (size_t k = 0; k < e.strings.size(); ++k) EXPECT_EQ(pe.strings(static_cast<int>(k)), e.strings[k]);
    ASSERT_EQ(pe.ready_size(), static_cast<int>(e.ready.size()));
    for (size_t k = 0; k < e.ready.size(); ++k) {
      EXPECT_EQ(pe.ready(static_cast<int>(k)).fd(), e.ready[k].fd);
      EXPECT_EQ(pe.ready(static_cast<int>(k)).data(), e.ready[k].data);
    }
    EXPECT_EQ(pe.timeout_ms(), e.timeout_ms);
  }
}

TEST(Wire, HeaderEncoderIsReadByLibprotobuf) {
  HeaderFields h = testing::testHeader(31337);
  h.parent_log_id = 99;
  h.parent_counter = 1234;
  h.generation = 2;
  h.origin = Origin::Execed;
  h.nondet = true;
  h.has_payload_limit = true;
  h.payload_limit = 4096;
  h.uid = 1000;
  const StartFileFields files[2] = {{0, "/tmp/in.txt", 12345678901ULL, 0}, {7, "/var/x", 0, 02}};
  h.start_files = files;
  h.start_file_count = 2;
  wire::SizeSink size;
  encodeHeader(size, h);
  std::string buf(size.n, '\0');
  wire::BufferSink sink{reinterpret_cast<uint8_t*>(buf.data())};
  encodeHeader(sink, h);
  proto::Header ph;
  ASSERT_TRUE(ph.ParseFromString(buf));
  EXPECT_EQ(ph.magic(), "radarlog");
  EXPECT_EQ(ph.format_major(), kFormatMajor);
  EXPECT_EQ(ph.pid(), 31337);
  EXPECT_EQ(ph.origin(), proto::EXECED);
  EXPECT_EQ(ph.parent_log_id(), 99u);
  EXPECT_EQ(ph.parent_counter(), 1234u);
  EXPECT_EQ(ph.generation(), 2u);
  EXPECT_EQ(ph.argv_size(), 3);
  EXPECT_EQ(ph.argv(2), "value");
  EXPECT_EQ(ph.environment(1), "LANG=C");
  EXPECT_EQ(ph.recording_id().size(), 16u);
  EXPECT_EQ(ph.log_id(), 0x1122334455667788ULL);
  EXPECT_TRUE(ph.nondet());
  EXPECT_EQ(ph.payload_limit(), 4096u);
  EXPECT_EQ(ph.uid(), 1000);
  ASSERT_EQ(ph.start_files_size(), 2);
  EXPECT_EQ(ph.start_files(0).fd(), 0);
  EXPECT_EQ(ph.start_files(0).path(), "/tmp/in.txt");
  EXPECT_EQ(ph.start_files(0).offset(), 12345678901ULL);
  EXPECT_EQ(ph.start_files(1).fd(), 7);
  EXPECT_EQ(ph.start_files(1).flags(), 02u);
}

// Another writer (here libprotobuf) that spells every field out: the
// reader must accept it, as docs/log-format.md promises.
TEST(Wire, ReaderAcceptsRecordsWrittenByLibprotobuf) {
  const std::string dir = testing::makeTempDir();
  const std::string path = dir + "/other.rlog";
  std::vector<std::string> bodies;
  for (int i = 1; i <= 50; ++i) {
    proto::Event e;
    e.set_kind(i % 2 ? proto::WRITE : proto::READ);
    e.set_counter(i);
    e.set_tid(500 + i % 3);
    e.set_entry_delta_ns(1000 * i);
    e.set_duration_ns(10);
    e.set_fd(3);
    e.set_channel(1);
    e.set_offset(static_cast<uint64_t>(i) * 10);
    e.set_result(10);
    e.set_payload(std::string(10, static_cast<char>('A' + i % 26)));
    e.add_strings("s");
    bodies.push_back(e.SerializeAsString());
  }
  testing::writeForeignLog(path, 500, bodies);

  std::string error;
  std::vector<std::string> payloads;
  auto records = testing::readAll(path, &error, &payloads);
  EXPECT_EQ(error, "");
  ASSERT_EQ(records.size(), 50u);
  int64_t t = 0;
  for (int i = 1; i <= 50; ++i) {
    const Record& r = records[i - 1];
    t += 1000 * i;
    EXPECT_EQ(r.counter, static_cast<uint64_t>(i));
    EXPECT_EQ(r.tid, 500u + i % 3);
    EXPECT_EQ(r.entry_ns, t);
    t += 10;
    EXPECT_EQ(r.return_ns, t);
    EXPECT_EQ(r.offset, static_cast<uint64_t>(i) * 10);
    EXPECT_EQ(payloads[i - 1], std::string(10, static_cast<char>('A' + i % 26)));
  }
}

// The reader takes the fields the writer puts first with a fast path that
// expects them in field order. Protobuf allows any order, and the last of
// repeated values wins: records written so, by libprotobuf one field at a
// time, read the same.
TEST(Wire, ReaderTakesFieldsInAnyOrder) {
  const std::string dir = testing::makeTempDir();
  const std::string path = dir + "/shuffled.rlog";
  std::mt19937_64 rng(3);
  std::vector<std::string> bodies;
  const int count = 90;
  for (int i = 1; i <= count; ++i) {
    std::vector<proto::Event> fields(14);
    fields[0].set_kind(i % 2 ? proto::WRITE : proto::READ);
    fields[1].set_counter(i);
    fields[2].set_tid(500 + i % 3);
    fields[3].set_entry_delta_ns(1000 * i);
    fields[4].set_duration_ns(10 + i);
    fields[5].set_fd(3 + i);
    fields[6].set_channel(1);
    fields[7].set_offset(static_cast<uint64_t>(i) * 10);
    fields[8].set_size(100 + i);
    fields[9].set_result(10);
    fields[10].set_error(i % 7);
    fields[11].set_flags(i % 4);
    fields[12].set_hash(0x9e3779b9u * i);
    fields[13].set_payload(std::string(10, static_cast<char>('A' + i % 26)));
    if (i % 3 == 1) std::reverse(fields.begin(), fields.end());
    if (i % 3 == 2) std::shuffle(fields.begin(), fields.end(), rng);
    std::string body;
    if (i % 5 == 0) {  // an earlier fd and kind, overridden by the ones after
      proto::Event early;
      early.set_fd(99);
      early.set_kind(proto::CLOSE);
      body += early.SerializeAsString();
    }
    for (const proto::Event& f : fields) body += f.SerializeAsString();
    bodies.push_back(body);
  }
  testing::writeForeignLog(path, 500, bodies);

  std::string error;
  std::vector<std::string> payloads;
  auto records = testing::readAll(path, &error, &payloads);
  EXPECT_EQ(error, "");
  ASSERT_EQ(records.size(), static_cast<size_t>(count));
  int64_t t = 0;
  for (int i = 1; i <= count; ++i) {
    const Record& r = records[i - 1];
    EXPECT_EQ(r.kind, i % 2 ? Kind::Write : Kind::Read) << i;
    EXPECT_EQ(r.counter, static_cast<uint64_t>(i));
    EXPECT_EQ(r.tid, 500u + i % 3);
    t += 1000 * i;
    EXPECT_EQ(r.entry_ns, t) << i;
    t += 10 + i;
    EXPECT_EQ(r.return_ns, t) << i;
    EXPECT_EQ(r.fd, 3 + i) << i;
    EXPECT_EQ(r.channel, 1u);
    EXPECT_EQ(r.offset, static_cast<uint64_t>(i) * 10);
    EXPECT_EQ(r.size, static_cast<uint64_t>(100 + i));
    EXPECT_EQ(r.result, 10);
    EXPECT_EQ(r.error, static_cast<uint32_t>(i % 7));
    EXPECT_EQ(r.flags, static_cast<uint32_t>(i % 4));
    EXPECT_TRUE(r.has_hash);
    EXPECT_EQ(r.hash, 0x9e3779b9u * i);
    EXPECT_EQ(payloads[i - 1], std::string(10, static_cast<char>('A' + i % 26)));
  }
}

// A record cut inside the fields the fast path reads is an error, not a
// record read from the wrong bytes.
TEST(Wire, RecordCutInsideItsFirstFieldsIsAnError) {
  const std::string dir = testing::makeTempDir();
  const std::string path = dir + "/cut.rlog";
  // kind = WRITE, counter = 1, then an entry delta whose varint never ends.
  const std::string body = std::string("\x08", 1) + static_cast<char>(proto::WRITE) + "\x10\x01\x20\xff\xff";
  testing::writeForeignLog(path, 500, {body});
  std::string error;
  auto records = testing::readAll(path, &error);
  EXPECT_TRUE(records.empty());
  EXPECT_NE(error.find("bad record: truncated varint"), std::string::npos) << error;
}

TEST(Crc32c, KnownValuesAndChaining) {
  // RFC 3720 test vectors.
  const std::string zeros(32, '\0');
  EXPECT_EQ(crc32c(0, zeros.data(), zeros.size()), 0x8A9136AAu);
  const std::string ones(32, '\xff');
  EXPECT_EQ(crc32c(0, ones.data(), ones.size()), 0x62A8AB43u);
  EXPECT_EQ(crc32c(0, "123456789", 9), 0xE3069283u);
  std::string data(10000, '\0');
  std::mt19937 rng(1);
  for (auto& c : data) c = static_cast<char>(rng());
  const uint32_t whole = crc32c(0, data.data(), data.size());
  for (size_t cut : {0ul, 1ul, 7ul, 8ul, 4097ul, 9999ul})
    EXPECT_EQ(crc32c(crc32c(0, data.data(), cut), data.data() + cut, data.size() - cut), whole);
}

// Against the definition, one bit at a time, over lengths on both sides of
// where the computation runs several streams at once, at every alignment.
TEST(Crc32c, LongInputsMatchTheBitwiseDefinition) {
  auto bitwise = [](const uint8_t* p, size_t n) {
    uint32_t c = ~0u;
    while (n--) {
      c ^= *p++;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
  };
  std::vector<uint8_t> data(100000 + 8);
  std::mt19937 rng(3);
  for (auto& c : data) c = static_cast<uint8_t>(rng());
  for (size_t n : {12287ul, 12288ul, 12289ul, 24576ul, 24583ul, 36864ul + 5, 99991ul, 100000ul})
    for (size_t align = 0; align < 8; align += 3)
      EXPECT_EQ(crc32c(0, data.data() + align, n), bitwise(data.data() + align, n)) << n << " at +" << align;
}

TEST(Crc32c, CombinedFromThePartsAlone) {
  std::string data(5000, '\0');
  std::mt19937 rng(2);
  for (auto& c : data) c = static_cast<char>(rng());
  const uint32_t whole = crc32c(0, data.data(), data.size());
  for (size_t cut : {0ul, 1ul, 3ul, 8ul, 255ul, 256ul, 4096ul, 4999ul, 5000ul}) {
    const uint32_t a = crc32c(0, data.data(), cut);
    const uint32_t b = crc32c(0, data.data() + cut, data.size() - cut);
    EXPECT_EQ(crc32cCombine(a, b, data.size() - cut), whole) << cut;
  }
  EXPECT_NE(crc32cCombine(crc32c(0, "ba", 2), crc32c(0, "c", 1), 1), crc32c(0, "abc", 3));
}

}  // namespace
}  // namespace radar::log

#include "log/xxhash64.h"

namespace radar {
namespace {

TEST(Xxh64, KnownValuesAndStreaming) {
  // Reference values of XXH64 with seed 0.
  Xxh64 empty;
  EXPECT_EQ(empty.digest(), 0xEF46DB3751D8E999ULL);
  Xxh64 abc;
  abc.update("abc", 3);
  EXPECT_EQ(abc.digest(), 0x44BC2CF5AD770999ULL);
  std::string data(1000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31 + 7);
  Xxh64 whole;
  whole.update(data.data(), data.size());
  for (size_t cut : {1ul, 31ul, 32ul, 33ul, 500ul, 999ul}) {
    Xxh64 parts;
    parts.update(data.data(), cut);
    parts.update(data.data() + cut, data.size() - cut);
    EXPECT_EQ(parts.digest(), whole.digest()) << cut;
  }
}

}  // namespace
}  // namespace radar

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include "log/address.h"

namespace radar::log {
namespace {

TEST(Address, FormatsEveryFamily) {
  sockaddr_in a4{};
  a4.sin_family = AF_INET;
  a4.sin_port = htons(7000);
  inet_pton(AF_INET, "127.0.0.1", &a4.sin_addr);
  EXPECT_EQ(formatAddress(std::string(reinterpret_cast<char*>(&a4), sizeof(a4))), "127.0.0.1:7000");
  sockaddr_in6 a6{};
  a6.sin6_family = AF_INET6;
  a6.sin6_port = htons(80);
  for (const auto& [text, want] :
       std::vector<std::pair<const char*, const char*>>{{"::1", "[::1]:80"},
                                                        {"::", "[::]:80"},
                                                        {"fe80::1:2", "[fe80::1:2]:80"},
                                                        {"2001:db8:0:0:1:0:0:1", "[2001:db8::1:0:0:1]:80"},
                                                        {"1:2:3:4:5:6:7:8", "[1:2:3:4:5:6:7:8]:80"}}) {
    inet_pton(AF_INET6, text, &a6.sin6_addr);
    EXPECT_EQ(formatAddress(std::string(reinterpret_cast<char*>(&a6), sizeof(a6))), want) << text;
  }
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::strcpy(un.sun_path, "/tmp/s");
  EXPECT_EQ(formatAddress(std::string(reinterpret_cast<char*>(&un), 2 + 7)), "/tmp/s");
  un.sun_path[0] = 0;
  std::memcpy(un.sun_path + 1, "abs", 3);
  EXPECT_EQ(formatAddress(std::string(reinterpret_cast<char*>(&un), 2 + 4)), "@abs");
  EXPECT_EQ(formatAddress(""), "");
}

}  // namespace
}  // namespace radar::log
