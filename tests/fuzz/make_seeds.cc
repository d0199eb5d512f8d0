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
  return 0;
}
