// Hands the kernel its own pid as getpid() gave it (F_SETOWN, as nginx
// does for its channels), in the parent and in a forked child.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void own(int fd, const char* who) {
  int r = fcntl(fd, F_SETOWN, getpid());
  printf("%s: F_SETOWN %s\n", who, r == 0 ? "ok" : strerror(errno));
  fflush(stdout);
}

int main(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
  own(sv[0], "parent");
  pid_t child = fork();
  if (child == 0) {
    own(sv[1], "child");
    _exit(0);
  }
  waitpid(child, NULL, 0);
  return 0;
}
