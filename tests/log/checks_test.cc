// The checks that stay on: RADAR_CHECK in host code, RADAR_INJECTED_CHECK
// in the injected libraries (raw write, then SIGABRT).
#include <gtest/gtest.h>
#include <signal.h>

#include "log/check.h"

#include "log/injected.h"  // last: it poisons malloc, printf ...

namespace radar::testing {
namespace {

int three() { return ::testing::FLAGS_gtest_random_seed >= 0 ? 3 : 4; }  // not a constant to the compiler

TEST(Checks, AFailedHostCheckSaysWhereAndWhatThenAborts) {
  RADAR_CHECK(three() == 3);  // a check that holds does nothing
  EXPECT_EXIT(RADAR_CHECK(three() == 2), ::testing::KilledBySignal(SIGABRT),
              "radar: internal check failed at .*checks_test.cc:[0-9]+: three\\(\\) == 2");
}

TEST(Checks, AFailedInjectedCheckWritesWithARawCallThenAborts) {
  RADAR_INJECTED_CHECK(three() == 3);
  EXPECT_EXIT(RADAR_INJECTED_CHECK(three() == 2), ::testing::KilledBySignal(SIGABRT),
              "radar \\(injected library\\): internal check failed at .*checks_test.cc:[0-9]+: three\\(\\) == 2");
  // Even with SIGABRT blocked and ignored, as a program may have it.
  EXPECT_EXIT(
      {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, nullptr);
        signal(SIGABRT, SIG_IGN);
        RADAR_INJECTED_CHECK(three() == 2);
      },
      ::testing::KilledBySignal(SIGABRT), "internal check failed");
}

}  // namespace
}  // namespace radar::testing
