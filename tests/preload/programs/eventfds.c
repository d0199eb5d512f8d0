// Two processes counting through eventfds: the parent adds 3 and 4 to a
// counter before the child exists; the child waits for it to be readable,
// takes 7, answers with 2 on a semaphore eventfd, and takes what the
// parent adds next (5). The parent waits for the answer with epoll, then
// takes the semaphore's units one by one.
// "reuse": an eventfd closed, then another made (the kernel gives the
// second the first one's id), each with a count of its own. "count": see
// count() below.
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

static void add(int fd, uint64_t n) {
  if (write(fd, &n, sizeof n) != sizeof n) _exit(10);
}

static uint64_t take(int fd) {
  uint64_t n = 0;
  if (read(fd, &n, sizeof n) != sizeof n) _exit(11);
  return n;
}

static int pair(void) {
  const int counter = eventfd(0, EFD_CLOEXEC);
  const int answers = eventfd(0, EFD_SEMAPHORE);
  if (counter < 0 || answers < 0) return 2;
  add(counter, 3);
  add(counter, 4);
  const pid_t child = fork();
  if (child < 0) return 3;
  if (child == 0) {
    struct pollfd p = {counter, POLLIN, 0};
    if (poll(&p, 1, 5000) != 1) _exit(4);
    const uint64_t first = take(counter);
    add(answers, 2);
    const uint64_t second = take(counter);
    printf("child took %llu, then %llu\n", (unsigned long long)first, (unsigned long long)second);
    _exit(first == 7 && second == 5 ? 0 : 5);
  }
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event want = {EPOLLIN, {.fd = answers}}, ready;
  if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, answers, &want) != 0) return 8;
  if (epoll_wait(ep, &ready, 1, 5000) != 1 || ready.data.fd != answers) return 9;
  const uint64_t one = take(answers);
  add(counter, 5);
  const uint64_t two = take(answers);
  int status = 0;
  waitpid(child, &status, 0);
  printf("parent counted %llu\n", (unsigned long long)(one + two));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 && one + two == 2 ? 0 : 6;
}

static int reuse(void) {
  const int first = eventfd(5, 0);
  if (first < 0) return 2;
  add(first, 1);  // left in it when it is closed
  close(first);
  const int second = eventfd(0, 0);
  if (second < 0) return 2;
  const pid_t child = fork();
  if (child < 0) return 3;
  if (child == 0) {
    add(second, 9);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  const uint64_t n = take(second);
  printf("took %llu\n", (unsigned long long)n);
  return n == 9 ? 0 : 7;
}

// "count": a child inherits an eventfd holding 26 (the kernel says 1a)
// and takes it.
static int count(void) {
  const int fd = eventfd(26, 0);
  if (fd < 0) return 2;
  const pid_t child = fork();
  if (child < 0) return 3;
  if (child == 0) _exit(take(fd) == 26 ? 0 : 4);
  int status = 0;
  waitpid(child, &status, 0);
  printf("child took 26: %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "yes" : "no");
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 5;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc > 1 && strcmp(argv[1], "reuse") == 0) return reuse();
  if (argc > 1 && strcmp(argv[1], "count") == 0) return count();
  return pair();
}
