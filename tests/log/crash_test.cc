// A process killed with SIGKILL loses no record whose append returned.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
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

// A process killed after writing its tail as a frame, before emptying the
// tail, leaves its records twice: the reader keeps the frame's. The counters
// cannot tell when no record of the tail is counted (a channel's definition
// alone): the frame's offset, noted before it is written, does.
TEST(Crash, KilledBetweenTheTailsFrameAndEmptyingItDuplicatesNothing) {
  const std::string dir = makeTempDir();
  const std::string path = dir + "/live.rlog";
  LogWriter w;
  WriterOptions options;
  options.tail_capacity = 16 * 1024;
  ASSERT_EQ(w.open(path.c_str(), testHeader(4242), options), 0);
  EventGenerator gen(7, 4242, 64);
  std::vector<OwnedEvent> written;
  for (;;) {
    OwnedEvent e = gen.next();
    if (e.is_channel && written.size() > 3) {
      ASSERT_EQ(w.flush(), 0);  // the tail will hold this definition alone
      appendEvent(w, e);
      written.push_back(e);
      break;
    }
    appendEvent(w, e);
    written.push_back(e);
  }
  const std::string before = readFile(path);
  // The writer notes where the tail's frame goes before writing it: seen
  // here by a write the file size limit refuses.
  struct rlimit old_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  struct rlimit tight = old_limit;
  tight.rlim_cur = before.size();
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &tight), 0);
  const int refused = w.flush();
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  EXPECT_EQ(refused, -EFBIG);
  const std::string refused_image = readFile(path);
  uint64_t noted = 0;
  std::memcpy(&noted, refused_image.data() + 8 + offsetof(FileControl, tail_frame_at), sizeof(noted));
  EXPECT_EQ(noted, before.size());

  // The kill between the frame and the emptied tail: the frame as written
  // by a flush, the control block and the tail as they were before it, with
  // the frame's offset noted.
  LogWriter again;
  const std::string path2 = dir + "/flushed.rlog";
  ASSERT_EQ(again.open(path2.c_str(), testHeader(4242), options), 0);
  for (const OwnedEvent& e : written) {
    if (&e == &written.back()) {
      ASSERT_EQ(again.flush(), 0);
    }
    appendEvent(again, e);
  }
  ASSERT_EQ(readFile(path2).substr(0, before.size()), before) << "the same log as the first";
  ASSERT_EQ(again.flush(), 0);
  std::string image = readFile(path2);
  ASSERT_GT(image.size(), before.size());
  const size_t tail_end = kControlSize + options.tail_capacity;
  image.replace(0, tail_end, before.substr(0, tail_end));
  auto readImage = [&](uint64_t frame_at) {
    std::memcpy(image.data() + 8 + offsetof(FileControl, tail_frame_at), &frame_at, sizeof(frame_at));
    const std::string crashed = dir + "/crashed.rlog";
    std::FILE* f = std::fopen(crashed.c_str(), "w");
    std::fwrite(image.data(), 1, image.size(), f);
    std::fclose(f);
    std::string error;
    auto records = readAll(crashed, &error);
    EXPECT_EQ(error, "");
    return records.size();
  };
  EXPECT_EQ(readImage(before.size()), written.size()) << "each record once";
  EXPECT_EQ(readImage(0), written.size() + 1) << "without the note, the definition is read twice";
}

}  // namespace
}  // namespace radar::log
