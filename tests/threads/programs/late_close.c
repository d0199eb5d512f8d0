/* A close counted after another thread made its number again. The first
 * thread closes a TCP socket that lingers (its peer's window is full, so
 * close() waits for a second) while the kernel has already freed the
 * number: the second thread's pipe() gets it, uses it and closes it, all
 * counted before the first close returns. With ROUNDS, the byte goes
 * through the pipe that many times: the close is counted that many round
 * trips later (thousands of events: as a thread that waits long for a CPU
 * between its close and the close's record).
 *   late_close [ROUNDS]    (default 1) */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int lingering, ready[2];

static void* closer(void* arg) {
  write(ready[1], "c", 1);
  close(lingering);  // returns after the linger time, counted then
  return arg;
}

// A connected socket whose peer never reads, its buffers full.
static int fullSocket(int* peer, int* listening) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (bind(listener, (struct sockaddr*)&a, sizeof a) != 0 || listen(listener, 1) != 0 ||
      getsockname(listener, (struct sockaddr*)&a, &len) != 0)
    return -1;
  const int s = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(s, (struct sockaddr*)&a, sizeof a) != 0) return -1;
  *peer = accept(listener, NULL, NULL);
  *listening = listener;
  fcntl(s, F_SETFL, O_NONBLOCK);
  static char block[65536];
  while (write(s, block, sizeof block) > 0) {
  }
  const struct linger linger = {1, 1};
  setsockopt(s, SOL_SOCKET, SO_LINGER, &linger, sizeof linger);
  return s;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 1;
  int peer = -1, listener = -1;
  lingering = fullSocket(&peer, &listener);
  if (lingering < 0) return 2;
  int p[2];
  char c;
  if (pipe(ready) != 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, closer, NULL);
  read(ready[0], &c, 1);
  while (fcntl(lingering, F_GETFD) != -1)  // until the close has freed the number (it waits on)
    usleep(1000);
  if (pipe(p) != 0) return 2;
  ssize_t n = -1;
  for (int i = 0; i < rounds; ++i) {
    c = 'x';
    n = write(p[1], &c, 1) == 1 ? read(p[0], &c, 1) : -1;
  }
  close(p[0]);
  close(p[1]);
  pthread_join(t, NULL);
  printf("the pipe's read end has the closed socket's number: %s; a byte went through it: %s\n",
         p[0] == lingering ? "yes" : "no", n == 1 ? "yes" : "no");
  close(peer);
  close(listener);
  return 0;
}
