// Built with -static: radar cannot record it and must say so.
#include <stdio.h>
int main(void) {
  puts("static");
  return 0;
}
