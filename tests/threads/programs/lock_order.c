/* Two threads that take two mutexes in opposite orders, one after the
 * other, so that this run never deadlocks (a run where they overlapped
 * could):
 *   lock_order          the first takes a then b, the second b then a
 *   lock_order gated    the same, each under a third mutex: never a deadlock
 *   lock_order same     one thread takes them in both orders: never a deadlock */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER, gate = PTHREAD_MUTEX_INITIALIZER;
static int gated;

static void both(pthread_mutex_t* first, pthread_mutex_t* second) {
  if (gated) pthread_mutex_lock(&gate);
  pthread_mutex_lock(first);
  pthread_mutex_lock(second);
  pthread_mutex_unlock(second);
  pthread_mutex_unlock(first);
  if (gated) pthread_mutex_unlock(&gate);
}

static void* forwards(void* arg) {
  both(&a, &b);
  return arg;
}
static void* backwards(void* arg) {
  both(&b, &a);
  return arg;
}

int main(int argc, char** argv) {
  gated = argc > 1 && strcmp(argv[1], "gated") == 0;
  if (argc > 1 && strcmp(argv[1], "same") == 0) {
    forwards(NULL);
    backwards(NULL);
  } else {
    pthread_t t;
    pthread_create(&t, NULL, forwards, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, backwards, NULL);
    pthread_join(t, NULL);
  }
  puts("done");
  return 0;
}
