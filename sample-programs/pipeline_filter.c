/* pipeline_filter -- the middle stage of pipeline.sh: keeps the even lines of
 * its input (the 2nd, 4th...) and upper-cases them. Plain stdio: it reads
 * with fgets() and writes with printf(), so when its stdout is a pipe the
 * C library buffers the output and it leaves in one write() at exit.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char buffer[1024];
  long line = 1;
  while (fgets(buffer, sizeof buffer, stdin) != NULL) {
    if (line % 2 == 0) {
      for (char* c = buffer; *c != '\0'; c++) *c = (char)toupper((unsigned char)*c);
      printf("%s", buffer);
    }
    if (strchr(buffer, '\n') != NULL) line++; /* a long line comes in several pieces */
  }
  return 0;
}
