// Calls made inside an MPI call, as libradar-mpi.so tells the interposer
// (radar_mpi_inside): the writes between its +1 and -1 stand for the MPI
// library's; a signal handler's write meanwhile is the program's. Prints
// whether the interposer was there to tell.
#include <dlfcn.h>
#include <signal.h>

#include "common.h"

static int g_pipe[2];

static void onSignal(int sig) {
  (void)sig;
  const int saved = errno;
  if (write(g_pipe[1], "h", 1) != 1) g_pipe[0] = -1;
  errno = saved;
}

int main(void) {
  CHECK(pipe(g_pipe) == 0);
  void (*inside)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "radar_mpi_inside");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSignal;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  writeAll(g_pipe[1], "a", 1);  // the program's
  if (inside) inside(1);
  writeAll(g_pipe[1], "l", 1);  // the library's
  raise(SIGUSR1);               // its handler's "h": the program's
  writeAll(g_pipe[1], "l", 1);
  if (inside) inside(-1);
  writeAll(g_pipe[1], "z", 1);  // the program's again
  printf("%s\n", inside ? "told" : "not told");
  return 0;
}
