// One message of argv[1] MiB, sent in one write and received in reads of
// argv[2] KiB (default 1024): the big-message benchmark's workload.
#include <sys/wait.h>

#include "common.h"

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 100;
  const size_t piece = (argc > 2 ? (size_t)atol(argv[2]) : 1024) * 1024;
  const size_t total = mib * 1024 * 1024;
  int p[2];
  CHECK(pipe(p) == 0);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[1]);
    char* in = malloc(piece);
    CHECK(in != NULL);
    size_t got = 0;
    unsigned sum = 0;
    for (;;) {
      const ssize_t r = read(p[0], in, piece);
      CHECK(r >= 0);
      if (r == 0) break;
      for (ssize_t i = 0; i < r; ++i) sum = sum * 31 + (unsigned char)in[i];
      got += (size_t)r;
    }
    printf("received %zu bytes, checksum %08x\n", got, sum);
    _exit(got == total ? 0 : 1);
  }
  close(p[0]);
  char* out = malloc(total);
  CHECK(out != NULL);
  for (size_t i = 0; i < total; ++i) out[i] = (char)('a' + (i * 7 + i / 13) % 26);
  writeAll(p[1], out, total);
  close(p[1]);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
