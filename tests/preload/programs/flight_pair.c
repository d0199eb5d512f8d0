// A server and its client over one TCP connection that stays open: the
// client sends "request N" lines and the server answers each ("reply N"),
// for SECONDS; then both end. With "crash" or "error", a worker of the
// server's ends so after one second (SIGABRT, or exit status 3) while the
// others go on.
//   flight_pair SECONDS [crash|error]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void client(int port, double seconds) {
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons((unsigned short)port);
  if (s < 0 || connect(s, (struct sockaddr*)&addr, sizeof addr) != 0) _exit(1);
  const double end = now() + seconds;
  char line[64], reply[64];
  for (unsigned n = 0; now() < end; ++n) {
    const int len = snprintf(line, sizeof line, "request %u\n", n);
    if (write(s, line, (size_t)len) != len || read(s, reply, sizeof reply) <= 0) _exit(1);
    if (n % 8 == 0) usleep(100);  // a steady load, not a spin
  }
  close(s);
  _exit(0);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: flight_pair SECONDS [crash|error]\n");
    return 2;
  }
  const double seconds = atof(argv[1]);
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, (struct sockaddr*)&addr, sizeof addr) != 0 || listen(listener, 4) != 0 ||
      getsockname(listener, (struct sockaddr*)&addr, &len) != 0)
    return 1;
  if (argc > 2 && fork() == 0) {
    sleep(1);
    if (strcmp(argv[2], "crash") == 0) abort();
    _exit(3);
  }
  if (fork() == 0) client(ntohs(addr.sin_port), seconds);
  const int c = accept(listener, NULL, NULL);
  if (c < 0) return 1;
  char line[64], reply[80];
  for (ssize_t n; (n = read(c, line, sizeof line - 1)) > 0;) {
    line[n] = 0;
    unsigned k = 0;
    sscanf(line, "request %u", &k);
    const int m = snprintf(reply, sizeof reply, "reply %u\n", k);
    if (write(c, reply, (size_t)m) != m) return 1;
  }
  close(c);
  while (wait(NULL) > 0) {
  }
  return 0;
}
