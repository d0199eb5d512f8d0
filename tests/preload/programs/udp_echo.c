/* A UDP echo: the parent binds 127.0.0.1:0 and answers each datagram to
 * the address it came from; two children ask it three times each, one
 * with sendto from a socket the kernel binds on its first send, one with
 * a socket it connects (bound by connect). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(x)                                                    \
  do {                                                              \
    if (!(x)) {                                                     \
      fprintf(stderr, "udp_echo: %s failed at %d\n", #x, __LINE__); \
      exit(1);                                                      \
    }                                                               \
  } while (0)

static void ask(const struct sockaddr_in* server, int connected) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(s >= 0);
  if (connected) CHECK(connect(s, (const struct sockaddr*)server, sizeof *server) == 0);
  for (int k = 0; k < 3; ++k) {
    char out[32], in[32];
    int n = snprintf(out, sizeof out, "ping %d %d", connected, k);
    if (connected)
      CHECK(send(s, out, (size_t)n, 0) == n);
    else
      CHECK(sendto(s, out, (size_t)n, 0, (const struct sockaddr*)server, sizeof *server) == n);
    ssize_t got = recv(s, in, sizeof in, 0);
    CHECK(got == n && memcmp(in, "pong", 4) == 0);
  }
  close(s);
}

int main(void) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in server = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof server;
  CHECK(s >= 0 && bind(s, (struct sockaddr*)&server, sizeof server) == 0);
  CHECK(getsockname(s, (struct sockaddr*)&server, &len) == 0);
  for (int connected = 0; connected < 2; ++connected)
    if (fork() == 0) {
      close(s);
      ask(&server, connected);
      return 0;
    }
  for (int k = 0; k < 6; ++k) {
    char buf[32];
    struct sockaddr_in from;
    socklen_t from_len = sizeof from;
    ssize_t n = recvfrom(s, buf, sizeof buf, 0, (struct sockaddr*)&from, &from_len);
    CHECK(n > 4);
    memcpy(buf, "pong", 4);
    CHECK(sendto(s, buf, (size_t)n, 0, (struct sockaddr*)&from, from_len) == n);
  }
  int status;
  while (wait(&status) > 0) CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}
