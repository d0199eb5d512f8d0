// Prints where its heap, its stack and a mapping are: the same in every
// recording when address-space randomization is off. With "heap", only the
// heap's (brk): also the same in a re-run, where the injected library
// differs (so do the mappings below it and, with the environment, the stack).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  int local = 0;
  void* heap = malloc(64);
  void* map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (argc > 1 && strcmp(argv[1], "heap") == 0)
    printf("heap %p\n", heap);
  else
    printf("heap %p stack %p map %p\n", heap, (void*)&local, map);
  return 0;
}
