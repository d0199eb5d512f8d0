// TCP client and server over IPv4 or IPv6 loopback (argv[1]: 4 or 6), and
// UDP datagrams.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "common.h"

int main(int argc, char** argv) {
  const int v6 = argc > 1 && argv[1][0] == '6';
  const int family = v6 ? AF_INET6 : AF_INET;
  struct sockaddr_storage addr;
  socklen_t len;
  memset(&addr, 0, sizeof addr);
  if (v6) {
    struct sockaddr_in6* a = (struct sockaddr_in6*)&addr;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    len = sizeof *a;
  } else {
    struct sockaddr_in* a = (struct sockaddr_in*)&addr;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof *a;
  }
  int server = socket(family, SOCK_STREAM, 0);
  CHECK(server >= 0);
  CHECK(bind(server, (struct sockaddr*)&addr, len) == 0);  // port 0: any free port
  CHECK(listen(server, 8) == 0);
  CHECK(getsockname(server, (struct sockaddr*)&addr, &len) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(server);
    int c = socket(family, SOCK_STREAM, 0);
    CHECK(connect(c, (struct sockaddr*)&addr, len) == 0);
    writeAll(c, "GET key", 7);
    char buf[8];
    readAll(c, buf, 5);
    CHECK(memcmp(buf, "value", 5) == 0);
    close(c);
    _exit(0);
  }
  int conn = accept(server, NULL, NULL);
  CHECK(conn >= 0);
  char buf[16];
  readAll(conn, buf, 7);
  writeAll(conn, "value", 5);
  CHECK(read(conn, buf, sizeof buf) == 0);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(conn);
  close(server);

  // UDP: a datagram each way.
  int u1 = socket(family, SOCK_DGRAM, 0), u2 = socket(family, SOCK_DGRAM, 0);
  struct sockaddr_storage a1 = addr, a2 = addr;
  socklen_t l1 = len, l2 = len;
  if (v6)
    ((struct sockaddr_in6*)&a1)->sin6_port = ((struct sockaddr_in6*)&a2)->sin6_port = 0;
  else
    ((struct sockaddr_in*)&a1)->sin_port = ((struct sockaddr_in*)&a2)->sin_port = 0;
  CHECK(bind(u1, (struct sockaddr*)&a1, l1) == 0 && bind(u2, (struct sockaddr*)&a2, l2) == 0);
  CHECK(getsockname(u1, (struct sockaddr*)&a1, &l1) == 0);
  CHECK(getsockname(u2, (struct sockaddr*)&a2, &l2) == 0);
  CHECK(sendto(u1, "datagram", 8, 0, (struct sockaddr*)&a2, l2) == 8);
  struct sockaddr_storage from;
  socklen_t from_len = sizeof from;
  CHECK(recvfrom(u2, buf, sizeof buf, 0, (struct sockaddr*)&from, &from_len) == 8);
  return 0;
}
