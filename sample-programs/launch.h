/* launch.h -- what the sample launchers share (header-only C, also compiles as C++).
 *
 * A launcher creates pipes or socket pairs with launch_pipe() and
 * launch_socketpair(), starts each worker with launch_worker() -- fork, then
 * exec of a worker executable found next to the launcher, under a meaningful
 * argv[0] ("scanner", "proc1"...) -- and waits with launch_wait().
 *
 * Each worker gets its ports as RADAR_PORT_<NAME>=<fd>[,<fd>...] (see
 * radar_ports.h): those fds stay open across exec; every other descriptor the
 * launcher made is closed in the worker, because a pipe reaches end of file
 * only when every copy of its write end is closed.
 */
#ifndef RADAR_SAMPLES_LAUNCH_H
#define RADAR_SAMPLES_LAUNCH_H

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAUNCH_MAX_PORT_FDS 8
#define LAUNCH_INHERIT (-1) /* for launch_worker's in_fd/out_fd: keep the launcher's */
#define LAUNCH_DEVNULL (-2) /* ... or give the worker /dev/null */

/* One port of a worker; an array of them ends with a NULL name. */
struct launch_port {
  const char* name;
  int nfds;
  int fds[LAUNCH_MAX_PORT_FDS];
};

/* Every descriptor the launcher made for its workers. */
static int launch_fds[256];
static int launch_nfds;

static inline void launch_die(const char* what) {
  perror(what);
  exit(1);
}

static inline void launch_track(int fd) {
  if (launch_nfds == (int)(sizeof launch_fds / sizeof launch_fds[0])) {
    fprintf(stderr, "launch: too many descriptors\n");
    exit(1);
  }
  launch_fds[launch_nfds++] = fd;
}

static inline void launch_pipe(int p[2]) {
  if (pipe(p) < 0) launch_die("pipe");
  launch_track(p[0]);
  launch_track(p[1]);
}

static inline void launch_socketpair(int type, int sv[2]) {
  if (socketpair(AF_UNIX, type, 0, sv) < 0) launch_die("socketpair");
  launch_track(sv[0]);
  launch_track(sv[1]);
}

/* Closes one of the tracked descriptors. */
static inline void launch_close(int fd) {
  for (int i = 0; i < launch_nfds; i++) {
    if (launch_fds[i] == fd) {
      launch_fds[i] = launch_fds[--launch_nfds];
      break;
    }
  }
  close(fd);
}

/* Closes every tracked descriptor: the launcher calls it once its workers run. */
static inline void launch_close_all(void) {
  while (launch_nfds > 0) launch_close(launch_fds[0]);
}

/* The path of executable `exe` in the launcher's own directory. */
static inline void launch_exe_path(const char* exe, char* path, size_t size) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) launch_die("/proc/self/exe");
  self[n] = '\0';
  char* slash = strrchr(self, '/');
  if (slash != NULL) *slash = '\0';
  if (snprintf(path, size, "%s/%s", self, exe) >= (int)size) {
    fprintf(stderr, "launch: path too long\n");
    exit(1);
  }
}

static inline void launch_redirect(int fd, int target, int flags) {
  if (fd == LAUNCH_INHERIT) return;
  if (fd == LAUNCH_DEVNULL) {
    fd = open("/dev/null", flags);
    if (fd < 0) launch_die("/dev/null");
  }
  if (fd != target && dup2(fd, target) < 0) launch_die("dup2");
}

/* Starts executable `exe` (next to the launcher) with argv (argv[0] is the
   worker's name, the list ends with NULL) and the given ports. in_fd and
   out_fd become its stdin and stdout (or LAUNCH_INHERIT, LAUNCH_DEVNULL).
   Returns the worker's pid. */
static inline pid_t launch_worker(const char* exe, const char* const argv[], const struct launch_port* ports, int in_fd,
                                  int out_fd) {
  char path[PATH_MAX];
  launch_exe_path(exe, path, sizeof path);
  fflush(NULL); /* or buffered output would be written twice */
  pid_t pid = fork();
  if (pid < 0) launch_die("fork");
  if (pid > 0) return pid;

  /* The worker. */
  launch_redirect(in_fd, STDIN_FILENO, O_RDONLY);
  launch_redirect(out_fd, STDOUT_FILENO, O_WRONLY);
  for (const struct launch_port* p = ports; p != NULL && p->name != NULL; p++) {
    char var[64] = "RADAR_PORT_", value[LAUNCH_MAX_PORT_FDS * 12] = "";
    size_t n = strlen(var);
    for (const char* c = p->name; *c != '\0' && n + 1 < sizeof var; c++) var[n++] = (char)toupper((unsigned char)*c);
    var[n] = '\0';
    for (int i = 0; i < p->nfds; i++) {
      size_t len = strlen(value);
      snprintf(value + len, sizeof value - len, "%s%d", i > 0 ? "," : "", p->fds[i]);
      fcntl(p->fds[i], F_SETFD, 0); /* keep it open across exec */
    }
    setenv(var, value, 1);
  }
  for (int i = 0; i < launch_nfds; i++) {
    int keep = 0;
    for (const struct launch_port* p = ports; p != NULL && p->name != NULL; p++)
      for (int j = 0; j < p->nfds; j++) keep |= p->fds[j] == launch_fds[i];
    if (!keep) close(launch_fds[i]);
  }
  execv(path, (char* const*)argv);
  fprintf(stderr, "%s: cannot run %s: %s\n", argv[0], path, strerror(errno));
  _exit(127);
}

/* Reports how a worker ended when that was not "exit 0"; returns 0 if it was. */
static inline int launch_report(const char* launcher, const char* worker, int status) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (WIFEXITED(status))
    fprintf(stderr, "%s: %s exited with status %d\n", launcher, worker, WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    fprintf(stderr, "%s: %s killed by signal %d\n", launcher, worker, WTERMSIG(status));
  return 1;
}

/* Waits for the n workers; returns 0 when every one exited with status 0. */
static inline int launch_wait(const char* launcher, const pid_t* pids, const char* const names[], int n) {
  int failed = 0;
  for (int i = 0; i < n; i++) {
    int status;
    while (waitpid(pids[i], &status, 0) < 0) {
      if (errno != EINTR) launch_die("waitpid");
    }
    failed |= launch_report(launcher, names[i], status);
  }
  return failed;
}

#endif /* RADAR_SAMPLES_LAUNCH_H */
