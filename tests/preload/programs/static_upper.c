// Built with -static: reads its input and writes it in capitals. radar
// cannot record it; what went to it and came from it is still told.
#include <ctype.h>
#include <unistd.h>

int main(void) {
  char buf[4096];
  ssize_t n;
  while ((n = read(0, buf, sizeof(buf))) > 0) {
    for (ssize_t i = 0; i < n; ++i) buf[i] = (char)toupper((unsigned char)buf[i]);
    if (write(1, buf, (size_t)n) != n) return 1;
  }
  return 0;
}
