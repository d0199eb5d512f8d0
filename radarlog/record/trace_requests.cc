#include "record/trace_requests.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace radar::record {
namespace {

// A real-time signal of radar record's own (its program never sees it: it
// is sent to radar record's main thread alone).
int pokeSignal() { return SIGRTMIN + 5; }

void poked(int) {}  // its work is the EINTR it causes

}  // namespace

void TraceRequests::servedByThisThread() {
  struct sigaction poke {};
  poke.sa_handler = poked;  // no SA_RESTART: waitpid returns EINTR
  ::sigemptyset(&poke.sa_mask);
  ::sigaction(pokeSignal(), &poke, nullptr);
  std::lock_guard<std::mutex> hold(mutex_);
  main_thread_ = static_cast<pid_t>(::syscall(SYS_gettid));
}

void TraceRequests::hand(const Pending& pending) {
  std::unique_lock<std::mutex> hold(mutex_);
  if (main_thread_ == 0) {
    hold.unlock();
    answer(pending.connection, ENOTSUP);
    return;
  }
  waiting_.push_back(pending);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  auto still_waiting = [&] {
    return std::any_of(waiting_.begin(), waiting_.end(),
                       [&](const Pending& p) { return p.connection == pending.connection; });
  };
  // Poked again and again: a poke that comes while the main thread is not
  // in waitpid interrupts nothing.
  while (still_waiting() && std::chrono::steady_clock::now() < give_up) {
    ::syscall(SYS_tgkill, ::getpid(), main_thread_, pokeSignal());
    taken_.wait_for(hold, std::chrono::milliseconds(20));
  }
  if (!still_waiting()) return;
  waiting_.erase(std::remove_if(waiting_.begin(), waiting_.end(),
                                [&](const Pending& p) { return p.connection == pending.connection; }),
                 waiting_.end());
  hold.unlock();
  answer(pending.connection, EAGAIN);
}

std::vector<TraceRequests::Pending> TraceRequests::take() {
  std::lock_guard<std::mutex> hold(mutex_);
  std::vector<Pending> out;
  out.swap(waiting_);
  if (!out.empty()) taken_.notify_all();
  return out;
}

bool TraceRequests::answer(int connection, int32_t error) {
  const bool sent = ::send(connection, &error, sizeof(error), MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof(error));
  ::close(connection);
  return sent;
}

}  // namespace radar::record
