// Writer cost per record and compressed size per record; reader speed.
//   build/tests/benchmarks/log_benchmark
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "log/reader.h"
#include "log/writer.h"
#include "pingpong_stream.h"

namespace radar::bench {
namespace {

std::string tempPath(const char* name) {
  const char* base = std::getenv("TMPDIR");
  return std::string(base ? base : "/tmp") + "/radar-bench-" + std::to_string(getpid()) + "-" + name;
}

log::HeaderFields header() {
  static const char* const argv[] = {"bench", nullptr};
  log::HeaderFields h;
  h.pid = 1000;
  h.argv = argv;
  h.executable = "/bench";
  return h;
}

void writeRecords(benchmark::State& state, bool payload) {
  const std::string path = tempPath("write.rlog");
  ::unlink(path.c_str());
  log::LogWriter w;
  if (w.open(path.c_str(), header()) != 0) {
    state.SkipWithError("cannot open a log");
    return;
  }
  PingPongStream stream(payload);
  log::EventFields e;
  for (auto _ : state) {
    stream.next(e);
    benchmark::DoNotOptimize(w.append(e));
  }
  const uint64_t records = static_cast<uint64_t>(state.iterations());
  w.flush();
  const uint64_t frames = w.fileSize() - log::kControlSize - log::kDefaultTailCapacity;
  w.close();
  ::unlink(path.c_str());
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.counters["bytes_per_record"] = static_cast<double>(frames) / static_cast<double>(records);
}

void BM_WriteMetadataRecord(benchmark::State& state) { writeRecords(state, false); }
void BM_WriteRecordWith64BytePayload(benchmark::State& state) { writeRecords(state, true); }
BENCHMARK(BM_WriteMetadataRecord)->Iterations(4'000'000);
BENCHMARK(BM_WriteRecordWith64BytePayload)->Iterations(4'000'000);

void BM_ReadLog(benchmark::State& state) {
  const std::string path = tempPath("read.rlog");
  ::unlink(path.c_str());
  {
    log::LogWriter w;
    w.open(path.c_str(), header());
    PingPongStream stream(false);
    log::EventFields e;
    for (int i = 0; i < 2'000'000; ++i) {
      stream.next(e);
      w.append(e);
    }
    w.close();
  }
  uint64_t records = 0, bytes = 0;
  for (auto _ : state) {
    log::LogError err;
    auto r = log::LogReader::open(path, &err);
    log::Record rec;
    while (r->next(rec)) ++records;
    bytes += r->fileSize();
  }
  ::unlink(path.c_str());
  state.SetItemsProcessed(static_cast<int64_t>(records));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_ReadLog)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace radar::bench

BENCHMARK_MAIN();
