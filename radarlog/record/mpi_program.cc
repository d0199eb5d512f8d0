#include "record/mpi_program.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

namespace radar::record {
namespace {

bool isLauncherName(std::string_view name) {
  for (std::string_view launcher : {"mpirun", "mpiexec", "orterun", "prterun", "srun", "mpiexec.hydra"})
    if (name == launcher ||
        (name.size() > launcher.size() && name.substr(0, launcher.size() + 1) == std::string(launcher) + "."))
      return true;  // mpirun.openmpi, mpiexec.mpich ...
  return false;
}

// Reads `n` bytes at `offset`; false when the file is shorter.
bool readAt(int fd, void* out, size_t n, uint64_t offset) {
  return ::pread(fd, out, n, static_cast<off_t>(offset)) == static_cast<ssize_t>(n);
}

// The names in the program's .dynstr section: the libraries it needs among
// them. Empty when it is no 64-bit ELF file or has none.
std::string dynamicStrings(int fd) {
  Elf64_Ehdr eh;
  if (!readAt(fd, &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum > 4096)
    return {};
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (sections.empty() || !readAt(fd, sections.data(), sections.size() * sizeof(Elf64_Shdr), eh.e_shoff)) return {};
  for (const Elf64_Shdr& s : sections) {
    if (s.sh_type != SHT_DYNAMIC || s.sh_link >= sections.size()) continue;
    const Elf64_Shdr& strings = sections[s.sh_link];
    if (strings.sh_size > (64u << 20)) return {};
    std::string out(strings.sh_size, '\0');
    if (!readAt(fd, out.data(), out.size(), strings.sh_offset)) return {};
    return out;
  }
  return {};
}

}  // namespace

bool isMpiProgram(const std::string& path) {
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(path, error);
  for (const std::filesystem::path& p : {std::filesystem::path(path), real})
    if (!p.empty() && isLauncherName(p.filename().string())) return true;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const std::string strings = dynamicStrings(fd);
  ::close(fd);
  // Names separated by NULs: a needed library's starts after one.
  for (std::string_view library : {std::string_view("\0libmpi.so", 10), std::string_view("\0libmpich.so", 12)})
    if (strings.find(library) != std::string::npos) return true;
  return false;
}

}  // namespace radar::record
