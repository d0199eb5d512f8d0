// fork, vfork + exec, posix_spawn, system, popen/pclose, exec, the wait
// family, kill with a handler, and the exit status.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include "common.h"

extern char** environ;
static volatile sig_atomic_t got_usr1;
static void onUsr1(int sig) {
  (void)sig;
  got_usr1 = 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) return 7;  // an exec'd image
  int status;
  pid_t a = fork();
  CHECK(a >= 0);
  if (a == 0) _exit(3);
  CHECK(waitpid(a, &status, 0) == a && WEXITSTATUS(status) == 3);

  pid_t b = vfork();
  CHECK(b >= 0);
  if (b == 0) {
    execl(argv[0], argv[0], "child", (char*)NULL);
    _exit(99);
  }
  CHECK(wait(&status) == b && WEXITSTATUS(status) == 7);

  pid_t c;
  char* spawn_argv[] = {argv[0], "child", NULL};
  CHECK(posix_spawn(&c, argv[0], NULL, NULL, spawn_argv, environ) == 0);
  siginfo_t info;
  CHECK(waitid(P_PID, (id_t)c, &info, WEXITED) == 0 && info.si_status == 7);

  CHECK(WEXITSTATUS(system("exit 5")) == 5);
  FILE* f = popen("echo from-popen", "r");
  CHECK(f);
  char line[64];
  CHECK(fgets(line, sizeof line, f) && strcmp(line, "from-popen\n") == 0);
  CHECK(WEXITSTATUS(pclose(f)) == 0);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onUsr1;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  CHECK(kill(getpid(), SIGUSR1) == 0);
  CHECK(got_usr1);
  return 4;
}
