// The environment variables `radar record` sets for the recorded program
// (and that the recorder passes on to every process it starts). Other
// RADAR_* variables, such as the RADAR_PORT_* of the port convention,
// belong to the program.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace radar::log {

inline constexpr const char* kRecorderVariables[] = {
    "RADAR_DIR",     "RADAR_RECORDING_ID", "RADAR_PAYLOAD_LIMIT", "RADAR_TAIL",   "RADAR_NONDET",      "RADAR_EXTERNAL",
    "RADAR_LINK",    "RADAR_BOOT_ID",      "RADAR_HOST",          "RADAR_REDACT", "RADAR_KEEP_WRITES", "RADAR_SYNC",
    "RADAR_DORMANT", "RADAR_FLIGHT",       "RADAR_STOP_AT",       "RADAR_COPIES",
};

// ---- descriptors ------------------------------------------------------------
// The recorder keeps its own descriptors above the numbers the program may
// have: just above a small soft RLIMIT_NOFILE, where the hard limit leaves
// room. Where it leaves none (`ulimit -n 16` sets both), they would take
// numbers the program would have got.
inline bool leavesRadarNoRoom(uint64_t nofile_soft, uint64_t nofile_hard) {
  return nofile_soft < 64 && nofile_hard <= nofile_soft + 4;
}

// ---- secrets ----------------------------------------------------------------
// Variables whose values a log leaves out (radar record --redact): their
// names matched against glob patterns (`*` any run, `?` one character,
// letters of either case alike), given as one list separated by colons.
// Free of libc calls beyond string.h: the interposer uses it too.

inline constexpr char kDefaultRedactPatterns[] =
    "*SECRET*:*TOKEN*:*PASSWORD*:*PASSWD*:*_KEY:*_KEY_*:*API_KEY*:*CREDENTIAL*:*PRIVATE*:*_AUTH*:PGPASS*";

inline char foldCase(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

inline bool globMatches(const char* pattern, size_t plen, const char* name, size_t nlen) {
  size_t p = 0, n = 0, star_p = static_cast<size_t>(-1), star_n = 0;
  while (n < nlen) {
    if (p < plen && (pattern[p] == '?' || foldCase(pattern[p]) == foldCase(name[n]))) {
      ++p;
      ++n;
    } else if (p < plen && pattern[p] == '*') {
      star_p = p++;
      star_n = n;
    } else if (star_p != static_cast<size_t>(-1)) {
      p = star_p + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (p < plen && pattern[p] == '*') ++p;
  return p == plen;
}

// The length of NAME in "NAME=value".
inline size_t variableNameLength(const char* entry) {
  size_t n = 0;
  while (entry[n] && entry[n] != '=') ++n;
  return n;
}

// A pattern with no wildcard but a `*` at either end ("*SECRET*", "*_KEY",
// "PGPASS*", as most are), matched as a substring, suffix, prefix or the
// whole name: a scan, where the general match backtracks at each letter.
// Every new log's header asks it of every variable: it must be quick.
// False with `*simple` false for any other pattern.
inline bool literalMatches(const char* pattern, size_t plen, const char* name, size_t nlen, bool* simple) {
  const bool any_before = plen && pattern[0] == '*', any_after = plen > 1 && pattern[plen - 1] == '*';
  const char* lit = pattern + any_before;
  const size_t llen = plen - any_before - (any_after ? 1 : 0);
  *simple = llen > 0;
  for (size_t i = 0; i < llen && *simple; ++i) *simple = lit[i] != '*' && lit[i] != '?';
  if (!*simple || llen > nlen) return false;
  auto at = [&](size_t start) {
    for (size_t i = 0; i < llen; ++i)
      if (foldCase(lit[i]) != foldCase(name[start + i])) return false;
    return true;
  };
  if (!any_before) return at(0) && (any_after || llen == nlen);
  if (!any_after) return at(nlen - llen);
  for (size_t start = 0; start + llen <= nlen; ++start)
    if (at(start)) return true;
  return false;
}

// Whether the variable "NAME=value" matches one of `patterns`.
inline bool isRedacted(const char* patterns, const char* entry) {
  const size_t nlen = variableNameLength(entry);
  for (const char* p = patterns; *p;) {
    size_t len = 0;
    while (p[len] && p[len] != ':') ++len;
    bool simple = false;
    if (len && literalMatches(p, len, entry, nlen, &simple)) return true;
    if (len && !simple && globMatches(p, len, entry, nlen)) return true;
    p += len;
    if (*p) ++p;
  }
  return false;
}

// Whether "NAME=value" (or "NAME") is one of them.
inline bool isRecorderVariable(const char* entry) {
  for (const char* name : kRecorderVariables) {
    const size_t n = std::strlen(name);
    if (std::strncmp(entry, name, n) == 0 && (entry[n] == '=' || entry[n] == 0)) return true;
  }
  return false;
}

// What radar record adds to ASAN_OPTIONS: a program built with ASan would
// abort with radar's library preloaded before the sanitizer's runtime.
inline constexpr char kAsanLinkOrder[] = "verify_asan_link_order=0";

// Whether the LD_PRELOAD entry entry[0..len) is a sanitizer's runtime,
// which must come before radar's library.
inline bool isSanitizerRuntime(const char* entry, size_t len) {
  const char* base = entry;
  for (size_t i = 0; i < len; ++i)
    if (entry[i] == '/') base = entry + i + 1;
  const size_t base_len = len - static_cast<size_t>(base - entry);
  for (const char* name : {"libasan.so", "libtsan.so", "liblsan.so", "libubsan.so", "libhwasan.so", "libclang_rt.asan",
                           "libclang_rt.tsan", "libclang_rt.ubsan", "libclang_rt.lsan"}) {
    const size_t n = std::strlen(name);
    if (base_len >= n && std::strncmp(base, name, n) == 0) return true;
  }
  return false;
}

// Calls f(entry, len) for each entry of an LD_PRELOAD list (separated by
// colons or spaces, as the dynamic linker reads it).
template <typename F>
void forEachPreloadEntry(const char* list, F&& f) {
  for (const char* entry = list; *entry;) {
    size_t len = 0;
    while (entry[len] && entry[len] != ':' && entry[len] != ' ') ++len;
    if (len) f(entry, len);
    entry += len;
    if (*entry) ++entry;
  }
}

}  // namespace radar::log
