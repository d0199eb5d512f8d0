// The program's signal handlers, wrapped alike in both injected libraries:
// sigaction() installs a trampoline that tells the library
// (inject/library.h) before and after it runs the program's handler, and
// still reports the program's own handler.
#pragma once

namespace radar::inject {

// Whether the program has a handler of its own for `sig` (not the default,
// not ignored) that the trampoline runs.
bool programHandles(int sig);

}  // namespace radar::inject
