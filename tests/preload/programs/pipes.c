// pipe, read/write/readv/writev, partial reads, EOF, EAGAIN, EINTR, dups.
#include <fcntl.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "common.h"

static void onAlarm(int sig) { (void)sig; }

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[0]);
    writeAll(p[1], "hello", 5);  // one write
    struct iovec v[2] = {{"ab", 2}, {"cdef", 4}};
    CHECK(writev(p[1], v, 2) == 6);  // gathered
    close(p[1]);
    _exit(0);
  }
  close(p[1]);
  char buf[16];
  readAll(p[0], buf, 3);  // "hel": a partial read of a write
  CHECK(memcmp(buf, "hel", 3) == 0);
  char a[4], b[4];
  struct iovec v[2] = {{a, 4}, {b, 4}};
  ssize_t n = readv(p[0], v, 2);  // "loabcdef" in one or two reads
  CHECK(n > 0);
  size_t got = (size_t)n;
  while (got < 8) {
    ssize_t m = read(p[0], got < 4 ? a + got : b + got - 4, got < 4 ? 4 - got : 8 - got);
    CHECK(m > 0);
    got += (size_t)m;
  }
  CHECK(read(p[0], buf, sizeof buf) == 0);  // EOF
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));

  // EAGAIN on an empty non-blocking pipe.
  int q[2];
  CHECK(pipe2(q, O_NONBLOCK) == 0);
  CHECK(read(q[0], buf, 1) == -1 && errno == EAGAIN);
  // dup, dup2, dup3, fcntl(F_DUPFD): the copies write to the same channel.
  int d1 = dup(q[1]);
  CHECK(d1 >= 0);
  CHECK(dup2(q[1], 40) == 40);
  CHECK(dup3(q[1], 41, O_CLOEXEC) == 41);
  int d4 = fcntl(q[1], F_DUPFD, 50);
  CHECK(d4 >= 50);
  writeAll(d1, "1", 1);
  writeAll(40, "2", 1);
  writeAll(41, "3", 1);
  writeAll(d4, "4", 1);
  CHECK(read(q[0], buf, sizeof buf) == 4 && memcmp(buf, "1234", 4) == 0);

  // EINTR: a handler without SA_RESTART interrupts a blocking read.
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onAlarm;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  int r[2];
  CHECK(pipe(r) == 0);
  alarm(1);
  CHECK(read(r[0], buf, 1) == -1 && errno == EINTR);
  // The program still sees its own handler.
  struct sigaction now;
  CHECK(sigaction(SIGALRM, NULL, &now) == 0 && now.sa_handler == onAlarm);
  return 0;
}
