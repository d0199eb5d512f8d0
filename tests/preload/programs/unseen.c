// A parent and its child meet through something radar does not record,
// one mechanism per mode; the child prints what it got, the parent waits.
//   shm      anonymous shared memory and a process-shared semaphore
//   sem      a POSIX named semaphore the child posts
//   raw      the parent writes to a pipe with syscall(SYS_writev)
//   rawmix   the parent writes 8 bytes with syscall(SYS_writev), then 8
//            with write(); the child reads all 16 at once
//   rawrw    the parent writes with syscall(SYS_write) and closes with
//            syscall(SYS_close), the child reads with syscall(SYS_read), as
//            libuv does: recorded as the calls they are
//   rawsocket  makes a socket with syscall(SYS_socket), prints its number
//            and closes it with syscall(SYS_close): unseen, as a whole
#include <fcntl.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "common.h"

// The pipe modes: the child reads what the parent wrote (unseen but with
// rawrw).
static int overPipe(int rawrw) {
  int p[2];
  CHECK(pipe(p) == 0);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[1]);
    char b[16] = "";
    const ssize_t n = rawrw ? syscall(SYS_read, p[0], b, sizeof b - 1) : read(p[0], b, sizeof b - 1);
    printf("child read %zd: %s", n, b);
    return n == 6 ? 0 : 1;
  }
  close(p[0]);
  if (rawrw) {
    CHECK(syscall(SYS_write, p[1], "hello\n", 6) == 6);
  } else {
    struct iovec v = {"hello\n", 6};
    CHECK(syscall(SYS_writev, p[1], &v, 1) == 6);
  }
  if (rawrw)
    CHECK(syscall(SYS_close, p[1]) == 0);
  else
    close(p[1]);
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// Eight bytes written unseen, then eight written through the C library,
// all before the child reads them at once.
static int mixedPipe(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  struct iovec v = {"PING-raw", 8};
  CHECK(syscall(SYS_writev, p[1], &v, 1) == 8);
  CHECK(write(p[1], "PING-lib", 8) == 8);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    char b[64] = "";
    const ssize_t n = read(p[0], b, sizeof b - 1);
    printf("child read %zd: %s\n", n, b);
    return n == 16 ? 0 : 1;
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int waitChild(pid_t child) {
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "raw") || !strcmp(mode, "rawrw")) return overPipe(!strcmp(mode, "rawrw"));
  if (!strcmp(mode, "rawmix")) return mixedPipe();
  if (!strcmp(mode, "rawsocket")) {
    const long s = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    printf("socket %ld\n", s);
    fflush(stdout);
    return syscall(SYS_close, s) == 0 ? 0 : 1;
  }
  char name[64];
  snprintf(name, sizeof name, "/radar-unseen-%d", (int)getpid());
  if (!strcmp(mode, "shm")) {
    struct Shared {
      sem_t ready;
      char text[16];
    }* s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(s != MAP_FAILED);
    CHECK(sem_init(&s->ready, 1, 0) == 0);
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      strcpy(s->text, "hello");
      return sem_post(&s->ready) == 0 ? 0 : 1;
    }
    CHECK(sem_wait(&s->ready) == 0);
    printf("parent read %s\n", s->text);
    return waitChild(child);
  }
  if (!strcmp(mode, "sem")) {
    sem_t* sem = sem_open(name, O_CREAT, 0600, 0);
    CHECK(sem != SEM_FAILED);
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) return sem_post(sem) == 0 ? 0 : 1;
    CHECK(sem_wait(sem) == 0);
    sem_unlink(name);
    printf("parent was posted\n");
    return waitChild(child);
  }
  fprintf(stderr, "usage: unseen shm|sem|raw|rawmix|rawrw|rawsocket\n");
  return 2;
}
