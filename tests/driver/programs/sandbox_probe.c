// Leaves marks on the world that radar's replay library neither sees nor
// answers: files changed, a SysV shared-memory segment left behind, a TCP
// connection made by raw system calls, and (with PROBE_LINGER set) a
// process that outlives it. A sandboxed re-run must keep all of them in.
//   sandbox_probe DIR PORT IPC-KEY NAME
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void mark(const char* dir, const char* name, int flags, const char* text) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  int fd = open(path, flags, 0644);
  if (fd >= 0) {
    if (write(fd, text, strlen(text)) < 0) perror("write");
    close(fd);
  }
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const char* dir = argv[1];
  char path[4096], other[4096];
  mark(dir, "created", O_WRONLY | O_CREAT | O_TRUNC, "new\n");
  mark(dir, "existing", O_WRONLY | O_APPEND, "more\n");
  snprintf(path, sizeof(path), "%s/existing", dir);
  chmod(path, 0600);
  snprintf(path, sizeof(path), "%s/doomed", dir);
  unlink(path);
  snprintf(path, sizeof(path), "%s/made", dir);
  mkdir(path, 0755);
  snprintf(path, sizeof(path), "%s/moved", dir);
  snprintf(other, sizeof(other), "%s/made/moved", dir);
  rename(path, other);

  shmget((key_t)strtol(argv[3], NULL, 10), 4096, IPC_CREAT | 0600);

  // As a statically linked or Go program would: the kernel directly.
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2]))};
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  long s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
  if (s >= 0) {
    syscall(SYS_connect, s, &to, sizeof(to));
    syscall(SYS_close, s);
  }

  if (getenv("PROBE_LINGER")) {
    if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) == 0) {
      syscall(SYS_prctl, PR_SET_NAME, argv[4], 0, 0, 0);
      struct timespec t = {300, 0};
      syscall(SYS_nanosleep, &t, NULL);
      syscall(SYS_exit_group, 0);
    }
  }
  printf("done\n");
  return 0;
}
