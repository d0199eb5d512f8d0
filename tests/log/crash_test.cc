// A process killed with SIGKILL loses no record whose append returned.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>

#include "log_test_util.h"

namespace radar::log {
namespace {

using namespace testing;

TEST(Crash, SigkillLosesNoCompletedRecord) {
  const std::string dir = makeTempDir();
  std::mt19937 rng(3);
  for (int round = 0; round < 12; ++round) {
    const std::string path = dir + "/killed" + std::to_string(round) + ".rlog";
    auto* acked = static_cast<std::atomic<uint64_t>*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    ASSERT_NE(acked, MAP_FAILED);
    new (acked) std::atomic<uint64_t>(0);
    const uint64_t seed = 100 + round;
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      LogWriter w;
      WriterOptions options;
      options.tail_capacity = 16 * 1024;  // frequent flushes: some kills land in one
      if (w.open(path.c_str(), testHeader(4242), options) != 0) _exit(2);
      EventGenerator gen(seed, 4242, 3000);
      for (uint64_t i = 1;; ++i) {
        appendEvent(w, gen.next());
        acked->store(i, std::memory_order_release);
      }
    }
    // Kill at a random point once the child is writing: on a loaded
    // machine opening the log alone can take longer than the random delay.
    for (int waited_ms = 0; acked->load() == 0 && waited_ms < 20000; ++waited_ms) usleep(1000);
    usleep(rng() % 40000);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    const uint64_t done = acked->load();
    ASSERT_GT(done, 0u) << "the child should have written something";

    std::string error;
    std::vector<std::string> payloads;
    auto records = readAll(path, &error, &payloads);
    EXPECT_GE(records.size(), done) << "round " << round << ": " << error;
    EventGenerator gen(seed, 4242, 3000);
    uint64_t counter = 1;
    for (size_t i = 0; i < records.size(); ++i) {
      OwnedEvent e = gen.next();
      EXPECT_EQ(compare(e, records[i], e.is_channel ? 0 : counter, payloads[i]), "")
          << "round " << round << " record " << i;
      if (!e.is_channel) ++counter;
    }
    munmap(acked, 4096);
  }
}

}  // namespace
}  // namespace radar::log
