// argv[1] MiB through a pipe in 64 KiB writes; the bulk benchmark's workload.
#include <sys/wait.h>

#include "common.h"

int main(int argc, char** argv) {
  const long mib = argc > 1 ? atol(argv[1]) : 64;
  int p[2];
  CHECK(pipe(p) == 0);
  static char buf[65536];
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (char)('a' + (i * 7 + i / 13) % 26);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[1]);
    static char in[65536];
    long total = 0;
    for (;;) {
      ssize_t r = read(p[0], in, sizeof in);
      CHECK(r >= 0);
      if (r == 0) break;
      total += r;
    }
    _exit(total == mib * 1024 * 1024 ? 0 : 1);
  }
  close(p[0]);
  for (long i = 0; i < mib * 16; ++i) writeAll(p[1], buf, sizeof buf);
  close(p[1]);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
