// Programs whose re-runs used to diverge though nothing differed:
//   vfork   a vfork() child that calls _exit() without an exec (the re-run
//           took the child's branch);
//   cancel  a thread cancelled while it waits in read() (the call never
//           returned, so the log had no event for it);
//   closed  started with descriptors 0 to 2 closed (its first pipe is 0
//           and 1, which the re-run had open);
//   exit    exits while another thread waits in read() (the re-run's
//           thread reached the read past its last event and diverged);
//   closefrom, close_range  a child closes the pipes it inherited with
//           closefrom() or close_range() but for one, then reads it (the
//           re-run diverged on the closes);
//   devnull  points its stdout at /dev/null with dup2() and closes every
//           descriptor it lists in /proc/self/fd, as dnsmasq does (the
//           re-run took the file's number for an inherited channel);
//   fifo     a parent and its child meet at a FIFO (the re-run's open
//           waited forever for the other side, which does not run there);
//   peektrunc  peeks at a datagram with MSG_PEEK|MSG_TRUNC and a small
//           buffer, then reads it whole, as dnsmasq does with netlink (the
//           real length, longer than the buffer, was called damage).
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int p[2];

static void* waitForever(void* arg) {
  char b[8];
  (void)!read(p[0], b, sizeof b);
  return arg;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (pipe(p) != 0) return 10;
  if (strcmp(mode, "vfork") == 0) {
    const pid_t child = vfork();
    if (child == 0) _exit(7);
    int status = 0;
    if (waitpid(child, &status, 0) != child) return 11;
    printf("child %d\n", WEXITSTATUS(status));
  } else if (strcmp(mode, "cancel") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, waitForever, NULL) != 0) return 12;
    usleep(50000);
    pthread_cancel(t);
    pthread_join(t, NULL);
    printf("cancelled\n");
  } else if (strcmp(mode, "exit") == 0) {
    pthread_t t;
    if (pthread_create(&t, NULL, waitForever, NULL) != 0) return 12;
    usleep(50000);
    printf("exiting\n");
    exit(0);
  } else if (strcmp(mode, "closefrom") == 0 || strcmp(mode, "close_range") == 0) {
    int q[2];
    if (pipe(q) != 0) return 18;
    fflush(stdout);
    const pid_t child = fork();
    if (child < 0) return 19;
    if (child == 0) {
      // Keep the reading end at 3 or 10, close every other inherited end.
      const int keep = strcmp(mode, "closefrom") == 0 ? 3 : 10;
      if (dup2(q[0], keep) != keep) _exit(20);
      if (keep == 3)
        closefrom(4);
      else if (close_range(3, 9, 0) != 0 || close_range(11, ~0u, 0) != 0)
        _exit(21);
      char b[16] = "";
      const ssize_t n = read(keep, b, sizeof b - 1);
      printf("child read %zd: %s", n, b);
      fflush(stdout);
      _exit(n == 9 ? 0 : 22);
    }
    close(q[0]);
    if (write(q[1], "from pa!\n", 9) != 9) return 23;
    close(q[1]);
    int status = 0;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 25;
    printf("child %d\n", WEXITSTATUS(status));
  } else if (strcmp(mode, "devnull") == 0) {
    printf("quiet from now on\n");
    fflush(stdout);
    const int null = open("/dev/null", O_RDWR);
    const int moved = fcntl(null, F_DUPFD, 9);  // at 9, as dnsmasq's
    close(null);
    if (moved < 0 || dup2(moved, 1) != 1) return 26;
    DIR* d = opendir("/proc/self/fd");
    if (!d) return 27;
    int fds[64], n = 0;
    for (struct dirent* e; (e = readdir(d)) && n < 64;)
      if (e->d_name[0] != '.') fds[n++] = atoi(e->d_name);
    const int listing = dirfd(d);
    for (int i = 0; i < n; ++i)
      if (fds[i] > 2 && fds[i] != listing) close(fds[i]);
    closedir(d);
    p[0] = p[1] = -1;
    return 0;
  } else if (strcmp(mode, "fifo") == 0) {
    char dir[] = "/tmp/radar-fifo-XXXXXX";
    if (!mkdtemp(dir)) return 28;
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    if (mkfifo(path, 0600) != 0) return 29;
    fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      const int w = open(path, O_WRONLY);
      _exit(w >= 0 && write(w, "through the fifo\n", 17) == 17 ? 0 : 30);
    }
    const int r = open(path, O_RDONLY);
    char b[32] = "";
    const ssize_t n = r >= 0 ? read(r, b, sizeof b - 1) : -1;
    int status = 0;
    waitpid(child, &status, 0);
    unlink(path);
    rmdir(dir);
    printf("read %zd: %s", n, b);
    if (n != 17 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 31;
  } else if (strcmp(mode, "peektrunc") == 0) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) != 0) return 16;
    char message[252];
    memset(message, 'm', sizeof message);
    if (send(sv[0], message, sizeof message, 0) != (ssize_t)sizeof message) return 17;
    char small[100];
    struct iovec iov = {small, sizeof small};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    const ssize_t length = recvmsg(sv[1], &msg, MSG_PEEK | MSG_TRUNC);
    char* whole = malloc(length > 0 ? (size_t)length : 1);
    const ssize_t got = recv(sv[1], whole, length > 0 ? (size_t)length : 1, 0);
    printf("peeked %zd, read %zd, %s\n", length, got, got == length && whole[length - 1] == 'm' ? "whole" : "cut");
    free(whole);
  } else if (strcmp(mode, "closed") == 0) {
    // No stdout: the answer is the exit status.
    return p[0] == 0 && p[1] == 1 ? 0 : 13;
  } else {
    return 2;
  }
  if (write(p[1], "x", 1) != 1) return 14;
  char b;
  if (read(p[0], &b, 1) != 1) return 15;
  printf("done\n");
  return 0;
}
