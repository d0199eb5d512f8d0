// Whether an executable is a Go program: Go makes its own system calls, not
// through the C library, so the interposer sees none of its traffic even
// when it is dynamically linked. Such a program is reported as not
// recorded rather than recorded as silent. Raw system calls and no memory
// allocation: it runs in the interposer's constructor too.
#pragma once

#include <elf.h>

#include <cstring>

#include "log/sys.h"

namespace radar::log {

// A Go linker's marks: the build information section, the build id note.
inline bool isGoExecutable(int fd) {
  Elf64_Ehdr eh;
  if (sys::pread(fd, &eh, sizeof(eh), 0) != static_cast<long>(sizeof(eh)) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
    return false;
  Elf64_Shdr names;
  if (sys::pread(fd, &names, sizeof(names), eh.e_shoff + uint64_t{eh.e_shstrndx} * sizeof(Elf64_Shdr)) !=
      static_cast<long>(sizeof(names)))
    return false;
  // The section names, and the headers 32 at a time: a few reads.
  char strings[2048];
  const long have = sys::pread(fd, strings, sizeof(strings), names.sh_offset);
  if (have <= 0) return false;
  Elf64_Shdr chunk[32];
  for (unsigned first = 0; first < eh.e_shnum; first += 32) {
    const unsigned count = eh.e_shnum - first < 32 ? eh.e_shnum - first : 32;
    if (sys::pread(fd, chunk, count * sizeof(Elf64_Shdr), eh.e_shoff + uint64_t{first} * sizeof(Elf64_Shdr)) !=
        static_cast<long>(count * sizeof(Elf64_Shdr)))
      return false;
    for (unsigned i = 0; i < count; ++i) {
      const uint64_t at = chunk[i].sh_name;
      if (at >= names.sh_size || at + 17 > static_cast<uint64_t>(have)) continue;
      const char* name = strings + at;
      if (std::strncmp(name, ".go.buildinfo", 14) == 0 || std::strncmp(name, ".note.go.buildid", 17) == 0) return true;
    }
  }
  return false;
}

inline bool isGoExecutable(const char* path) {
  const long fd = sys::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool go = isGoExecutable(static_cast<int>(fd));
  sys::close(static_cast<int>(fd));
  return go;
}

}  // namespace radar::log
