// Two processes exchange 64-byte messages over a socketpair (argv[1] round
// trips); the workload of the recording overhead benchmark.
#include <sys/socket.h>
#include <sys/wait.h>

#include "common.h"

int main(int argc, char** argv) {
  const long rounds = argc > 1 ? atol(argv[1]) : 10000;
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  char msg[64];
  memset(msg, 'p', sizeof msg);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(sv[0]);
    for (long i = 0; i < rounds; ++i) {
      readAll(sv[1], msg, 64);
      writeAll(sv[1], msg, 64);
    }
    _exit(0);
  }
  close(sv[1]);
  for (long i = 0; i < rounds; ++i) {
    writeAll(sv[0], msg, 64);
    readAll(sv[0], msg, 64);
  }
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
  return 0;
}
