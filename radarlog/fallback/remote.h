// A traced process seen from its tracer: its registers at a system-call
// stop, its memory, its descriptors. Only what a stopped tracee allows:
// everything here is called while the thread is in a ptrace stop.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>
#include <string>
#include <vector>

namespace radar::fallback {

// A system call as its thread's registers hold it (x86-64).
struct SyscallRegs {
  enum Stop { Unknown, Entry, Exit };
  Stop stop = Unknown;  // which stop this is, where the kernel says
  long nr = -1;
  uint64_t args[6] = {};
  int64_t result = 0;  // at its exit: the return value, or -errno
};

// The registers of a thread at a syscall stop; false when it is gone.
bool readSyscallRegs(pid_t tid, SyscallRegs* regs);

// Copies of parts of a process's memory, taken earlier: while a
// MemoryAsItWas lives, a read that falls wholly within one of them is
// served from the copy, not from the process (which may have reused that
// memory since). io_uring's requests are recorded at their completion
// from the arguments the kernel copied at their submission.
struct MemoryCopy {
  uint64_t address = 0;
  std::string bytes;
};
class MemoryAsItWas {
 public:
  explicit MemoryAsItWas(const std::vector<MemoryCopy>& copies);
  ~MemoryAsItWas();
  MemoryAsItWas(const MemoryAsItWas&) = delete;
  MemoryAsItWas& operator=(const MemoryAsItWas&) = delete;

 private:
  const std::vector<MemoryCopy>* before_;
};

// Up to `len` bytes at `address` of process `pid` into `out`; how many
// could be read (its memory as the process sees it: a fault reads short).
size_t readMemory(pid_t pid, uint64_t address, void* out, size_t len);
std::string readBytes(pid_t pid, uint64_t address, size_t len);
// A NUL-terminated string at `address`, at most `max` bytes.
std::string readString(pid_t pid, uint64_t address, size_t max = 4096);
// The iovec array of `count` entries at `address` (readv, writev,
// sendmsg), at most 1024 entries (IOV_MAX).
std::vector<struct iovec> readIovecs(pid_t pid, uint64_t address, uint64_t count);
// The first `len` bytes of the buffers an iovec array describes.
std::string gather(pid_t pid, const std::vector<struct iovec>& iov, uint64_t len);
// A null-terminated array of string pointers (argv of an execve).
std::vector<std::string> readStringArray(pid_t pid, uint64_t address, size_t max_entries = 4096);

// A copy, in this process, of descriptor `fd` of process `pid`
// (pidfd_getfd): the same open file, to ask what it is. -1 when the kernel
// refuses (older than 5.6, or no permission), with errno.
int duplicateDescriptor(pid_t pid, int fd);

// The descriptors process `pid` has open, ascending (/proc/PID/fd).
std::vector<int> openDescriptors(pid_t pid);
// What /proc/PID/<name> holds (cmdline, environ: NUL-separated).
std::string procFile(pid_t pid, const char* name);
// A number of /proc/PID/status (`name`: "Tgid", "PPid" ...); -1 when the
// process is gone or the field missing.
long procStatusNumber(pid_t pid, const char* name);
// /proc/PID/<name> as a link (exe, cwd, fd/N); empty when unreadable.
std::string procLink(pid_t pid, const std::string& name);
// NUL-separated strings split.
std::vector<std::string> splitNulls(const std::string& bytes);

}  // namespace radar::fallback
