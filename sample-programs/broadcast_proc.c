/* broadcast_proc -- the processes of broadcast (see broadcast.c).
 * argv[0] chooses the role:
 *   sender      reads integers from stdin, one per line, and sends each as an
 *               int32_t on OUTPUT (replicated to every receiver); it stops
 *               after sending 999, and sends 999 itself at end of input;
 *   receiver*   prints each integer received on INPUT as "NAME: VALUE"
 *               until 999 (not printed).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "radar_ports.h"

enum { END = 999 };

static int sender(void) {
  char line[256];
  int32_t value = 0;
  while (value != END && fgets(line, sizeof line, stdin) != NULL) {
    char* end;
    errno = 0;
    long number = strtol(line, &end, 10);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n') end++;
    if (end == line || *end != '\0' || errno != 0 || number < INT32_MIN || number > INT32_MAX) {
      if (strspn(line, " \t\r\n") != strlen(line)) fprintf(stderr, "sender: not an integer: %s", line);
      continue;
    }
    value = (int32_t)number;
    if (radar_port_send("OUTPUT", &value, sizeof value) < 0) {
      perror("sender");
      return 1;
    }
  }
  if (value != END) {
    value = END;
    if (radar_port_send("OUTPUT", &value, sizeof value) < 0) {
      perror("sender");
      return 1;
    }
  }
  return 0;
}

static int receiver(const char* name) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (;;) {
    int32_t value;
    int r = radar_port_receive("INPUT", &value, sizeof value);
    if (r == 0) {
      fprintf(stderr, "%s: input closed before 999\n", name);
      return 1;
    }
    if (r < 0) {
      perror(name);
      return 1;
    }
    if (value == END) return 0;
    printf("%s: %d\n", name, value);
  }
}

int main(int argc, char** argv) {
  (void)argc;
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(name, "sender") == 0) return sender();
  if (strncmp(name, "receiver", 8) == 0) return receiver(name);
  fprintf(stderr, "broadcast_proc: run me as sender or receiverN (argv[0]), from broadcast\n");
  return 2;
}
