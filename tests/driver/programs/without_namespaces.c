// Runs a command where the kernel refuses new namespaces, as a container's
// default seccomp profile (or a chroot without user namespaces) does:
// unshare() and setns() fail with EPERM, clone() with any CLONE_NEW* flag
// too, and clone3() with ENOSYS (so that the C library falls back to
// clone, whose flags the filter can read). Everything else is allowed.
//
//   without_namespaces COMMAND [ARG...]
//
// The suite runs its re-runs under it (ctest -L no-namespaces) to show
// they work, unsandboxed, where radar debug cannot make its sandbox.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NEW_NAMESPACE_FLAGS                                                                                    \
  (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
   CLONE_NEWTIME)

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RETURN(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: without_namespaces COMMAND [ARG...]\n");
    return 2;
  }
  struct sock_filter filter[] = {
      LOAD(arch),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      RETURN(SECCOMP_RET_ALLOW),  // another architecture's calls: not ours to judge
      LOAD(nr),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 1),
      RETURN(ERRNO(EPERM)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setns, 0, 1),
      RETURN(ERRNO(EPERM)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
      RETURN(ERRNO(ENOSYS)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3),
      LOAD(args[0]),  // the low 32 bits of clone's flags
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NEW_NAMESPACE_FLAGS, 0, 1),
      RETURN(ERRNO(EPERM)),
      RETURN(SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    perror("without_namespaces: seccomp");
    return 2;
  }
  execvp(argv[1], argv + 1);
  perror(argv[1]);
  return 127;
}
