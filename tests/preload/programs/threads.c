// Several threads sending on one pipe while the main thread reads, and
// fork() from the multithreaded program (argv[1] children).
#include <pthread.h>
#include <sys/wait.h>

#include "common.h"

enum { kThreads = 4, kMessages = 2000 };
static int g_pipe[2];

static void* sender(void* arg) {
  char msg[16];
  const int id = (int)(long)arg;
  for (int i = 0; i < kMessages; ++i) {
    snprintf(msg, sizeof msg, "t%d:%06d\n", id, i);
    writeAll(g_pipe[1], msg, 10);  // atomic: below PIPE_BUF
  }
  return NULL;
}

static int g_forks;

// Drains the pipe while others fill it, so that nobody waits on a full pipe.
static void* reader(void* arg) {
  (void)arg;
  char buf[10];
  for (int i = 0; i < kThreads * kMessages + g_forks; ++i) readAll(g_pipe[0], buf, 10);
  return NULL;
}

int main(int argc, char** argv) {
  const int forks = argc > 1 ? atoi(argv[1]) : 50;
  g_forks = forks;
  CHECK(pipe(g_pipe) == 0);
  pthread_t r;
  CHECK(pthread_create(&r, NULL, reader, NULL) == 0);
  pthread_t t[kThreads];
  for (long i = 0; i < kThreads; ++i) CHECK(pthread_create(&t[i], NULL, sender, (void*)i) == 0);
  // Fork while the senders hold whatever they hold.
  for (int i = 0; i < forks; ++i) {
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
      writeAll(g_pipe[1], "forked:00\n", 10);
      _exit(0);
    }
    int status;
    CHECK(waitpid(c, &status, 0) == c && WIFEXITED(status));
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(t[i], NULL);
  pthread_join(r, NULL);
  return 0;
}
