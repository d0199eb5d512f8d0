// A parent and its child talk through io_uring (liburing), or through the
// C library's calls that do the same, one request for one call, so that
// the fallback recorder's log of the first can be held against the
// interposer's log of the second. Each process makes its own ring after
// the fork; the C library's twin opens /dev/null in its place, so that
// descriptor numbers agree.
//   pipe     the parent writes to a pipe (a write, then a writev linked to
//            it, submitted together) and closes it; the child reads to the
//            end of the stream
//   socket   a TCP connection on loopback: the child connects, sends,
//            receives the answer, then a sendmsg and a recvmsg, and shuts
//            its side; the parent accepts and answers
//   sqpoll   the pipe's writes through a ring the kernel polls (the
//            fallback cannot follow it: said as unseen)
//   writer   the parent writes "hello\n" to the pipe through its ring, the
//            child reads it with read()
//   reuse    the child submits a readv on the pipe, then reuses the
//            vector's memory before the data comes (the kernel copied it
//            when it took the request); the parent writes once told
// With "libc" after the mode, the same through read, write, writev,
// close, connect, send, recv, sendmsg, recvmsg, accept and shutdown.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "common.h"

#ifdef HAVE_LIBURING
static struct io_uring ring;
#endif
static int use_ring = 1, sqpoll = 0;

// The ring, or /dev/null where it would be.
static void setUp(void) {
  if (!use_ring) {
    CHECK(open("/dev/null", O_RDONLY) >= 0);
    return;
  }
#ifdef HAVE_LIBURING
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  if (sqpoll) {
    p.flags = IORING_SETUP_SQPOLL;
    p.sq_thread_idle = 100;
  }
  const int made = io_uring_queue_init_params(8, &ring, &p);
  if (made == -ENOSYS || made == -EPERM) {  // (a kernel or a sandbox without it)
    fprintf(stderr, "io_uring is not available: %s\n", strerror(-made));
    exit(77);
  }
  CHECK(made == 0);
#endif
}

#ifdef HAVE_LIBURING
// The next completion's result.
static int completed(void) {
  struct io_uring_cqe* cqe;
  CHECK(io_uring_wait_cqe(&ring, &cqe) == 0);
  const int res = cqe->res;
  io_uring_cqe_seen(&ring, cqe);
  return res;
}

// Submits what was prepared, and waits for its completion.
static ssize_t done(void) {
  CHECK(io_uring_submit(&ring) == 1);
  const int res = completed();
  if (res < 0) errno = -res;
  return res < 0 ? -1 : res;
}

static struct io_uring_sqe* next(void) {
  struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  CHECK(sqe != NULL);
  return sqe;
}
#define RING(prep, ...) (io_uring_prep_##prep(next(), __VA_ARGS__), done())
#else
#define RING(prep, ...) (fprintf(stderr, "built without liburing\n"), exit(77), -1)
#endif

static ssize_t doRead(int fd, void* b, size_t n) { return use_ring ? RING(read, fd, b, n, -1) : read(fd, b, n); }
static ssize_t doSend(int fd, const void* b, size_t n) {
  return use_ring ? RING(send, fd, b, n, 0) : send(fd, b, n, 0);
}
static ssize_t doRecv(int fd, void* b, size_t n) { return use_ring ? RING(recv, fd, b, n, 0) : recv(fd, b, n, 0); }
static int doClose(int fd) { return use_ring ? (int)RING(close, fd) : close(fd); }
static ssize_t doSendmsg(int fd, const struct msghdr* m) {
  return use_ring ? RING(sendmsg, fd, m, 0) : sendmsg(fd, m, 0);
}
static ssize_t doRecvmsg(int fd, struct msghdr* m) { return use_ring ? RING(recvmsg, fd, m, 0) : recvmsg(fd, m, 0); }
static int doAccept(int fd, struct sockaddr_in* a, socklen_t* len) {
  return use_ring ? (int)RING(accept, fd, (struct sockaddr*)a, len, 0) : accept(fd, (struct sockaddr*)a, len);
}
static int doConnect(int fd, const struct sockaddr_in* a) {
  return use_ring ? (int)RING(connect, fd, (const struct sockaddr*)a, sizeof *a)
                  : connect(fd, (const struct sockaddr*)a, sizeof *a);
}
static int doShutdown(int fd) { return use_ring ? (int)RING(shutdown, fd, SHUT_WR) : shutdown(fd, SHUT_WR); }

// A write and a writev after it: submitted together, linked so that they
// happen in that order.
static void writeTwo(int fd) {
  static char tail1[] = "two ", tail2[] = "three\n";
  struct iovec v[2] = {{tail1, 4}, {tail2, 6}};
  if (!use_ring) {
    CHECK(write(fd, "one\n", 4) == 4);
    CHECK(writev(fd, v, 2) == 10);
    return;
  }
#ifdef HAVE_LIBURING
  struct io_uring_sqe* sqe = next();
  io_uring_prep_write(sqe, fd, "one\n", 4, -1);
  sqe->flags |= IOSQE_IO_LINK;
  io_uring_sqe_set_data64(sqe, 1);
  sqe = next();
  io_uring_prep_writev(sqe, fd, v, 2, -1);
  io_uring_sqe_set_data64(sqe, 2);
  CHECK(io_uring_submit(&ring) == 2);
  CHECK(completed() == 4);
  CHECK(completed() == 10);
#endif
}

