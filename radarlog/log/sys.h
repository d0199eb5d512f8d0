// Raw system calls for code that runs inside recorded programs.
//
// The interposer defines write(), close(), open() ... itself, so a call to
// those names from inside it would come back into the hooks. Everything the
// log writer and the recorder do to the system goes through here instead:
// no errno (results are -errno), no libc wrappers that might be hooked.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace radar::sys {

inline long raw(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
#if defined(__x86_64__)
  long ret;
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  return ret;
#else
  // Other architectures: libc's syscall(), then errno turned back into -errno.
  long ret = ::syscall(n, a, b, c, d, e, f);
  return ret == -1 ? -errno : ret;
#endif
}

inline long openat(int dirfd, const char* path, int flags, int mode) {
  return raw(SYS_openat, dirfd, reinterpret_cast<long>(path), flags, mode);
}
inline long close(int fd) { return raw(SYS_close, fd); }
inline long read(int fd, void* buf, size_t n) {
  return raw(SYS_read, fd, reinterpret_cast<long>(buf), static_cast<long>(n));
}
inline long write(int fd, const void* buf, size_t n) {
  return raw(SYS_write, fd, reinterpret_cast<long>(buf), static_cast<long>(n));
}
inline long pwrite(int fd, const void* buf, size_t n, uint64_t off) {
  return raw(SYS_pwrite64, fd, reinterpret_cast<long>(buf), static_cast<long>(n), static_cast<long>(off));
}
inline long pwritev(int fd, const struct iovec* iov, int cnt, uint64_t off) {
  return raw(SYS_pwritev, fd, reinterpret_cast<long>(iov), cnt, static_cast<long>(off), 0);
}
inline long pread(int fd, void* buf, size_t n, uint64_t off) {
  return raw(SYS_pread64, fd, reinterpret_cast<long>(buf), static_cast<long>(n), static_cast<long>(off));
}
inline long fallocate(int fd, int mode, uint64_t off, uint64_t len) {
  return raw(SYS_fallocate, fd, mode, static_cast<long>(off), static_cast<long>(len));
}
inline long ftruncate(int fd, uint64_t len) { return raw(SYS_ftruncate, fd, static_cast<long>(len)); }
inline long fcntl(int fd, int cmd, long arg = 0) { return raw(SYS_fcntl, fd, cmd, arg); }
inline long fstat(int fd, struct stat* st) { return raw(SYS_fstat, fd, reinterpret_cast<long>(st)); }
inline long stat(const char* path, struct stat* st) {
  return raw(SYS_newfstatat, AT_FDCWD, reinterpret_cast<long>(path), reinterpret_cast<long>(st), 0);
}
inline long mmap(void* addr, size_t len, int prot, int flags, int fd, uint64_t off) {
  return raw(SYS_mmap, reinterpret_cast<long>(addr), static_cast<long>(len), prot, flags, fd, static_cast<long>(off));
}
// Where the injected libraries keep what they map for themselves: a region
// of their own, above the one their code is linked at (0x7f0000000000,
// radar_injected() in radarlog/inject/CMakeLists.txt), far from where the kernel places the
// program's mappings. The program's own mappings then land at the same
// addresses whether the recorder, the re-run or nothing is loaded, so
// that addresses it shows (Python's id(), a pointer printed in a log)
// are the same in the recording and its re-run. A hint only: where the
// region is taken (address randomization kept on), the kernel chooses.
inline constexpr uint64_t kAsideBase = 0x7f0100000000;
inline long mmapAside(size_t len, int prot, int flags, int fd, uint64_t off) {
  static uint64_t next = kAsideBase;
  const uint64_t span = (len + 0xffff) & ~uint64_t{0xffff};  // a gap between mappings keeps them apart
  const uint64_t hint = __atomic_fetch_add(&next, span, __ATOMIC_RELAXED);
  return mmap(reinterpret_cast<void*>(hint), len, prot, flags, fd, off);
}
inline long munmap(void* addr, size_t len) {
  return raw(SYS_munmap, reinterpret_cast<long>(addr), static_cast<long>(len));
}
inline long madvise(void* addr, size_t len, int advice) {
  return raw(SYS_madvise, reinterpret_cast<long>(addr), static_cast<long>(len), advice);
}
inline long getpid() { return raw(SYS_getpid); }
inline long getppid() { return raw(SYS_getppid); }
inline long gettid() { return raw(SYS_gettid); }
inline long prlimit(int pid, int resource, const void* newlim, void* oldlim) {
  return raw(SYS_prlimit64, pid, resource, reinterpret_cast<long>(newlim), reinterpret_cast<long>(oldlim));
}
// A copy of `fd` at `floor` or above (close-on-exec). A floor at or above
// the soft RLIMIT_NOFILE is reached by raising the soft limit for the one
// call, when the hard limit allows: a descriptor there is out of the
// program's reach, and the program keeps every number below its limit.
inline long dupAtOrAbove(int fd, int floor) {
  long r = fcntl(fd, F_DUPFD_CLOEXEC, floor);
  if (r != -EINVAL) return r;
  struct {
    uint64_t cur, max;
  } lim{}, raised{};
  if (prlimit(0, RLIMIT_NOFILE, nullptr, &lim) != 0 || lim.max <= static_cast<uint64_t>(floor)) return r;
  raised = {static_cast<uint64_t>(floor) + 1, lim.max};
  if (prlimit(0, RLIMIT_NOFILE, &raised, nullptr) != 0) return r;
  r = fcntl(fd, F_DUPFD_CLOEXEC, floor);
  prlimit(0, RLIMIT_NOFILE, &lim, nullptr);
  return r;
}

