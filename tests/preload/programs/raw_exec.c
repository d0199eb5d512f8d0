// A child that executes echo through a raw execve system call with a
// scrubbed environment: radar cannot see the exec, nor record echo. It
// must say so, not let the story end silently.
#include <sys/syscall.h>
#include <sys/wait.h>

#include "common.h"

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    CHECK(dup2(p[1], 1) == 1);
    close(p[0]);
    close(p[1]);
    char* argv[] = {"echo", "hello", NULL};
    char* envp[] = {"PATH=/bin:/usr/bin", NULL};
    syscall(SYS_execve, "/bin/echo", argv, envp);
    _exit(127);
  }
  close(p[1]);
  char b[64];
  const ssize_t n = read(p[0], b, sizeof b);
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  printf("got %zd bytes, child %d\n", n, WEXITSTATUS(status));
  return 0;
}
