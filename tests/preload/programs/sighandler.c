// A signal handler that writes to a pipe while the program is inside
// recorded calls of its own. Prints how many times the handler wrote.
#include <signal.h>
#include <sys/time.h>

#include "common.h"

static int g_notify[2];
static volatile sig_atomic_t g_count;

static void onTick(int sig) {
  (void)sig;
  const int saved = errno;
  if (write(g_notify[1], "!", 1) == 1) g_count++;
  errno = saved;
}

int main(void) {
  int work[2];
  CHECK(pipe(g_notify) == 0 && pipe(work) == 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onTick;
  sa.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  struct itimerval it = {{0, 200}, {0, 200}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  char buf[64];
  for (int i = 0; i < 40000 && g_count < 300; ++i) {
    writeAll(work[1], "x", 1);
    readAll(work[0], buf, 1);
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("%d\n", (int)g_count);
  return 0;
}
