// `radar dump LOG...`: every record of a log, one per line, as stored.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/cli.h"
#include "cli/commands.h"
#include "fallback/mark.h"
#include "log/address.h"
#include "log/escape.h"
#include "log/reader.h"
#include "radar/proto/radarlog.pb.h"

namespace radar::cli {

const char kDumpHelp[] =
    "usage: radar dump [OPTIONS] LOG...\n\n"
    "Prints the header and every record of radar log files (*.rlog) as stored:\n"
    "counter, thread, time since the process started, kind and fields. Damage is\n"
    "reported with the file and byte offset, after every record before it.\n\n"
    "  --payload   show payload bytes (escaped), not only their length\n\n"
    "Exit status: 0 when every log reads to its end, 2 otherwise.\n";

const OptionSpec kDumpOptionList[] = {{"payload", 0, nullptr}};
const std::span<const OptionSpec> kDumpOptions{kDumpOptionList};

namespace {

std::string escaped(std::string_view bytes, size_t limit) {
  std::string out;
  log::appendEscaped(out, bytes.substr(0, limit), log::Escaping::Ascii);
  if (bytes.size() > limit) out += "...";
  return out;
}

// A synchronization's object (its address, or its place in a shared
// file), the number it took and, for a wait, the number when it began.
void printSyncObject(const log::Record& r) {
  uint64_t id[4] = {};
  if (!r.address.empty()) std::memcpy(id, r.address.data(), std::min(r.address.size(), sizeof(id)));
  if (r.address.size() == sizeof(id))
    std::printf(" object %llx:%llu+%llu at 0x%llx", static_cast<unsigned long long>(id[0]),
                static_cast<unsigned long long>(id[1]), static_cast<unsigned long long>(id[2]),
                static_cast<unsigned long long>(id[3]));
  else
    std::printf(" object 0x%llx", static_cast<unsigned long long>(id[0]));
  std::printf(" #%llu", static_cast<unsigned long long>(r.offset));
}

void printRecord(const log::Record& r, int64_t start_ns, bool payload) {
  using log::Kind;
  if (r.kind == Kind::Channel) {
    proto::ChannelInfo ci;
    log::LogReader::parseChannel(r.channel_bytes, &ci);
    std::printf("         channel %u: %s fd %d dev %llu ino %llu", ci.index(),
                log::channelTypeName(static_cast<log::ChannelType>(ci.type())), ci.fd(),
                static_cast<unsigned long long>(ci.dev()), static_cast<unsigned long long>(ci.ino()));
    if (ci.peer_ino()) std::printf(" peer ino %llu", static_cast<unsigned long long>(ci.peer_ino()));
    if (!ci.local_address().empty()) std::printf(" local %s", log::formatAddress(ci.local_address()).c_str());
    if (!ci.peer_address().empty()) std::printf(" peer %s", log::formatAddress(ci.peer_address()).c_str());
    if (!ci.path().empty()) std::printf(" path %s", terminalSafe(ci.path()).c_str());
    if (ci.access() == 0 || ci.access() == 1) std::printf(" %s", ci.access() == 0 ? "read end" : "write end");
    if (ci.external()) std::printf(" external");
    std::printf("\n");
    return;
  }
  if (r.kind == Kind::Note) {
    std::printf("         note: %s\n", r.strings.empty() ? "" : std::string(r.strings[0]).c_str());
    return;
  }
  if (r.kind == Kind::Output) {  // uncounted, untimed: after the event above it
    std::printf("         output: fd %d, %llu bytes asked -> %lld", r.fd, static_cast<unsigned long long>(r.size),
                static_cast<long long>(r.result));
    if (r.error) std::printf(" (%s)", std::strerror(static_cast<int>(r.error)));
    std::printf(" crc %08x", r.hash);
    if (!r.payload.empty()) std::printf(" payload %zu B", r.payload.size());
    std::printf("\n");
    return;
  }
  const double t = static_cast<double>(r.entry_ns - start_ns) / 1e9;
  std::printf("#%-6llu tid %-6u +%.6fs %-11s", static_cast<unsigned long long>(r.counter), r.tid, t,
              log::kindName(r.kind));
  if (r.fd || log::isData(r.kind)) std::printf(" fd %d", r.fd);
  if (r.channel) std::printf(" ch %u", r.channel);
  if (r.has_offset) std::printf(" off %llu", static_cast<unsigned long long>(r.offset));
  if (log::isSyncKind(r.kind)) printSyncObject(r);
  if (r.size) std::printf(" size %llu", static_cast<unsigned long long>(r.size));
  std::printf(" -> %lld", static_cast<long long>(r.result));
  if (r.error) std::printf(" (%s)", std::strerror(static_cast<int>(r.error)));
  if (r.flags) std::printf(" flags 0x%x", r.flags);
  if (r.peer_pid) std::printf(" pid %d", r.peer_pid);
  if (r.status) std::printf(" status 0x%x", r.status);
  if (r.signal) std::printf(" signal %d", r.signal);
  if (!r.fds.empty()) {
    std::printf(" fds");
    for (int fd : r.fds) std::printf(" %d", fd);
  }
  for (auto s : r.strings) std::printf(" \"%s\"", escaped(s, 200).c_str());
  for (const auto& rd : r.ready) std::printf(" ready %d:0x%x", rd.fd, rd.events);
  if (r.has_hash) std::printf(" crc %08x", r.hash);
  if (!r.payload.empty()) {
    std::printf(" payload %zu B", r.payload.size());
    if (payload) std::printf(" \"%s\"", escaped(r.payload, 4096).c_str());
  }
  if (r.same_as)
    std::printf(" (%llu B kept once: those received at event %llu, from byte %llu)",
                static_cast<unsigned long long>(r.payload_omitted), static_cast<unsigned long long>(r.same_as),
                static_cast<unsigned long long>(r.same_from));
  else if (r.payload_omitted)
    std::printf(" (%llu B not stored)", static_cast<unsigned long long>(r.payload_omitted));
  std::printf(" [%.1f us]\n", static_cast<double>(r.return_ns - r.entry_ns) / 1e3);
}

}  // namespace

int runDump(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kDumpOptions)) return usageError("dump", args.error());
  if (args.positional().empty()) return usageError("dump", "no log file given");
  int status = kExitOk;
  for (const std::string& path : args.positional()) {
    log::LogError err;
    auto reader = log::LogReader::open(path, &err);
    if (!reader) {
      std::fprintf(stderr, "radar dump: %s\n", err.toString().c_str());
      status = kExitUsage;
      continue;
    }
    const auto& h = reader->header();
    std::printf("%s: pid %d (parent %d), %s, format %u.%u\n", terminalSafe(path).c_str(), h.pid(), h.ppid(),
                terminalSafe(h.executable()).c_str(), h.format_major(), h.format_minor());
    std::printf("  argv:");
    for (const auto& a : h.argv()) std::printf(" %s", terminalSafe(a).c_str());
    std::printf("\n");
    if (fallback::recordedByTheFallback(h.recorder_version()))
      std::printf("  recorded by the fallback recorder (ptrace): %s\n", terminalSafe(h.recorder_version()).c_str());
    if (h.redacted_environment_size()) {
      std::printf("  environment values left out (--redact):");
      for (const auto& name : h.redacted_environment()) std::printf(" %s", terminalSafe(name).c_str());
      std::printf("\n");
    }
    if (h.open_fds_size()) {
      std::printf("  open descriptors at start:");
      for (int fd : h.open_fds()) std::printf(" %d", fd);
      std::printf("\n");
    }
    const auto& c = reader->control();
    if (c.incomplete)
      std::printf("  incomplete: %llu events lost from event %llu (%s)\n",
                  static_cast<unsigned long long>(c.lost_events), static_cast<unsigned long long>(c.lost_from_counter),
                  std::strerror(c.lost_errno));
    for (const auto& th : c.threads)
      if (th.kind)
        std::printf("  thread %u was in %s on fd %d when the log was last written\n", th.tid,
                    log::kindName(static_cast<log::Kind>(th.kind)), th.fd);
    log::Record r;
    while (reader->next(r)) printRecord(r, h.monotonic_ns(), args.has("payload"));
    for (const auto& note : reader->notes()) std::printf("  note: %s\n", terminalSafe(note).c_str());
    if (reader->error()) {
      std::fprintf(stderr, "radar dump: %s\n", reader->error()->toString().c_str());
      status = kExitUsage;
    }
  }
  return status;
}

}  // namespace radar::cli
