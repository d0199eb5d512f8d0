/* static_net_proc -- the three processes of static_net (see static_net.c).
 * argv[0] chooses the role:
 *   proc1, proc2  send 3 requests each on OUTPUT (value = 10 * id + k) and
 *                 wait for each answer on INPUT; the replies to the other
 *                 sender arrive there too and are skipped;
 *   proc3         answers 6 requests from INPUT with the square of the value
 *                 on OUTPUT (replicated to both senders), then prints what it
 *                 got from each sender, in a fixed order.
 * Ports: RADAR_PORT_INPUT and RADAR_PORT_OUTPUT (see radar_ports.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "radar_ports.h"

/* proc1/proc2 -> proc3 */
struct Request {
  int32_t from; /* the sender: 1 or 2 */
  int32_t value;
};

/* proc3 -> proc1 and proc2 (both get every reply) */
struct Reply {
  int32_t to;    /* the sender of the request answered */
  int32_t value; /* the request's value, squared */
};

enum { REQUESTS_PER_SENDER = 3, SENDERS = 2 };

static int sender(const char* name, int32_t id) {
  for (int k = 1; k <= REQUESTS_PER_SENDER; k++) {
    struct Request request = {id, 10 * id + k};
    if (radar_port_send("OUTPUT", &request, sizeof request) < 0) {
      perror(name);
      return 1;
    }
    struct Reply reply;
    do {
      if (radar_port_receive("INPUT", &reply, sizeof reply) != 1) {
        fprintf(stderr, "%s: no reply to request %d\n", name, k);
        return 1;
      }
    } while (reply.to != id);
    if (reply.value != request.value * request.value) {
      fprintf(stderr, "%s: %d answered with %d\n", name, request.value, reply.value);
      return 1;
    }
  }
  /* proc3 sends every reply to both senders: keep reading until it closes its
     output, so that it never writes into a pipe nobody reads. */
  struct Reply other;
  while (radar_port_receive("INPUT", &other, sizeof other) == 1) {
  }
  return 0;
}

static int answerer(void) {
  int32_t received[SENDERS][REQUESTS_PER_SENDER], answered[SENDERS][REQUESTS_PER_SENDER];
  int count[SENDERS] = {0};
  for (int i = 0; i < SENDERS * REQUESTS_PER_SENDER; i++) {
    struct Request request;
    if (radar_port_receive("INPUT", &request, sizeof request) != 1) {
      fprintf(stderr, "proc3: expected %d requests, got %d\n", SENDERS * REQUESTS_PER_SENDER, i);
      return 1;
    }
    if (request.from < 1 || request.from > SENDERS || count[request.from - 1] == REQUESTS_PER_SENDER) {
      fprintf(stderr, "proc3: unexpected request from %d\n", request.from);
      return 1;
    }
    struct Reply reply = {request.from, request.value * request.value};
    if (radar_port_send("OUTPUT", &reply, sizeof reply) < 0) {
      perror("proc3");
      return 1;
    }
    int s = request.from - 1;
    received[s][count[s]] = request.value;
    answered[s][count[s]] = reply.value;
    count[s]++;
  }
  for (int s = 0; s < SENDERS; s++) {
    printf("proc3: proc%d sent", s + 1);
    for (int k = 0; k < REQUESTS_PER_SENDER; k++) printf(" %d", received[s][k]);
    printf(", answered");
    for (int k = 0; k < REQUESTS_PER_SENDER; k++) printf(" %d", answered[s][k]);
    printf("\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  (void)argc;
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(name, "proc1") == 0) return sender(name, 1);
  if (strcmp(name, "proc2") == 0) return sender(name, 2);
  if (strcmp(name, "proc3") == 0) return answerer();
  fprintf(stderr, "static_net_proc: run me as proc1, proc2 or proc3 (argv[0]), from static_net\n");
  return 2;
}
