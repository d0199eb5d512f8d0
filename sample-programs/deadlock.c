/* deadlock -- three processes in a ring, and a watchdog.
 *
 *     alpha --> beta --> gamma --> alpha
 *
 * The launcher starts deadlock_proc as "alpha", "beta" and "gamma", each
 * reading from its predecessor's pipe (INPUT) and writing to its
 * successor's (OUTPUT). In MODE "ring" (the default) every process first
 * waits to receive from its predecessor before sending to its successor:
 * all three block in read() and none will ever write -- a deadlock, a cycle
 * of processes each waiting on the next. In MODE "chain" alpha sends first:
 * a token goes once round the ring and everyone exits 0.
 *
 * The launcher is the watchdog: if the workers have not all finished after
 * 2 seconds (alarm), it kills them with SIGKILL, prints
 * "deadlock: workers killed after 2 s" and exits 3; otherwise it exits 0.
 *
 *     deadlock [ring|chain]
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "launch.h"

enum { WORKERS = 3, TIMEOUT_S = 2 };

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig) {
  (void)sig;
  timed_out = 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ring";
  if (argc > 2 || (strcmp(mode, "ring") != 0 && strcmp(mode, "chain") != 0)) {
    fprintf(stderr, "usage: deadlock [ring|chain]\n");
    return 2;
  }

  /* ring[i] goes from worker i to worker i+1. */
  int ring[WORKERS][2];
  for (int i = 0; i < WORKERS; i++) launch_pipe(ring[i]);
  const char* names[WORKERS] = {"alpha", "beta", "gamma"};
  pid_t pids[WORKERS];
  for (int i = 0; i < WORKERS; i++) {
    const struct launch_port ports[] = {
        {"INPUT", 1, {ring[(i + WORKERS - 1) % WORKERS][0]}}, {"OUTPUT", 1, {ring[i][1]}}, {NULL, 0, {0}}};
    const char* worker_argv[] = {names[i], mode, NULL};
    pids[i] = launch_worker("deadlock_proc", worker_argv, ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  }
  launch_close_all();

  /* No SA_RESTART: the alarm interrupts waitpid(). */
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_alarm;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, NULL);
  alarm(TIMEOUT_S);

  int failed = 0;
  for (int i = 0; i < WORKERS; i++) {
    int status;
    while (waitpid(pids[i], &status, 0) < 0) {
      if (errno != EINTR) launch_die("waitpid");
      if (timed_out) {
        /* Stop them all, then kill them: killed one at a time, a worker
           whose predecessor died first would read end of file and leave
           the cycle before its own turn came. */
        for (int j = 0; j < WORKERS; j++)
          if (pids[j] > 0) kill(pids[j], SIGSTOP);
        for (int j = 0; j < WORKERS; j++)
          if (pids[j] > 0) kill(pids[j], SIGKILL);
        for (int j = 0; j < WORKERS; j++)
          if (pids[j] > 0) waitpid(pids[j], NULL, 0);
        printf("deadlock: workers killed after %d s\n", TIMEOUT_S);
        return 3;
      }
    }
    failed |= launch_report("deadlock", names[i], status);
    pids[i] = 0;
  }
  alarm(0);
  return failed;
}
