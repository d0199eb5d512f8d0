// A client, a proxy and an echo server over TCP on loopback: the proxy
// passes every byte on as it got it; the server sends each message back,
// the odd ones with their middle byte changed. The client checks every
// reply and prints a checksum of what it got.
//   forwarding [ROUNDS]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(cond)  \
  do {               \
    if (!(cond)) {   \
      perror(#cond); \
      exit(3);       \
    }                \
  } while (0)

enum { kLargest = 6000 };

static size_t sizeOf(int round) { return 100 + (size_t)(round * 977) % (kLargest - 100); }

static void fill(unsigned char* m, size_t n, int round) {
  for (size_t i = 0; i < n; ++i) m[i] = (unsigned char)(i * 31 + (size_t)round * 7);
}

static int listenOn(struct sockaddr_in* addr) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  socklen_t len = sizeof *addr;
  memset(addr, 0, sizeof *addr);
  addr->sin_family = AF_INET;
  addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(s >= 0 && bind(s, (struct sockaddr*)addr, sizeof *addr) == 0 && listen(s, 4) == 0 &&
        getsockname(s, (struct sockaddr*)addr, &len) == 0);
  return s;
}

static int connectTo(const struct sockaddr_in* addr) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(s >= 0 && connect(s, (const struct sockaddr*)addr, sizeof *addr) == 0);
  return s;
}

static void sendAll(int fd, const unsigned char* p, size_t n) {
  while (n) {
    const ssize_t w = send(fd, p, n, 0);
    CHECK(w > 0);
    p += w;
    n -= (size_t)w;
  }
}

// Each message back in one send, as it came in one receive.
static void echo(int listener, int rounds) {
  const int c = accept(listener, NULL, NULL);
  CHECK(c >= 0);
  unsigned char m[kLargest];
  for (int round = 0; round < rounds; ++round) {
    const size_t n = sizeOf(round);
    CHECK(recv(c, m, n, MSG_WAITALL) == (ssize_t)n);
    if (round % 2) m[n / 2] ^= 0x5a;
    sendAll(c, m, n);
  }
  close(c);
}

// Whatever one side sends, to the other, until the client is done.
static void proxy(int listener, const struct sockaddr_in* server) {
  const int c = accept(listener, NULL, NULL);
  CHECK(c >= 0);
  const int s = connectTo(server);
  unsigned char buf[65536];
  struct pollfd fds[2] = {{c, POLLIN, 0}, {s, POLLIN, 0}};
  for (;;) {
    CHECK(poll(fds, 2, -1) > 0);
    for (int i = 0; i < 2; ++i) {
      if (!fds[i].revents) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      CHECK(n >= 0);
      if (n == 0) return;
      sendAll(fds[1 - i].fd, buf, (size_t)n);
    }
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 40;
  struct sockaddr_in server_addr, proxy_addr;
  const int server_listener = listenOn(&server_addr);
  const int proxy_listener = listenOn(&proxy_addr);
  const pid_t server = fork();
  CHECK(server >= 0);
  if (server == 0) {
    echo(server_listener, rounds);
    return 0;
  }
  const pid_t forwarder = fork();
  CHECK(forwarder >= 0);
  if (forwarder == 0) {
    proxy(proxy_listener, &server_addr);
    return 0;
  }
  const int c = connectTo(&proxy_addr);
  uint32_t sum = 0;
  unsigned char sent[kLargest], got[kLargest];
  for (int round = 0; round < rounds; ++round) {
    const size_t n = sizeOf(round);
    fill(sent, n, round);
    sendAll(c, sent, n);
    CHECK(recv(c, got, n, MSG_WAITALL) == (ssize_t)n);
    if (round % 2) sent[n / 2] ^= 0x5a;
    CHECK(memcmp(sent, got, n) == 0);
    for (size_t i = 0; i < n; ++i) sum = sum * 33 + got[i];
  }
  close(c);
  int status;
  CHECK(waitpid(server, &status, 0) == server && status == 0);
  CHECK(waitpid(forwarder, &status, 0) == forwarder && status == 0);
  printf("%d rounds, checksum %08x\n", rounds, sum);
  return 0;
}
