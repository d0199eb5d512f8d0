// Writes to files and devices, compared with the recording's: the recorder
// kept each one's length and checksum (OUTPUT records, ScriptOutput), in
// order per descriptor number; only writes that wrote something (one that
// failed or wrote nothing may differ where the re-run's descriptor stands
// in for the recorded file). A difference does not stop the re-run (the
// messages it exchanges may still be those recorded); it is counted, the
// first one described, and the re-run never ends "as recorded".
#include <asm/ioctls.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>

#include <cerrno>
#include <cstring>

#include "log/fields.h"
#include "log/sys.h"
#include "rerun/rerun.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::rerun {
namespace {

using driver::kNoEvent;
using driver::ScriptOutput;

constexpr int kOutputFds = driver::kComparedOutputFds;
constexpr uint32_t kDone = ~0u;
// Per descriptor: 0 before its first write; then 1 + the index of its next
// recorded output, or kDone when none is left.
uint32_t g_next[kOutputFds];
uint32_t g_checked = 0, g_differing = 0;
// Per descriptor: it stands, since the start, for a file the recorded
// process wrote to (noteStandInForFile).
bool g_stands_for_file[kOutputFds];
sys::FutexLock g_outputs_lock;

// Held with signals blocked: a handler that writes to a file (or exits)
// must not find the lock taken by its own thread.
class OutputsLock {
 public:
  OutputsLock() {
    const uint64_t all = ~uint64_t{0};
    sys::raw(SYS_rt_sigprocmask, SIG_BLOCK, reinterpret_cast<long>(&all), reinterpret_cast<long>(&saved_), 8);
    g_outputs_lock.lock();
  }
  ~OutputsLock() {
    g_outputs_lock.unlock();
    sys::raw(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&saved_), 0, 8);
  }

 private:
  uint64_t saved_ = 0;
};

// Files the re-run holds where the recorded process held no file (radar
// debug's own output kept at a number that was /dev/null): its writes
// there have no recorded counterpart to miss.
struct FileId {
  uint64_t dev, ino;
};
constexpr int kMaxForeign = 16;
FileId g_foreign[kMaxForeign];
int g_foreign_count = 0;

bool isForeign(const struct stat& st) {
  for (int i = 0; i < g_foreign_count; ++i)
    if (g_foreign[i].dev == st.st_dev && g_foreign[i].ino == st.st_ino) return true;
  return false;
}

// A file or a device whose writes the recorder kept (as isOutputFile does),
// and not a foreign one.
bool isOutputKind(int fd) {
  struct stat st {};
  if (sys::fstat(fd, &st) != 0 || isForeign(st)) return false;
  if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) return true;
  if (!S_ISCHR(st.st_mode)) return false;
  const unsigned maj = major(st.st_rdev), min = minor(st.st_rdev);
  if (maj == 1 && (min == 3 || min == 5 || min == 8 || min == 9)) return false;
  uint8_t termios_buf[64];
  return sys::raw(SYS_ioctl, fd, TCGETS, reinterpret_cast<long>(termios_buf)) < 0;
}

uint32_t nextOutputOn(int fd, const ScriptOutput* outputs, uint32_t count) {
  if (g_next[fd] == kDone) return kNoEvent;
  if (g_next[fd]) return g_next[fd] - 1;
  for (uint32_t i = 0; i < count; ++i)
    if (outputs[i].fd == fd) return i;
  g_next[fd] = kDone;  // none recorded there: not searched again
  return kNoEvent;
}

bool consumed(const ScriptOutput* outputs, uint32_t i) {
  const int fd = outputs[i].fd;
  if (fd >= kOutputFds) return true;  // not compared
  return g_next[fd] == kDone || (g_next[fd] && i < g_next[fd] - 1);
}

// How many recorded writes the re-run has not made, their bytes, and the
// descriptor of the first.
uint32_t unmadeOutputs(uint64_t* bytes, int* first_fd) {
  uint32_t total = 0, unmade = 0;
  const ScriptOutput* outputs = scriptOutputs(&total);
  for (uint32_t i = 0; i < total; ++i) {
    if (consumed(outputs, i)) continue;
    ++unmade;
    if (outputs[i].result > 0) *bytes += static_cast<uint64_t>(outputs[i].result);
    if (*first_fd < 0) *first_fd = outputs[i].fd;
  }
  return unmade;
}

void describeFd(Report& r, int fd) {
  char proc[32] = "/proc/self/fd/";
  sys::formatDecimal(proc + 14, sizeof proc - 14, static_cast<unsigned>(fd));
  char path[256];
  const long n = sys::readlink(proc, path, sizeof path - 1);
  r << "fd " << fd;
  if (n > 0) {
    path[n] = 0;
    r << " (" << path << ")";
  }
}

void noteDifference(const Report& r) {
  ++g_differing;
  driver::ScriptStatus* s = replayStatus();
  if (!s) return;
  __atomic_store_n(&s->outputs_differing, g_differing, __ATOMIC_RELAXED);
  if (g_differing > 1) return;
  const size_t n = std::strlen(r.str()), room = sizeof s->first_output_difference - 1;
  std::memcpy(s->first_output_difference, r.str(), n < room ? n : room);
  s->first_output_difference[n < room ? n : room] = 0;
}

// The first bytes written, quoted.
void quoteWritten(Report& r, const struct iovec* iov, size_t count, long result) {
  if (result <= 0 || !count) return;
  const size_t first = iov[0].iov_len < static_cast<size_t>(result) ? iov[0].iov_len : static_cast<size_t>(result);
  r << " ";
  r.text(iov[0].iov_base, first, 48);
}

}  // namespace

