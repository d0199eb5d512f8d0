// Handlers given to pthread_atfork make recorded calls around each fork,
// as libuv's makes its signal lock (a pipe holding one byte) anew in each
// child: a re-run of the parent or of the child runs them where glibc's
// fork() would, and is fed what they read.
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int token[2];  // a pipe holding one byte, the token

static void takeToken(void) {
  char c;
  if (read(token[0], &c, 1) != 1) _exit(2);
}

static void putTokenBack(void) {
  if (write(token[1], "p", 1) != 1) _exit(2);
}

static void makeTokenAnew(void) {
  close(token[0]);
  close(token[1]);
  if (pipe(token) != 0 || write(token[1], "c", 1) != 1) _exit(3);
}

int main(void) {
  int out[2];
  if (pipe(token) != 0 || write(token[1], "m", 1) != 1 || pipe(out) != 0) return 1;
  if (pthread_atfork(takeToken, putTokenBack, makeTokenAnew) != 0) return 1;
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    char c = 0;
    const ssize_t n = read(token[0], &c, 1);
    if (dup2(out[1], 1) != 1) _exit(4);  // as a spawned child's standard output is set up
    printf("child: took %zd byte, '%c'\n", n, c);
    fflush(stdout);
    _exit(0);
  }
  close(out[1]);
  char said[64];
  const ssize_t n = read(out[0], said, sizeof said);
  int status = 0;
  waitpid(pid, &status, 0);
  char c = 0;
  if (read(token[0], &c, 1) != 1) return 1;
  printf("parent: token '%c'; %.*s", c, n > 0 ? (int)n : 0, said);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
