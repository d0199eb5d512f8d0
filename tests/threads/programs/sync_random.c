/* A random program of threads that meet through mutexes, condition
 * variables, semaphores and a barrier, the same for one seed:
 *   sync_random SEED THREADS STEPS
 * Each thread, at each step, takes one of the mutexes and adds to the
 * counter it guards, or puts a token in one of the pools (semaphores) and
 * takes one out (another thread's, as like as not), or turns a flag odd
 * and waits a little under a condition variable for another to make it
 * even; every thread meets the others at a barrier every 16 steps. Nobody
 * waits forever: a thread waits for a token only after giving one, and
 * for the flag only a millisecond at a time, three times. Prints the sum
 * of the counters: the same whatever the interleaving. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kMutexes = 3, kMaxThreads = 8 };
static pthread_mutex_t mutexes[kMutexes];
static long counters[kMutexes];
static sem_t pools[kMutexes];
static pthread_mutex_t flag_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flag_changed = PTHREAD_COND_INITIALIZER;
static long flag;
static pthread_barrier_t rounds;
static int threads, steps;
static unsigned seed;

static void* run(void* arg) {
  const int me = (int)(long)arg;
  unsigned r = seed * 7919u + (unsigned)me;
  for (int s = 0; s < steps; ++s) {
    r = r * 1103515245u + 12345u;
    const int what = (int)((r >> 16) % 3);
    if (what == 0) {
      pthread_mutex_t* m = &mutexes[(r >> 20) % kMutexes];
      pthread_mutex_lock(m);
      ++counters[m - mutexes];
      pthread_mutex_unlock(m);
    } else if (what == 1) {
      sem_t* pool = &pools[(r >> 20) % kMutexes];
      sem_post(pool);
      sem_wait(pool);
    } else {
      pthread_mutex_lock(&flag_lock);
      ++flag;
      pthread_cond_broadcast(&flag_changed);
      for (int tries = 0; flag % 2 && tries < 3; ++tries) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 1000000;
        if (until.tv_nsec >= 1000000000) {
          until.tv_nsec -= 1000000000;
          ++until.tv_sec;
        }
        pthread_cond_timedwait(&flag_changed, &flag_lock, &until);
      }
      pthread_mutex_unlock(&flag_lock);
    }
    if (s % 16 == 15) pthread_barrier_wait(&rounds);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  seed = (unsigned)atoi(argv[1]);
  threads = atoi(argv[2]);
  steps = atoi(argv[3]);
  if (threads < 2 || threads > kMaxThreads || steps % 16) return 2;
  for (int i = 0; i < kMutexes; ++i) pthread_mutex_init(&mutexes[i], NULL);
  for (int i = 0; i < kMutexes; ++i) sem_init(&pools[i], 0, 0);
  pthread_barrier_init(&rounds, NULL, (unsigned)threads);
  pthread_t t[kMaxThreads];
  for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, run, (void*)(long)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  long total = 0;
  for (int i = 0; i < kMutexes; ++i) total += counters[i];
  printf("%ld\n", total);
  return 0;
}
