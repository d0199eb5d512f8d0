// Decoding every message of a recording with a network description, as
// `radar events --decode` does and as the replay's message window does one
// message at a time.
//   decode_benchmark DIR [MESSAGES]   writes a recording of MESSAGES
//                                     messages (default 100 000) into DIR
//                                     and times decoding all of them
// Two processes and two pipes: fixed-size template records (a nested
// record, an array, chars, floats) and length-prefixed protobuf messages.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>

#include "binding/binding.h"
#include "log/writer.h"
#include "netdesc/decode.h"
#include "trace/merge.h"

using namespace radar;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

const char kDescription[] = R"(
name: "decode-benchmark"
proto_file: "shapes.proto"
proto_path: "%s"
process {
  name: "client"
  port { name: "samples" direction: OUT fd: 4 type: "Sample" framing { fixed_size: 40 } }
  port { name: "shapes" direction: OUT fd: 5 type: "Polygon" framing { length_prefix { bytes: 4 order: BIG } } }
}
process {
  name: "server"
  port { name: "samples" direction: IN fd: 3 }
  port { name: "shapes" direction: IN fd: 6 }
}
connect { from: "client.samples" to: "server.samples" }
connect { from: "client.shapes" to: "server.shapes" }
type {
  name: "Sample"
  template {
    field { name: "id" scalar: I32 }
    field { name: "where" record: "Point" }
    field { name: "x" scalar: F64 }
    field { name: "name" chars: 12 }
    field { name: "counts" scalar: U16 count: 4 }
  }
}
type { name: "Point" template { field { name: "x" scalar: I16 } field { name: "y" scalar: I16 } } }
type { name: "Polygon" protobuf: "shapes.Polygon" }
)";

