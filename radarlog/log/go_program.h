// Executables the interposer cannot see into. A Go program makes its own
// system calls, not through the C library, so the interposer sees none of
// its traffic even when it is dynamically linked; a statically linked
// program never loads it; a program that uses liburing moves its bytes
// through io_uring's rings, which the interposer does not follow. Such a program is recorded by the fallback
// recorder, or reported as not recorded rather than recorded as silent.
// Raw system calls and no memory allocation: it runs in the interposer's
// constructor and exec hook too.
#pragma once

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>

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

// `path`, opened to be read if it is a regular file (never a FIFO that
// would block, never a terminal made the caller's); -1 otherwise.
inline int openRegularFile(const char* path) {
  const long fd = sys::openat(AT_FDCWD, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct stat st;
  if (sys::fstat(static_cast<int>(fd), &st) == 0 && S_ISREG(st.st_mode)) return static_cast<int>(fd);
  sys::close(static_cast<int>(fd));
  return -1;
}

inline bool isGoExecutable(const char* path) {
  const int fd = openRegularFile(path);
  if (fd < 0) return false;
  const bool go = isGoExecutable(fd);
  sys::close(fd);
  return go;
}

// A 64-bit ELF executable that names no program interpreter: statically
// linked, so no LD_PRELOAD library is ever loaded into it. (The dynamic
// loader itself names none either, and runs what the interposer sees:
// not one, by its name.)
inline bool isStaticExecutable(int fd, const char* path) {
  const char* name = path;
  for (const char* c = path; *c; ++c)
    if (*c == '/') name = c + 1;
  if (std::strncmp(name, "ld-", 3) == 0 || std::strncmp(name, "ld.so", 5) == 0 || std::strncmp(name, "ld64.so", 7) == 0)
    return false;
  Elf64_Ehdr eh;
  if (sys::pread(fd, &eh, sizeof(eh), 0) != static_cast<long>(sizeof(eh)) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
    return false;
  Elf64_Phdr chunk[8];  // (a few reads, little stack: it runs in vfork children)
  for (unsigned first = 0; first < eh.e_phnum; first += 8) {
    const unsigned count = eh.e_phnum - first < 8 ? eh.e_phnum - first : 8;
    const long want = static_cast<long>(count * sizeof(Elf64_Phdr));
    if (sys::pread(fd, chunk, static_cast<size_t>(want), eh.e_phoff + uint64_t{first} * sizeof(Elf64_Phdr)) != want)
      return false;
    for (unsigned i = 0; i < count; ++i)
      if (chunk[i].p_type == PT_INTERP) return false;
  }
  return true;
}

// A dynamically linked executable that needs liburing: io_uring's requests
// go through rings in memory, submitted by system calls liburing makes
// itself, so the interposer would see none of its transfers.
inline bool needsLiburing(int fd) {
  Elf64_Ehdr eh;
  if (sys::pread(fd, &eh, sizeof(eh), 0) != static_cast<long>(sizeof(eh)) ||
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
    return false;
  // The dynamic section, and the loaded segments to find its strings by.
  Elf64_Phdr dynamic{}, loads[16];
  unsigned load_count = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (sys::pread(fd, &ph, sizeof(ph), eh.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr)) != static_cast<long>(sizeof(ph)))
      return false;
    if (ph.p_type == PT_DYNAMIC) dynamic = ph;
    if (ph.p_type == PT_LOAD && load_count < 16) loads[load_count++] = ph;
  }
  uint64_t strtab = 0, needed[64];
  unsigned needed_count = 0;
  Elf64_Dyn chunk[32];
  bool ended = false;  // at DT_NULL, or the section's end
  for (uint64_t at = 0; !ended && at < dynamic.p_filesz && at < 64 * sizeof(chunk); at += sizeof(chunk)) {
    const uint64_t want = dynamic.p_filesz - at < sizeof(chunk) ? dynamic.p_filesz - at : sizeof(chunk);
    const long got = sys::pread(fd, chunk, want, dynamic.p_offset + at);
    if (got <= 0) break;
    for (long k = 0; !ended && k < got / static_cast<long>(sizeof(Elf64_Dyn)); ++k) {
      ended = chunk[k].d_tag == DT_NULL;
      if (chunk[k].d_tag == DT_STRTAB) strtab = chunk[k].d_un.d_ptr;
      if (chunk[k].d_tag == DT_NEEDED && needed_count < 64) needed[needed_count++] = chunk[k].d_un.d_val;
    }
  }
  for (unsigned i = 0; i < load_count; ++i) {
    if (strtab < loads[i].p_vaddr || strtab >= loads[i].p_vaddr + loads[i].p_filesz) continue;
    const uint64_t strings = strtab - loads[i].p_vaddr + loads[i].p_offset;
    for (unsigned k = 0; k < needed_count; ++k) {
      char name[16];  // liburing.so.2, liburing-ffi.so.2
      const long got = sys::pread(fd, name, sizeof(name), strings + needed[k]);
      if ((got >= 11 && std::memcmp(name, "liburing.so", 11) == 0) ||
          (got >= 15 && std::memcmp(name, "liburing-ffi.so", 15) == 0))
        return true;
    }
  }
  return false;
}

// Why the interposer cannot see into what exec'ing `path` runs (a script:
// its interpreter, one level down): a Go program, or a statically linked
// one; with `or_missed`, also why it would miss what the program's
// messages go through (liburing). nullptr when it can, or when `path` is
// no regular file it can read.
inline const char* unseenByTheInterposer(const char* path, bool or_missed = false) {
  int fd = openRegularFile(path);
  char line[256];
  if (fd >= 0 && sys::pread(fd, line, 2, 0) == 2 && line[0] == '#' && line[1] == '!') {
    const long n = sys::pread(fd, line, sizeof(line) - 1, 2);
    sys::close(fd);
    fd = -1;
    const size_t have = n > 0 ? static_cast<size_t>(n) : 0;
    size_t start = 0, end = 0;
    while (start < have && (line[start] == ' ' || line[start] == '\t')) ++start;
    for (end = start; end < have; ++end)
      if (line[end] == ' ' || line[end] == '\t' || line[end] == '\n' || line[end] == 0) break;
    if (end > start && end < sizeof(line) && line[start] == '/') {
      line[end] = 0;
      path = line + start;
      fd = openRegularFile(path);
    }
  }
  if (fd < 0) return nullptr;
  const char* why = isGoExecutable(fd)               ? "a Go program (it makes its own system calls)"
                    : isStaticExecutable(fd, path)   ? "statically linked"
                    : or_missed && needsLiburing(fd) ? "it uses io_uring through liburing"
                                                     : nullptr;
  sys::close(fd);
  return why;
}

}  // namespace radar::log
