/* Uncontended locking, timed from inside: N lock/unlock pairs of one mutex
 * by one thread, then N post/wait pairs of one semaphore.
 * Then N reads of the clock a recorder reads, for the floor: what one
 * timestamp costs on this machine.
 *   lock_loop N      prints "mutex NS sem NS" (nanoseconds per pair), then
 *                    "clock NS" (per read) */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double nowNs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1000000;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  sem_t s;
  sem_init(&s, 0, 0);
  double t0 = nowNs();
  for (long i = 0; i < n; ++i) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  }
  double t1 = nowNs();
  for (long i = 0; i < n; ++i) {
    sem_post(&s);
    sem_wait(&s);
  }
  double t2 = nowNs();
  struct timespec ts;
  for (long i = 0; i < n; ++i) clock_gettime(CLOCK_MONOTONIC, &ts);
  double t3 = nowNs();
  printf("mutex %.1f sem %.1f\n", (t1 - t0) / (double)n, (t2 - t1) / (double)n);
  printf("clock %.1f\n", (t3 - t2) / (double)n);
  return 0;
}
