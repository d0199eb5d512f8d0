// Hooks on what radar does not record (log/unseen.h): io_uring, raw system
// calls, shared memory, semaphores. Each passes the call through unchanged
// (a raw close, read or write of a known channel goes to the library's own
// hook, recorded or replayed as any); the library is told (inject/library.h) so
// that the recorder can say so in the log and the re-run can stop where it
// cannot feed the program. Built once, with the injected flags, into both.
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "inject/hook.h"
#include "inject/library.h"
#include "inject/text.h"
#include "log/sys.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

using radar::log::Unseen;
namespace inject = radar::inject;

namespace {

// Tells the library with errno left as the call set it.
void tell(Unseen what, const char* detail, int fd = -1) {
  const int saved = errno;
  inject::unseenUsed(what, detail, fd);
  errno = saved;
}

void tellId(Unseen what, const char* kind, long id) {
  char detail[48];
  size_t at = inject::appendStr(detail, 0, sizeof(detail), kind);
  inject::appendDec(detail, at, sizeof(detail), static_cast<uint64_t>(id < 0 ? 0 : id));
  tell(what, detail);
}

// The system calls radar records through their C library wrappers, by
// number: made through syscall(), they are not recorded. `fd_arg`: whether
// the first argument is the descriptor the call moves data on (a call on a
// file is nothing radar would have recorded).
struct RawCall {
  long number;
  const char* name;
  bool fd_arg;
};
constexpr RawCall kRawCalls[] = {
    {SYS_read, "read", true},
    {SYS_write, "write", true},
    {SYS_readv, "readv", true},
    {SYS_writev, "writev", true},
    {SYS_sendto, "sendto", true},
    {SYS_recvfrom, "recvfrom", true},
    {SYS_sendmsg, "sendmsg", true},
    {SYS_recvmsg, "recvmsg", true},
    {SYS_sendmmsg, "sendmmsg", true},
    {SYS_recvmmsg, "recvmmsg", true},
    {SYS_pipe, "pipe", false},
    {SYS_pipe2, "pipe2", false},
    {SYS_socketpair, "socketpair", false},
    {SYS_socket, "socket", false},
    {SYS_connect, "connect", false},
    {SYS_accept, "accept", false},
    {SYS_accept4, "accept4", false},
    {SYS_close, "close", true},
    {SYS_dup, "dup", false},
    {SYS_dup2, "dup2", false},
    {SYS_dup3, "dup3", false},
    {SYS_fork, "fork", false},
    {SYS_vfork, "vfork", false},
    {SYS_clone, "clone", false},
    {SYS_clone3, "clone3", false},
    {SYS_execve, "execve", false},
    {SYS_execveat, "execveat", false},
    {SYS_exit_group, "exit_group", false},
    {SYS_kill, "kill", false},
    {SYS_wait4, "wait4", false},
    {SYS_waitid, "waitid", false},
    {SYS_splice, "splice", false},
    {SYS_sendfile, "sendfile", false},
    {SYS_tee, "tee", false},
    {SYS_shutdown, "shutdown", false},
};

// syscall() as the C library makes it: -1 and errno on failure.
long rawCall(long number, const long (&a)[6]) {
  const long r = radar::sys::raw(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  if (r < 0 && r > -4096) {
    errno = static_cast<int>(-r);
    return -1;
  }
  return r;
}

}  // namespace

// ==== io_uring (liburing's entry points; it makes its system calls itself) =========

struct io_uring;
struct io_uring_params;
extern "C" int io_uring_queue_init(unsigned entries, struct io_uring* ring, unsigned flags);
extern "C" int io_uring_queue_init_params(unsigned entries, struct io_uring* ring, struct io_uring_params* p);
extern "C" int io_uring_setup(unsigned entries, struct io_uring_params* p);

HOOK int io_uring_queue_init(unsigned entries, struct io_uring* ring, unsigned flags) {
  REAL(io_uring_queue_init);
  tell(Unseen::IoUring, "liburing");
  return real_io_uring_queue_init(entries, ring, flags);
}

HOOK int io_uring_queue_init_params(unsigned entries, struct io_uring* ring, struct io_uring_params* p) {
  REAL(io_uring_queue_init_params);
  tell(Unseen::IoUring, "liburing");
  return real_io_uring_queue_init_params(entries, ring, p);
}

HOOK int io_uring_setup(unsigned entries, struct io_uring_params* p) {
  REAL(io_uring_setup);
  tell(Unseen::IoUring, "liburing");
  return real_io_uring_setup(entries, p);
}

// ==== syscall() ===================================================================

HOOK long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& v : a) v = va_arg(ap, long);
  va_end(ap);
  // Futexes go through syscall() (Rust's locks): nothing here to look at.
  if (number == SYS_futex) return rawCall(number, a);
  if ((number == SYS_close || number == SYS_read || number == SYS_write) &&
      inject::isKnownChannel(static_cast<int>(a[0]))) {
    // libuv (Node) closes, reads and writes its channels through syscall(),
    // to keep clear of cancellation points: the library's own calls,
    // without one. (On a descriptor raw calls made, they stay raw.)
    int cancel = 0;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    const int fd = static_cast<int>(a[0]);
    const long r = number == SYS_close  ? close(fd)
                   : number == SYS_read ? read(fd, reinterpret_cast<void*>(a[1]), static_cast<size_t>(a[2]))
                                        : write(fd, reinterpret_cast<const void*>(a[1]), static_cast<size_t>(a[2]));
    const int err = errno;
    pthread_setcancelstate(cancel, nullptr);
    errno = err;
    return r;
  }
  if (number == SYS_io_uring_setup || number == SYS_io_uring_enter || number == SYS_io_uring_register) {
    tell(Unseen::IoUring, "system call");
  } else if (number == SYS_seccomp && (a[0] == SECCOMP_SET_MODE_FILTER || a[0] == SECCOMP_SET_MODE_STRICT)) {
    tell(Unseen::SeccompFilter, a[0] == SECCOMP_SET_MODE_STRICT ? "strict mode" : "seccomp()");  // libseccomp
  } else {
    for (const RawCall& c : kRawCalls)
      if (c.number == number) {
        tell(Unseen::RawSystemCall, c.name, c.fd_arg ? static_cast<int>(a[0]) : -1);
        break;
      }
  }
  return rawCall(number, a);
}

