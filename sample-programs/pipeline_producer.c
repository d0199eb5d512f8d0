/* pipeline_producer -- the first stage of pipeline.sh: prints 20 numbered
 * lines. Its stdout is line-buffered, so each line leaves in its own write():
 * 20 messages on the pipe to pipeline_filter.
 */
#include <stdio.h>

int main(void) {
  static const char* const words[] = {"alpha", "bravo", "charlie", "delta", "echo"};
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 1; i <= 20; i++) printf("line %d: %s\n", i, words[(i - 1) % 5]);
  return 0;
}
