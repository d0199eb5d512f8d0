// A signal that reaches the parent the moment its fork() returns, before
// fork() has returned to the program: a fork handler sends it with a raw
// system call, which the recorder does not see. The handler ran after the
// fork, so the child never saw its mark. Prints what each process saw.
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "common.h"

static volatile sig_atomic_t g_marked;

static void onUsr1(int sig) {
  (void)sig;
  g_marked = 1;
}

static void afterForkInParent(void) { syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), SIGUSR1); }

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onUsr1;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  CHECK(pthread_atfork(NULL, afterForkInParent, NULL) == 0);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    printf("child saw %d\n", (int)g_marked);
    return 0;
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  printf("parent saw %d\n", (int)g_marked);
  return 0;
}
