// stdio on pipes (printf, fputs, fgets go through the C library's own
// write/read), and user events.
#include <sys/wait.h>

#include "common.h"
#include "radar/radar.h"

int main(void) {
  int p[2];
  CHECK(pipe(p) == 0);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    close(p[0]);
    FILE* out = fdopen(p[1], "w");
    CHECK(out);
    fprintf(out, "line %d\n", 1);
    fputs("line 2\n", out);
    fclose(out);
    _exit(0);
  }
  close(p[1]);
  FILE* in = fdopen(p[0], "r");
  char line[32];
  CHECK(fgets(line, sizeof line, in) && strcmp(line, "line 1\n") == 0);
  CHECK(fgets(line, sizeof line, in) && strcmp(line, "line 2\n") == 0);
  CHECK(!fgets(line, sizeof line, in));
  fclose(in);
  int status;
  CHECK(waitpid(child, &status, 0) == child);
  const int value = 42;
  CHECK(radar_event("checkpoint", &value, sizeof value) == (getenv("RADAR_DIR") ? 1 : 0));
  radar_eventf("progress", "%d of %d", 3, 4);
  return 0;
}
