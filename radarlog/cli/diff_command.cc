// `radar diff RUN_A RUN_B`: what is different about the run that failed.
#include <cstdio>
#include <cstdlib>

#include "analysis/diff.h"
#include "analysis/narrative.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"

namespace radar::cli {

const char kDiffHelp[] =
    "usage: radar diff [OPTIONS] RUN_A RUN_B\n\n"
    "Compares two recordings of one program: processes aligned by where they come\n"
    "from in the process tree (names and birth order, not pids), channels by the\n"
    "processes and descriptors that use them. Tells where the runs part first in\n"
    "causal order (another call, a message with other bytes, a receive that took\n"
    "another process's message, another result, a process that ended otherwise or\n"
    "is in one run only), with both sides' events, then where each other process\n"
    "parts, and the channels whose traffic or timing differs. To catch a run that\n"
    "fails once in a while: `radar record --repeat N --until-fail -- PROGRAM`.\n"
    "\n"
    "  --timing MS       a channel's mean latency differs when the runs' are MS\n"
    "                    apart or more and one is twice the other (default 1)\n"
    "  --json            one JSON object, for tools (docs/analysis.md)\n"
    "  --replay          open both runs side by side in the replay, each at the\n"
    "                    first event where they part\n" RADAR_NET_HELP
    "\n"
    "Exit status: 0 when no process parts, 1 when they do, 2 when a recording\n"
    "cannot be read or an option is wrong.\n";

const OptionSpec kDiffOptionList[] = {
    {"timing", 0, "MS"}, {"json", 0, nullptr}, {"replay", 0, nullptr}, kNetOption, kNoNetOption};
const std::span<const OptionSpec> kDiffOptions{kDiffOptionList};

namespace {

int replayBoth(const Args& args) {
#ifndef RADAR_HAVE_REPLAY
  (void)args;
  return usageError("diff", "--replay: this radar was built without the replay");
#else
  // The replay application shows both side by side.
  std::vector<std::string> replay{"replay", "--diff", args.positional()[0], args.positional()[1]};
  if (auto net = args.value("net")) replay.insert(replay.end(), {"--net", *net});
  if (args.has("no-net")) replay.push_back("--no-net");
  std::vector<char*> argv_replay;
  for (auto& a : replay) argv_replay.push_back(a.data());
  argv_replay.push_back(nullptr);
  return runReplay(static_cast<int>(replay.size()), argv_replay.data());
#endif
}

void printText(const analysis::RunDiff& diff, const analysis::Narrator& na, const analysis::Narrator& nb) {
  auto side = [&](const char* which, const analysis::Narrator& n, uint32_t e) {
    if (e == trace::kNone)
      std::printf("  %s: (nothing)\n", which);
    else
      std::printf("  %s: %s\n", which, terminalSafe(n.sentence(e)).c_str());
  };
  if (diff.differences.empty()) {
    std::printf(
        "no causal difference: the %u processes made the same calls, with the same messages from the same "
        "senders\n",
        diff.processes_matched);
  } else {
    const auto& first = diff.differences.front();
    std::printf("the runs part here first (%s, in %s): %s\n", analysis::runDifferenceName(first.kind),
                terminalSafe(first.process).c_str(), terminalSafe(first.what).c_str());
    side("first run ", na, first.a);
    side("second run", nb, first.b);
    if (diff.differences.size() > 1) {
      std::printf("\nthen, in causal order (each may follow from the first):\n");
      for (size_t k = 1; k < diff.differences.size() && k < 11; ++k) {
        const auto& d = diff.differences[k];
        std::printf("  %s in %s: %s (events %s, %s)\n", analysis::runDifferenceName(d.kind),
                    terminalSafe(d.process).c_str(), terminalSafe(d.what).c_str(),
                    d.a == trace::kNone ? "-" : std::to_string(d.a + 1).c_str(),
                    d.b == trace::kNone ? "-" : std::to_string(d.b + 1).c_str());
      }
      if (diff.differences.size() > 11) std::printf("  ... and %zu more\n", diff.differences.size() - 11);
    }
  }
  if (!diff.channels.empty()) {
    std::printf("\n%-44s %18s %22s %22s\n", "channel (first run / second)", "messages", "bytes", "latency ms (mean)");
    for (const auto& c : diff.channels)
      std::printf("%-44s %8llu / %-8llu %10llu / %-10llu %10.3f / %-10.3f\n",
                  terminalSafe(c.name_a.empty() ? c.name_b : c.name_a).c_str(),
                  static_cast<unsigned long long>(c.messages_a), static_cast<unsigned long long>(c.messages_b),
                  static_cast<unsigned long long>(c.bytes_a), static_cast<unsigned long long>(c.bytes_b),
                  c.latency_ms_a, c.latency_ms_b);
  }
  std::printf("\nthe first run took %.3f ms, the second %.3f ms\n", static_cast<double>(diff.duration_ns_a) / 1e6,
              static_cast<double>(diff.duration_ns_b) / 1e6);
}

// A side of a difference: its event (numbered as `radar events` does) and
// sentence, or null where that run has none.
std::string jsonSide(const analysis::Narrator& n, uint32_t e) {
  if (e == trace::kNone) return "null";
  return "{\"event\":" + std::to_string(e + 1) + ",\"sentence\":" + jsonString(n.sentence(e)) + "}";
}

// Every difference (not only the first eleven) and every channel.
void printJson(const analysis::RunDiff& diff, const analysis::Narrator& na, const analysis::Narrator& nb) {
  std::printf("{\"processes_matched\":%u,\"duration_ns\":[%lld,%lld],\"differences\":[", diff.processes_matched,
              static_cast<long long>(diff.duration_ns_a), static_cast<long long>(diff.duration_ns_b));
  for (size_t k = 0; k < diff.differences.size(); ++k) {
    const auto& d = diff.differences[k];
    std::printf("%s{\"kind\":%s,\"process\":%s,\"what\":%s,\"first_run\":%s,\"second_run\":%s}", k ? "," : "",
                jsonString(analysis::runDifferenceName(d.kind)).c_str(), jsonString(d.process).c_str(),
                jsonString(d.what).c_str(), jsonSide(na, d.a).c_str(), jsonSide(nb, d.b).c_str());
  }
  std::printf("],\"channels\":[");
  for (size_t k = 0; k < diff.channels.size(); ++k) {
    const auto& c = diff.channels[k];
    std::printf(
        "%s{\"first_run\":%s,\"second_run\":%s,\"messages\":[%llu,%llu],\"bytes\":[%llu,%llu],"
        "\"latency_ms\":[%.6f,%.6f]}",
        k ? "," : "", c.name_a.empty() ? "null" : jsonString(c.name_a).c_str(),
        c.name_b.empty() ? "null" : jsonString(c.name_b).c_str(), static_cast<unsigned long long>(c.messages_a),
        static_cast<unsigned long long>(c.messages_b), static_cast<unsigned long long>(c.bytes_a),
        static_cast<unsigned long long>(c.bytes_b), c.latency_ms_a, c.latency_ms_b);
  }
  std::printf("]}\n");
}

}  // namespace

int runDiff(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kDiffOptions)) return usageError("diff", args.error());
  if (args.positional().size() != 2) return usageError("diff", "give two recordings: RUN_A RUN_B");
  if (args.has("replay")) return replayBoth(args);
  double timing_ms = 1;
  if (auto v = args.value("timing")) {
    char* end = nullptr;
    timing_ms = std::strtod(v->c_str(), &end);
    if (v->empty() || *end || timing_ms < 0)
      return usageError("diff", "--timing: expected milliseconds, got '" + *v + "'");
  }
  const Loaded a = loadForCommand("diff", {args.positional()[0]}, netChoice(args), false, /*keep_hashes=*/true);
  if (!a) return kExitUsage;
  const Loaded b = loadForCommand("diff", {args.positional()[1]}, netChoice(args), false, /*keep_hashes=*/true);
  if (!b) return kExitUsage;
  const analysis::RunDiff diff = analysis::diffRuns(*a.trace, *b.trace, timing_ms);
  const analysis::Narrator na(*a.trace), nb(*b.trace);
  if (args.has("json"))
    printJson(diff, na, nb);
  else
    printText(diff, na, nb);
  return diff.differences.empty() ? kExitOk : kExitFindings;
}

}  // namespace radar::cli
