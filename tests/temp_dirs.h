// Temporary directories a test program makes (recordings, a command's
// output): removed when the program ends with every test passed, kept to
// look at when one failed. Thousands are made in a run; left behind, they
// would pile up in /tmp run after run.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace radar::testing {

class TempDirs {
 public:
  // A new directory named `prefix`XXXXXX under $TMPDIR (or /tmp); "" when
  // it cannot be made.
  static std::string make(const std::string& prefix) {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base ? base : "/tmp") + "/" + prefix + "XXXXXX";
    if (!::mkdtemp(templ.data())) return {};
    TempDirs& all = instance();
    std::lock_guard<std::mutex> lock(all.mutex_);
    all.dirs_.push_back(templ);
    return templ;
  }

  ~TempDirs() {
    // Only by the process that made them (a forked child that exits must
    // not remove its parent's), and only when nothing failed.
    if (::getpid() != owner_ || !::testing::UnitTest::GetInstance()->Passed()) return;
    std::error_code ec;
    for (const std::string& d : dirs_) std::filesystem::remove_all(d, ec);
  }

 private:
  TempDirs() : owner_(::getpid()) {}
  static TempDirs& instance() {
    static TempDirs dirs;
    return dirs;
  }
  pid_t owner_;
  std::mutex mutex_;
  std::vector<std::string> dirs_;
};

}  // namespace radar::testing
