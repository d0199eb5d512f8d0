// The writer runs inside recorded programs, possibly within reach of a
// signal handler: once a log is open, appending records (and compressing
// full tails into frames) must not allocate. This binary counts every
// malloc family call made by the test's thread while it is armed.
#include <gtest/gtest.h>

#include <cstdlib>

#include "log_test_util.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
}

#if !defined(__SANITIZE_ADDRESS__)
namespace {
thread_local bool armed = false;
thread_local long allocations = 0;
void count() {
  if (armed) ++allocations;
}
}  // namespace

extern "C" {
void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
void* memalign(size_t align, size_t n) {
  count();
  return __libc_memalign(align, n);
}
int posix_memalign(void** out, size_t align, size_t n) {
  count();
  *out = __libc_memalign(align, n);
  return *out ? 0 : ENOMEM;
}
void* aligned_alloc(size_t align, size_t n) {
  count();
  return __libc_memalign(align, n);
}
}
#endif

namespace radar::log {
namespace {

using namespace testing;

TEST(NoAllocation, AppendingAndFramingAllocateNothing) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizer owns malloc; this check runs in the plain build";
#else
  // Records made beforehand: the test's own vectors must not count.
  EventGenerator gen(7, 4242);
  std::vector<OwnedEvent> events;
  for (int i = 0; i < 20000; ++i) events.push_back(gen.next());
  const std::string path = makeTempDir() + "/log.rlog";
  LogWriter w;
  ASSERT_EQ(w.open(path.c_str(), testHeader(4242), {}), 0);
  // The counting works: an allocation while armed is seen.
  armed = true;
  void* volatile probe = std::malloc(16);
  armed = false;
  std::free(probe);
  ASSERT_EQ(allocations, 1);
  allocations = 0;

  std::vector<const char*> scratch;
  for (const auto& e : events) {
    ChannelFields cf;
    Iov iov;
    const EventFields fields = e.fields(scratch, cf, iov);  // the test's side
    armed = true;
    w.append(fields);
    armed = false;
  }
  armed = true;
  ASSERT_EQ(w.flush(), 0);  // a frame compressed on demand, too
  armed = false;
  EXPECT_EQ(allocations, 0) << "appending 20000 records allocated";
  w.close();
  std::string error;
  EXPECT_EQ(readAll(path, &error).size(), events.size()) << error;
#endif
}

}  // namespace
}  // namespace radar::log
