#include "log_test_util.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../temp_dirs.h"
#include "log/wire.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::log::testing {

ChannelFields OwnedChannel::fields() const {
  ChannelFields c;
  c.index = index;
  c.type = type;
  c.origin = ChannelOrigin::Created;
  c.dev = dev;
  c.ino = ino;
  c.path = path.c_str();
  c.mpi_rank = mpi_rank;
  c.mpi_size = mpi_size;
  return c;
}

EventFields OwnedEvent::fields(std::vector<const char*>& scratch, ChannelFields& channel_scratch,
                               Iov& iov_scratch) const {
  EventFields e;
  e.kind = is_channel ? Kind::Channel : kind;
  e.tid = tid;
  e.entry_ns = entry_ns;
  e.return_ns = return_ns;
  e.fd = fd;
  e.channel = channel;
  e.has_offset = has_offset;
  e.offset = offset;
  e.size = size;
  e.result = result;
  e.error = error;
  e.flags = flags;
  e.has_hash = has_hash;
  e.hash = hash;
  iov_scratch = {payload.data(), payload.size()};
  e.payload = &iov_scratch;
  e.payload_iov_count = 1;
  e.payload_len = payload.size();
  e.payload_omitted = payload_omitted;
  e.peer_pid = peer_pid;
  e.status = status;
  e.signal = signal;
  e.address = address.data();
  e.address_len = address.size();
  e.fds = fds.data();
  e.fd_count = fds.size();
  scratch.clear();
  for (const auto& s : strings) scratch.push_back(s.c_str());
  e.strings = scratch.data();
  e.string_count = scratch.size();
  e.ready = ready.data();
  e.ready_count = ready.size();
  e.lengths = lengths.data();
  e.length_count = lengths.size();
  e.has_timeout = has_timeout;
  e.timeout_ms = timeout_ms;
  if (is_channel) {
    channel_scratch = channel_info.fields();
    e.channel_info = &channel_scratch;
  }
  return e;
}

std::vector<Kind> EventGenerator::allKinds() {
  std::vector<Kind> kinds;
  for (unsigned v = 4; v < 200; ++v) {
    const Kind k = static_cast<Kind>(v);
    if (categoryOf(k) != Category::Unknown && categoryOf(k) != Category::Annotation) kinds.push_back(k);
  }
  return kinds;
}

EventGenerator::EventGenerator(uint64_t seed, int32_t pid, size_t max_payload)
    : rng_(seed), pid_(pid), max_payload_(max_payload) {}

