#include "record/log_handout.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "log/log_handout.h"

namespace radar::record {

bool LogHandout::start(int dir_fd, const std::string& dir, const uint8_t recording_id[16], std::string* error) {
  dir_fd_ = dir_fd;
  self_ = ::getpid();
  listener_ = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr;
  const socklen_t len = log::handoutAddress(recording_id, dir.c_str(), &addr);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<const sockaddr*>(&addr), len) != 0 ||
      ::listen(listener_, 64) != 0 || ::pipe2(stop_, O_CLOEXEC) != 0) {
    *error = std::string("cannot serve log files to processes that drop their privileges: ") + std::strerror(errno);
    return false;
  }
  const int made = ::pthread_create(
      &thread_, nullptr,
      [](void* self) -> void* {
        static_cast<LogHandout*>(self)->serve();
        return nullptr;
      },
      this);
  if (made != 0) {
    *error = std::string("cannot serve log files to processes that drop their privileges: ") + std::strerror(made);
    return false;
  }
  running_ = true;
  return true;
}

LogHandout::~LogHandout() {
  if (running_) {
    ::close(stop_[1]);  // the thread sees the pipe's end and returns
    stop_[1] = -1;
    ::pthread_join(thread_, nullptr);
  }
  for (int fd : {listener_, stop_[0], stop_[1]})
    if (fd >= 0) ::close(fd);
}

void LogHandout::serve() {
  for (;;) {
    struct pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    const int connection = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    if (!answer(connection)) ::close(connection);
  }
}

// One request, one answer: a client that sends nothing is given a second,
// not the whole recording. True when the connection was passed on (a
// request to trace a thread, answered by radar record's main thread).
bool LogHandout::answer(int connection) {
  const struct timeval patience { 1, 0 };
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof(patience));
  ::setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof(patience));
  char name[log::kHandoutNameMax + 2];
  const ssize_t n = ::recv(connection, name, sizeof(name), 0);
  struct ucred peer {};
  socklen_t peer_len = sizeof(peer);
  int32_t error = 0;
  int fd = -1;
  const bool trace = n > 0 && log::isTraceRequest(name, static_cast<size_t>(n));
  if (n <= 0 || (!trace && !log::isHandoutName(name, static_cast<size_t>(n)))) {
    error = EINVAL;
  } else if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &peer_len) != 0 || !isDescendant(peer.pid)) {
    error = EPERM;  // not a process of this recording
  } else if (trace) {
    TraceRequests::Pending pending;
    std::memcpy(&pending.request, name, sizeof(pending.request));
    pending.process = peer.pid;
    pending.connection = connection;
    struct stat task {};
    const std::string thread = "/proc/" + std::to_string(peer.pid) + "/task/" + std::to_string(pending.request.tid);
    TraceRequests* requests = trace_requests_.load();
    if (!requests) {
      error = ENOTSUP;
    } else if (pending.request.tid <= 0 || ::stat(thread.c_str(), &task) != 0) {
      error = EPERM;  // not a thread of the asking process
    } else {
      requests->hand(pending);
      return true;
    }
  } else {
    name[n] = 0;
    fd = ::openat(dir_fd_, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) error = errno;
  }
  struct iovec iov {
    &error, sizeof(error)
  };
  struct msghdr msg {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(fd));
  }
  if (::sendmsg(connection, &msg, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof(error)) && fd >= 0)
    ::unlinkat(dir_fd_, name, 0);  // nobody took it: no empty log left
  if (fd >= 0) ::close(fd);
  return false;
}

// Whether radar record is an ancestor of `pid`: processes it started, and
// their descendants (orphans come back to it: it is their subreaper).
bool LogHandout::isDescendant(pid_t pid) const {
  for (int steps = 0; pid > 1 && steps < 4096; ++steps) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::stringstream text;
    text << stat.rdbuf();
    const std::string s = text.str();
    // "PID (COMM) STATE PPID ...": the name may hold anything but ends at the last ')'.
    const size_t close = s.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream rest(s.substr(close + 1));
    std::string state;
    pid_t parent = 0;
    if (!(rest >> state >> parent)) return false;
    if (parent == self_) return true;
    pid = parent;
  }
  return false;
}

}  // namespace radar::record
