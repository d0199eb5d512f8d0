// A client and a server (a forked child) speaking HTTP over three kinds of
// channel Wireshark has no addresses for: a pair of pipes, a named Unix
// socket (one request and one reply each), and a Unix datagram socket pair
// (a DNS question and its answer).
// usage: http_pair SOCKET_PATH
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../preload/programs/common.h"

static const char kRequest[] = "GET /over-%s HTTP/1.1\r\nHost: radar\r\n\r\n";
static const char kReply[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello";

// radar.example, type A, class IN; and its answer, 127.0.0.1.
static const unsigned char kQuestion[] = {0x12, 0x34, 0x01, 0x00, 0,   1,   0,   0,   0,   0,   0, 0, 5, 'r', 'a', 'd',
                                          'a',  'r',  7,    'e',  'x', 'a', 'm', 'p', 'l', 'e', 0, 0, 1, 0,   1};
static const unsigned char kAnswer[] = {0x12, 0x34, 0x81, 0x80, 0,   1,   0,   1,   0,   0,   0, 0,   5, 'r', 'a', 'd',
                                        'a',  'r',  7,    'e',  'x', 'a', 'm', 'p', 'l', 'e', 0, 0,   1, 0,   1,   0xc0,
                                        0x0c, 0,    1,    0,    1,   0,   0,   0,   60,  0,   4, 127, 0, 0,   1};

static void request(int fd, const char* over) {
  char buf[128];
  int n = snprintf(buf, sizeof buf, kRequest, over);
  // In two writes: Wireshark reassembles the stream.
  writeAll(fd, buf, 10);
  writeAll(fd, buf + 10, (size_t)n - 10);
}

static void readRequest(int fd, const char* over) {
  char want[128], got[128];
  int n = snprintf(want, sizeof want, kRequest, over);
  readAll(fd, got, (size_t)n);
  CHECK(memcmp(got, want, (size_t)n) == 0);
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  int up[2], down[2], dgram[2];
  CHECK(pipe(up) == 0 && pipe(down) == 0);
  CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, dgram) == 0);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", argv[1]);
  unlink(addr.sun_path);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(listener >= 0);
  CHECK(bind(listener, (struct sockaddr*)&addr, sizeof addr) == 0);
  CHECK(listen(listener, 1) == 0);
  pid_t server = fork();
  CHECK(server >= 0);
  if (server == 0) {
    close(up[1]);
    close(down[0]);
    close(dgram[0]);
    readRequest(up[0], "pipes");
    writeAll(down[1], kReply, strlen(kReply));
    int c = accept(listener, NULL, NULL);
    CHECK(c >= 0);
    readRequest(c, "unix");
    writeAll(c, kReply, strlen(kReply));
    close(c);
    char buf[256];
    CHECK(recv(dgram[1], buf, sizeof buf, 0) == sizeof kQuestion);
    CHECK(send(dgram[1], kAnswer, sizeof kAnswer, 0) == sizeof kAnswer);
    _exit(0);
  }
  close(up[0]);
  close(down[1]);
  close(dgram[1]);
  close(listener);
  request(up[1], "pipes");
  close(up[1]);
  char buf[256];
  readAll(down[0], buf, strlen(kReply));
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(s >= 0);
  CHECK(connect(s, (struct sockaddr*)&addr, sizeof addr) == 0);
  request(s, "unix");
  readAll(s, buf, strlen(kReply));
  CHECK(read(s, buf, 1) == 0);  // the server closed: end of file
  close(s);
  CHECK(send(dgram[0], kQuestion, sizeof kQuestion, 0) == sizeof kQuestion);
  CHECK(recv(dgram[0], buf, sizeof buf, 0) == sizeof kAnswer);
  int status;
  CHECK(waitpid(server, &status, 0) == server && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  unlink(addr.sun_path);
  puts("done");
  return 0;
}
