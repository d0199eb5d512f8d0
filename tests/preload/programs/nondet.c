// Inputs that make a re-run differ: clocks, random bytes, pids.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/time.h>
#include <time.h>

#include "common.h"

int main(void) {
  struct timespec ts;
  CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
  struct timeval tv;
  CHECK(gettimeofday(&tv, NULL) == 0);
  CHECK(time(NULL) > 0);
  unsigned char r[16];
  CHECK(getrandom(r, sizeof r, 0) == sizeof r);
  int fd = open("/dev/urandom", O_RDONLY);
  CHECK(fd >= 0 && read(fd, r, 8) == 8);
  close(fd);
  CHECK(getpid() > 0 && getppid() > 0);
  return 0;
}
