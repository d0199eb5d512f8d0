// Waits for signals the way servers' masters do: sigsuspend() with the
// signal blocked outside it, then pause(). A child it forks sends them
// (SIGUSR1, then SIGUSR2) and writes a byte between; the handler counts.
// Then it takes signals the child sends with waits for them, no handler
// running: sigwaitinfo(), sigtimedwait() (once until its timeout), sigwait(),
// a read of a signalfd that poll() found ready, and a readv() of it into two
// buffers. Last, SIGUSR2 blocked
// but for the mask of ppoll() and of epoll_pwait(): its handler ends each.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
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
  // A process group of its own, which the child leaves: killpg() and
  // kill(-pgid) reach this process alone.
  setpgid(0, 0);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);
    kill(parent, SIGUSR1);
    char b;
    if (read(p[0], &b, 1) != 1) _exit(3);
    kill(parent, SIGUSR2);
    for (int k = 0; k < 4; ++k) {
      if (read(p[0], &b, 1) != 1) _exit(3);
      // Each way of sending a signal to another process.
      if (k == 0) kill(parent, SIGUSR1);
      if (k == 1) killpg(parent, SIGUSR1);
      if (k == 2) sigqueue(parent, SIGUSR1, (union sigval){.sival_int = 42});
      if (k == 3) kill(-parent, SIGUSR1);
    }
    for (int k = 0; k < 2; ++k) {
      if (read(p[0], &b, 1) != 1) _exit(3);
      kill(parent, SIGUSR2);
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
  fflush(stdout);
  const int sfd = signalfd(-1, &block, SFD_CLOEXEC);
  if (sfd < 0 || write(p[1], "w", 1) != 1) return 2;
  struct pollfd ready = {.fd = sfd, .events = POLLIN};
  s = poll(&ready, 1, 10000);
  struct signalfd_siginfo taken;
  const ssize_t n = read(sfd, &taken, sizeof taken);
  printf("signalfd: poll %d, read %zd bytes: signal %u from %s\n", s, n, taken.ssi_signo,
         taken.ssi_pid == (unsigned)child ? "the child" : "someone else");
  fflush(stdout);
  if (write(p[1], "t", 1) != 1) return 2;
  s = poll(&ready, 1, 10000);
  struct signalfd_siginfo parts = {0};
  struct iovec halves[2] = {{&parts, 8}, {(char*)&parts + 8, sizeof parts - 8}};
  const ssize_t m = readv(sfd, halves, 2);
  printf("signalfd: poll %d, readv %zd bytes in two buffers: signal %u from %s\n", s, m, parts.ssi_signo,
         parts.ssi_pid == (unsigned)child ? "the child" : "someone else");
  fflush(stdout);
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigprocmask(SIG_BLOCK, &usr2, NULL);
  int never[2];  // nothing is ever written to it
  if (pipe(never) != 0) return 2;
  g_got = 0;
  if (write(p[1], "v", 1) != 1) return 2;
  struct pollfd idle = {.fd = never[0], .events = POLLIN};
  s = ppoll(&idle, 1, NULL, &empty);
  printf("ppoll: %d, %s, the handler got %d\n", s, s < 0 && errno == EINTR ? "interrupted" : "?", g_got);
  fflush(stdout);
  g_got = 0;
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event watch = {.events = EPOLLIN};
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, never[0], &watch) != 0) return 2;
  if (write(p[1], "u", 1) != 1) return 2;
  struct epoll_event out;
  s = epoll_pwait(ep, &out, 1, -1, &empty);
  printf("epoll_pwait: %d, %s, the handler got %d\n", s, s < 0 && errno == EINTR ? "interrupted" : "?", g_got);
  int status;
  waitpid(child, &status, 0);
  return 0;
}
