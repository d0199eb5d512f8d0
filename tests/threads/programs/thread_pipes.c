/* Many threads, each making a pipe, sending itself bytes through it and
 * closing it: numbers freed by one thread's close are made again by
 * another's pipe at once, often before that close returns.
 *   thread_pipes THREADS ROUND_TRIPS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rounds;

static void* trips(void* arg) {
  int p[2];
  if (pipe(p) != 0) return NULL;
  char c = 'x';
  for (int i = 0; i < rounds; ++i)
    if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) break;
  close(p[0]);
  close(p[1]);
  return arg;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int threads = atoi(argv[1]);
  rounds = atoi(argv[2]);
  pthread_t* t = calloc((size_t)threads, sizeof *t);
  if (!t) return 2;
  for (int i = 0; i < threads; ++i)
    if (pthread_create(&t[i], NULL, trips, NULL) != 0) return 2;
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  printf("%d threads, %d round trips each\n", threads, rounds);
  free(t);
  return 0;
}