// The calling thread's signal mask, as the kernel's 64-bit set.
inline long setSignalMask(int how, const uint64_t* set, uint64_t* old) {
  return raw(SYS_rt_sigprocmask, how, reinterpret_cast<long>(set), reinterpret_cast<long>(old), 8);
}
// Every signal but those a fault raises (held back, they would kill at once).
inline constexpr uint64_t kHeldSignals =
    ~((uint64_t{1} << (SIGSEGV - 1)) | (uint64_t{1} << (SIGBUS - 1)) | (uint64_t{1} << (SIGILL - 1)) |
      (uint64_t{1} << (SIGFPE - 1)) | (uint64_t{1} << (SIGTRAP - 1)) | (uint64_t{1} << (SIGSYS - 1)));
// Holds the calling thread's signals back for a scope; they are delivered
// when it ends. For short stretches a signal handler must not lengthen.
class HeldSignals {
 public:
  HeldSignals() { setSignalMask(SIG_BLOCK, &kHeldSignals, &saved_); }
  ~HeldSignals() { setSignalMask(SIG_SETMASK, &saved_, nullptr); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

 private:
  uint64_t saved_ = 0;
};
// Sleeps while *word == expected (or until a signal); wakes up to n sleepers.
inline long futexWait(const void* word, uint32_t expected) {
  return raw(SYS_futex, reinterpret_cast<long>(word), 128 /* FUTEX_WAIT_PRIVATE */, expected, 0);
}
inline long futexWake(const void* word, int n) {
  return raw(SYS_futex, reinterpret_cast<long>(word), 129 /* FUTEX_WAKE_PRIVATE */, n);
}

// A lock for injected code (no libc, no allocation): a thread that finds it
// taken sleeps in the kernel rather than spinning, since a spinner takes the
// core the holder needs on a small machine. The word is 0 free, 1 held,
// 2 held with sleepers (Drepper, "Futexes Are Tricky").
class FutexLock {
 public:
  void lock() {
    uint32_t seen = 0;
    if (word_.compare_exchange_strong(seen, 1, std::memory_order_acquire)) return;
    if (seen != 2) seen = word_.exchange(2, std::memory_order_acquire);
    while (seen != 0) {
      futexWait(&word_, 2);
      seen = word_.exchange(2, std::memory_order_acquire);
    }
  }
  void unlock() {
    if (word_.exchange(0, std::memory_order_release) == 2) futexWake(&word_, 1);
  }

 private:
  std::atomic<uint32_t> word_{0};
};
inline long getrandom(void* buf, size_t n, unsigned flags) {
  return raw(SYS_getrandom, reinterpret_cast<long>(buf), static_cast<long>(n), flags);
}
inline long readlink(const char* path, char* buf, size_t n) {
  return raw(SYS_readlinkat, -100 /* AT_FDCWD */, reinterpret_cast<long>(path), reinterpret_cast<long>(buf),
             static_cast<long>(n));
}

// `v` in decimal into buf (NUL-terminated, cut to fit); returns its length.
// For code that may not call printf.
inline size_t formatDecimal(char* buf, size_t size, uint64_t v) {
  if (!size) return 0;
  char digits[20];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  size_t at = 0;
  while (n && at + 1 < size) buf[at++] = digits[--n];
  buf[at] = 0;
  return at;
}

// Lower-case hexadecimal digits at s, which is left at the first other
// character. For code that may not call strtoul's locale machinery.
inline uint64_t parseHex(const char*& s) {
  uint64_t v = 0;
  for (;; ++s) {
    const char c = *s;
    if (c >= '0' && c <= '9')
      v = v * 16 + static_cast<uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f')
      v = v * 16 + static_cast<uint64_t>(c - 'a' + 10);
    else
      return v;
  }
}

}  // namespace radar::sys
