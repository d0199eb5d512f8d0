// Moves its input to its output inside the kernel: splice() from stdin to
// a pipe of its own, tee() of that pipe to stdout (which consumes nothing),
// splice() of the pipe to /dev/null, and vmsplice() of a buffer into stdout.
// Run as `producer | splicer | cat`.
#include <fcntl.h>
#include <sys/uio.h>

#include "common.h"

int main(void) {
  int mid[2];
  CHECK(pipe(mid) == 0);
  const int null = open("/dev/null", O_WRONLY);
  CHECK(null >= 0);
  ssize_t total = 0, n;
  while ((n = splice(0, NULL, mid[1], NULL, 65536, 0)) > 0) {
    total += n;
    ssize_t copied = 0;
    while (copied < n) {
      const ssize_t t = tee(mid[0], 1, (size_t)(n - copied), 0);
      CHECK(t > 0);
      copied += t;
      // tee took nothing: the bytes are consumed here.
      CHECK(splice(mid[0], NULL, null, NULL, (size_t)t, 0) == t);
    }
  }
  CHECK(n == 0);
  // vmsplice() puts the pages themselves into the pipe: they must not
  // change until the reader has read them (not a stack frame main leaves).
  static char tail[32];
  const int len = snprintf(tail, sizeof tail, "[%zd bytes]\n", total);
  struct iovec iov = {tail, (size_t)len};
  CHECK(vmsplice(1, &iov, 1, 0) == len);
  return 0;
}
