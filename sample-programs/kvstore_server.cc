// kvstore_server -- a key-value store over TCP and Protocol Buffers (C++20).
//
//     kvstore_server [4|6] [PORT]
//
// Listens on 127.0.0.1 (4, the default) or ::1 (6), on PORT (0, the default,
// lets the system choose), and prints "port N" on stdout as soon as it
// listens. It serves any number of connections at once with poll(): each
// Request (kvstore.proto; framed with a 4-byte big-endian length) gets one
// Response. A Shutdown request stops it; it then prints how many requests it
// served and the keys left, in order, and exits 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "kvstore.pb.h"
#include "kvstore_framing.h"

namespace {

using radar::samples::Request;
using radar::samples::Response;

struct Connection {
  int fd;
  std::string input;  // bytes received, not yet a whole message
};

class Store {
 public:
  Response handle(const Request& request) {
    Response response;
    requests_++;
    switch (request.op_case()) {
      case Request::kGet: {
        auto it = data_.find(request.get().key());
        if (it == data_.end()) {
          response.set_error("no such key");
        } else {
          response.set_ok(true);
          response.set_value(it->second);
        }
        break;
      }
      case Request::kPut:
        data_[request.put().key()] = request.put().value();
        response.set_ok(true);
        break;
      case Request::kDel:
        if (data_.erase(request.del().key()) == 0)
          response.set_error("no such key");
        else
          response.set_ok(true);
        break;
      case Request::kShutdown:
        stopping_ = true;
        response.set_ok(true);
        break;
      case Request::OP_NOT_SET:
        response.set_error("empty request");
        break;
    }
    return response;
  }

  bool stopping() const { return stopping_; }

  void print_summary() const {
    std::printf("server: %d request%s served; %zu key%s left:", requests_, requests_ == 1 ? "" : "s", data_.size(),
                data_.size() == 1 ? "" : "s");
    for (const auto& [key, value] : data_) std::printf(" %s=%s", key.c_str(), value.c_str());
    std::printf("\n");
  }

 private:
  std::map<std::string, std::string> data_;
  int requests_ = 0;
  bool stopping_ = false;
};

int listen_on(int family, unsigned port) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  int r;
  if (family == AF_INET) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    r = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  } else {
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_port = htons(static_cast<uint16_t>(port));
    address.sin6_addr = in6addr_loopback;
    r = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  }
  if (r < 0 || listen(fd, 16) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

unsigned bound_port(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
}

// Reads what fd has and answers every whole request in it. Returns false when
// the connection is over (closed by the client, or broken).
bool serve(Connection& connection, Store& store) {
  char buffer[4096];
  ssize_t n = read(connection.fd, buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  connection.input.append(buffer, static_cast<size_t>(n));
  std::string body, output;
  int r;
  while ((r = kvstore::unframe(connection.input, body)) == 1) {
    Request request;
    Response response;
    if (request.ParseFromString(body))
      response = store.handle(request);
    else
      response.set_error("cannot parse the request");
    kvstore::frame(response, output);
  }
  if (!output.empty() && !kvstore::write_all(connection.fd, output)) return false;
  return r == 0;
}

}  // namespace

int main(int argc, char** argv) {
  int family = AF_INET;
  unsigned port = 0;
  if (argc > 1) {
    if (std::strcmp(argv[1], "6") == 0)
      family = AF_INET6;
    else if (std::strcmp(argv[1], "4") != 0)
      argc = 99;
  }
  if (argc > 2) {
    char* end;
    unsigned long p = std::strtoul(argv[2], &end, 10);
    if (*end != '\0' || p > 65535) argc = 99;
    port = static_cast<unsigned>(p);
  }
  if (argc > 3) {
    std::fprintf(stderr, "usage: kvstore_server [4|6] [PORT]\n");
    return 2;
  }

  int listener = listen_on(family, port);
  if (listener < 0) {
    std::fprintf(stderr, "kvstore_server: cannot listen on %s port %u: %s\n", family == AF_INET ? "127.0.0.1" : "::1",
                 port, std::strerror(errno));
    return 1;
  }
  std::printf("port %u\n", bound_port(listener));
  std::fflush(stdout);

  Store store;
  std::vector<Connection> connections;
  while (!store.stopping()) {
    std::vector<pollfd> fds;
    fds.push_back({listener, POLLIN, 0});
    for (const Connection& c : connections) fds.push_back({c.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      std::perror("kvstore_server: poll");
      return 1;
    }
    // Connections first: fds[i + 1] is connections[i].
    for (size_t i = connections.size(); i-- > 0;) {
      if (fds[i + 1].revents == 0) continue;
      if (!serve(connections[i], store)) {
        close(connections[i].fd);
        connections.erase(connections.begin() + static_cast<long>(i));
      }
    }
    if (fds[0].revents & POLLIN) {
      int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) connections.push_back({fd, {}});
    }
  }
  for (const Connection& c : connections) close(c.fd);
  close(listener);
  store.print_summary();
  return 0;
}