static int overPipe(int child_reads_with_libc) {
  int p[2];
  CHECK(pipe(p) == 0);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[1]);
    if (child_reads_with_libc) use_ring = 0;
    setUp();
    char b[64];
    size_t have = 0;
    ssize_t n;
    // As much as each write wrote (each read then returns the same,
    // however the writes and reads interleave), then to the end.
    for (size_t i = 0; i < 2 && !child_reads_with_libc; ++i) {
      const size_t want = i == 0 ? 4 : 10;
      CHECK(doRead(p[0], b + have, want) == (ssize_t)want);
      have += want;
    }
    while ((n = doRead(p[0], b + have, sizeof b - 1 - have)) > 0) have += (size_t)n;
    CHECK(n == 0);
    b[have] = 0;
    printf("child read %zu: %s", have, b);
    return 0;
  }
  close(p[0]);
  setUp();
  if (child_reads_with_libc)
    CHECK(RING(write, p[1], "hello\n", 6, -1) == 6);
  else
    writeTwo(p[1]);
  CHECK(doClose(p[1]) == 0);
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// The readv's vector is made and spoiled in a function of its own: what
// the kernel took is all that says where the bytes go.
static void submitReadv(int fd, char* into, size_t len) {
#ifdef HAVE_LIBURING
  struct iovec v[2] = {{into, 2}, {into + 2, len - 2}};
  io_uring_prep_readv(next(), fd, v, 2, -1);
  CHECK(io_uring_submit(&ring) == 1);
  memset(v, 0, sizeof v);
  __asm__ volatile("" ::"r"(v) : "memory");  // (the spoiling is kept)
#else
  (void)fd, (void)into, (void)len;
  exit(77);
#endif
}

static int reusedVector(void) {
  int data[2], told[2];
  CHECK(pipe(data) == 0 && pipe(told) == 0);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(data[1]);
    setUp();
    char b[16] = "";
    submitReadv(data[0], b, sizeof b - 1);
    CHECK(write(told[1], "s", 1) == 1);
#ifdef HAVE_LIBURING
    CHECK(completed() == 6);
#endif
    printf("child read: %s", b);
    return 0;
  }
  close(data[0]);
  char s;
  CHECK(read(told[0], &s, 1) == 1);
  CHECK(write(data[1], "hello\n", 6) == 6);
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// The child connects to the parent's listening socket, says "ping",
// reads "pong", sends a two-part message with sendmsg, reads the answer
// with recvmsg, and shuts its side; the parent answers each.
static int overSocket(void) {
  const int listening = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(listening >= 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  CHECK(bind(listening, (struct sockaddr*)&a, sizeof a) == 0 && listen(listening, 1) == 0);
  CHECK(getsockname(listening, (struct sockaddr*)&a, &len) == 0);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  char b[64] = "";
  char part1[] = "sendmsg ", part2[] = "in two parts";
  struct iovec v[2] = {{part1, 8}, {part2, 12}};
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = v;
  m.msg_iovlen = 2;
  if (child == 0) {
    close(listening);
    setUp();
    const int s = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(s >= 0 && doConnect(s, &a) == 0);
    CHECK(doSend(s, "ping", 4) == 4 && doRecv(s, b, 4) == 4);
    CHECK(doSendmsg(s, &m) == 20);
    struct iovec back = {b + 4, 20};
    struct msghdr r = {.msg_iov = &back, .msg_iovlen = 1};
    CHECK(doRecvmsg(s, &r) == 20);
    CHECK(doShutdown(s) == 0 && doRecv(s, b + 24, 8) == 0);
    printf("child got %.24s\n", b);
    CHECK(doClose(s) == 0);
    return 0;
  }
  setUp();
  struct sockaddr_in peer;
  socklen_t peer_len = sizeof peer;
  const int c = doAccept(listening, &peer, &peer_len);
  CHECK(c >= 0 && peer_len == sizeof peer);
  CHECK(doRecv(c, b, 4) == 4 && doSend(c, "pong", 4) == 4);
  struct iovec in = {b, 20};
  struct msghdr r = {.msg_iov = &in, .msg_iovlen = 1};
  size_t got = 0;
  while (got < 20) {  // (a stream: the two parts may come apart)
    in.iov_base = b + got;
    in.iov_len = 20 - got;
    const ssize_t n = doRecvmsg(c, &r);
    CHECK(n > 0);
    got += (size_t)n;
  }
  CHECK(doSendmsg(c, &m) == 20 && doRecv(c, b + 20, 8) == 0);
  CHECK(doClose(c) == 0);
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  printf("parent got %.20s\n", b);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char** argv) {
  CHECK(argc >= 2);
  use_ring = !(argc > 2 && strcmp(argv[2], "libc") == 0);
  sqpoll = strcmp(argv[1], "sqpoll") == 0;
  if (strcmp(argv[1], "pipe") == 0 || sqpoll) return overPipe(0);
  if (strcmp(argv[1], "writer") == 0) return overPipe(1);
  if (strcmp(argv[1], "socket") == 0) return overSocket();
  if (strcmp(argv[1], "reuse") == 0) return reusedVector();
  fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