std::unique_ptr<log::LogWriter> openLog(const std::string& dir, int pid, const char* name,
                                        std::vector<log::ChannelFields> channels) {
  static const uint8_t id[16] = {7};
  const std::string path = dir + "/" + std::to_string(pid) + "-0-" + name + ".rlog";
  const char* argv[] = {name, nullptr};
  log::HeaderFields h;
  h.recording_id = id;
  h.log_id = static_cast<uint64_t>(pid);
  h.host_name = "bench";
  h.boot_id = "boot";
  h.pid = pid;
  h.origin = log::Origin::Root;
  h.executable = name;
  h.argv = argv;
  auto w = std::make_unique<log::LogWriter>();
  if (w->open(path.c_str(), h, log::WriterOptions{}) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
  for (auto& c : channels) {
    log::EventFields e;
    e.kind = log::Kind::Channel;
    e.channel_info = &c;
    w->append(e);
  }
  return w;
}

log::ChannelFields pipeEnd(uint32_t index, int fd, uint64_t ino, bool write) {
  log::ChannelFields c;
  c.index = index;
  c.type = log::ChannelType::Pipe;
  c.fd = fd;
  c.dev = 15;
  c.ino = ino;
  c.access = write ? 1 : 0;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: decode_benchmark DIR [MESSAGES]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t messages = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  ::mkdir(dir.c_str(), 0700);
  const std::string net_path = dir + "/bench.netdesc";
  {
    std::vector<char> text(sizeof(kDescription) + 4096);
    std::snprintf(text.data(), text.size(), kDescription, RADAR_NETDESC_TEST_DATA);
    std::ofstream(net_path) << text.data();
  }
  std::vector<netdesc::Problem> problems;
  std::shared_ptr<const netdesc::Description> d = netdesc::Description::load(net_path, &problems);
  if (!d) {
    for (const auto& p : problems) std::fprintf(stderr, "%s\n", p.toString().c_str());
    return 1;
  }

  // The recording: every other message a Sample, the others a Polygon of
  // 1 to 8 points; each received by one read.
  auto client = openLog(dir, 100, "client", {pipeEnd(1, 4, 900, true), pipeEnd(2, 5, 901, true)});
  auto server = openLog(dir, 200, "server", {pipeEnd(1, 3, 900, false), pipeEnd(2, 6, 901, false)});
  const auto* polygon_type = d->protobufType(*d->type("Polygon"));
  std::unique_ptr<google::protobuf::Message> polygon(d->messageFactory().GetPrototype(polygon_type)->New());
  const auto* refl = polygon->GetReflection();
  const auto* point_field = polygon_type->FindFieldByName("point");
  uint64_t sent[2] = {0, 0}, received[2] = {0, 0};
  int64_t now = 1'000'000'000;
  const auto generate_start = Clock::now();
  for (uint64_t i = 0; i < messages; ++i) {
    const int channel = static_cast<int>(i % 2);
    std::string bytes;
    if (channel == 0) {
      char sample[40] = {};
      const int32_t id = static_cast<int32_t>(i);
      const int16_t xy[2] = {static_cast<int16_t>(i % 100), static_cast<int16_t>(-static_cast<int>(i % 50))};
      const double x = static_cast<double>(i) / 7;
      const uint16_t counts[4] = {1, 2, 3, static_cast<uint16_t>(i)};
      std::memcpy(sample, &id, 4);
      std::memcpy(sample + 4, xy, 4);
      std::memcpy(sample + 8, &x, 8);
      std::snprintf(sample + 16, 12, "item-%llu", static_cast<unsigned long long>(i % 100000));
      std::memcpy(sample + 28, counts, 8);
      bytes.assign(sample, 36);
      bytes.resize(40);  // padding the template leaves undecoded
    } else {
      polygon->Clear();
      refl->SetString(polygon.get(), polygon_type->FindFieldByName("name"), "shape " + std::to_string(i));
      for (uint64_t k = 0; k < 1 + i % 8; ++k) {
        auto* p = refl->AddMessage(polygon.get(), point_field);
        p->GetReflection()->SetInt32(p, p->GetDescriptor()->FindFieldByName("x"), static_cast<int32_t>(k));
        p->GetReflection()->SetInt32(p, p->GetDescriptor()->FindFieldByName("y"), static_cast<int32_t>(i % 1000));
      }
      refl->SetDouble(polygon.get(), polygon_type->FindFieldByName("area"), static_cast<double>(i) * 0.5);
      const std::string body = polygon->SerializeAsString();
      const uint32_t n = static_cast<uint32_t>(body.size());
      const char prefix[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                              static_cast<char>(n)};
      bytes = std::string(prefix, 4) + body;
    }
    log::EventFields w;
    w.kind = log::Kind::Write;
    w.entry_ns = now;
    w.return_ns = now += 1000;
    w.fd = channel ? 5 : 4;
    w.channel = static_cast<uint32_t>(channel + 1);
    w.has_offset = true;
    w.offset = sent[channel];
    w.size = w.result = static_cast<int32_t>(bytes.size());
    log::Iov iov{bytes.data(), bytes.size()};
    w.payload = &iov;
    w.payload_iov_count = 1;
    w.payload_len = bytes.size();
    sent[channel] += bytes.size();
    client->append(w);
    log::EventFields r;
    r.kind = log::Kind::Read;
    r.entry_ns = now;
    r.return_ns = now += 1000;
    r.fd = channel ? 6 : 3;
    r.channel = static_cast<uint32_t>(channel + 1);
    r.has_offset = true;
    r.offset = received[channel];
    r.size = 65536;
    r.result = static_cast<int32_t>(bytes.size());
    received[channel] += bytes.size();
    server->append(r);
  }
  client->close();
  server->close();
  const auto generated = Clock::now();

  std::string error;
  auto trace = trace::loadTrace({dir}, trace::LoadOptions{}, &error);
  if (!trace) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const auto loaded = Clock::now();
  std::vector<std::string> unmatched;
  auto binding = netdesc::Binding::apply(d, *trace, &unmatched);
  trace->described = binding->names();
  for (const auto& u : unmatched) std::fprintf(stderr, "unmatched: %s\n", u.c_str());
  const auto applied = Clock::now();

  // 1. Every send, the whole path: bytes from the log, framing, decoding,
  //    the text shown.
  std::vector<uint32_t> sends;
  for (uint32_t i = 0; i < trace->events.size(); ++i)
    if (log::categoryOf(trace->events[i].eventKind()) == log::Category::Send) sends.push_back(i);
  size_t chars = 0, problems_seen = 0;
  const auto full_start = Clock::now();
  for (uint32_t s : sends) {
    std::string out;
    if (!binding->describeContents(*trace, s, &out, &error)) {
      std::fprintf(stderr, "event %u: %s\n", s + 1, error.c_str());
      return 1;
    }
    chars += out.size();
    problems_seen += out.find("does not fit") != std::string::npos;
  }
  const auto full_end = Clock::now();

  // 2. Decoding alone, the bytes already in memory.
  std::vector<std::pair<const netdesc::Port*, std::string>> payloads;
  payloads.reserve(sends.size());
  for (uint32_t s : sends) {
    std::string bytes;
    trace->payload(s, &bytes, &error);
    payloads.emplace_back(binding->portForMessage(*trace, s), std::move(bytes));
  }
  const auto decode_start = Clock::now();
  size_t decoded_chars = 0;
  for (const auto& [port, bytes] : payloads) decoded_chars += netdesc::describeBytes(d.get(), port, bytes).size();
  const auto decode_end = Clock::now();

  const double full = seconds(full_start, full_end), decode = seconds(decode_start, decode_end);
  std::printf("messages: %zu (%llu generated in %.2f s)\n", sends.size(), static_cast<unsigned long long>(messages),
              seconds(generate_start, generated));
  std::printf("load + merge: %.3f s; applying the description: %.1f ms\n", seconds(generated, loaded),
              seconds(loaded, applied) * 1e3);
  std::printf("decode every message, from the log (radar events --decode): %.3f s, %.2f us/message, %.0f k/s\n", full,
              full / sends.size() * 1e6, sends.size() / full / 1e3);
  std::printf("decode every message, bytes in memory: %.3f s, %.2f us/message, %.0f k/s\n", decode,
              decode / sends.size() * 1e6, sends.size() / decode / 1e3);
  std::printf("text produced: %.1f MiB (%zu chars, %zu from memory); messages that did not fit: %zu\n",
              chars / 1048576.0, chars, decoded_chars, problems_seen);
  return 0;
}
