// `radar export`: a recording in the formats of the tools people already
// use (Wireshark, Perfetto, SQLite).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "cli.h"
#include "commands.h"
#include "export/pcapng.h"
#include "trace_command.h"

namespace radar::cli {

const char kExportHelp[] =
    "usage: radar export [--pcapng FILE] [options] DIR...\n"
    "\n"
    "Writes a recording in the formats of other tools (docs/exporting.md):\n"
    "  --pcapng FILE     every message of every channel as packets, for Wireshark\n"
    "                    and tshark: TCP and UDP keep their addresses; pipes, Unix\n"
    "                    sockets and the like become TCP streams (UDP for datagram\n"
    "                    sockets) between addresses of their own in 127.128.0.0/9.\n"
    "                    Each packet's comment names the process and the event\n"
    "  --decode-as CHANNEL=PROTOCOL\n"
    "                    give the receiving side of a channel that is not TCP or UDP\n"
    "                    the port of PROTOCOL, so that Wireshark decodes it: http,\n"
    "                    pgsql, redis, dns, tls, mysql ... or a port number. CHANNEL\n"
    "                    is its number or its name as `radar events` shows (repeat)\n"
    "FILE '-' is standard output. A file is written whole or not at all.\n" RADAR_NET_HELP
    "\n"
    "Exit status: 0, or 2 when the recording cannot be read, an option is wrong\n"
    "or a file cannot be written.\n";

namespace {

// Writes `path` through a temporary file beside it, renamed over it once
// complete: a failed export leaves nothing half-written.
bool writeFile(const std::string& path, const std::function<bool(std::FILE*, std::string*)>& write,
               std::string* error) {
  if (path == "-") return write(stdout, error);
  const std::string temporary = path + ".radar-partial";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    ::close(fd);
    ::unlink(temporary.c_str());
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  bool ok = write(f, error);
  if (std::fclose(f) != 0 && ok) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ok = false;
  }
  if (ok && ::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    ok = false;
  }
  if (!ok) ::unlink(temporary.c_str());
  return ok;
}

}  // namespace

int runExport(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, {{"pcapng", 0, true}, {"decode-as", 0, true}, kNetOption, kNoNetOption}))
    return usageError("export", args.error());
  if (args.positional().empty()) return usageError("export", "no recording given");
  if (!args.has("pcapng")) return usageError("export", "nothing to export: give --pcapng FILE");
  exporting::PcapngOptions pcapng;
  pcapng.application = std::string("radar ") + RADAR_VERSION;
  for (const auto& spec : args.values("decode-as")) {
    const auto eq = spec.rfind('=');
    if (eq == std::string::npos || eq == 0) return usageError("export", "--decode-as: expected CHANNEL=PROTOCOL");
    const uint16_t port = exporting::decodeAsPort(spec.substr(eq + 1));
    if (!port)
      return usageError("export", "--decode-as: unknown protocol '" + spec.substr(eq + 1) +
                                      "' (a name such as http, pgsql, redis, or a port number)");
    pcapng.decode_as[spec.substr(0, eq)] = port;
  }
  const Loaded loaded = loadForCommand("export", args.positional(), netChoice(args));
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  for (const auto& [channel, port] : pcapng.decode_as) {
    bool found = false;
    for (const auto& c : t.channels) found |= c.name == channel || std::to_string(c.index + 1) == channel;
    if (!found) return usageError("export", "--decode-as: no channel '" + channel + "' in this recording");
  }
  std::string error;
  if (auto path = args.value("pcapng")) {
    exporting::PcapngCounts counts;
    if (!writeFile(
            *path, [&](std::FILE* f, std::string* e) { return exporting::writePcapng(t, pcapng, f, &counts, e); },
            &error)) {
      std::fprintf(stderr, "radar export: %s\n", error.c_str());
      return kExitUsage;
    }
    std::fprintf(stderr, "radar export: %s: %llu packets, %llu bytes of messages, %llu channels\n", path->c_str(),
                 static_cast<unsigned long long>(counts.packets), static_cast<unsigned long long>(counts.payload_bytes),
                 static_cast<unsigned long long>(counts.streams));
  }
  return kExitOk;
}

}  // namespace radar::cli
