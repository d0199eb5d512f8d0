// Keeps a pointer in each epoll registration (epoll_event.data.ptr), as
// nginx and most event loops do, and follows it when epoll_wait returns:
// a re-run handed the recorded run's pointers would follow addresses of
// another address space.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
  int fd;
  char name[16];
  int got;
};

int main(void) {
  int a[2], b[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0) return 2;
  const int ep = epoll_create1(0);
  struct conn* conns[2];
  for (int i = 0; i < 2; ++i) {
    conns[i] = calloc(1, sizeof(struct conn));
    conns[i]->fd = i == 0 ? a[0] : b[0];
    snprintf(conns[i]->name, sizeof conns[i]->name, "conn-%d", i);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = conns[i]};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, conns[i]->fd, &ev) != 0) return 2;
  }
  if (write(a[1], "hello", 5) != 5 || write(b[1], "world!", 6) != 6) return 2;
  int left = 2;
  while (left > 0) {
    struct epoll_event out[4];
    const int n = epoll_wait(ep, out, 4, 1000);
    if (n <= 0) return 3;
    for (int k = 0; k < n; ++k) {
      struct conn* c = out[k].data.ptr;
      char buf[16];
      const ssize_t r = read(c->fd, buf, sizeof buf);
      if (r <= 0) return 4;
      c->got += (int)r;
      printf("%s: %.*s\n", c->name, (int)r, buf);
      --left;
    }
  }
  return 0;
}
