// Every family of hooked calls, made by several threads, under a storm of
// signals whose handler makes recorded calls of its own: the interposer's
// reentrancy under load (the rule is written at the top of hooks.cc).
//
//   signal_storm SECONDS INTERVAL_US THREADS
//
// A process-wide interval timer and one timer per worker thread deliver
// SIGALRM every INTERVAL_US. The handler writes '!' to a pipe, sends a
// datagram, records a user event, and every 16th time makes and closes a
// pipe. The workers send and receive on pipes and socket pairs with every
// send and receive call, wait with poll/select/epoll, make and close
// descriptors, and fork a child now and then. Everything is checked as it
// goes: a byte received that differs from the byte sent aborts. At the end
// it prints what it did, for the test to compare with the log:
//   handler_writes=N handler_events=N handler_datagrams=N forks=N iterations=N
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "common.h"
#include "radar/radar.h"

static int g_notify[2];  // handler -> drainer, '!' bytes
static int g_dgram[2];   // handler -> drainer, datagrams
static atomic_long g_handler_writes, g_handler_events, g_handler_datagrams, g_handler_pipes;
static atomic_long g_forks, g_iterations;
static atomic_int g_stop;

static void onTick(int sig) {
  (void)sig;
  const int saved = errno;
  if (write(g_notify[1], "!", 1) == 1) atomic_fetch_add(&g_handler_writes, 1);
  if (send(g_dgram[0], "tick", 4, MSG_DONTWAIT) == 4) atomic_fetch_add(&g_handler_datagrams, 1);
  if (radar_event("tick", "t", 1) >= 0) atomic_fetch_add(&g_handler_events, 1);
  if ((atomic_fetch_add(&g_handler_pipes, 1) & 15) == 0) {
    int p[2];
    if (pipe(p) == 0) {
      close(p[0]);
      close(p[1]);
    }
  }
  errno = saved;
}

static double nowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// Waits with each readiness call in turn until `fd` is readable.
static void awaitReadable(int fd, int epfd, unsigned turn) {
  for (;;) {
    int r;
    if (turn % 3 == 0) {
      struct pollfd p = {fd, POLLIN, 0};
      r = poll(&p, 1, 1000);
    } else if (turn % 3 == 1) {
      fd_set set;
      FD_ZERO(&set);
      FD_SET(fd, &set);
      struct timeval tv = {1, 0};
      r = select(fd + 1, &set, NULL, NULL, &tv);
    } else {
      struct epoll_event ev;
      r = epoll_wait(epfd, &ev, 1, 1000);
    }
    if (r > 0) return;
    CHECK(r < 0 && errno == EINTR);  // a timeout means a byte was lost
  }
}

// Calls a handler can interrupt even with SA_RESTART are made again.
#define NOINTR(call)                  \
  ({                                  \
    ssize_t r_;                       \
    do r_ = (call);                   \
    while (r_ < 0 && errno == EINTR); \
    r_;                               \
  })

struct Worker {
  int index;
  double deadline;
  unsigned interval_us;
};

