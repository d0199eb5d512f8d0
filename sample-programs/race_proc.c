/* race_proc -- the processes of race (see race.c for the planted bug).
 *   server      poll()s its ports CLIENT1, CLIENT2, ... (one Unix stream
 *               socket each) for text commands, one per line:
 *                   SET key value     -> "OK value"
 *                   ADD key delta     -> "OK new-value"
 *                   GET key           -> "OK value" or "ERR no such key"
 *               until every client has closed its socket; then prints
 *               "hits = <value>".
 *   client ID   on port SERVER: sleeps 0-3 ms, sends "SET hits 0", waits
 *               for the reply, sleeps 0-3 ms, sends "ADD hits <10*ID>",
 *               waits for the reply. The delays are random, seeded from
 *               the pid, so the interleaving changes from run to run.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "radar_ports.h"

enum { MAX_CLIENTS = 16, MAX_KEYS = 16, LINE = 128 };

/* ---- server ----------------------------------------------------------- */

static struct {
  char key[32];
  long value;
} table[MAX_KEYS];
static int keys;

static long* lookup(const char* key, int create) {
  for (int i = 0; i < keys; i++)
    if (strcmp(table[i].key, key) == 0) return &table[i].value;
  if (!create || keys == MAX_KEYS) return NULL;
  snprintf(table[keys].key, sizeof table[keys].key, "%s", key);
  table[keys].value = 0;
  return &table[keys++].value;
}

/* Applies one command; writes the reply line into reply. */
static void apply(const char* command, char* reply, size_t size) {
  char verb[8], key[32];
  long number = 0;
  int fields = sscanf(command, "%7s %31s %ld", verb, key, &number);
  long* value;
  if (fields == 3 && strcmp(verb, "SET") == 0 && (value = lookup(key, 1)) != NULL) {
    *value = number;
    snprintf(reply, size, "OK %ld\n", *value);
  } else if (fields == 3 && strcmp(verb, "ADD") == 0 && (value = lookup(key, 1)) != NULL) {
    *value += number;
    snprintf(reply, size, "OK %ld\n", *value);
  } else if (fields == 2 && strcmp(verb, "GET") == 0) {
    value = lookup(key, 0);
    if (value != NULL)
      snprintf(reply, size, "OK %ld\n", *value);
    else
      snprintf(reply, size, "ERR no such key\n");
  } else {
    snprintf(reply, size, "ERR bad command\n");
  }
}

static int write_all(int fd, const char* s, size_t length) {
  while (length > 0) {
    ssize_t w = write(fd, s, length);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    s += w;
    length -= (size_t)w;
  }
  return 0;
}

static int server(void) {
  struct pollfd fds[MAX_CLIENTS];
  char pending[MAX_CLIENTS][LINE]; /* a partial line from each client */
  size_t used[MAX_CLIENTS] = {0};
  int clients = 0, open_clients;
  for (; clients < MAX_CLIENTS; clients++) {
    char port[16];
    snprintf(port, sizeof port, "CLIENT%d", clients + 1);
    int fd = radar_port_fd(port);
    if (fd < 0) break;
    fds[clients].fd = fd;
    fds[clients].events = POLLIN;
  }
  if (clients == 0) {
    fprintf(stderr, "server: no CLIENT1 port\n");
    return 2;
  }

  for (open_clients = clients; open_clients > 0;) {
    if (poll(fds, (nfds_t)clients, -1) < 0) {
      if (errno == EINTR) continue;
      perror("server: poll");
      return 1;
    }
    for (int i = 0; i < clients; i++) {
      if (fds[i].revents == 0) continue;
      ssize_t n = read(fds[i].fd, pending[i] + used[i], sizeof pending[i] - 1 - used[i]);
      if (n <= 0) { /* the client is done (or gone) */
        close(fds[i].fd);
        fds[i].fd = -1;
        open_clients--;
        continue;
      }
      used[i] += (size_t)n;
      pending[i][used[i]] = '\0';
      char* newline;
      while ((newline = strchr(pending[i], '\n')) != NULL) {
        *newline = '\0';
        char reply[64];
        apply(pending[i], reply, sizeof reply);
        if (write_all(fds[i].fd, reply, strlen(reply)) < 0) perror("server: reply");
        used[i] -= (size_t)(newline + 1 - pending[i]);
        memmove(pending[i], newline + 1, used[i] + 1);
      }
      if (used[i] == sizeof pending[i] - 1) used[i] = 0; /* a line too long: drop it */
    }
  }
  long* hits = lookup("hits", 0);
  printf("hits = %ld\n", hits != NULL ? *hits : 0);
  return 0;
}

/* ---- client ----------------------------------------------------------- */

/* Sends one command and waits for its one-line reply. */
static int command(int fd, const char* text, char* reply, size_t size) {
  if (write_all(fd, text, strlen(text)) < 0) return -1;
  size_t got = 0;
  while (got == 0 || reply[got - 1] != '\n') {
    if (got == size - 1) break;
    ssize_t n = read(fd, reply + got, size - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  reply[got] = '\0';
  return 0;
}

static int client(int id) {
  int fd = radar_port_fd("SERVER");
  if (fd < 0) {
    fprintf(stderr, "client %d: no SERVER port\n", id);
    return 2;
  }
  srand((unsigned)getpid());
  char text[64], reply[64];

  usleep((useconds_t)(rand() % 3000));
  if (command(fd, "SET hits 0\n", reply, sizeof reply) < 0) {
    perror("client: SET");
    return 1;
  }
  usleep((useconds_t)(rand() % 3000));
  snprintf(text, sizeof text, "ADD hits %d\n", 10 * id);
  if (command(fd, text, reply, sizeof reply) < 0) {
    perror("client: ADD");
    return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  const char* name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(name, "server") == 0 && argc == 1) return server();
  if (strcmp(name, "client") == 0 && argc == 2) return client(atoi(argv[1]));
  fprintf(stderr, "race_proc: run me as \"server\" or \"client ID\" (argv[0]), from race\n");
  return 2;
}
