// A server that does not end by itself: it listens on 127.0.0.1 (its port
// written to PORT_FILE), and answers each connection's one line with
// "echo: LINE", until a connection says "quit".
//   echo_server PORT_FILE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: echo_server PORT_FILE\n");
    return 2;
  }
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, (struct sockaddr*)&addr, sizeof addr) != 0 || listen(listener, 16) != 0 ||
      getsockname(listener, (struct sockaddr*)&addr, &len) != 0)
    return 1;
  char partial[4096];
  snprintf(partial, sizeof partial, "%s.partial", argv[1]);
  FILE* f = fopen(partial, "w");
  if (!f) return 1;
  fprintf(f, "%d\n", ntohs(addr.sin_port));
  fclose(f);
  rename(partial, argv[1]);
  for (;;) {
    const int c = accept(listener, NULL, NULL);
    if (c < 0) continue;
    char line[256];
    const ssize_t n = read(c, line, sizeof line - 1);
    if (n <= 0) {
      close(c);
      continue;
    }
    line[n] = 0;
    if (strncmp(line, "quit", 4) == 0) {
      close(c);
      return 0;
    }
    char reply[300];
    const int m = snprintf(reply, sizeof reply, "echo: %s", line);
    if (write(c, reply, (size_t)m) != m) return 1;
    close(c);
  }
}