OwnedEvent EventGenerator::next() {
  OwnedEvent e;
  std::uniform_int_distribution<int> pct(0, 99);
  if (channels_ == 0 || pct(rng_) < 3) {
    e.is_channel = true;
    e.channel_info.index = ++channels_;
    e.channel_info.type = static_cast<ChannelType>(1 + rng_() % 11);
    e.channel_info.dev = 12;
    e.channel_info.ino = 1000 + channels_;
    if (pct(rng_) < 30) e.channel_info.path = "/tmp/fifo" + std::to_string(channels_);
    if (pct(rng_) < 10) {
      e.channel_info.type = ChannelType::MpiCommunicator;
      e.channel_info.mpi_size = 1 + static_cast<int32_t>(pct(rng_));
      e.channel_info.mpi_rank = static_cast<int32_t>(pct(rng_)) % e.channel_info.mpi_size;
    }
    offsets_[0].resize(channels_ + 1);
    offsets_[1].resize(channels_ + 1);
    return e;
  }
  static const std::vector<Kind> kinds = allKinds();
  const int roll = pct(rng_);
  if (roll < 40)
    e.kind = Kind::Write;
  else if (roll < 80)
    e.kind = Kind::Read;
  else
    e.kind = kinds[rng_() % kinds.size()];
  e.tid = pct(rng_) < 80 ? 0 : static_cast<uint32_t>(pid_ + 1 + rng_() % 3);
  now_ += static_cast<int64_t>(rng_() % 5000);
  e.entry_ns = now_;
  now_ += static_cast<int64_t>(rng_() % 20000);
  e.return_ns = now_;
  e.fd = isSyncKind(e.kind) ? -1 : static_cast<int32_t>(rng_() % 20);  // as the recorder writes them
  if (isData(e.kind)) {
    e.channel = 1 + static_cast<uint32_t>(rng_() % channels_);
    e.has_offset = true;
    const int dir = categoryOf(e.kind) == Category::Send ? 0 : 1;
    e.offset = offsets_[dir][e.channel];
    const size_t n = rng_() % (max_payload_ + 1);
    e.size = n + rng_() % 8;
    if (pct(rng_) < 5) {
      e.result = -1;
      e.error = 11;
    } else if (isMultiMessage(e.kind)) {
      e.lengths = {n / 2, n - n / 2};
      e.result = 2;
    } else {
      e.result = static_cast<int64_t>(n);
    }
    if (e.result >= 0) {
      e.payload.resize(n);
      for (auto& c : e.payload) c = static_cast<char>('a' + rng_() % 26);
      if (pct(rng_) < 10) {
        e.payload_omitted = e.payload.size() / 2;
        e.payload.resize(e.payload.size() - e.payload_omitted);
      }
    }
    if (categoryOf(e.kind) == Category::Receive) {
      e.has_hash = true;
      e.hash = static_cast<uint32_t>(rng_());
      if (pct(rng_) < 10) e.flags = 0x2;      // MSG_PEEK: moves nothing
      if (pct(rng_) < 50) e.payload.clear();  // receives often store no payload
    }
    offsets_[dir][e.channel] += bytesMoved(e.kind, e.result, e.flags, e.lengths.data(), e.lengths.size());
  } else {
    e.result = static_cast<int64_t>(rng_() % 100) - 1;
    if (e.result < 0) e.error = 4;
    if (pct(rng_) < 30) e.peer_pid = static_cast<int32_t>(rng_() % 40000);
    if (pct(rng_) < 20) e.status = static_cast<int32_t>(rng_() % 65536);
    if (pct(rng_) < 10) e.signal = 1 + static_cast<int32_t>(rng_() % 31);
    if (pct(rng_) < 20) e.address = std::string("\x01\x00/tmp/sock", 11);
    if (pct(rng_) < 20) e.fds = {3, static_cast<int32_t>(rng_() % 100), -1};
    if (pct(rng_) < 20) e.strings = {"/bin/sh", "-c", "echo hi | cat"};
    if (pct(rng_) < 20) {
      e.ready = {{3, 1, 0}, {7, 4, 0xdeadbeef}};
      e.has_timeout = true;
      e.timeout_ms = pct(rng_) < 50 ? -1 : 250;
    }
    if (pct(rng_) < 10) e.payload = "user data";
  }
  return e;
}

