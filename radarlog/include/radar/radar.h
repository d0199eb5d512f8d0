/* radar/radar.h: user events, RADAR's "announce".
 *
 * A program that includes this header can mark points of interest in a
 * recording: radar_event("checkpoint", &state, sizeof state) appears in the
 * replay as "Process P announces checkpoint. Event N." with the data
 * decodable like a message. Without radar (not run under `radar record`)
 * the calls do nothing and cost one branch: the program runs unchanged and
 * needs no radar library to link.
 *
 * Header-only, C and C++. Link with -ldl on C libraries older than glibc 2.34.
 */
#ifndef RADAR_RADAR_H
#define RADAR_RADAR_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*radar_user_event_fn)(const char* name, const void* data, size_t len);

/* The recorder's entry point, looked up once; null when not recording. */
static inline radar_user_event_fn radar_event_function_(void) {
  static int looked_up;
  static radar_user_event_fn fn;
  if (!looked_up) {
    fn = (radar_user_event_fn)dlsym(RTLD_DEFAULT, "radar_user_event");
    looked_up = 1;
  }
  return fn;
}

/* Records a user event named `name` with `len` bytes of `data` (may be
 * NULL). Returns 1 when recorded, 0 when not running under radar. */
static inline int radar_event(const char* name, const void* data, size_t len) {
  radar_user_event_fn fn = radar_event_function_();
  return fn ? fn(name, data, len) : 0;
}

/* The same with a printf-style text as data. Texts longer than 1024 bytes
 * are cut. */
static inline int radar_eventf(const char* name, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline int radar_eventf(const char* name, const char* format, ...) {
  radar_user_event_fn fn = radar_event_function_();
  if (!fn) return 0;
  char text[1024];
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(text, sizeof text, format, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof text) n = (int)sizeof text - 1;
  return fn(name, text, (size_t)n);
}

#ifdef __cplusplus
}
#endif

#endif /* RADAR_RADAR_H */
