/* race -- an order-dependent bug: the result depends on how messages interleave.
 *
 *     client1 --socketpair--\
 *     client2 --socketpair---> server (poll)
 *     client3 --socketpair--/
 *
 * The launcher starts race_proc as one "server" and CLIENTS "client"
 * processes (default 3), each client connected to the server by its own
 * Unix socketpair; the server poll()s all of them. Each client i sends two
 * text commands about the same key, "hits", and waits for each reply:
 *
 *     SET hits 0        meant as "make sure the counter exists"
 *     ADD hits 10*i     its contribution
 *
 * with small random delays (seeded from its pid) before each. The server
 * applies commands in arrival order and prints "hits = <value>" at the end.
 * With 3 clients the right answer is 60 (10 + 20 + 30).
 *
 * THE BUG: the server's SET overwrites the key unconditionally. When one
 * client's SET arrives after another client's ADD, that ADD is lost and the
 * server prints 50, 40, 30... Whether it happens depends on timing: run
 * `race` a few times and the output changes. To see why, record a run that
 * prints less than 60 and look at the order in which the server received the
 * commands: a SET after an ADD. (The fix: SET-if-absent, or an INIT phase
 * before any ADD.) The program exits 0 either way.
 *
 *     race [CLIENTS]          CLIENTS = 1..16
 */
#include <stdio.h>
#include <stdlib.h>

#include "launch.h"

int main(int argc, char** argv) {
  char* end = NULL;
  long clients = argc > 1 ? strtol(argv[1], &end, 10) : 3;
  if (argc > 2 || (argc > 1 && *end != '\0') || clients < 1 || clients > 16) {
    fprintf(stderr, "usage: race [CLIENTS]   (1..16, default 3)\n");
    return 2;
  }

  struct launch_port server_ports[17];
  char port_names[16][16], ids[16][16];
  int sockets[16][2];
  for (int i = 0; i < clients; i++) {
    launch_socketpair(SOCK_STREAM, sockets[i]);
    snprintf(port_names[i], sizeof port_names[i], "CLIENT%d", i + 1);
    server_ports[i].name = port_names[i];
    server_ports[i].nfds = 1;
    server_ports[i].fds[0] = sockets[i][0];
  }
  server_ports[clients].name = NULL;

  pid_t pids[17];
  const char* names[17];
  const char* server_argv[] = {"server", NULL};
  pids[0] = launch_worker("race_proc", server_argv, server_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  names[0] = "server";
  for (int i = 0; i < clients; i++) {
    const struct launch_port client_ports[] = {{"SERVER", 1, {sockets[i][1]}}, {NULL, 0, {0}}};
    snprintf(ids[i], sizeof ids[i], "%d", i + 1);
    const char* client_argv[] = {"client", ids[i], NULL};
    pids[i + 1] = launch_worker("race_proc", client_argv, client_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
    names[i + 1] = "client";
  }
  launch_close_all();
  launch_wait("race", pids, names, (int)clients + 1);
  return 0;
}