HeaderFields testHeader(int32_t pid) {
  static const uint8_t id[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static const char* const argv[] = {"prog", "--flag", "value", nullptr};
  static const char* const env[] = {"HOME=/root", "LANG=C", nullptr};
  HeaderFields h;
  h.recording_id = id;
  h.log_id = 0x1122334455667788ULL;
  h.host_name = "testhost";
  h.boot_id = "boot-id";
  h.pid = pid;
  h.ppid = 1;
  h.origin = Origin::Root;
  h.executable = "/usr/bin/prog";
  h.executable_size = 12345;
  h.argv = argv;
  h.cwd = "/tmp";
  h.environment = env;
  h.realtime_ns = 1700000000000000000LL;
  h.monotonic_ns = 1000000000;
  h.recorder_version = "test";
  return h;
}

uint64_t appendEvent(LogWriter& w, const OwnedEvent& e) {
  std::vector<const char*> scratch;
  ChannelFields cf;
  Iov iov;
  return w.append(e.fields(scratch, cf, iov));
}

std::vector<uint64_t> writeLog(const std::string& path, const std::vector<OwnedEvent>& events,
                               const WriterOptions& options, bool close) {
  LogWriter w;
  std::vector<uint64_t> counters;
  if (w.open(path.c_str(), testHeader(4242), options) != 0) return counters;
  for (const auto& e : events) counters.push_back(appendEvent(w, e));
  if (close)
    w.close();
  else
    w.abandon();
  return counters;
}

std::vector<Record> readAll(const std::string& path, std::string* error, std::vector<std::string>* payloads,
                            LogReader::Payloads mode) {
  std::vector<Record> out;
  LogError err;
  auto r = LogReader::open(path, &err, mode);
  if (!r) {
    if (error) *error = err.toString();
    return out;
  }
  Record rec;
  while (r->next(rec)) {
    out.push_back(rec);
    if (payloads) payloads->emplace_back(rec.payload);
    // Views die with the next call: keep copies that stay valid.
    out.back().payload = {};
    out.back().strings.clear();
    out.back().address = {};
    out.back().header_bytes = out.back().channel_bytes = {};
  }
  if (error) *error = r->error() ? r->error()->toString() : "";
  return out;
}

std::string compare(const OwnedEvent& x, const Record& r, uint64_t counter, const std::string& payload) {
  std::ostringstream d;
  auto check = [&](const char* what, auto want, auto got) {
    if (!(want == got)) d << what << ": want " << want << " got " << got << "; ";
  };
  if (x.is_channel) {
    check("kind", int(Kind::Channel), int(r.kind));
    return d.str();
  }
  check("kind", int(x.kind), int(r.kind));
  check("counter", counter, r.counter);
  check("tid", x.tid ? x.tid : 4242u, r.tid);
  check("entry", x.entry_ns, r.entry_ns);
  check("return", x.return_ns, r.return_ns);
  check("fd", x.fd, r.fd);
  check("channel", x.channel, r.channel);
  check("has_offset", x.has_offset, r.has_offset);
  if (x.has_offset) check("offset", x.offset, r.offset);
  check("size", x.size, r.size);
  check("result", x.result, r.result);
  check("error", x.error, r.error);
  check("flags", x.flags, r.flags);
  check("has_hash", x.has_hash, r.has_hash);
  if (x.has_hash) check("hash", x.hash, r.hash);
  check("payload", x.payload, payload);
  check("payload_omitted", x.payload_omitted, r.payload_omitted);
  check("peer_pid", x.peer_pid, r.peer_pid);
  check("status", x.status, r.status);
  check("signal", x.signal, r.signal);
  check("fds", x.fds.size(), r.fds.size());
  for (size_t i = 0; i < x.fds.size() && i < r.fds.size(); ++i) check("fd[i]", x.fds[i], r.fds[i]);
  check("ready", x.ready.size(), r.ready.size());
  for (size_t i = 0; i < x.ready.size() && i < r.ready.size(); ++i) {
    check("ready.fd", x.ready[i].fd, r.ready[i].fd);
    check("ready.events", x.ready[i].events, r.ready[i].events);
    check("ready.data", x.ready[i].data, r.ready[i].data);
  }
  check("lengths", x.lengths.size(), r.lengths.size());
  check("has_timeout", x.has_timeout, r.has_timeout);
  check("timeout", x.timeout_ms, r.timeout_ms);
  return d.str();
}

std::string makeTempDir() { return radar::testing::TempDirs::make("radar-test-"); }

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void writeForeignLog(const std::string& path, int32_t pid, const std::vector<std::string>& bodies) {
  {
    LogWriter w;
    if (w.open(path.c_str(), testHeader(pid)) != 0) std::abort();
    w.close();  // the header is now in the first frame
  }
  std::string content;
  for (const std::string& body : bodies) {
    uint8_t len[10];
    content.append(reinterpret_cast<char*>(len), wire::putVarint(len, body.size()) - len);
    content += body;
  }
  std::string frame(ZSTD_compressBound(content.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), content.data(), content.size(), 3));
  writeFile(path, readFile(path) + frame);
}

}  // namespace radar::log::testing
