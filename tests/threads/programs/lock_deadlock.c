/* Two threads that each take one mutex, meet at a barrier, then each wait
 * for the other's mutex: a deadlock, every time. After a moment the process
 * kills itself, its threads still waiting.
 *   lock_deadlock */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold;

static void crossed(pthread_mutex_t* mine, pthread_mutex_t* theirs) {
  pthread_mutex_lock(mine);
  pthread_barrier_wait(&both_hold);
  pthread_mutex_lock(theirs);
}

static void* first(void* arg) {
  crossed(&a, &b);
  return arg;
}
static void* second(void* arg) {
  crossed(&b, &a);
  return arg;
}

int main(void) {
  pthread_barrier_init(&both_hold, NULL, 2);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, first, NULL);
  pthread_create(&t2, NULL, second, NULL);
  usleep(300 * 1000);
  kill(getpid(), SIGKILL);
  return 0;
}
