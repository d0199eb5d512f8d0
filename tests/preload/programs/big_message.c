// One message of argv[1] MiB, sent in one write and received in reads of
// argv[2] KiB (default 1024): the big-message benchmark's workload. The
// reader compares every byte with what was sent (memcmp against the
// pattern, so that a re-run's time is radar's, not a checksum loop's).
#include <sys/wait.h>

#include "common.h"

// The bytes sent: a pattern of period 338 (26 letters, shifted every 13).
enum { kPeriod = 338 };
static char patternAt(size_t i) { return (char)('a' + (i * 7 + i / 13) % 26); }

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
    char* expected = malloc(piece + kPeriod);
    CHECK(in != NULL && expected != NULL);
    for (size_t i = 0; i < piece + kPeriod; ++i) expected[i] = patternAt(i);
    size_t got = 0;
    for (;;) {
      const ssize_t r = read(p[0], in, piece);
      CHECK(r >= 0);
      if (r == 0) break;
      if (memcmp(in, expected + got % kPeriod, (size_t)r) != 0) {
        printf("byte %zu onwards differs from what was sent\n", got);
        fflush(stdout);
        _exit(1);
      }
      got += (size_t)r;
    }
    printf("received %zu bytes, all as sent\n", got);
    fflush(stdout);
    _exit(got == total ? 0 : 1);
  }
  close(p[0]);
  char* out = malloc(total);
  CHECK(out != NULL);
  for (size_t i = 0; i < total && i < kPeriod; ++i) out[i] = patternAt(i);
  for (size_t i = kPeriod; i < total; i += kPeriod) memcpy(out + i, out, total - i < kPeriod ? total - i : kPeriod);
  writeAll(p[1], out, total);
  close(p[1]);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