static void* work(void* arg) {
  const struct Worker* w = arg;
  // This thread's own timer: signals land in workers too, not only in main.
  timer_t timer;
  struct sigevent sev;
  memset(&sev, 0, sizeof sev);
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGALRM;
  sev._sigev_un._tid = gettid();
  CHECK(timer_create(CLOCK_MONOTONIC, &sev, &timer) == 0);
  struct itimerspec its = {{0, w->interval_us * 1000L}, {0, w->interval_us * 1000L}};
  CHECK(timer_settime(timer, 0, &its, NULL) == 0);

  int p[2], s[2], d[2];
  CHECK(pipe(p) == 0);
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0);
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, d) == 0);
  const int epfd = epoll_create1(EPOLL_CLOEXEC);
  CHECK(epfd >= 0);
  struct epoll_event ev = {.events = EPOLLIN, .data.fd = p[0]};
  CHECK(epoll_ctl(epfd, EPOLL_CTL_ADD, p[0], &ev) == 0);

  unsigned char out = 0;
  char in[64];
  long iterations = 0;
  for (unsigned turn = 0; nowSeconds() < w->deadline; ++turn) {
    out = (unsigned char)('a' + turn % 26);
    // Pipes: write/read, writev/readv, with a readiness call between.
    CHECK(NOINTR(write(p[1], &out, 1)) == 1);
    awaitReadable(p[0], epfd, turn);
    CHECK(NOINTR(read(p[0], in, 1)) == 1 && (unsigned char)in[0] == out);
    struct iovec iov[2] = {{&out, 1}, {&out, 1}};
    CHECK(NOINTR(writev(p[1], iov, 2)) == 2);
    struct iovec riov[2] = {{in, 1}, {in + 1, 1}};
    CHECK(NOINTR(readv(p[0], riov, 2)) == 2);  // a writev this small is one piece
    CHECK((unsigned char)in[0] == out && (unsigned char)in[1] == out);
    // Stream sockets: send/recv, sendto/recvfrom, sendmsg/recvmsg.
    CHECK(NOINTR(send(s[0], &out, 1, 0)) == 1);
    CHECK(NOINTR(recv(s[1], in, 1, 0)) == 1 && (unsigned char)in[0] == out);
    CHECK(NOINTR(sendto(s[1], &out, 1, 0, NULL, 0)) == 1);
    CHECK(NOINTR(recvfrom(s[0], in, 1, 0, NULL, NULL)) == 1 && (unsigned char)in[0] == out);
    struct msghdr mh;
    memset(&mh, 0, sizeof mh);
    struct iovec one = {&out, 1};
    mh.msg_iov = &one;
    mh.msg_iovlen = 1;
    CHECK(NOINTR(sendmsg(s[0], &mh, 0)) == 1);
    struct iovec back = {in, 1};
    mh.msg_iov = &back;
    CHECK(NOINTR(recvmsg(s[1], &mh, 0)) == 1 && (unsigned char)in[0] == out);
    // Datagrams: sendmmsg/recvmmsg, two at once.
    struct mmsghdr mm[2];
    memset(mm, 0, sizeof mm);
    struct iovec m0 = {&out, 1}, m1 = {&out, 1};
    mm[0].msg_hdr.msg_iov = &m0;
    mm[0].msg_hdr.msg_iovlen = 1;
    mm[1].msg_hdr.msg_iov = &m1;
    mm[1].msg_hdr.msg_iovlen = 1;
    CHECK(NOINTR(sendmmsg(d[0], mm, 2, 0)) == 2);
    for (int taken = 0; taken < 2;) {
      struct mmsghdr rm[2];
      memset(rm, 0, sizeof rm);
      struct iovec r0 = {in, 1}, r1 = {in + 1, 1};
      rm[0].msg_hdr.msg_iov = &r0;
      rm[0].msg_hdr.msg_iovlen = 1;
      rm[1].msg_hdr.msg_iov = &r1;
      rm[1].msg_hdr.msg_iovlen = 1;
      const int r = (int)NOINTR(recvmmsg(d[1], rm, (unsigned)(2 - taken), 0, NULL));
      CHECK(r > 0);
      for (int i = 0; i < r; ++i) CHECK((unsigned char)in[i] == out);
      taken += r;
    }
    // Descriptors made, copied and closed.
    if (turn % 8 == 0) {
      int q[2], t[2];
      CHECK(pipe2(q, O_CLOEXEC) == 0);
      CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, t) == 0);
      const int c = dup(q[1]);
      CHECK(c >= 0);
      CHECK(dup2(t[0], c) == c);
      const int f = fcntl(q[0], F_DUPFD_CLOEXEC, 0);
      CHECK(f >= 0);
      const int n = open("/dev/null", O_RDONLY | O_CLOEXEC);
      CHECK(n >= 0);
      CHECK(close(n) == 0 && close(f) == 0 && close(c) == 0);
      CHECK(close(q[0]) == 0 && close(q[1]) == 0 && close(t[0]) == 0 && close(t[1]) == 0);
    }
    // A child now and then: forked under the storm, it sends one byte back.
    if (turn % 200 == 0) {
      int c[2];
      CHECK(pipe(c) == 0);
      const pid_t pid = fork();
      CHECK(pid >= 0);
      if (pid == 0) {
        close(c[0]);
        _exit(write(c[1], "c", 1) == 1 ? 0 : 1);
      }
      close(c[1]);
      CHECK(NOINTR(read(c[0], in, 1)) == 1 && in[0] == 'c');
      close(c[0]);
      int status = 0;
      CHECK(NOINTR(waitpid(pid, &status, 0)) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
      atomic_fetch_add(&g_forks, 1);
    }
    ++iterations;
  }
  struct itimerspec off = {{0, 0}, {0, 0}};
  timer_settime(timer, 0, &off, NULL);
  timer_delete(timer);
  close(epfd);
  close(p[0]);
  close(p[1]);
  close(s[0]);
  close(s[1]);
  close(d[0]);
  close(d[1]);
  atomic_fetch_add(&g_iterations, iterations);
  return NULL;
}

