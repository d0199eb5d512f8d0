#include "fallback/remote.h"

#include <dirent.h>
#include <linux/audit.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace radar::fallback {

bool readSyscallRegs(pid_t tid, SyscallRegs* regs) {
#if defined(__x86_64__)
  // A 32-bit call (a 32-bit program's, or int $0x80's), or x32's: other
  // numbers, other registers. None is taken for an x86-64 call. The kernel
  // says which table a call is of, and whether this is its entry or exit,
  // in one request (half the requests of reading the registers too);
  // where it cannot, the registers and the code segment say.
  constexpr uint64_t kCompatCodeSegment = 0x23, kX32Bit = 0x40000000;
  struct __ptrace_syscall_info info {};
  const long told = ::ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof info, &info);
  if (told > 0 && info.op == PTRACE_SYSCALL_INFO_ENTRY) {
    regs->stop = SyscallRegs::Entry;
    const bool native = info.arch == AUDIT_ARCH_X86_64 && !(info.entry.nr & kX32Bit);
    regs->nr = native ? static_cast<long>(info.entry.nr) : -1;
    std::copy(std::begin(info.entry.args), std::end(info.entry.args), regs->args);
    return true;
  }
  if (told > 0 && info.op == PTRACE_SYSCALL_INFO_EXIT) {
    regs->stop = SyscallRegs::Exit;
    regs->result = info.exit.rval;
    return true;
  }
  struct user_regs_struct r {};
  if (::ptrace(PTRACE_GETREGS, tid, nullptr, &r) != 0) return false;
  const bool x86_64 = told > 0 ? info.arch == AUDIT_ARCH_X86_64 : r.cs != kCompatCodeSegment;
  const bool native = x86_64 && !(r.orig_rax & kX32Bit);
  regs->nr = native ? static_cast<long>(r.orig_rax) : -1;
  const uint64_t args[6] = {r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9};
  std::copy(std::begin(args), std::end(args), regs->args);
  regs->result = static_cast<int64_t>(r.rax);
  return true;
#else
  (void)tid;
  (void)regs;
  errno = ENOSYS;
  return false;
#endif
}

namespace {
const std::vector<MemoryCopy>* g_as_it_was = nullptr;  // (the tracer is one thread)
}  // namespace

MemoryAsItWas::MemoryAsItWas(const std::vector<MemoryCopy>& copies) : before_(g_as_it_was) { g_as_it_was = &copies; }
MemoryAsItWas::~MemoryAsItWas() { g_as_it_was = before_; }

size_t readMemory(pid_t pid, uint64_t address, void* out, size_t len) {
  if (g_as_it_was)
    for (const MemoryCopy& c : *g_as_it_was)
      if (address >= c.address && address - c.address <= c.bytes.size() &&
          len <= c.bytes.size() - (address - c.address)) {
        std::memcpy(out, c.bytes.data() + (address - c.address), len);
        return len;
      }
  size_t done = 0;
  while (done < len) {
    struct iovec local {
      static_cast<char*>(out) + done, len - done
    };
    struct iovec remote {
      reinterpret_cast<void*>(address + done), len - done
    };
    const ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

std::string readBytes(pid_t pid, uint64_t address, size_t len) {
  std::string out(len, '\0');
  out.resize(readMemory(pid, address, out.data(), len));
  return out;
}

std::string readString(pid_t pid, uint64_t address, size_t max) {
  std::string out;
  char chunk[256];
  while (out.size() < max) {
    // A page boundary ends a read: the next page may not be mapped.
    const uint64_t at = address + out.size();
    const size_t to_page = 4096 - (at % 4096);
    const size_t want = std::min({sizeof chunk, to_page, max - out.size()});
    const size_t got = readMemory(pid, at, chunk, want);
    const char* end = std::find(chunk, chunk + got, '\0');
    out.append(chunk, static_cast<size_t>(end - chunk));
    if (end != chunk + got || got < want) break;
  }
  return out;
}

std::vector<struct iovec> readIovecs(pid_t pid, uint64_t address, uint64_t count) {
  std::vector<struct iovec> iov(std::min<uint64_t>(count, 1024));
  const size_t bytes = iov.size() * sizeof(struct iovec);
  iov.resize(readMemory(pid, address, iov.data(), bytes) / sizeof(struct iovec));
  return iov;
}

std::string gather(pid_t pid, const std::vector<struct iovec>& iov, uint64_t len) {
  std::string out;
  for (const struct iovec& v : iov) {
    if (out.size() >= len) break;
    const size_t take = std::min<uint64_t>(v.iov_len, len - out.size());
    out += readBytes(pid, reinterpret_cast<uint64_t>(v.iov_base), take);
  }
  return out;
}

std::vector<std::string> readStringArray(pid_t pid, uint64_t address, size_t max_entries) {
  std::vector<std::string> out;
  for (size_t i = 0; address && i < max_entries; ++i) {
    uint64_t pointer = 0;
    if (readMemory(pid, address + i * sizeof pointer, &pointer, sizeof pointer) != sizeof pointer || !pointer) break;
    out.push_back(readString(pid, pointer));
  }
  return out;
}

int duplicateDescriptor(pid_t pid, int fd) {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
  const long pidfd = ::syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) return -1;
  const long copy = ::syscall(SYS_pidfd_getfd, pidfd, fd, 0);
  const int saved = errno;
  ::close(static_cast<int>(pidfd));
  errno = saved;
  return static_cast<int>(copy);
#else
  (void)pid;
  (void)fd;
  errno = ENOSYS;
  return -1;
#endif
}

std::vector<int> openDescriptors(pid_t pid) {
  std::vector<int> fds;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      char* end = nullptr;
      const long fd = std::strtol(e->d_name, &end, 10);
      if (end != e->d_name && !*end && fd >= 0 && fd <= INT_MAX) fds.push_back(static_cast<int>(fd));
    }
    ::closedir(d);
  }
  std::sort(fds.begin(), fds.end());
  return fds;
}

std::string procFile(pid_t pid, const char* name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/" + name, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

long procStatusNumber(pid_t pid, const char* name) {
  const std::string status = procFile(pid, "status"), key = std::string("\n") + name + ":";
  const size_t at = status.find(key);
  return at == std::string::npos ? -1 : std::atol(status.c_str() + at + key.size());
}

std::string procLink(pid_t pid, const std::string& name) {
  char target[4096];
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

std::vector<std::string> splitNulls(const std::string& bytes) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < bytes.size()) {
    const size_t end = bytes.find('\0', at);
    out.push_back(bytes.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return out;
}

}  // namespace radar::fallback
