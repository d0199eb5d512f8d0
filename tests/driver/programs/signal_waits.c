// Waits for signals the way servers' masters do: sigsuspend() with the
// signal blocked outside it, then pause(). A child it forks sends them
// (SIGUSR1, then SIGUSR2) and writes a byte between; the handler counts.
// Then it takes signals the child sends with waits for them, no handler
// running: sigwaitinfo(), sigtimedwait() (once until its timeout), sigwait().
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t g_got;
static void onSignal(int sig) { g_got = sig; }

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = onSignal;
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
  sigset_t block, empty;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigemptyset(&empty);
  sigprocmask(SIG_BLOCK, &block, NULL);
  int p[2];
  if (pipe(p) != 0) return 2;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    kill(parent, SIGUSR1);
    char b;
    if (read(p[0], &b, 1) != 1) _exit(3);
    kill(parent, SIGUSR2);
    for (int k = 0; k < 2; ++k) {
      if (read(p[0], &b, 1) != 1) _exit(3);
      kill(parent, SIGUSR1);
    }
    _exit(0);
  }
  while (g_got != SIGUSR1) sigsuspend(&empty);
  printf("sigsuspend ended by %d\n", g_got);
  fflush(stdout);
  if (write(p[1], "x", 1) != 1) return 2;
  while (g_got != SIGUSR2) pause();
  printf("pause ended by %d\n", g_got);
  fflush(stdout);
  siginfo_t si;
  if (write(p[1], "y", 1) != 1) return 2;
  int s = sigwaitinfo(&block, &si);
  printf("sigwaitinfo took %d from %s\n", s, si.si_pid == child ? "the child" : "someone else");
  struct timespec soon = {0, 20 * 1000 * 1000};
  s = sigtimedwait(&block, &si, &soon);
  printf("sigtimedwait: %d, %s\n", s, s < 0 && errno == EAGAIN ? "timed out" : "?");
  fflush(stdout);
  if (write(p[1], "z", 1) != 1) return 2;
  int got = 0;
  s = sigwait(&block, &got);
  printf("sigwait: %d, took %d\n", s, got);
  int status;
  waitpid(child, &status, 0);
  return 0;
}
