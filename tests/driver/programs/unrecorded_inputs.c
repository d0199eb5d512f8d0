// Prints what came from an input radar does not record, so that a re-run
// diverges where it differs:
//   unrecorded_inputs shared       what a child wrote in memory shared with it
//   unrecorded_inputs file PATH [OPTIONAL]   a file's first line (kept
//                                  open), after looking for OPTIONAL
//   unrecorded_inputs clock        the time
//   unrecorded_inputs exists NAME  fails, saying so on stderr, when NAME is
//                                  in its working directory (as git clone
//                                  refuses a destination that is there)
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], "shared") == 0) {
    int* shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t child = fork();
    if (child == 0) {
      *shared = 42;
      _exit(0);
    }
    waitpid(child, NULL, 0);
    printf("the child wrote %d\n", *shared);
  } else if (argc >= 3 && strcmp(argv[1], "file") == 0) {
    if (argc >= 4) {  // a file it does without, as dig does without ~/.digrc
      FILE* optional = fopen(argv[3], "r");
      if (optional) fclose(optional);
    }
    FILE* f = fopen(argv[2], "r");
    char line[256] = "";
    if (!f || !fgets(line, sizeof(line), f)) return 1;
    printf("the file says %s", line);
    fflush(stdout);
  } else if (argc >= 2 && strcmp(argv[1], "clock") == 0) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    printf("the time is %lld.%09ld\n", (long long)t.tv_sec, t.tv_nsec);
  } else if (argc >= 3 && strcmp(argv[1], "exists") == 0) {
    if (access(argv[2], F_OK) == 0) {
      fprintf(stderr, "%s is there already\n", argv[2]);
      return 1;
    }
    printf("%s is not there\n", argv[2]);
  } else {
    return 2;
  }
  return 0;
}
