/* deadlock_proc -- the processes of deadlock (see deadlock.c).
 * argv[0] is "alpha", "beta" or "gamma"; argv[1] the mode.
 *   ring   each process receives a token on INPUT, then sends it, plus one,
 *          on OUTPUT -- alpha included, so nobody ever sends;
 *   chain  alpha sends the token 1 first, then waits for it to come back
 *          (as 3) and prints it; beta and gamma receive, then send.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "radar_ports.h"

int main(int argc, char** argv) {
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  const char* mode = argc > 1 ? argv[1] : "";
  if ((strcmp(name, "alpha") != 0 && strcmp(name, "beta") != 0 && strcmp(name, "gamma") != 0) ||
      (strcmp(mode, "ring") != 0 && strcmp(mode, "chain") != 0)) {
    fprintf(stderr,
            "deadlock_proc: run me as alpha, beta or gamma (argv[0]) with ring or chain, "
            "from deadlock\n");
    return 2;
  }
  int starts = strcmp(mode, "chain") == 0 && strcmp(name, "alpha") == 0;

  int32_t token = 1;
  if (starts && radar_port_send("OUTPUT", &token, sizeof token) < 0) {
    perror(name);
    return 1;
  }
  if (radar_port_receive("INPUT", &token, sizeof token) != 1) {
    fprintf(stderr, "%s: no token\n", name);
    return 1;
  }
  if (starts) {
    printf("%s: the token came back as %d\n", name, token);
    return 0;
  }
  token++;
  if (radar_port_send("OUTPUT", &token, sizeof token) < 0) {
    perror(name);
    return 1;
  }
  return 0;
}
