// One call of each family radar records (readiness calls too), each with a result that does not
// depend on timing (a child writes and ends before its parent reads), so
// that two recordings of it, by the interposer and by the fallback
// recorder, hold the same events. Built dynamic and static.
//   call_families          prints "call families: done"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(c)                                                     \
  do {                                                               \
    if (!(c)) {                                                      \
      fprintf(stderr, "call_families: line %d: %s\n", __LINE__, #c); \
      exit(2);                                                       \
    }                                                                \
  } while (0)

static volatile sig_atomic_t got;
static void onSignal(int sig) { got = sig; }

// pipe, fork, write, writev, read, readv, dup2, fcntl(F_DUPFD), close, wait4.
static void pipes(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[0]);
    CHECK(write(p[1], "hello", 5) == 5);
    struct iovec v[2] = {{"ab", 2}, {"cdef", 4}};
    CHECK(writev(p[1], v, 2) == 6);
    CHECK(dup2(p[1], 9) == 9);
    CHECK(write(9, "!", 1) == 1);
    int high = fcntl(p[1], F_DUPFD, 20);
    CHECK(high >= 20);
    CHECK(write(high, "?", 1) == 1);
    _exit(3);
  }
  close(p[1]);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WEXITSTATUS(status) == 3);
  char a[5], b[8];
  struct iovec v[2] = {{a, sizeof a}, {b, sizeof b}};
  CHECK(readv(p[0], v, 2) == 13);
  char end[4];
  CHECK(read(p[0], end, sizeof end) == 0);
  close(p[0]);
}

// socketpair (stream and datagram), send/recv, sendmsg/recvmsg with a
// descriptor passed, sendmmsg/recvmmsg, shutdown.
static void unixSockets(void) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  CHECK(send(sv[0], "ping", 4, 0) == 4);
  char buf[16];
  CHECK(recv(sv[1], buf, sizeof buf, 0) == 4);
  int p[2];
  CHECK(pipe(p) == 0);
  char cbuf[CMSG_SPACE(sizeof(int))];
  memset(cbuf, 0, sizeof cbuf);
  struct iovec iov = {"F", 1};
  struct msghdr m = {0};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = sizeof cbuf;
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &p[1], sizeof(int));
  CHECK(sendmsg(sv[0], &m, 0) == 1);
  char got_byte;
  struct iovec in = {&got_byte, 1};
  struct msghdr r = {0};
  r.msg_iov = &in;
  r.msg_iovlen = 1;
  r.msg_control = cbuf;
  r.msg_controllen = sizeof cbuf;
  CHECK(recvmsg(sv[1], &r, 0) == 1);
  int passed;
  memcpy(&passed, CMSG_DATA(CMSG_FIRSTHDR(&r)), sizeof(int));
  CHECK(write(passed, "via", 3) == 3);
  CHECK(read(p[0], buf, sizeof buf) == 3);
  close(passed);
  close(p[0]);
  close(p[1]);
  CHECK(shutdown(sv[0], SHUT_WR) == 0);
  CHECK(recv(sv[1], buf, sizeof buf, 0) == 0);
  close(sv[0]);
  close(sv[1]);

  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
  struct iovec parts[2] = {{"one", 3}, {"three", 5}};
  struct mmsghdr out[2];
  memset(out, 0, sizeof out);
  out[0].msg_hdr.msg_iov = &parts[0];
  out[0].msg_hdr.msg_iovlen = 1;
  out[1].msg_hdr.msg_iov = &parts[1];
  out[1].msg_hdr.msg_iovlen = 1;
  CHECK(sendmmsg(sv[0], out, 2, 0) == 2);
  char x[8], y[8];
  struct iovec into[2] = {{x, sizeof x}, {y, sizeof y}};
  struct mmsghdr back[2];
  memset(back, 0, sizeof back);
  back[0].msg_hdr.msg_iov = &into[0];
  back[0].msg_hdr.msg_iovlen = 1;
  back[1].msg_hdr.msg_iov = &into[1];
  back[1].msg_hdr.msg_iovlen = 1;
  CHECK(recvmmsg(sv[1], back, 2, 0, NULL) == 2);
  close(sv[0]);
  close(sv[1]);
}

// TCP and UDP on the loopback: socket, bind, listen, connect, accept4,
// sendto/recvfrom with addresses.
static void inet(void) {
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHECK(l >= 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(bind(l, (struct sockaddr*)&a, sizeof a) == 0);
  socklen_t len = sizeof a;
  CHECK(getsockname(l, (struct sockaddr*)&a, &len) == 0);
  CHECK(listen(l, 4) == 0);
  int c = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(c >= 0 && connect(c, (struct sockaddr*)&a, sizeof a) == 0);
  struct sockaddr_in peer;
  len = sizeof peer;
  int s = accept4(l, (struct sockaddr*)&peer, &len, SOCK_CLOEXEC);
  CHECK(s >= 0);
  CHECK(write(c, "GET /\n", 6) == 6);
  char buf[16];
  CHECK(recv(s, buf, 6, MSG_WAITALL) == 6);
  close(c);
  CHECK(read(s, buf, sizeof buf) == 0);
  close(s);
  close(l);

  int u = socket(AF_INET, SOCK_DGRAM, 0), v = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(u >= 0 && v >= 0);
  a.sin_port = 0;
  CHECK(bind(u, (struct sockaddr*)&a, sizeof a) == 0);
  len = sizeof a;
  CHECK(getsockname(u, (struct sockaddr*)&a, &len) == 0);
  CHECK(sendto(v, "datagram", 8, 0, (struct sockaddr*)&a, sizeof a) == 8);
  len = sizeof peer;
  CHECK(recvfrom(u, buf, sizeof buf, 0, (struct sockaddr*)&peer, &len) == 8);
  close(u);
  close(v);
}

// kill with a handler, a read interrupted by one (EINTR), waitid, a wait4
// that asks no status.
static void signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onSignal;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  CHECK(kill(getpid(), SIGUSR1) == 0 && got == SIGUSR1);
  int p[2];
  CHECK(pipe(p) == 0);
  alarm(1);
  char b;
  CHECK(read(p[0], &b, 1) == -1 && errno == EINTR && got == SIGALRM);
  close(p[0]);
  close(p[1]);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) _exit(5);
  siginfo_t info;
  CHECK(waitid(P_PID, (id_t)child, &info, WEXITED) == 0 && info.si_status == 5);
  child = fork();
  CHECK(child >= 0);
  if (child == 0) _exit(6);
  CHECK(wait4(child, NULL, 0, NULL) == child);
}

// poll, select, epoll_ctl and epoll_wait on a pipe with bytes in it (each
// ready at once: its result does not depend on timing), then the read.
static void readiness(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  CHECK(write(p[1], "ready", 5) == 5);
  struct pollfd fds[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};
  CHECK(poll(fds, 2, 1000) == 2);
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(p[0], &readable);
  struct timeval patience = {1, 500000};
  CHECK(select(p[0] + 1, &readable, NULL, NULL, &patience) == 1);
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  CHECK(ep >= 0);
  struct epoll_event interest = {EPOLLIN, {.u64 = 42}};
  CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &interest) == 0);
  struct epoll_event got_events[4];
  CHECK(epoll_wait(ep, got_events, 4, 1000) == 1 && got_events[0].data.u64 == 42);
  char b[5];
  CHECK(read(p[0], b, sizeof b) == 5);
  close(ep);
  close(p[0]);
  close(p[1]);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  pipes();
  readiness();
  unixSockets();
  inet();
  signals();
  printf("call families: done\n");
  return 0;
}
