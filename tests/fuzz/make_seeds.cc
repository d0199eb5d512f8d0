// Writes a few valid logs as the fuzzer's starting corpus.
#include <string>

#include "log_test_util.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  using namespace radar::log;
  for (int seed = 0; seed < 4; ++seed) {
    testing::EventGenerator gen(static_cast<uint64_t>(seed), 100, seed == 3 ? 20000 : 200);
    std::vector<testing::OwnedEvent> events;
    for (int i = 0; i < 40 * (seed + 1); ++i) events.push_back(gen.next());
    WriterOptions options;
    options.tail_capacity = 4096;
    testing::writeLog(std::string(argv[1]) + "/seed" + std::to_string(seed) + ".rlog", events, options, seed % 2 == 0);
  }
  // Messages of 16 KiB and more, each its own frame of raw blocks: what
  // radar record's summary reads without the bytes.
  testing::EventGenerator gen(5, 100, 200);
  std::vector<testing::OwnedEvent> events;
  for (int i = 0; i < 30; ++i) {  // under the fuzzer's 64 KiB of input
    testing::OwnedEvent e = gen.next();
    if ((i == 1 || i == 4 || i == 7) && !e.is_channel) {
      e.kind = Kind::Write;
      e.channel = 0;
      e.has_offset = false;
      e.has_hash = false;
      e.payload_omitted = 0;
      e.payload.assign(16384 + 100 * i, static_cast<char>('a' + i));
      e.result = static_cast<int64_t>(e.payload.size());
    }
    events.push_back(e);
  }
  WriterOptions options;
  options.tail_capacity = 4096;
  testing::writeLog(std::string(argv[1]) + "/seed_large.rlog", events, options, true);
  return 0;
}
