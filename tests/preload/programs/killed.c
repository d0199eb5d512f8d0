// The parent feeds a child messages and SIGKILLs it after argv[1]
// acknowledgements: every call the child completed must be in its log.
#include <signal.h>
#include <sys/wait.h>

#include "common.h"

int main(int argc, char** argv) {
  const int acks = argc > 1 ? atoi(argv[1]) : 500;
  int data[2], ack[2];
  CHECK(pipe(data) == 0 && pipe(ack) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    char buf[32];
    for (;;) {
      readAll(data[0], buf, 32);
      writeAll(ack[1], "k", 1);
    }
  }
  char msg[32] = "message-------------------------";
  char k;
  for (int i = 0; i < acks; ++i) {
    writeAll(data[1], msg, 32);
    readAll(ack[0], &k, 1);
  }
  kill(child, SIGKILL);
  int status;
  CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status));
  return 0;
}
