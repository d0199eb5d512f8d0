/* Two threads that meet through flags in memory, with no call between:
 * the second spins until the first sets a flag, writes to a pipe, then
 * sets a flag of its own the first spins on before its next call. In the
 * recorded order the second's write comes before the first's next call,
 * yet the first sets its flag only after its previous one: a re-run that
 * held the first to that order would wait for ever. (The second flag
 * makes that order certain: a read of the pipe alone can be counted
 * before the write that filled it.)
 *   spin_flag */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int go, written, to_first[2], aside[2];

static void* second(void* arg) {
  while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
  }
  write(to_first[1], "go", 2);
  __atomic_store_n(&written, 1, __ATOMIC_RELEASE);
  return arg;
}

int main(void) {
  if (pipe(to_first) != 0 || pipe(aside) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, second, NULL);
  usleep(1000);
  write(aside[1], "x", 1);  // a call, then the flag, then the next call
  __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
  while (!__atomic_load_n(&written, __ATOMIC_ACQUIRE)) {
  }
  char got[2];
  const ssize_t n = read(to_first[0], got, sizeof got);
  pthread_join(t, NULL);
  printf("setting the flag\ngot %zd bytes\n", n);
  return 0;
}
