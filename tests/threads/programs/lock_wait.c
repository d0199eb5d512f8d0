/* A thread that finds a mutex held, and a semaphore at zero, and waits for
 * each about 200 ms until main lets go; then a loop of locks and unlocks,
 * posts and waits that never find their object taken.
 *   lock_wait [ROUNDS]    (default 100) */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static sem_t zero;
static atomic_int step; /* how far the waiter got: main lets go only then */

static void* waiter(void* arg) {
  atomic_store(&step, 1);
  pthread_mutex_lock(&held); /* main holds it */
  pthread_mutex_unlock(&held);
  atomic_store(&step, 2);
  sem_wait(&zero); /* nobody posted yet */
  return arg;
}

static void letGoOnceAt(int reached) {
  while (atomic_load(&step) < reached) usleep(1000);
  usleep(200 * 1000);
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 100;
  sem_init(&zero, 0, 0);
  pthread_mutex_lock(&held);
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  letGoOnceAt(1);
  pthread_mutex_unlock(&held);
  letGoOnceAt(2);
  sem_post(&zero);
  pthread_join(t, NULL);
  pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
  sem_t counted;
  sem_init(&counted, 0, 0);
  for (int i = 0; i < rounds; ++i) {
    pthread_mutex_lock(&free_lock);
    pthread_mutex_unlock(&free_lock);
    sem_post(&counted);
    sem_wait(&counted);
  }
  return 0;
}
