#include "driver/stall_watch.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <time.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace radar::driver {
namespace {

int64_t monotonicNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// The calls a program waits in, by number; the rest are named by number.
std::string callName(long number) {
  struct Named {
    long number;
    const char* name;
  };
  static constexpr Named kNames[] = {
      {SYS_futex, "futex"},
      {SYS_mq_timedreceive, "mq_timedreceive"},
      {SYS_mq_timedsend, "mq_timedsend"},
      {SYS_msgrcv, "msgrcv"},
      {SYS_msgsnd, "msgsnd"},
      {SYS_semop, "semop"},
      {SYS_semtimedop, "semtimedop"},
      {SYS_read, "read"},
      {SYS_readv, "readv"},
      {SYS_write, "write"},
      {SYS_recvfrom, "recvfrom"},
      {SYS_recvmsg, "recvmsg"},
      {SYS_poll, "poll"},
      {SYS_ppoll, "ppoll"},
      {SYS_select, "select"},
      {SYS_pselect6, "pselect6"},
      {SYS_epoll_wait, "epoll_wait"},
      {SYS_epoll_pwait, "epoll_pwait"},
      {SYS_wait4, "wait4"},
      {SYS_waitid, "waitid"},
      {SYS_accept, "accept"},
      {SYS_accept4, "accept4"},
      {SYS_connect, "connect"},
      {SYS_openat, "openat"},
      {SYS_flock, "flock"},
      {SYS_fcntl, "fcntl"},
      {SYS_pause, "pause"},
      {SYS_rt_sigsuspend, "rt_sigsuspend"},
      {SYS_rt_sigtimedwait, "rt_sigtimedwait"},
      {SYS_io_uring_enter, "io_uring_enter"},
  };
  for (const Named& n : kNames)
    if (n.number == number) return n.name;
  return "system call " + std::to_string(number);
}

bool isOwnTimer(long number) { return number == SYS_nanosleep || number == SYS_clock_nanosleep; }

}  // namespace

std::string blockedCalls(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(tasks.c_str());
  if (!dir) return "";
  std::string calls;
  bool all_blocked = true;
  while (const dirent* d = ::readdir(dir)) {
    if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
    std::ifstream stat(tasks + "/" + d->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    const size_t close = line.rfind(')');
    const char state = close != std::string::npos && close + 2 < line.size() ? line[close + 2] : '?';
    std::ifstream syscall(tasks + "/" + d->d_name + "/syscall");
    std::string first;
    syscall >> first;  // the number, or "running"
    char* end = nullptr;
    const long number = std::strtol(first.c_str(), &end, 10);
    if ((state != 'S' && state != 'D') || first.empty() || *end || isOwnTimer(number)) {
      all_blocked = false;
      break;
    }
    calls += (calls.empty() ? "" : ", ") + callName(number) + " (thread " + d->d_name + ")";
  }
  ::closedir(dir);
  return all_blocked ? calls : "";
}

int64_t StallWatch::limitFor(int64_t longest_recorded_wait_ns) {
  return std::max<int64_t>(10'000'000'000LL, 2 * longest_recorded_wait_ns);
}

bool StallWatch::stuck(const std::function<pid_t()>& pid) {
  const int64_t now = monotonicNs();
  if (now - last_look_ns_ < 100'000'000) return false;
  last_look_ns_ = now;
  const Progress p = progress_();
  if (!p.running || p.consumed != last_consumed_ || !last_change_ns_) {
    last_consumed_ = p.consumed;
    last_change_ns_ = now;
    return false;
  }
  if (now - last_change_ns_ < limit_ns_) return false;
  const pid_t program = pid();
  const std::string calls = program > 0 ? blockedCalls(program) : "";
  if (calls.empty()) {
    last_change_ns_ = now;  // it runs, or sleeps on a timer of its own: look again later
    return false;
  }
  std::ostringstream why;
  why << "the re-run waited " << (now - last_change_ns_) / 1'000'000'000 << " s after its last replayed event in "
      << calls;
  why_ = why.str();
  return true;
}

}  // namespace radar::driver
