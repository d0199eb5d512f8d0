/* A program whose re-run depends on recorded readiness and errors: a
 * non-blocking socket read that fails with EAGAIN, then poll() and epoll
 * over several channels fed by a child at its own pace. It prints what it
 * received, so that a re-run can be compared with the recording.
 *
 *   readiness poll|epoll
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

/* The child: one message on each channel, spaced so that the parent sees
 * them become ready one at a time. */
static void feed(int sock, int pipe1, int pipe2) {
  pause_ms(30);
  if (write(pipe1, "first", 5) != 5) _exit(1);
  pause_ms(30);
  if (write(sock, "second", 6) != 6) _exit(1);
  pause_ms(30);
  if (write(pipe2, "third", 5) != 5) _exit(1);
  _exit(0);
}

int main(int argc, char** argv) {
  const int use_epoll = argc > 1 && strcmp(argv[1], "epoll") == 0;
  int sv[2], p1[2], p2[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(p1) != 0 || pipe(p2) != 0) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(sv[0]);
    close(p1[0]);
    close(p2[0]);
    feed(sv[1], p1[1], p2[1]);
  }
  close(sv[1]);
  close(p1[1]);
  close(p2[1]);
  fcntl(sv[0], F_SETFL, O_NONBLOCK);

  char buf[64];
  /* Nothing has been sent yet: EAGAIN, which the re-run must see too. */
  const ssize_t early = read(sv[0], buf, sizeof buf);
  printf("early read: %zd (%s)\n", early, early < 0 && errno == EAGAIN ? "EAGAIN" : "data");

  const int fds[3] = {sv[0], p1[0], p2[0]};
  int epfd = -1;
  if (use_epoll) {
    epfd = epoll_create1(0);
    for (int i = 0; i < 3; ++i) {
      struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
      if (epoll_ctl(epfd, EPOLL_CTL_ADD, fds[i], &ev) != 0) return 1;
    }
  }
  int open_channels = 3, rounds = 0;
  unsigned checksum = 0;
  int done[3] = {0, 0, 0};
  while (open_channels > 0) {
    int ready[3] = {0, 0, 0};
    ++rounds;
    if (use_epoll) {
      struct epoll_event events[3];
      const int n = epoll_wait(epfd, events, 3, 1000);
      for (int i = 0; i < n; ++i) ready[events[i].data.u32] = 1;
    } else {
      struct pollfd pfd[3];
      for (int i = 0; i < 3; ++i) pfd[i] = (struct pollfd){done[i] ? -1 : fds[i], POLLIN, 0};
      if (poll(pfd, 3, 1000) < 0) return 1;
      for (int i = 0; i < 3; ++i) ready[i] = pfd[i].revents != 0;
    }
    for (int i = 0; i < 3; ++i) {
      if (!ready[i] || done[i]) continue;
      const ssize_t n = read(fds[i], buf, sizeof buf - 1);
      if (n < 0 && errno == EAGAIN) continue;
      if (n <= 0) {
        done[i] = 1;
        --open_channels;
        if (use_epoll) epoll_ctl(epfd, EPOLL_CTL_DEL, fds[i], NULL);
        continue;
      }
      buf[n] = 0;
      for (ssize_t k = 0; k < n; ++k) checksum = checksum * 31 + (unsigned char)buf[k];
      printf("channel %d: %s\n", i, buf);
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("rounds %d, checksum %u, child status %d\n", rounds, checksum, status);
  return 0;
}
