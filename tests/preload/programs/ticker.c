// A program that goes on: a parent sends "tick N" down a pipe every
// INTERVAL milliseconds, COUNT times; its child reads them until the end.
// With UNTIL, it goes on past COUNT until the file UNTIL exists (a test
// says when it has seen enough), for ten minutes at most.
//   ticker INTERVAL_MS COUNT [UNTIL]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: ticker INTERVAL_MS COUNT [UNTIL]\n");
    return 2;
  }
  const long interval_ms = atol(argv[1]), count = atol(argv[2]);
  int fds[2];
  if (pipe(fds) != 0) return 1;
  const pid_t child = fork();
  if (child == 0) {
    close(fds[1]);
    char buf[256];
    while (read(fds[0], buf, sizeof buf) > 0) {
    }
    _exit(0);
  }
  close(fds[0]);
  const struct timespec pause = {interval_ms / 1000, (interval_ms % 1000) * 1000000L};
  const char* until = argc == 4 ? argv[3] : NULL;
  const long most = until ? count + 600000 / (interval_ms > 0 ? interval_ms : 1) : count;
  for (long i = 1; i <= most && (i <= count || access(until, F_OK) != 0); ++i) {
    char line[32];
    const int n = snprintf(line, sizeof line, "tick %ld\n", i);
    if (write(fds[1], line, (size_t)n) != n) return 1;
    nanosleep(&pause, NULL);
  }
  close(fds[1]);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
