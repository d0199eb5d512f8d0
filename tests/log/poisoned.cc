// Compiled by ctest, expected to fail: injected code cannot allocate
// (tests/log/CMakeLists.txt, Checks.InjectedCodeCannotAllocateOrPrint).
#include <cstdlib>

#include "log/injected.h"

void* grow() { return malloc(16); }
