// kvstore -- starts kvstore_server and a few kvstore_clients (C++20).
//
//     kvstore [4|6] [CLIENTS]        4: 127.0.0.1 (default), 6: ::1; CLIENTS 1..9, default 2
//
// The launcher starts the server ("server", port 0) with its stdout on a
// pipe and reads "port N" from it; then starts CLIENTS clients ("client") at
// once, client i doing on its own keys:
//     put cI.colour C  put cI.size 10*I  get cI.colour  delete cI.size  get cI.size
// Their output is collected through a pipe each and printed in client order,
// so the output is the same on every run even though the clients run
// concurrently. Then a last client sends the Shutdown request (see
// kvstore.proto), and the launcher prints the server's summary and waits
// for it.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "launch.h"

namespace {

// Everything fd gives until end of file.
std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  return text;
}

void print_prefixed(const char* prefix, const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::printf("%s%.*s\n", prefix, static_cast<int>(end - start), text.data() + start);
    start = end + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* family = argc > 1 ? argv[1] : "4";
  int clients = argc > 2 ? std::atoi(argv[2]) : 2;
  if (argc > 3 || (std::strcmp(family, "4") != 0 && std::strcmp(family, "6") != 0) || clients < 1 || clients > 9) {
    std::fprintf(stderr, "usage: kvstore [4|6] [CLIENTS]   (CLIENTS 1..9, default 2)\n");
    return 2;
  }
  const char* host = family[0] == '4' ? "127.0.0.1" : "::1";

  // The server, with its stdout on a pipe.
  int server_out[2];
  launch_pipe(server_out);
  const char* server_argv[] = {"server", family, "0", nullptr};
  pid_t server = launch_worker("kvstore_server", server_argv, nullptr, LAUNCH_DEVNULL, server_out[1]);
  launch_close(server_out[1]);
  FILE* from_server = fdopen(server_out[0], "r");
  char line[256];
  unsigned port = 0;
  if (from_server == nullptr || std::fgets(line, sizeof line, from_server) == nullptr ||
      std::sscanf(line, "port %u", &port) != 1) {
    std::fprintf(stderr, "kvstore: the server did not say its port\n");
    kill(server, SIGKILL);
    waitpid(server, nullptr, 0);
    return 1;
  }
  std::string port_arg = std::to_string(port);

  // The clients, each with its stdout on its own pipe.
  static const char* const colours[] = {"red",    "green", "blue",  "cyan",  "magenta",
                                        "yellow", "black", "white", "orange"};
  std::vector<pid_t> pids;
  std::vector<int> outputs;
  for (int i = 1; i <= clients; i++) {
    std::string c = "c" + std::to_string(i);
    std::string colour_key = c + ".colour", size_key = c + ".size", size = std::to_string(10 * i);
    const char* client_argv[] = {"client",
                                 host,
                                 port_arg.c_str(),
                                 "put",
                                 colour_key.c_str(),
                                 colours[i - 1],
                                 "put",
                                 size_key.c_str(),
                                 size.c_str(),
                                 "get",
                                 colour_key.c_str(),
                                 "delete",
                                 size_key.c_str(),
                                 "get",
                                 size_key.c_str(),
                                 nullptr};
    int out[2];
    launch_pipe(out);
    pids.push_back(launch_worker("kvstore_client", client_argv, nullptr, LAUNCH_DEVNULL, out[1]));
    launch_close(out[1]);
    outputs.push_back(out[0]);
  }
  int failed = 0;
  for (int i = 0; i < clients; i++) {
    std::string prefix = "client" + std::to_string(i + 1) + ": ";
    print_prefixed(prefix.c_str(), read_all(outputs[i]));
    launch_close(outputs[i]);
    const char* name = "client";
    failed |= launch_wait("kvstore", &pids[i], &name, 1);
  }

  // Stop the server, then print what it says last.
  const char* stop_argv[] = {"client", host, port_arg.c_str(), "shutdown", nullptr};
  pid_t stopper = launch_worker("kvstore_client", stop_argv, nullptr, LAUNCH_DEVNULL, LAUNCH_INHERIT);
  const char* stop_name = "client (shutdown)";
  failed |= launch_wait("kvstore", &stopper, &stop_name, 1);
  while (std::fgets(line, sizeof line, from_server) != nullptr) std::fputs(line, stdout);
  std::fclose(from_server);
  const char* server_name = "server";
  failed |= launch_wait("kvstore", &server, &server_name, 1);
  return failed;
}
