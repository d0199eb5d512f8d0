// The most argument bytes an exec of /bin/true takes here, found by
// binary search (each probe forks and execs). Printed for the test to
// compare with a bare run: a recorder whose own variables made execs fail
// sooner (E2BIG) would print less.
#include <sys/wait.h>

#include "common.h"

extern char** environ;

static int fits(size_t bytes) {
  enum { kPiece = 100000 };  // below MAX_ARG_STRLEN (128 KiB)
  static char filler[kPiece + 1];
  memset(filler, 'x', kPiece);
  char* argv[64];
  int n = 0;
  argv[n++] = (char*)"true";
  size_t left = bytes;
  char last[kPiece + 1];
  while (left >= kPiece + 1 && n < 62) {
    argv[n++] = filler;  // kPiece bytes and its NUL
    left -= kPiece + 1;
  }
  if (left) {
    memset(last, 'y', left - 1);
    last[left - 1] = 0;
    argv[n++] = last;
  }
  argv[n] = NULL;
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    execve("/bin/true", argv, environ);
    _exit(errno == E2BIG ? 3 : 4);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3);
  return WEXITSTATUS(status) == 0;
}

int main(void) {
  size_t lo = 1, hi = 62 * 100001;  // fits(lo), !fits(hi)
  CHECK(fits(lo) && !fits(hi));
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    if (fits(mid))
      lo = mid;
    else
      hi = mid;
  }
  printf("largest argument bytes: %zu\n", lo);
  return 0;
}
