/* Threads whose output is the order they met in, so that a re-run that
 * lets them meet in another order prints something else:
 *   sync_order THREADS STEPS
 * At each step every thread appends its letter to a shared log under a
 * mutex (upper case when a try at a second mutex found it taken), reads
 * the log's length under a read lock, hands a number through a bounded
 * queue (a mutex and two condition variables) to the consumer thread, and
 * passes a semaphore on. Prints the log and the order the consumer got. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

enum { kMaxThreads = 8, kQueue = 4 };
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER, busy = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t length_lock = PTHREAD_RWLOCK_INITIALIZER;
static char order_log[1 << 16];
static size_t logged;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queue[kQueue], queued, head;
static char consumed[1 << 16];
static sem_t baton;
static int threads, steps;

static void put(int v) {
  pthread_mutex_lock(&queue_lock);
  while (queued == kQueue) pthread_cond_wait(&not_full, &queue_lock);
  queue[(head + queued++) % kQueue] = v;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&queue_lock);
}

static int take(void) {
  pthread_mutex_lock(&queue_lock);
  while (queued == 0) pthread_cond_wait(&not_empty, &queue_lock);
  const int v = queue[head];
  head = (head + 1) % kQueue;
  --queued;
  pthread_cond_signal(&not_full);
  pthread_mutex_unlock(&queue_lock);
  return v;
}

static void* work(void* arg) {
  const int me = (int)(long)arg;
  for (int s = 0; s < steps; ++s) {
    const int held = pthread_mutex_trylock(&busy) == 0;
    pthread_mutex_lock(&log_lock);
    order_log[logged++] = (char)((held ? 'a' : 'A') + me);
    pthread_mutex_unlock(&log_lock);
    if (held) pthread_mutex_unlock(&busy);
    pthread_rwlock_rdlock(&length_lock);
    volatile size_t seen = logged;
    (void)seen;
    pthread_rwlock_unlock(&length_lock);
    put(me);
    sem_wait(&baton);
    sem_post(&baton);
  }
  return NULL;
}

static void* consume(void* arg) {
  for (int i = 0; i < threads * steps; ++i) consumed[i] = (char)('a' + take());
  return arg;
}

int main(int argc, char** argv) {
  threads = argc > 1 ? atoi(argv[1]) : 4;
  steps = argc > 2 ? atoi(argv[2]) : 50;
  if (threads < 1 || threads > kMaxThreads || steps < 1 || threads * steps >= (int)sizeof consumed) return 2;
  sem_init(&baton, 0, 1);
  pthread_t workers[kMaxThreads], consumer;
  pthread_create(&consumer, NULL, consume, NULL);
  for (long t = 0; t < threads; ++t) pthread_create(&workers[t], NULL, work, (void*)t);
  for (int t = 0; t < threads; ++t) pthread_join(workers[t], NULL);
  pthread_join(consumer, NULL);
  printf("log %s\nconsumed %s\n", order_log, consumed);
  return 0;
}
