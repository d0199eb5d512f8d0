// Shared by the small programs the interposer tests record. Each one does
// one family of calls in a known order; the tests check the log record by
// record. CHECK aborts loudly: a test program that misbehaves must not
// pass for a recorder that misrecords.
#pragma once
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond)                                                                                 \
  do {                                                                                              \
    if (!(cond)) {                                                                                  \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: %s\n", __FILE__, __LINE__, #cond, strerror(errno)); \
      abort();                                                                                      \
    }                                                                                               \
  } while (0)

static inline void writeAll(int fd, const void* buf, size_t n) {
  const char* p = (const char*)buf;
  while (n) {
    ssize_t w = write(fd, p, n);
    CHECK(w > 0);
    p += w;
    n -= (size_t)w;
  }
}

static inline void readAll(int fd, void* buf, size_t n) {
  char* p = (char*)buf;
  while (n) {
    ssize_t r = read(fd, p, n);
    CHECK(r > 0);
    p += r;
    n -= (size_t)r;
  }
}
