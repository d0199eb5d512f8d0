// A dormant program that forks all the time, from a thread of its own, while
// another thread writes: radar attach wakes it while children are being
// made, so some are forked while the writing thread is opening the log.
// Many pipes are open, which makes the waking long (each is a channel to
// describe). Each child writes three bytes and ends; the parent waits for each
// at most five seconds: a child that hangs is said, and fails the program.
//   forks_while_woken SECONDS PIPES
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "common.h"

static volatile int g_done;
static int g_out[2];

static void* writer(void* unused) {
  (void)unused;
  const struct timespec pause = {0, 100000};
  while (!g_done) {
    CHECK(write(g_out[1], "w", 1) == 1);
    char c;
    CHECK(read(g_out[0], &c, 1) == 1);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// Waits for `child` five seconds at most: 0 when it ended well.
static int waitFor(pid_t child) {
  for (int tries = 0; tries < 5000; ++tries) {
    int status = 0;
    const pid_t got = waitpid(child, &status, WNOHANG);
    CHECK(got >= 0);
    if (got == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    const struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  fprintf(stderr, "forks_while_woken: child %d hangs\n", (int)child);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return 1;
}

int main(int argc, char** argv) {
  CHECK(argc == 3);
  const double seconds = atof(argv[1]);
  const int pipes = atoi(argv[2]);
  for (int i = 0; i < pipes; ++i) {
    int p[2];
    CHECK(pipe(p) == 0);
  }
  CHECK(pipe(g_out) == 0);
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, writer, NULL) == 0);
  const double end = now() + seconds;
  int children = 0, hung = 0;
  while (now() < end) {
    const pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
      for (int i = 0; i < 3; ++i) CHECK(write(g_out[1], "c", 1) == 1);
      _exit(0);
    }
    ++children;
    hung += waitFor(child);
  }
  g_done = 1;
  CHECK(pthread_join(thread, NULL) == 0);
  printf("%d children, %d hung\n", children, hung);
  return hung ? 1 : 0;
}
