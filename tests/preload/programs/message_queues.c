// Processes that talk through POSIX message queues (mq_overview(7)).
//   pair     the parent queues three messages of two priorities, then forks;
//            the child learns the queue's message size (mq_getattr), waits
//            for it to be readable (poll), takes them (highest priority
//            first) and answers "done" on a second queue the parent reads
//   notify   the parent asks to be told by SIGUSR1 when its empty queue gets
//            a message (mq_notify), waits for the signal, then takes the
//            message its child sent
//   sysv     a System V queue: the parent queues three messages of types 1,
//            2 and 1, then forks; the child counts them (msgctl IPC_STAT),
//            takes the one of type 2 first, then the others in order, then an
//            empty one of type 3, and answers with a message of type 9 that
//            the parent takes (which also fails a send to no queue)
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <signal.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <time.h>

#include "common.h"

static int waitChild(pid_t child) {
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int pair(void) {
  char requests[64], replies[64];
  snprintf(requests, sizeof requests, "/radar-mq-requests-%d", (int)getpid());
  snprintf(replies, sizeof replies, "/radar-mq-replies-%d", (int)getpid());
  struct mq_attr attr = {.mq_maxmsg = 8, .mq_msgsize = 64};
  const mqd_t out = mq_open(requests, O_CREAT | O_EXCL | O_WRONLY, 0600, &attr);
  const mqd_t in = mq_open(replies, O_CREAT | O_EXCL | O_RDONLY, 0600, &attr);
  CHECK(out != (mqd_t)-1 && in != (mqd_t)-1);
  CHECK(mq_send(out, "low", 4, 1) == 0);
  CHECK(mq_send(out, "high", 5, 7) == 0);
  struct timespec later;
  clock_gettime(CLOCK_REALTIME, &later);
  later.tv_sec += 60;
  CHECK(mq_timedsend(out, "low again", 10, 1, &later) == 0);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    const mqd_t take = mq_open(requests, O_RDONLY);
    const mqd_t answer = mq_open(replies, O_WRONLY);
    CHECK(take != (mqd_t)-1 && answer != (mqd_t)-1);
    struct mq_attr now;
    CHECK(mq_getattr(take, &now) == 0);
    printf("child sees %ld messages of at most %ld bytes\n", now.mq_curmsgs, now.mq_msgsize);
    struct pollfd readable = {.fd = take, .events = POLLIN};
    CHECK(poll(&readable, 1, -1) == 1);
    for (int i = 0; i < 3; ++i) {
      char message[64];
      unsigned priority = 99;
      const ssize_t n = mq_receive(take, message, (size_t)now.mq_msgsize, &priority);
      CHECK(n > 0);
      printf("child got %s (priority %u)\n", message, priority);
    }
    CHECK(mq_send(answer, "done", 5, 0) == 0);
    mq_close(take);
    mq_close(answer);
    return 0;
  }
  char reply[64];
  CHECK(mq_receive(in, reply, sizeof reply, NULL) == 5);
  printf("parent got %s\n", reply);
  const int r = waitChild(child);
  mq_close(out);
  mq_close(in);
  CHECK(mq_unlink(requests) == 0 && mq_unlink(replies) == 0);
  return r;
}

static volatile sig_atomic_t rung;
static void ring(int sig) {
  (void)sig;
  rung = 1;
}

static int notify(void) {
  char name[64];
  snprintf(name, sizeof name, "/radar-mq-notify-%d", (int)getpid());
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 32};
  const mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  CHECK(q != (mqd_t)-1);
  sigset_t usr1, before;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &usr1, &before) == 0);
  struct sigaction sa = {.sa_handler = ring};
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  struct sigevent how = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1};
  CHECK(mq_notify(q, &how) == 0);
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) return mq_send(q, "ring", 5, 3) == 0 ? 0 : 1;
  while (!rung) sigsuspend(&before);
  char message[32];
  unsigned priority = 0;
  CHECK(mq_receive(q, message, sizeof message, &priority) == 5);
  printf("parent was told, then got %s (priority %u)\n", message, priority);
  const int r = waitChild(child);
  CHECK(mq_unlink(name) == 0);
  return r;
}

struct message {
  long type;
  char text[32];
};

static int sysv(void) {
  const int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  CHECK(q >= 0);
  const struct message sent[] = {{1, "first"}, {2, "urgent"}, {1, "second"}};
  for (int i = 0; i < 3; ++i) CHECK(msgsnd(q, &sent[i], strlen(sent[i].text) + 1, 0) == 0);
  const struct message empty = {3, ""};
  CHECK(msgsnd(q, &empty, 0, 0) == 0);                       // a type alone
  CHECK(msgsnd(-1, &empty, 0, 0) == -1 && errno == EINVAL);  // no queue
  fflush(stdout);
  const pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    struct msqid_ds state;
    CHECK(msgctl(q, IPC_STAT, &state) == 0);
    printf("child sees %lu messages\n", (unsigned long)state.msg_qnum);
    struct message got;
    CHECK(msgrcv(q, &got, sizeof got.text, 2, 0) > 0);
    printf("child got %s (type %ld)\n", got.text, got.type);
    for (int i = 0; i < 2; ++i) {
      CHECK(msgrcv(q, &got, sizeof got.text, 0, 0) > 0);
      printf("child got %s (type %ld)\n", got.text, got.type);
    }
    CHECK(msgrcv(q, &got, sizeof got.text, 3, 0) == 0);
    printf("child got an empty message (type %ld)\n", got.type);
    const struct message done = {9, "done"};
    CHECK(msgsnd(q, &done, 5, 0) == 0);
    return 0;
  }
  const int r = waitChild(child);
  struct message got;
  CHECK(msgrcv(q, &got, sizeof got.text, 9, 0) == 5);
  printf("parent got %s (type %ld)\n", got.text, got.type);
  CHECK(msgctl(q, IPC_RMID, NULL) == 0);
  return r;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "pair";
  if (!strcmp(mode, "pair")) return pair();
  if (!strcmp(mode, "notify")) return notify();
  if (!strcmp(mode, "sysv")) return sysv();
  fprintf(stderr, "usage: message_queues pair|notify|sysv\n");
  return 2;
}
