// Closes every descriptor /proc/self/fd lists (as daemons and process
// launchers do), saying which closes failed, then makes a pipe: the
// output is the same with or without radar.
#include <dirent.h>
#include <fcntl.h>

#include "common.h"

int main(void) {
  DIR* d = opendir("/proc/self/fd");
  CHECK(d);
  int entries = 0;
  struct dirent* e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    const int fd = atoi(e->d_name);
    ++entries;
    if (fd == dirfd(d) || fd <= 2) continue;
    if (close(fd) != 0) printf("close %d: %s\n", fd, strerror(errno));
  }
  closedir(d);
  printf("readdir: %d entries\n", entries);

  // The same through getdents64, as a program that avoids opendir does.
  const int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
  CHECK(dir >= 0);
  char buf[4096];
  long n;
  entries = 0;
  while ((n = getdents64(dir, buf, sizeof buf)) > 0)
    for (long at = 0; at < n; at += ((struct dirent64*)(buf + at))->d_reclen)
      if (((struct dirent64*)(buf + at))->d_name[0] != '.') ++entries;
  CHECK(n == 0);
  printf("getdents64: %d entries\n", entries);

  // Again one entry per call (a buffer of 32 bytes holds one short name):
  // a call whose only entry is radar's must not end the listing early.
  CHECK(lseek(dir, 0, SEEK_SET) == 0);
  entries = 0;
  while ((n = getdents64(dir, buf, 32)) > 0)
    if (((struct dirent64*)buf)->d_name[0] != '.') ++entries;
  CHECK(n == 0);
  close(dir);
  printf("getdents64, one at a time: %d entries\n", entries);

  int p[2];
  CHECK(pipe(p) == 0);
  printf("pipe %d %d\n", p[0], p[1]);
  return 0;
}
