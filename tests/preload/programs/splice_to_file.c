// Moves its input into a file it opened write-only (argv[1]), with
// splice(), as a downloader does, then reads the file back and prints it.
// Run as `producer | splice_to_file FILE`.
#include <fcntl.h>

#include "common.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  const int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(out >= 0);
  ssize_t n, total = 0;
  while ((n = splice(0, NULL, out, NULL, 65536, 0)) > 0) total += n;
  CHECK(n == 0);
  close(out);
  char buf[256];
  const int in = open(argv[1], O_RDONLY);
  CHECK(in >= 0);
  const ssize_t got = read(in, buf, sizeof buf);
  CHECK(got == total);
  close(in);
  printf("%zd bytes in the file: %.*s", got, (int)got, buf);
  return 0;
}
