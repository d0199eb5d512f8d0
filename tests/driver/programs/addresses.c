// Prints where its heap, its stack and mappings are: the same in every
// recording when address-space randomization is off. With "rerun", all but
// the stack: also the same in a re-run, where another injected library is
// loaded and the environment is not the same strings on the stack (the
// program sees the recorded ones): a mapping it makes, a block malloc maps,
// and the heap after copies of its environment.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern char** environ;

int main(int argc, char** argv) {
  int local = 0;
  void* heap = malloc(64);
  void* map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (argc > 1 && strcmp(argv[1], "rerun") == 0) {
    void* big = malloc(1 << 20);
    for (char** e = environ; *e; ++e) (void)strdup(*e);
    printf("heap %p map %p big %p after the environment %p\n", heap, map, big, malloc(64));
  } else {
    printf("heap %p stack %p map %p\n", heap, (void*)&local, map);
  }
  return 0;
}
