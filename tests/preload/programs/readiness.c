// poll, select and epoll over several pipes.
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "common.h"

int main(void) {
  int a[2], b[2];
  CHECK(pipe(a) == 0 && pipe(b) == 0);
  writeAll(b[1], "x", 1);
  struct pollfd fds[2] = {{a[0], POLLIN, 0}, {b[0], POLLIN, 0}};
  CHECK(poll(fds, 2, 1000) == 1 && fds[1].revents == POLLIN);
  CHECK(poll(fds, 1, 0) == 0);  // nothing ready: a timeout
  fd_set r;
  FD_ZERO(&r);
  FD_SET(a[0], &r);
  FD_SET(b[0], &r);
  struct timeval tv = {1, 0};
  CHECK(select((a[0] > b[0] ? a[0] : b[0]) + 1, &r, NULL, NULL, &tv) == 1 && FD_ISSET(b[0], &r));
  int ep = epoll_create1(0);
  CHECK(ep >= 0);
  struct epoll_event ev = {EPOLLIN, {.u64 = 1001}};
  CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, a[0], &ev) == 0);
  ev.data.u64 = 1002;
  CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, b[0], &ev) == 0);
  struct epoll_event out[4];
  CHECK(epoll_wait(ep, out, 4, 1000) == 1 && out[0].data.u64 == 1002);
  char c;
  CHECK(read(b[0], &c, 1) == 1);
  return 0;
}
