// Signals a process sends itself: one it blocks and takes with sigwait(),
// one its handler takes, one it ignores. Prints what it got; a re-run must
// print the same and end (a kill() never performed left sigwait() waiting
// for ever).
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static void onUsr2(int sig) { handled = sig; }

int main(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_BLOCK, &set, NULL);
  if (kill(getpid(), SIGUSR1) != 0) return 1;
  int sig = 0;
  if (sigwait(&set, &sig) != 0) return 2;
  printf("sigwait got %d\n", sig);
  fflush(stdout);

  signal(SIGUSR2, onUsr2);
  if (kill(getpid(), SIGUSR2) != 0) return 3;
  printf("handler got %d\n", (int)handled);
  fflush(stdout);

  signal(SIGPIPE, SIG_IGN);
  if (kill(getpid(), SIGPIPE) != 0) return 4;
  printf("ignored\n");
  return 0;
}
