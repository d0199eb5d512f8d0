// glibc's FILE jump table, shared by the recorder and the replay library:
// printf, fwrite, fgets ... reach the kernel through its read/write/close
// slots, which call the C library's internal write()/read()/close() where
// no LD_PRELOAD hook sees them. Both libraries point those slots at their
// own wrappers, after checking that they hold exactly what we expect
// (glibc's exported _IO_file_* functions); on any other C library the
// table is left alone.
#pragma once

#include <dlfcn.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cstdint>

#include "log/sys.h"

namespace radar::inject {

using IoRead = ssize_t (*)(FILE*, void*, ssize_t);
using IoWrite = ssize_t (*)(FILE*, const void*, ssize_t);
using IoClose = int (*)(FILE*);

struct StdioSlots {
  IoRead read = nullptr;
  IoWrite write = nullptr;
  IoClose close = nullptr;
};

// glibc's own slot functions, resolved once.
inline const StdioSlots& realStdioSlots() {
  static StdioSlots real;
  if (!real.write) {
    real.read = reinterpret_cast<IoRead>(dlsym(RTLD_NEXT, "_IO_file_read"));
    real.write = reinterpret_cast<IoWrite>(dlsym(RTLD_NEXT, "_IO_file_write"));
    real.close = reinterpret_cast<IoClose>(dlsym(RTLD_NEXT, "_IO_file_close"));
  }
  return real;
}

// The jump table of a stream (it follows the FILE in struct _IO_FILE_plus).
inline void* stdioTableOf(FILE* f) { return *reinterpret_cast<void**>(reinterpret_cast<char*>(f) + sizeof(FILE)); }

enum class StdioPatch { Patched, AlreadyPatched, UnknownTable };

// Points the read/write (and, if it is glibc's, close) slots of `vtable`
// at `mine`.
inline StdioPatch patchStdioSlots(void* vtable, const StdioSlots& mine) {
  // struct _IO_jump_t: two size_t, then function pointers; read, write and
  // close are at these indices in glibc 2.x.
  constexpr int kReadSlot = 14, kWriteSlot = 15, kCloseSlot = 17;
  const StdioSlots& real = realStdioSlots();
  auto** slots = static_cast<void**>(vtable);
  if (slots[kWriteSlot] == reinterpret_cast<void*>(mine.write)) return StdioPatch::AlreadyPatched;
  if (!real.write || !real.read || slots[kWriteSlot] != reinterpret_cast<void*>(real.write) ||
      slots[kReadSlot] != reinterpret_cast<void*>(real.read))
    return StdioPatch::UnknownTable;
  void* values[kCloseSlot - kReadSlot + 1] = {};
  values[0] = reinterpret_cast<void*>(mine.read);
  values[kWriteSlot - kReadSlot] = reinterpret_cast<void*>(mine.write);
  if (mine.close && slots[kCloseSlot] == reinterpret_cast<void*>(real.close))
    values[kCloseSlot - kReadSlot] = reinterpret_cast<void*>(mine.close);
  // The table is in the C library's read-only-after-relocation data: make
  // its page writable for the time it takes to store into it.
  void** first = &slots[kReadSlot];
  void** last = &slots[kCloseSlot];
  const uintptr_t page = reinterpret_cast<uintptr_t>(first) & ~uintptr_t{4095};
  const size_t len = reinterpret_cast<uintptr_t>(last + 1) - page;
  if (sys::raw(SYS_mprotect, static_cast<long>(page), static_cast<long>(len), PROT_READ | PROT_WRITE) != 0)
    return StdioPatch::UnknownTable;
  void* const* value = values;
  for (void** slot = first; slot <= last; ++slot, ++value)
    if (*value) __atomic_store_n(slot, *value, __ATOMIC_RELEASE);
  sys::raw(SYS_mprotect, static_cast<long>(page), static_cast<long>(len), PROT_READ);
  return StdioPatch::Patched;
}

}  // namespace radar::inject
