// Sends a message, then crashes: the log keeps the message and the crash
// shows in the parent's wait status.
#include <signal.h>
#include <sys/wait.h>

#include "common.h"

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    writeAll(p[1], "last words", 10);
    abort();
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  char buf[10];
  readAll(p[0], buf, 10);
  return 0;
}
