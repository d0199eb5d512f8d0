// Prints its environment, as a re-run shows it to the program. When the
// file named by argv[1] exists (an input radar does not record), it then
// runs env(1) with it: in a re-run, that exec leaves the recording, and
// env shows what a program that runs on its own passes to its children.
#include <stdio.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  for (char** e = environ; *e; ++e) printf("%s\n", *e);
  fflush(stdout);
  if (argc > 1 && access(argv[1], F_OK) == 0) {
    printf("-- env(1):\n");
    fflush(stdout);
    execl("/usr/bin/env", "env", (char*)NULL);
    return 127;
  }
  return 0;
}
