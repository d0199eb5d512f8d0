// Non-blocking connects, as libpq and curl make them: poll until the
// socket is writable, then ask the kernel how the connect ended
// (getsockopt SO_ERROR). One to a port nobody listens on, one to a server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void attempt(const struct sockaddr_in* to, const char* what) {
  int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  connect(c, (const struct sockaddr*)to, sizeof(*to));
  struct pollfd p = {c, POLLOUT, 0};
  poll(&p, 1, 5000);
  int error = -1;
  socklen_t len = sizeof(error);
  getsockopt(c, SOL_SOCKET, SO_ERROR, &error, &len);
  printf("%s: %s\n", what, error ? strerror(error) : "connected");
  fflush(stdout);
  close(c);
}

int main(void) {
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int server = socket(AF_INET, SOCK_STREAM, 0);
  bind(server, (struct sockaddr*)&addr, len);
  getsockname(server, (struct sockaddr*)&addr, &len);
  attempt(&addr, "before listen");  // bound, not listening: refused
  listen(server, 1);
  attempt(&addr, "listening");
  return 0;
}
