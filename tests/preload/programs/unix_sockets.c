// socketpair (stream, datagram, seqpacket), a named and an abstract Unix
// socket, sendmsg/recvmsg with SCM_RIGHTS, MSG_PEEK, sendmmsg/recvmmsg, shutdown.
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "common.h"

static void pairRoundTrip(int type) {
  int sv[2];
  CHECK(socketpair(AF_UNIX, type, 0, sv) == 0);
  CHECK(send(sv[0], "ping", 4, 0) == 4);
  char buf[8];
  CHECK(recv(sv[1], buf, sizeof buf, 0) == 4);
  CHECK(send(sv[1], "pong", 4, 0) == 4);
  CHECK(recv(sv[0], buf, sizeof buf, 0) == 4);
  close(sv[0]);
  close(sv[1]);
}

int main(int argc, char** argv) {
  (void)argc;
  pairRoundTrip(SOCK_STREAM);
  pairRoundTrip(SOCK_DGRAM);
  pairRoundTrip(SOCK_SEQPACKET);

  // A named server and a client in a child process.
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", argv[1]);
  unlink(addr.sun_path);
  int server = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(server >= 0);
  CHECK(bind(server, (struct sockaddr*)&addr, sizeof addr) == 0);
  CHECK(listen(server, 4) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(c >= 0);
    CHECK(connect(c, (struct sockaddr*)&addr, sizeof addr) == 0);
    writeAll(c, "request", 7);
    char buf[16];
    readAll(c, buf, 5);
    CHECK(memcmp(buf, "reply", 5) == 0);
    // Pass a pipe's write end to the server.
    int p[2];
    CHECK(pipe(p) == 0);
    char token = 'F';
    struct iovec iov = {&token, 1};
    union {
      char buf[CMSG_SPACE(sizeof(int))];
      struct cmsghdr align;
    } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    struct cmsghdr* cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &p[1], sizeof(int));
    CHECK(sendmsg(c, &msg, 0) == 1);
    close(p[1]);
    readAll(p[0], buf, 6);  // the server writes through the passed descriptor
    CHECK(memcmp(buf, "passed", 6) == 0);
    shutdown(c, SHUT_WR);
    close(c);
    _exit(0);
  }
  int conn = accept(server, NULL, NULL);
  CHECK(conn >= 0);
  char buf[16];
  CHECK(recv(conn, buf, 3, MSG_PEEK) == 3);  // peeks consume nothing
  readAll(conn, buf, 7);
  CHECK(memcmp(buf, "request", 7) == 0);
  writeAll(conn, "reply", 5);
  char token;
  struct iovec iov = {&token, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  CHECK(recvmsg(conn, &msg, 0) == 1 && token == 'F');
  int passed;
  memcpy(&passed, CMSG_DATA(CMSG_FIRSTHDR(&msg)), sizeof(int));
  writeAll(passed, "passed", 6);
  close(passed);
  CHECK(read(conn, buf, sizeof buf) == 0);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(conn);
  close(server);
  unlink(addr.sun_path);

  // An abstract datagram socket, several messages at once.
  struct sockaddr_un abs;
  memset(&abs, 0, sizeof abs);
  abs.sun_family = AF_UNIX;
  memcpy(abs.sun_path + 1, "radar-test-abstract", 19);
  const socklen_t abs_len = offsetof(struct sockaddr_un, sun_path) + 1 + 19;
  int rx = socket(AF_UNIX, SOCK_DGRAM, 0), tx = socket(AF_UNIX, SOCK_DGRAM, 0);
  CHECK(bind(rx, (struct sockaddr*)&abs, abs_len) == 0);
  CHECK(sendto(tx, "one", 3, 0, (struct sockaddr*)&abs, abs_len) == 3);
  struct mmsghdr out[2];
  struct iovec ov[2] = {{"two", 3}, {"three", 5}};
  memset(out, 0, sizeof out);
  for (int i = 0; i < 2; ++i) {
    out[i].msg_hdr.msg_iov = &ov[i];
    out[i].msg_hdr.msg_iovlen = 1;
    out[i].msg_hdr.msg_name = &abs;
    out[i].msg_hdr.msg_namelen = abs_len;
  }
  CHECK(sendmmsg(tx, out, 2, 0) == 2);
  char b1[8];
  CHECK(recvfrom(rx, b1, sizeof b1, 0, NULL, NULL) == 3);
  struct mmsghdr in[2];
  char b2[8], b3[8];
  struct iovec iv[2] = {{b2, 8}, {b3, 8}};
  memset(in, 0, sizeof in);
  for (int i = 0; i < 2; ++i) {
    in[i].msg_hdr.msg_iov = &iv[i];
    in[i].msg_hdr.msg_iovlen = 1;
  }
  CHECK(recvmmsg(rx, in, 2, 0, NULL) == 2);
  CHECK(in[0].msg_len == 3 && in[1].msg_len == 5);
  return 0;
}
