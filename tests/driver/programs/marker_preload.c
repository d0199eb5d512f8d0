// A library a recorded program had in its LD_PRELOAD: loaded, it appends a
// line to the file $RADAR_TEST_MARKER. radar debug must never load it.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void announce(void) {
  const char* path = getenv("RADAR_TEST_MARKER");
  if (!path) return;
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  if (write(fd, "loaded\n", 7) != 7) _exit(3);
  close(fd);
}
