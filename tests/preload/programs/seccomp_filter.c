// A program that installs a seccomp filter, as sandboxed servers and tools
// do (OpenSSH's privilege-separated child, file(1), browsers' renderers):
// radar's own calls after it could be refused, or kill the process.
//   strict: only read, write and exit allowed (anything else kills), then
//           2000 lines on standard output;
//   exec:   creating files refused (it kills), then the program executes
//           `sh -c 'echo ...'`, which runs under the filter too.
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

static int install(struct sock_filter* filter, unsigned short length) {
  struct sock_fprog prog = {length, filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0 ? 0 : -1;
}

static int strict(void) {
  struct sock_filter filter[] = {
      NR,
      ALLOW(__NR_read),
      ALLOW(__NR_write),
      ALLOW(__NR_exit_group),
      ALLOW(__NR_exit),
      ALLOW(__NR_rt_sigreturn),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
  };
  if (install(filter, sizeof filter / sizeof filter[0]) != 0) return 9;
  char line[32];
  for (int i = 0; i < 2000; ++i) {
    const int n = snprintf(line, sizeof line, "line %d\n", i);
    if (write(1, line, (size_t)n) != n) return 8;
  }
  return 0;
}

// openat(..., flags) with O_CREAT or O_TMPFILE kills; everything else is allowed.
static int noNewFiles(void) {
  struct sock_filter filter[] = {
      NR,
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT | __O_TMPFILE, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  if (install(filter, sizeof filter / sizeof filter[0]) != 0) return 9;
  execl("/bin/sh", "sh", "-c", "echo executed under the filter", (char*)0);
  return 7;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "strict")) return strict();
  if (!strcmp(mode, "exec")) return noNewFiles();
  fprintf(stderr, "usage: seccomp_filter strict|exec\n");
  return 2;
}
