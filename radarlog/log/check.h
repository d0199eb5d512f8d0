// RADAR_CHECK(condition): an invariant of radar's host code (the log
// reader, the merge) that stays on in release builds. Only cheap
// conditions: the merge benchmark may not move by more than 2 % for them.
// A failure names the place and the condition on standard error and
// aborts: a wrong answer told to the user is worse than none.
// (Injected code has its own: RADAR_INJECTED_CHECK in inject/injected.h.)
#pragma once

namespace radar::log {
[[noreturn, gnu::cold, gnu::noinline]] void checkFailed(const char* file, int line, const char* what);
}  // namespace radar::log

#define RADAR_CHECK(condition)                                                                        \
  do {                                                                                                \
    if (__builtin_expect(!(condition), 0)) ::radar::log::checkFailed(__FILE__, __LINE__, #condition); \
  } while (0)
