/* radar_ports.h -- find and use a process's communication ports (header-only C).
 *
 * The port convention shared by radar's sample launchers and `radar run`:
 * a process finds each of its ports in an environment variable
 *
 *     RADAR_PORT_<NAME>=<fd>[,<fd>...]        e.g. RADAR_PORT_OUTPUT=4,5
 *
 * where NAME is the port name in upper case. An output port with several fds
 * is connected to several inputs: radar_port_send() replicates each message
 * to every fd (one-to-many). Several processes may hold the write end of the
 * same pipe (many-to-one); the reader then sees their messages interleaved,
 * whole as long as each is at most PIPE_BUF (4096) bytes.
 *
 * Port names are case-insensitive here: radar_port_fd("input") reads
 * RADAR_PORT_INPUT. Works from C11 and C++.
 */
#ifndef RADAR_PORTS_H
#define RADAR_PORTS_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The most fds radar_port_send() replicates to. */
#define RADAR_PORT_MAX_FDS 64

/* Stores the port's fds in fds[0..max-1]; returns how many. Returns 0 when the
   variable is missing or malformed, or lists more than max fds. */
static inline int radar_port_fds(const char* name, int* fds, int max) {
  char var[128] = "RADAR_PORT_";
  size_t n = strlen(var);
  for (; *name != '\0'; name++) {
    if (n + 1 >= sizeof var) return 0;
    var[n++] = (char)toupper((unsigned char)*name);
  }
  var[n] = '\0';

  const char* s = getenv(var);
  if (s == NULL) return 0;
  int count = 0;
  for (;;) {
    if (!isdigit((unsigned char)*s) || count == max) return 0;
    char* end;
    errno = 0;
    long fd = strtol(s, &end, 10);
    if (errno != 0 || fd > INT_MAX) return 0;
    fds[count++] = (int)fd;
    if (*end == '\0') return count;
    if (*end != ',') return 0;
    s = end + 1;
  }
}

/* The port's first fd, or -1 when it has none. */
static inline int radar_port_fd(const char* name) {
  int fds[RADAR_PORT_MAX_FDS];
  return radar_port_fds(name, fds, RADAR_PORT_MAX_FDS) > 0 ? fds[0] : -1;
}

/* Writes all len bytes to every fd of the port. Returns 0, or -1 with errno
   set (EBADF when the port does not exist). */
static inline int radar_port_send(const char* name, const void* buf, size_t len) {
  int fds[RADAR_PORT_MAX_FDS];
  int n = radar_port_fds(name, fds, RADAR_PORT_MAX_FDS);
  if (n == 0) {
    errno = EBADF;
    return -1;
  }
  for (int i = 0; i < n; i++) {
    const char* p = (const char*)buf;
    size_t left = len;
    while (left > 0) {
      ssize_t w = write(fds[i], p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        return -1;
      }
      p += w;
      left -= (size_t)w;
    }
  }
  return 0;
}

/* Reads exactly len bytes from the port's first fd. Returns 1; 0 at end of
   file before any byte; -1 on error (errno EIO when end of file came in the
   middle of the message, EBADF when the port does not exist). */
static inline int radar_port_receive(const char* name, void* buf, size_t len) {
  int fd = radar_port_fd(name);
  if (fd < 0) {
    errno = EBADF;
    return -1;
  }
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, (char*)buf + got, len - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) {
      if (got == 0) return 0;
      errno = EIO;
      return -1;
    }
    got += (size_t)r;
  }
  return 1;
}

#endif /* RADAR_PORTS_H */
