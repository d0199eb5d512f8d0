// kvstore_client -- talks to kvstore_server (C++20, Protocol Buffers).
//
//     kvstore_client HOST PORT COMMAND...
//
// COMMANDs, run in order on one connection, each answered before the next:
//     put KEY VALUE      get KEY      delete KEY      shutdown
// Prints one line per command ("get colour: red", "get size: error: no such
// key"). Exits 0 when every command got an answer (even "no such key"), 1 on
// a connection or protocol error, 2 on a usage error.
//
//     kvstore_client 127.0.0.1 5000 put colour red get colour delete colour
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "kvstore.pb.h"
#include "kvstore_framing.h"

namespace {

using radar::samples::Request;
using radar::samples::Response;

int connect_to(const char* host, const char* port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addresses;
  int r = getaddrinfo(host, port, &hints, &addresses);
  if (r != 0) {
    std::fprintf(stderr, "kvstore_client: %s port %s: %s\n", host, port, gai_strerror(r));
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = addresses; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0)
    std::fprintf(stderr, "kvstore_client: cannot connect to %s port %s: %s\n", host, port, std::strerror(errno));
  freeaddrinfo(addresses);
  return fd;
}

// Sends request and reads its response; false on a connection error.
bool call(int fd, const Request& request, Response& response) {
  std::string data;
  kvstore::frame(request, data);
  if (!kvstore::write_all(fd, data)) return false;
  std::string input, body;
  char buffer[4096];
  for (;;) {
    int r = kvstore::unframe(input, body);
    if (r < 0) return false;
    if (r == 1) return response.ParseFromString(body);
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    input.append(buffer, static_cast<size_t>(n));
  }
}

int usage() {
  std::fprintf(stderr,
               "usage: kvstore_client HOST PORT COMMAND...\n"
               "  COMMAND: put KEY VALUE | get KEY | delete KEY | shutdown\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return usage();
  // Check every command before connecting.
  for (int i = 3; i < argc;) {
    std::string_view c = argv[i];
    int args = c == "put" ? 2 : c == "get" || c == "delete" ? 1 : c == "shutdown" ? 0 : -1;
    if (args < 0 || i + args >= argc) return usage();
    i += 1 + args;
  }

  int fd = connect_to(argv[1], argv[2]);
  if (fd < 0) return 1;
  for (int i = 3; i < argc;) {
    std::string_view c = argv[i];
    Request request;
    std::string label;
    if (c == "put") {
      request.mutable_put()->set_key(argv[i + 1]);
      request.mutable_put()->set_value(argv[i + 2]);
      label = std::string("put ") + argv[i + 1] + " " + argv[i + 2];
      i += 3;
    } else if (c == "get" || c == "delete") {
      if (c == "get")
        request.mutable_get()->set_key(argv[i + 1]);
      else
        request.mutable_del()->set_key(argv[i + 1]);
      label = std::string(c) + " " + argv[i + 1];
      i += 2;
    } else {
      request.mutable_shutdown();
      label = "shutdown";
      i += 1;
    }
    Response response;
    if (!call(fd, request, response)) {
      std::fprintf(stderr, "kvstore_client: %s: connection lost\n", label.c_str());
      return 1;
    }
    if (!response.ok())
      std::printf("%s: error: %s\n", label.c_str(), response.error().c_str());
    else if (request.has_get())
      std::printf("%s: %s\n", label.c_str(), response.value().c_str());
    else
      std::printf("%s: ok\n", label.c_str());
  }
  close(fd);
  return 0;
}