// ==== seccomp filters ==============================================================
// Told before the filter is in place: whatever the library does about it
// (the recorder closes its log), it must do while its calls are allowed.

HOOK int prctl(int option, ...) {
  va_list ap;
  va_start(ap, option);
  unsigned long a[4];
  for (unsigned long& v : a) v = va_arg(ap, unsigned long);
  va_end(ap);
  if (option == PR_SET_SECCOMP && (a[0] == SECCOMP_MODE_FILTER || a[0] == SECCOMP_MODE_STRICT))
    tell(Unseen::SeccompFilter, a[0] == SECCOMP_MODE_STRICT ? "strict mode" : "prctl()");
  const long args[6] = {
      option, static_cast<long>(a[0]), static_cast<long>(a[1]), static_cast<long>(a[2]), static_cast<long>(a[3]), 0};
  return static_cast<int>(rawCall(SYS_prctl, args));
}

// ==== shared memory ===============================================================

namespace {

// A mapping other processes may write to: shared and writable, or shared
// and anonymous (shared with the children forked after it).
void* mapped(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  const long r = radar::sys::raw(SYS_mmap, reinterpret_cast<long>(addr), static_cast<long>(len), prot, flags, fd,
                                 static_cast<long>(off));
  if (r < 0 && r > -4096) {
    errno = static_cast<int>(-r);
    return MAP_FAILED;
  }
  const int type = flags & MAP_TYPE;
  if ((type == MAP_SHARED || type == MAP_SHARED_VALIDATE) && ((flags & MAP_ANONYMOUS) || (prot & PROT_WRITE))) {
    char detail[192];
    if (flags & MAP_ANONYMOUS) {
      size_t at = inject::appendStr(detail, 0, sizeof(detail), "anonymous, ");
      at = inject::appendDec(detail, at, sizeof(detail), (len + 1023) / 1024);
      inject::appendStr(detail, at, sizeof(detail), " KiB");
    } else {
      char proc[32];
      inject::appendDec(proc, inject::appendStr(proc, 0, sizeof(proc), "/proc/self/fd/"), sizeof(proc),
                        static_cast<uint64_t>(fd));
      const long n = radar::sys::readlink(proc, detail, sizeof(detail) - 1);
      detail[n > 0 ? n : 0] = 0;
    }
    tell(Unseen::SharedMemory, detail);
  }
  return reinterpret_cast<void*>(r);
}

}  // namespace

// Made here with the system call: the first call of a hook resolves the
// real function with dlsym(), which an allocator that maps its memory
// through mmap() (jemalloc) must not be reentered by.
HOOK void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mapped(addr, len, prot, flags, fd, off);
}
HOOK void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off64_t off) {
  return mapped(addr, len, prot, flags, fd, off);
}

HOOK void* shmat(int id, const void* addr, int flags) {
  REAL(shmat);
  tellId(Unseen::SharedMemory, "System V segment ", id);
  return real_shmat(id, addr, flags);
}

// ==== semaphores and message queues ================================================

HOOK sem_t* sem_open(const char* name, int flags, ...) {
  REAL(sem_open);
  tell(Unseen::Semaphore, name);
  if (!(flags & O_CREAT)) return real_sem_open(name, flags);
  va_list ap;
  va_start(ap, flags);
  const auto mode = static_cast<mode_t>(va_arg(ap, int));
  const unsigned value = va_arg(ap, unsigned);
  va_end(ap);
  return real_sem_open(name, flags, mode, value);
}

HOOK int semop(int id, struct sembuf* ops, size_t count) {
  REAL(semop);
  tellId(Unseen::SysvSemaphore, "set ", id);
  return real_semop(id, ops, count);
}

HOOK int semtimedop(int id, struct sembuf* ops, size_t count, const struct timespec* timeout) {
  REAL(semtimedop);
  tellId(Unseen::SysvSemaphore, "set ", id);
  return real_semtimedop(id, ops, count, timeout);
}
