// A program named on a command line is found the way execvp() finds it,
// wherever radar looks for one (radar record, gdb, a process's exec in its
// log, a network description's start commands).
#include "log/executables.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "log_test_util.h"

namespace radar::log {
namespace {

void makeFile(const std::string& path, mode_t mode) {
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), mode);
}

TEST(Executables, FoundAsExecvpFindsThem) {
  const std::string root = testing::makeTempDir();
  ::mkdir((root + "/a").c_str(), 0700);
  ::mkdir((root + "/b").c_str(), 0700);
  makeFile(root + "/a/tool", 0600);  // not executable: passed over
  makeFile(root + "/b/tool", 0700);
  makeFile(root + "/here", 0700);
  const std::string path = root + "/a:" + root + "/b";
  EXPECT_EQ(findExecutable("tool", path.c_str()), root + "/b/tool");
  EXPECT_EQ(findExecutable("missing", path.c_str()), "");
  // A name with a slash is that path, made absolute from a directory given.
  EXPECT_EQ(findExecutable("./x/y", path.c_str()), "./x/y");
  EXPECT_EQ(findExecutable("x/y", path.c_str(), "/work"), "/work/x/y");
  // An empty entry is the working directory, taken from `cwd`.
  EXPECT_EQ(findExecutable("here", (":" + path).c_str(), root), root + "/./here");
  // Without PATH: /bin:/usr/bin.
  EXPECT_EQ(findExecutable("sh", nullptr), "/bin/sh");
}

}  // namespace
}  // namespace radar::log
