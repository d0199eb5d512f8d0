// The replay script is input: a file on disk that anyone could have made or
// damaged. Before the hooks trust one offset in it, checkScript() checks
// that every table fits the file, every blob the data, every index its
// table, every text its NUL. Plain code: tested directly, without
// LD_PRELOAD (tests/driver/script_check_test.cc).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "driver/script.h"

namespace radar::rerun {

// Where the script's tables are, once checked.
struct ScriptTables {
  const driver::ScriptEvent* events = nullptr;
  const driver::ScriptThread* threads = nullptr;
  const driver::ScriptFd* inherited = nullptr;
  const driver::ScriptOutput* outputs = nullptr;
  const uint8_t* data = nullptr;
};

// Null when the script at `base` (`size` bytes, 8-byte aligned) can be
// trusted, with `out` filled; else what is wrong with it. More than
// `max_threads` threads is wrong too.
const char* checkScript(const uint8_t* base, size_t size, uint32_t max_threads, ScriptTables* out);

}  // namespace radar::rerun
