// Descriptor numbers under a small RLIMIT_NOFILE: prints the numbers a
// pipe gets and how many more descriptors open before EMFILE. A recorder
// that took a low number of its own would shift both.
#include <fcntl.h>

#include "common.h"

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  int more = 0;
  for (;;) {
    const int fd = open("/dev/null", O_RDONLY);
    if (fd < 0) {
      CHECK(errno == EMFILE);
      break;
    }
    ++more;
  }
  CHECK(write(p[1], "x", 1) == 1);
  printf("pipe %d %d, %d more before EMFILE\n", p[0], p[1], more);
  return 0;
}
