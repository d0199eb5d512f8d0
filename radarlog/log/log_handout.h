// The handout of log files, shared by radar record (which serves it) and
// the recorder (which asks): a recorded process that cannot create its log
// in the recording directory -- it dropped its privileges, as dnsmasq's and
// apache's workers do, and the directory is radar record's, mode 0700 --
// asks radar record for it over a Unix socket in the abstract namespace
// named after the recording. The request is the log's file name; the answer
// an int32 errno (0: made) with, when made, the file's descriptor
// (SCM_RIGHTS). Free of libc calls: the interposer uses it too.
//
// The same socket takes a second request, a TraceRequest: a recorded
// process about to exec a program the interposer cannot see into (static,
// Go) asks radar record's fallback recorder to trace the exec'ing thread
// (which, if the exec fails, lets it go at its next call). The answer is
// the int32 errno.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <cstddef>
#include <cstdint>

namespace radar::log {

inline constexpr size_t kHandoutNameMax = 255;  // a file name's limit

// The socket's address for the recording `id` made in the directory `dir`
// (absolute, as RADAR_DIR gives it): "\0radar-logs-", the id in hex, "-"
// and a hash of the directory, so that two parts of one recording made on
// one machine (radar record --join) each have their own. Returns the length
// to give bind() and connect().
inline socklen_t handoutAddress(const uint8_t id[16], const char* dir, struct sockaddr_un* addr) {
  static constexpr char kPrefix[] = "radar-logs-";
  static constexpr char kHex[] = "0123456789abcdef";
  *addr = {};
  addr->sun_family = AF_UNIX;
  size_t at = 1;  // sun_path[0] stays 0: the abstract namespace
  for (const char* c = kPrefix; *c; ++c) addr->sun_path[at++] = *c;
  for (int i = 0; i < 16; ++i) {
    addr->sun_path[at++] = kHex[id[i] >> 4];
    addr->sun_path[at++] = kHex[id[i] & 15];
  }
  uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a
  for (const char* c = dir; *c; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3ull;
  addr->sun_path[at++] = '-';
  for (int shift = 60; shift >= 0; shift -= 4) addr->sun_path[at++] = kHex[(hash >> shift) & 15];
  return static_cast<socklen_t>(offsetof(struct sockaddr_un, sun_path) + at);
}

// A name radar record makes a file of: a log's ("PID-GEN-NAME[.N].rlog"),
// with no path in it.
inline bool isHandoutName(const char* name, size_t n) {
  if (n < 10 || n > kHandoutNameMax || name[0] < '0' || name[0] > '9') return false;
  for (size_t i = 0; i < n; ++i)
    if (name[i] == '/' || name[i] == 0) return false;
  const char* end = name + n - 5;
  return end[0] == '.' && end[1] == 'r' && end[2] == 'l' && end[3] == 'o' && end[4] == 'g';
}

// A request about thread `tid` of the asking process (`op`): to trace it
// through its exec (Exec), or to trace the process it is about to spawn
// (posix_spawn) from that process's exec (Spawn); the new image linked to
// event `counter` of log `log_id` (its EXEC, the VFORK a vfork child came
// from, the event before a spawn: `origin`, a log::Origin), as generation
// `generation`. Or, the spawn done, to let the thread go (Done).
struct TraceRequest {
  enum Op : uint32_t { Exec = 0, Spawn = 1, Done = 2 };
  char tag[8];  // kTraceTag: a log's name starts with a digit
  int32_t tid;
  uint32_t origin;
  uint64_t log_id;
  uint64_t counter;
  uint32_t generation;
  uint32_t op;
};
inline constexpr char kTraceTag[8] = {'!', 't', 'r', 'a', 'c', 'e', '!', 0};

inline bool isTraceRequest(const void* data, size_t n) {
  if (n != sizeof(TraceRequest)) return false;
  const char* tag = static_cast<const char*>(data);
  for (size_t i = 0; i < sizeof(kTraceTag); ++i)
    if (tag[i] != kTraceTag[i]) return false;
  return true;
}

}  // namespace radar::log
