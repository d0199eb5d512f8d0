/* mpx -- a bounded buffer of requests shared by N servers (seed 001's experiment).
 *
 *                 requests (one pipe,            replies (one pipe,
 *                 4096 bytes of capacity)        many writers)
 *     initiator ---------------------+--> server1 ---+---------------> initiator
 *                                    +--> server2 ---+
 *                                    +--> serverN ---+
 *
 * The initiator writes REQUESTS fixed-size requests (256 bytes each) into one
 * pipe whose capacity is cut to 4096 bytes (F_SETPIPE_SZ), so at most 16
 * requests wait in it: when the servers are too few the initiator blocks on
 * a full buffer and requests queue. N servers read from that same pipe
 * (several readers: each request goes to whichever server reads first), work
 * 200 microseconds on each, and answer on a shared reply pipe. The
 * initiator prints how many replies came from each server.
 *
 *     mpx N [REQUESTS]        N = 1..32 servers, REQUESTS = 1..1000 (default 40)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"

int main(int argc, char** argv) {
  char* end;
  long servers = argc > 1 ? strtol(argv[1], &end, 10) : 0;
  if (argc < 2 || argc > 3 || *end != '\0' || servers < 1 || servers > 32) {
    fprintf(stderr, "usage: mpx N [REQUESTS]   (N = 1..32 servers, REQUESTS = 1..1000, default 40)\n");
    return 2;
  }
  long requests = argc > 2 ? strtol(argv[2], &end, 10) : 40;
  if (argc > 2 && (*end != '\0' || requests < 1 || requests > 1000)) {
    fprintf(stderr, "mpx: REQUESTS must be 1..1000 (all replies must fit in the reply pipe)\n");
    return 2;
  }

  int request_pipe[2], reply_pipe[2];
  launch_pipe(request_pipe);
  launch_pipe(reply_pipe);
  if (fcntl(request_pipe[1], F_SETPIPE_SZ, 4096) < 0) launch_die("F_SETPIPE_SZ");

  char servers_arg[16], requests_arg[16];
  snprintf(servers_arg, sizeof servers_arg, "%ld", servers);
  snprintf(requests_arg, sizeof requests_arg, "%ld", requests);

  pid_t pids[33];
  const char* names[33];
  char server_ids[32][16];
  const struct launch_port initiator_ports[] = {
      {"REQUESTS", 1, {request_pipe[1]}}, {"REPLIES", 1, {reply_pipe[0]}}, {NULL, 0, {0}}};
  const char* initiator_argv[] = {"initiator", servers_arg, requests_arg, NULL};
  pids[0] = launch_worker("mpx_proc", initiator_argv, initiator_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  names[0] = "initiator";

  const struct launch_port server_ports[] = {
      {"REQUESTS", 1, {request_pipe[0]}}, {"REPLIES", 1, {reply_pipe[1]}}, {NULL, 0, {0}}};
  for (int i = 1; i <= servers; i++) {
    snprintf(server_ids[i - 1], sizeof server_ids[i - 1], "%d", i);
    const char* server_argv[] = {"server", server_ids[i - 1], NULL};
    pids[i] = launch_worker("mpx_proc", server_argv, server_ports, LAUNCH_DEVNULL, LAUNCH_INHERIT);
    names[i] = "server";
  }
  launch_close_all();
  return launch_wait("mpx", pids, names, (int)servers + 1);
}
