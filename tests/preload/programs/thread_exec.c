// A program whose second thread, not its first, executes another:
//   thread_exec PROGRAM [ARG...]
// The kernel gives the exec'ing thread the process's id; the first thread
// is gone with the old image.
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char** command;

static void* execute(void* unused) {
  (void)unused;
  execvp(command[0], command);
  perror("thread_exec: execvp");
  _exit(127);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: thread_exec PROGRAM [ARG...]\n");
    return 2;
  }
  command = argv + 1;
  pthread_t thread;
  if (pthread_create(&thread, NULL, execute, NULL) != 0) return 1;
  pthread_join(thread, NULL);  // never returns: the exec ends this thread
  return 1;
}
