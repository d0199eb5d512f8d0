// Helper for the benchmark scripts:
//   radar_log_tool generate FILE RECORDS   ping-pong-shaped records
//   radar_log_tool read FILE...            read every record; prints records and seconds
//   radar_log_tool size DIR                compressed bytes per event of a recording
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "log/reader.h"
#include "log/writer.h"
#include "pingpong_stream.h"

using namespace radar;

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "generate") == 0) {
    static const char* const args[] = {"bench", nullptr};
    log::HeaderFields h;
    h.pid = 1000;
    h.argv = args;
    log::LogWriter w;
    if (w.open(argv[2], h) != 0) return 1;
    bench::PingPongStream stream(false);
    log::EventFields e;
    for (long i = 0, n = std::atol(argv[3]); i < n; ++i) {
      stream.next(e);
      w.append(e);
    }
    w.close();
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "read") == 0) {
    const auto start = std::chrono::steady_clock::now();
    uint64_t records = 0;
    for (int i = 2; i < argc; ++i) {
      log::LogError err;
      auto r = log::LogReader::open(argv[i], &err);
      if (!r) {
        std::fprintf(stderr, "%s\n", err.toString().c_str());
        return 1;
      }
      log::Record rec;
      while (r->next(rec)) ++records;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%llu records in %.3f s\n", static_cast<unsigned long long>(records), s);
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "size") == 0) {
    uint64_t events = 0, bytes = 0, payload = 0;
    for (const auto& path : log::listLogs(argv[2])) {
      log::LogError err;
      auto r = log::LogReader::open(path, &err);
      if (!r) continue;
      log::Record rec;
      while (r->next(rec)) {
        events += rec.counter != 0;
        payload += rec.payload.size();
      }
      bytes += r->framesEnd() - log::kControlSize - r->control().tail_capacity + r->tailUsed();
    }
    std::printf("events %llu compressed_bytes %llu payload_bytes_stored %llu bytes_per_event %.2f\n",
                static_cast<unsigned long long>(events), static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(payload),
                events ? static_cast<double>(bytes) / static_cast<double>(events) : 0.0);
    return 0;
  }
  std::fprintf(stderr, "usage: radar_log_tool generate FILE N | read FILE... | size DIR\n");
  return 2;
}