// Takes what the handlers sent until the main thread says stop, then what is left.
static void* drain(void* arg) {
  long* counts = arg;
  char buf[4096];
  int last_look = 0;
  for (;;) {
    if (!last_look && atomic_load(&g_stop)) {
      // No handler can run any more (main blocks SIGALRM too, the workers
      // are gone): what is in the channels now is all there will be.
      sigset_t alarm;
      sigemptyset(&alarm);
      sigaddset(&alarm, SIGALRM);
      CHECK(pthread_sigmask(SIG_BLOCK, &alarm, NULL) == 0);
      last_look = 1;
    }
    struct pollfd p[2] = {{g_notify[0], POLLIN, 0}, {g_dgram[1], POLLIN, 0}};
    const int r = poll(p, 2, last_look ? 0 : 20);
    if (r < 0 && errno == EINTR) continue;
    CHECK(r >= 0);
    if (r == 0 && last_look) break;
    if (p[0].revents & POLLIN) {
      const ssize_t n = read(g_notify[0], buf, sizeof buf);
      if (n > 0) {
        for (ssize_t i = 0; i < n; ++i) CHECK(buf[i] == '!');
        counts[0] += n;
      }
    }
    if (p[1].revents & POLLIN) {
      const ssize_t n = recv(g_dgram[1], buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        CHECK(n == 4 && memcmp(buf, "tick", 4) == 0);
        counts[1] += 1;
      }
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  CHECK(argc == 4);
  const double seconds = atof(argv[1]);
  const unsigned interval_us = (unsigned)atoi(argv[2]);
  const int threads = atoi(argv[3]);
  CHECK(seconds > 0 && interval_us > 0 && threads > 0 && threads <= 16);

  CHECK(pipe2(g_notify, O_NONBLOCK) == 0);
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, g_dgram) == 0);
  // The handler never blocks: a full channel drops its byte, counted as not sent.
  CHECK(fcntl(g_dgram[0], F_SETFL, O_NONBLOCK) == 0);
  CHECK(fcntl(g_notify[0], F_SETFL, 0) == 0);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onTick;
  sa.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);

  // radar_event() looks its function up once, with dlsym: not in a handler.
  radar_event("start", NULL, 0);
  long drained[2] = {0, 0};
  pthread_t drainer;
  CHECK(pthread_create(&drainer, NULL, drain, drained) == 0);

  struct itimerval it = {{0, (long)interval_us}, {0, (long)interval_us}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  pthread_t tids[16];
  struct Worker workers[16];
  const double deadline = nowSeconds() + seconds;
  for (int i = 0; i < threads; ++i) {
    workers[i] = (struct Worker){i, deadline, interval_us};
    CHECK(pthread_create(&tids[i], NULL, work, &workers[i]) == 0);
  }
  for (int i = 0; i < threads; ++i) CHECK(pthread_join(tids[i], NULL) == 0);
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
  // A SIGALRM still pending must not run a handler after the drainer's last
  // look: it stays pending, blocked in every thread left.
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  CHECK(pthread_sigmask(SIG_BLOCK, &alarm, NULL) == 0);
  atomic_store(&g_stop, 1);
  CHECK(pthread_join(drainer, NULL) == 0);

  // What the handlers sent is what the drainer took.
  CHECK(drained[0] == atomic_load(&g_handler_writes));
  CHECK(drained[1] == atomic_load(&g_handler_datagrams));
  printf("handler_writes=%ld handler_events=%ld handler_datagrams=%ld forks=%ld iterations=%ld\n",
         atomic_load(&g_handler_writes), atomic_load(&g_handler_events), atomic_load(&g_handler_datagrams),
         atomic_load(&g_forks), atomic_load(&g_iterations));
  return 0;
}
