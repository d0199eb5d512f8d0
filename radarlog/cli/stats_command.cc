// `radar stats DIR...`: messages, bytes and time per process and channel.
#include <cstdio>
#include <limits>
#include <string>

#include "analysis/stats.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"

namespace radar::cli {

const char kStatsHelp[] =
    "usage: radar stats [OPTIONS] DIR...\n\n"
    "Per process: messages and bytes sent and received, time spent in sends, in\n"
    "receives and waiting in poll/select/epoll. Per channel: messages, bytes, and\n"
    "how long messages spent in it (from the send's return to the receive's).\n"
    "Recordings of several machines: how far each machine's clock was moved to\n"
    "line up with the first's, and the interval the messages between them allow.\n"
    "\n"
    "  --json            one JSON object, for tools\n" RADAR_NET_HELP RADAR_MERGE_HELP
    "\n"
    "Exit status: 0; 2 when the recording cannot be read or an option is wrong;\n"
    "3 when a log was damaged or unreadable (the rest is counted).\n";

const OptionSpec kStatsOptionList[] = {{"json", 0, nullptr}, kNetOption, kNoNetOption, kMergeUnrelatedOption};
const std::span<const OptionSpec> kStatsOptions{kStatsOptionList};

namespace {
double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// Each machine's clock: its shift, the interval the messages allow (null:
// unbounded that side), against which host.
void printHostClocksJson(const trace::Trace& t) {
  constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
  auto bound = [&](int64_t ns) {
    return ns == kUnbounded || ns == -kUnbounded ? std::string("null") : std::to_string(ns);
  };
  for (size_t k = 0; k < t.host_clocks.size(); ++k) {
    const auto& c = t.host_clocks[k];
    std::printf(
        "%s{\"host\":%s,\"aligned\":%s,\"shift_ns\":%lld,\"low_ns\":%s,\"high_ns\":%s,\"messages\":%llu,"
        "\"against\":%s}",
        k ? "," : "", jsonString(c.host).c_str(), c.aligned ? "true" : "false", static_cast<long long>(c.shift_ns),
        bound(c.low_ns).c_str(), bound(c.high_ns).c_str(), static_cast<unsigned long long>(c.edges),
        c.against == trace::kNone ? "null" : jsonString(t.host_clocks[c.against].host).c_str());
  }
}
}  // namespace

int runStats(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kStatsOptions)) return usageError("stats", args.error());
  if (args.positional().empty()) return usageError("stats", "no recording given");
  const Loaded loaded = loadForCommand("stats", args.positional(), netChoice(args), args.has("merge-unrelated"));
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  const analysis::Statistics s = analysis::computeStatistics(t);
  if (args.has("json")) {
    std::printf("{\"processes\":[");
    for (size_t i = 0; i < t.processes.size(); ++i) {
      const auto& p = s.processes[i];
      std::printf(
          "%s{\"process\":%s,\"pid\":%d,\"events\":%llu,\"sends\":%llu,\"receives\":%llu,"
          "\"bytes_sent\":%llu,\"bytes_received\":%llu,\"send_ms\":%.3f,\"receive_ms\":%.3f,"
          "\"wait_ms\":%.3f%s}",
          i ? "," : "", jsonString(t.processName(i)).c_str(), t.processes[i].pid,
          static_cast<unsigned long long>(p.events), static_cast<unsigned long long>(p.sends),
          static_cast<unsigned long long>(p.receives), static_cast<unsigned long long>(p.bytes_sent),
          static_cast<unsigned long long>(p.bytes_received), ms(p.send_ns), ms(p.receive_ns), ms(p.wait_ns),
          t.processes[i].not_recorded.empty()
              ? ""
              : (",\"not_recorded\":" + jsonString(t.processes[i].not_recorded)).c_str());
    }
    std::printf("],\"channels\":[");
    for (size_t i = 0; i < t.channels.size(); ++i) {
      const auto& c = s.channels[i];
      std::printf(
          "%s{\"channel\":%s,\"messages\":%llu,\"bytes\":%llu,\"received\":%llu,"
          "\"queued_ms_total\":%.3f,\"queued_ms_max\":%.3f}",
          i ? "," : "", jsonString(t.channelName(i)).c_str(), static_cast<unsigned long long>(c.messages),
          static_cast<unsigned long long>(c.bytes), static_cast<unsigned long long>(c.matched), ms(c.queued_ns),
          ms(c.max_queued_ns));
    }
    std::printf("],\"host_clocks\":[");
    printHostClocksJson(t);
    std::printf("]}\n");
    return storyExitStatus(t, kExitOk);
  }
  std::printf("%-28s %8s %8s %12s %12s %10s %10s %10s\n", "process", "sends", "receives", "bytes out", "bytes in",
              "send ms", "recv ms", "wait ms");
  for (size_t i = 0; i < t.processes.size(); ++i) {
    const auto& p = s.processes[i];
    if (!t.processes[i].not_recorded.empty()) {  // a program radar could not record: no counts, but why
      std::printf("%-28s %s\n", terminalSafe(t.label(i)).c_str(), terminalSafe(t.processes[i].not_recorded).c_str());
      continue;
    }
    std::printf("%-28s %8llu %8llu %12llu %12llu %10.3f %10.3f %10.3f\n", terminalSafe(t.label(i)).c_str(),
                static_cast<unsigned long long>(p.sends), static_cast<unsigned long long>(p.receives),
                static_cast<unsigned long long>(p.bytes_sent), static_cast<unsigned long long>(p.bytes_received),
                ms(p.send_ns), ms(p.receive_ns), ms(p.wait_ns));
  }
  std::printf("\n%-36s %10s %12s %10s %14s %12s\n", "channel", "messages", "bytes", "received", "queued ms avg",
              "queued ms max");
  for (size_t i = 0; i < t.channels.size(); ++i) {
    const auto& c = s.channels[i];
    if (!c.messages && !c.matched) continue;
    std::printf("%-36s %10llu %12llu %10llu %14.3f %12.3f\n", terminalSafe(t.channelName(i)).c_str(),
                static_cast<unsigned long long>(c.messages), static_cast<unsigned long long>(c.bytes),
                static_cast<unsigned long long>(c.matched), c.matched ? ms(c.queued_ns) / c.matched : 0.0,
                ms(c.max_queued_ns));
  }
  if (!t.host_clocks.empty()) {
    std::printf("\nhost clocks (each machine's wall times lined up with the first's):\n");
    for (uint32_t c = 0; c < t.host_clocks.size(); ++c)
      std::printf("  %s\n", terminalSafe(t.describeHostClock(c)).c_str());
  }
  return storyExitStatus(t, kExitOk);
}

}  // namespace radar::cli
