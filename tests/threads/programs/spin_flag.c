/* Two threads that meet through a flag in memory, with no call between:
 * the second spins until the first sets it, then writes to a pipe the
 * first reads. In the recorded order the second's write comes before the
 * first's next call, yet the first sets the flag only after its previous
 * one: a re-run that held the first to that order would wait for ever.
 *   spin_flag */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int flag, to_first[2], aside[2];

static void* second(void* arg) {
  while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
  }
  write(to_first[1], "go", 2);
  return arg;
}

int main(void) {
  if (pipe(to_first) != 0 || pipe(aside) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, second, NULL);
  usleep(1000);
  write(aside[1], "x", 1);  // a call, then the flag, then the next call
  __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
  char got[2];
  const ssize_t n = read(to_first[0], got, sizeof got);
  pthread_join(t, NULL);
  printf("setting the flag\ngot %zd bytes\n", n);
  return 0;
}
