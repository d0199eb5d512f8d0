/* pipeline_consumer -- the last stage of pipeline.sh: counts the lines and
 * bytes of its input and prints a summary.
 */
#include <stdio.h>

int main(void) {
  long lines = 0, bytes = 0;
  int c;
  while ((c = getchar()) != EOF) {
    bytes++;
    if (c == '\n') lines++;
  }
  printf("consumer: %ld lines, %ld bytes\n", lines, bytes);
  return 0;
}
