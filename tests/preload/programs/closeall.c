// A child that closes every descriptor it might have (close loop,
// close_range, closefrom) and dup2()s over high numbers, as daemons and
// sandboxes do; it must still be recorded completely.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "common.h"

int main(void) {
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    for (int fd = 3; fd < 65536; ++fd) close(fd);
    CHECK(close_range(3, ~0U, 0) == 0);
    CHECK(close_range(5, 3, 0) == -1 && errno == EINVAL);  // what the kernel says, unchanged
    closefrom(3);
    // Every number the program may use, the recorder's own included.
    struct rlimit lim;
    CHECK(getrlimit(RLIMIT_NOFILE, &lim) == 0);
    for (int fd = 3; fd < (int)lim.rlim_cur; ++fd) CHECK(dup2(2, fd) == fd);
    CHECK(close_range(3, ~0U, 0) == 0);
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK(p[0] == 3 && p[1] == 4);  // the numbers the program expects
    for (int i = 0; i < 100; ++i) writeAll(p[1], "after-close-all", 15);
    char buf[15];
    for (int i = 0; i < 100; ++i) readAll(p[0], buf, 15);
    _exit(0);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