namespace {

// With the recorded bytes (radar record --keep-writes): where they differ.
void recordedBytesDiffer(Report& r, const ScriptOutput& o, const struct iovec* iov, size_t count, long result) {
  const auto* recorded = static_cast<const uint8_t*>(blob(o.data));
  uint64_t at = 0;
  bool found = false;
  for (size_t i = 0; i < count && !found; ++i) {
    const auto* p = static_cast<const uint8_t*>(iov[i].iov_base);
    for (size_t k = 0; k < iov[i].iov_len && at < static_cast<uint64_t>(result); ++k, ++at) {
      if (at >= o.data.size || p[k] != recorded[at]) {
        found = true;
        break;
      }
    }
  }
  r << " (first difference at byte " << at << "; recorded: ";
  r.text(recorded, o.data.size, 48);
  r << ")";
}

// The re-run's write of `result` bytes with checksum `crc` to `fd`
// (`iov`, when given, holds them), against the recording's next there.
void compareOutput(int fd, long result, uint32_t crc, const struct iovec* iov, size_t count) {
  // Only writes to what the recorder would have kept (an eventfd's, a
  // pipe's the recording did not know, /dev/null's are not).
  if (!g_stands_for_file[fd] && !isOutputKind(fd)) return;
  OutputsLock lock;
  uint32_t total = 0;
  const ScriptOutput* outputs = scriptOutputs(&total);
  const uint32_t at = nextOutputOn(fd, outputs, total);
  if (at == kNoEvent) {
    Report r;
    r << "it wrote " << static_cast<int64_t>(result) << " bytes to ";
    describeFd(r, fd);
    quoteWritten(r, iov, count, result);
    r << " where the recording has no more writes there";
    noteDifference(r);
    return;
  }
  const ScriptOutput& o = outputs[at];
  g_next[fd] = o.next_same_fd == kNoEvent ? kDone : o.next_same_fd + 1;
  ++g_checked;
  if (driver::ScriptStatus* s = replayStatus()) __atomic_store_n(&s->outputs_checked, g_checked, __ATOMIC_RELAXED);
  if (result == o.result && (result <= 0 || crc == o.hash)) return;
  Report r;
  r << "it wrote " << static_cast<int64_t>(result) << " bytes to ";
  describeFd(r, fd);
  quoteWritten(r, iov, count, result);
  if (o.after_number) r << " after event " << static_cast<uint64_t>(o.after_number);
  r << " where the recording has " << o.result << " bytes";
  if (o.data.size && iov) {
    recordedBytesDiffer(r, o, iov, count, result);
  } else if (result == o.result) {
    r << " with another checksum";
  }
  noteDifference(r);
}

}  // namespace

void noteStandInForFile(int fd) {
  if (fd >= 0 && fd < kOutputFds) g_stands_for_file[fd] = true;
}

void forgetStandInForFile(int fd) {
  if (fd >= 0 && fd < kOutputFds) g_stands_for_file[fd] = false;
}

void noteForeignDescriptor(int fd) {
  struct stat st {};
  if (g_foreign_count < kMaxForeign && sys::fstat(fd, &st) == 0 && !isForeign(st))
    g_foreign[g_foreign_count++] = {st.st_dev, st.st_ino};
}

void checkOutput(int fd, const struct iovec* iov, size_t count, long result) {
  // Nothing written (as recorded), or a recording that kept no writes.
  if (result <= 0 || !replaying() || fd < 0 || fd >= kOutputFds || !outputsRecorded()) return;
  const int saved_errno = errno;
  const uint32_t crc = log::crc32cOfFirst(log::asIov(iov), count, static_cast<uint64_t>(result));
  compareOutput(fd, result, crc, iov, count);
  errno = saved_errno;
}

void checkCopiedOutput(int fd, long result, uint32_t crc) {
  if (result <= 0 || !replaying() || fd < 0 || fd >= kOutputFds || !outputsRecorded()) return;
  const int saved_errno = errno;
  compareOutput(fd, result, crc, nullptr, 0);
  errno = saved_errno;
}

bool outputsAgree(Report& r) {
  uint32_t unmade = 0;
  int first_fd = -1;
  uint64_t bytes = 0;
  // Writes are no events: another thread's last ones may still come. Up to
  // a second for them, only when some are missing.
  for (int wait = 0; wait <= 100; ++wait) {
    if (wait) {
      const struct timespec tick = {0, 10'000'000};
      sys::raw(SYS_nanosleep, reinterpret_cast<long>(&tick), 0);
    }
    OutputsLock lock;
    bytes = 0;
    first_fd = -1;
    unmade = unmadeOutputs(&bytes, &first_fd);
    if (!unmade) break;
  }
  OutputsLock lock;
  if (!g_differing && !unmade) return true;
  r << "; but what it wrote to files and devices differs from the recording: ";
  if (g_differing) {
    driver::ScriptStatus* s = replayStatus();
    r << (s ? s->first_output_difference : "a write differs");
    if (g_differing > 1) r << " (and " << static_cast<uint64_t>(g_differing - 1) << " more)";
  }
  if (unmade)
    r << (g_differing ? "; " : "") << "it did not make " << static_cast<uint64_t>(unmade) << " of the recorded writes ("
      << bytes << " bytes), the first to fd " << first_fd;
  nameUnrecordedInputs(r);
  return false;
}

}  // namespace radar::rerun
