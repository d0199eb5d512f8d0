/* mpx_proc -- the processes of mpx (see mpx.c). argv[0] chooses the role:
 *   initiator N REQUESTS   sends REQUESTS requests on REQUESTS, closes it, then
 *                          reads replies from REPLIES until every server has
 *                          closed it, and prints the replies per server;
 *   server ID              reads requests from REQUESTS until end of file,
 *                          works 200 us on each and answers on REPLIES.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "radar_ports.h"

/* initiator -> servers: 16 of them fill the 4096-byte request pipe. */
struct Request {
  uint32_t id;      /* 1, 2, ... */
  uint32_t work_us; /* how long the server works on it */
  char text[248];   /* "request 7" */
};

/* server -> initiator */
struct Reply {
  uint32_t id;     /* the request's id */
  uint32_t server; /* which server answered: 1..N */
  uint32_t served; /* how many requests that server has answered so far */
  uint32_t length; /* strlen of the request's text */
};

_Static_assert(sizeof(struct Request) == 256, "Request layout");

static int initiator(int servers, int requests) {
  for (int i = 1; i <= requests; i++) {
    struct Request request;
    memset(&request, 0, sizeof request);
    request.id = (uint32_t)i;
    request.work_us = 200;
    snprintf(request.text, sizeof request.text, "request %d", i);
    if (radar_port_send("REQUESTS", &request, sizeof request) < 0) {
      perror("initiator: REQUESTS");
      return 1;
    }
  }
  close(radar_port_fd("REQUESTS")); /* the servers stop once the buffer is empty */

  int per_server[33] = {0}, replies = 0, r;
  struct Reply reply;
  while ((r = radar_port_receive("REPLIES", &reply, sizeof reply)) == 1) {
    if (reply.server < 1 || reply.server > (uint32_t)servers) {
      fprintf(stderr, "initiator: reply from unknown server %u\n", reply.server);
      return 1;
    }
    per_server[reply.server]++;
    replies++;
  }
  if (r < 0) {
    perror("initiator: REPLIES");
    return 1;
  }
  printf("initiator: %d requests, %d replies:", requests, replies);
  for (int s = 1; s <= servers; s++) printf(" server%d %d%s", s, per_server[s], s < servers ? "," : "");
  printf("\n");
  return replies == requests ? 0 : 1;
}

static int server(uint32_t id) {
  struct Request request;
  uint32_t served = 0;
  int r;
  while ((r = radar_port_receive("REQUESTS", &request, sizeof request)) == 1) {
    usleep(request.work_us);
    struct Reply reply = {request.id, id, ++served, (uint32_t)strnlen(request.text, sizeof request.text)};
    if (radar_port_send("REPLIES", &reply, sizeof reply) < 0) {
      perror("server: REPLIES");
      return 1;
    }
  }
  if (r < 0) perror("server: REQUESTS");
  return r < 0;
}

int main(int argc, char** argv) {
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(name, "initiator") == 0 && argc == 3) {
    int servers = atoi(argv[1]);
    if (servers < 1 || servers > 32) return 2;
    return initiator(servers, atoi(argv[2]));
  }
  if (strcmp(name, "server") == 0 && argc == 2) return server((uint32_t)atoi(argv[1]));
  fprintf(stderr, "mpx_proc: run me as \"initiator N REQUESTS\" or \"server ID\" (argv[0]), from mpx\n");
  return 2;
}
