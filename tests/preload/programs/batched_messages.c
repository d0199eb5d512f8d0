// Messages that one call moves several of, or looks at without taking:
// two datagrams taken by one recvmmsg, two sent by one sendmmsg and taken
// one by one, a 4-byte MSG_PEEK before the read that takes the bytes, and
// a socketpair that fails for want of descriptors.
#include <sys/resource.h>
#include <sys/socket.h>

#include "common.h"

int main(void) {
  int dg[2];
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0);
  CHECK(send(dg[0], "abcd", 4, 0) == 4);
  CHECK(send(dg[0], "efghi", 5, 0) == 5);
  struct mmsghdr m[4];
  struct iovec io[4];
  char b[4][16];
  memset(m, 0, sizeof m);
  for (int i = 0; i < 4; i++) {
    io[i].iov_base = b[i];
    io[i].iov_len = sizeof b[i];
    m[i].msg_hdr.msg_iov = &io[i];
    m[i].msg_hdr.msg_iovlen = 1;
  }
  CHECK(recvmmsg(dg[1], m, 4, MSG_DONTWAIT, NULL) == 2);
  CHECK(m[0].msg_len == 4 && m[1].msg_len == 5);

  // sendmmsg of two datagrams, taken by two reads.
  io[0].iov_base = "123";
  io[0].iov_len = 3;
  io[1].iov_base = "4567890";
  io[1].iov_len = 7;
  CHECK(sendmmsg(dg[0], m, 2, 0) == 2);
  CHECK(read(dg[1], b[0], sizeof b[0]) == 3);
  CHECK(read(dg[1], b[0], sizeof b[0]) == 7);

  int st[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, st) == 0);
  writeAll(st[0], "wxyz", 4);
  char peek[8];
  CHECK(recv(st[1], peek, 4, MSG_PEEK) == 4);
  CHECK(read(st[1], peek, 4) == 4);

  // Descriptors 0-2 and six more are open: a limit of 8 leaves no room.
  struct rlimit rl = {8, 8};
  CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
  int x[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, x) == -1 && errno == EMFILE);
  printf("done\n");
  return 0;
}
