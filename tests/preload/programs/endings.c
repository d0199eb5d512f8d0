// Findings of each severity, for a reason the story holds or not:
//   a child its parent kills with kill() before it reads the message left
//   for it: two notes, both explained by that kill;
//   a child that had exited (its parent waited for it) before the message
//   for it was written: a note, explained by that exit;
//   a child that exits without reading the message left for it, at a time
//   of its own: a warning (nothing recorded explains it), and another that
//   does so after it took a signal it handles (SIGUSR1, no request to
//   end): a warning too;
//   a child that crashes: an error.
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "common.h"

enum { KILLED, GONE, LEAVER, SIGNALLED, PIPES };
static int to[PIPES][2];

// Waits until process `pid` sleeps (in pause() or sigwait()): its last
// call before that is then in its log. (Killed between a call's return
// and its record, a process leaves the call unrecorded: not what this
// program is about.)
static void untilAsleep(pid_t pid) {
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  for (int tries = 0; tries < 5000; ++tries) {
    FILE* f = fopen(path, "r");
    const size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
    if (f) fclose(f);
    stat[n] = '\0';
    const char* state = strrchr(stat, ')');
    if (state && state[1] == ' ' && state[2] == 'S') return;
    usleep(1000);
  }
}

// A child keeps the reading end of its own pipe (none: -1) and nothing else.
static void keepOnly(int mine) {
  for (int k = 0; k < PIPES; ++k) {
    if (k != mine) close(to[k][0]);
    close(to[k][1]);
  }
}

int main(void) {
  sigset_t usr1;  // blocked from the start: the signalled child takes it with sigwait
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
  int ready[2], ready_too[2];  // one each for the two children that wait
  for (int k = 0; k < PIPES; ++k) CHECK(pipe(to[k]) == 0);
  CHECK(pipe(ready) == 0 && pipe(ready_too) == 0);
  const pid_t killed = fork();
  CHECK(killed >= 0);
  if (killed == 0) {  // waits, never reading
    keepOnly(KILLED);
    writeAll(ready[1], "r", 1);
    for (;;) pause();
  }
  const pid_t gone = fork();
  CHECK(gone >= 0);
  if (gone == 0) {
    keepOnly(GONE);
    _exit(0);
  }
  const pid_t leaver = fork();
  CHECK(leaver >= 0);
  if (leaver == 0) {
    keepOnly(LEAVER);
    _exit(0);
  }
  const pid_t signalled = fork();
  CHECK(signalled >= 0);
  if (signalled == 0) {  // takes SIGUSR1, then leaves without reading
    keepOnly(SIGNALLED);
    int sig;
    writeAll(ready_too[1], "s", 1);
    CHECK(sigwait(&usr1, &sig) == 0);
    _exit(0);
  }
  const pid_t crasher = fork();
  CHECK(crasher >= 0);
  if (crasher == 0) {
    keepOnly(-1);
    *(volatile int*)0 = 1;
  }
  char r;
  readAll(ready[0], &r, 1);
  readAll(ready_too[0], &r, 1);
  untilAsleep(killed);
  untilAsleep(signalled);
  int status;
  CHECK(waitpid(gone, &status, 0) == gone);
  writeAll(to[KILLED][1], "for the killed", 14);
  writeAll(to[GONE][1], "for the gone..", 14);
  writeAll(to[LEAVER][1], "for the leaver", 14);
  writeAll(to[SIGNALLED][1], "for the signal", 14);
  CHECK(kill(killed, SIGTERM) == 0);
  CHECK(kill(signalled, SIGUSR1) == 0);
  for (int i = 0; i < 4; ++i) CHECK(wait(&status) > 0);
  return 0;
}
