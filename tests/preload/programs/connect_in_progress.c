// A non-blocking connect over TCP loopback, as curl makes one: connect()
// fails with EINPROGRESS (or succeeds at once), poll() waits until the
// socket is writable, connect() again says it is done (0, once), and once
// more fails with EISCONN. The server accepts after all that and reads one
// byte.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "common.h"

int main(void) {
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const int server = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(server >= 0);
  CHECK(bind(server, (struct sockaddr*)&addr, len) == 0);
  CHECK(listen(server, 1) == 0);
  CHECK(getsockname(server, (struct sockaddr*)&addr, &len) == 0);

  const int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  CHECK(c >= 0);
  const int r = connect(c, (struct sockaddr*)&addr, len);
  CHECK(r == 0 || errno == EINPROGRESS);
  printf("connect: %s\n", r == 0 ? "done" : "in progress");
  struct pollfd p = {c, POLLOUT, 0};
  CHECK(poll(&p, 1, 5000) == 1);
  const int done = connect(c, (struct sockaddr*)&addr, len);
  CHECK(done == 0 || errno == EISCONN);
  CHECK(connect(c, (struct sockaddr*)&addr, len) == -1 && errno == EISCONN);
  CHECK(write(c, "x", 1) == 1);

  const int s = accept(server, NULL, NULL);
  CHECK(s >= 0);
  char b;
  CHECK(read(s, &b, 1) == 1 && b == 'x');
  printf("accepted and read %c\n", b);
  return 0;
}
