// `radar check DIR...`: is the recording readable and consistent, and what
// went wrong in the program (messages never received, crashes, deadlocks).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "trace/findings.h"

namespace radar::cli {

const char kCheckHelp[] =
    "usage: radar check [OPTIONS] DIR...\n\n"
    "Reads and merges a recording, then reports how well sends and receives match\n"
    "and what a user should look at: messages sent and never received, bytes\n"
    "received that no recorded process sent, processes that crashed, were killed or\n"
    "never ended (with what they were blocked in), deadlocks (processes waiting for\n"
    "each other in a cycle), and logs that are incomplete or damaged.\n"
    "Each finding has a severity, and they come in its order: an error (a deadlock,\n"
    "a crash, a damaged log), a warning (worth a look), a note (explained by what\n"
    "the recording holds, which it names: a process killed by another's kill()).\n"
    "\n"
    "  --strict          exit 1 when there are findings (of --min-severity or worse)\n"
    "  --min-severity S  only findings of severity S or worse: error, warning or\n"
    "                    note (the default: all)\n"
    "  --json            one JSON object, for tools\n" RADAR_NET_HELP RADAR_MERGE_HELP
    "\n"
    "Exit status: 0 when the recording is readable (findings are printed, not\n"
    "errors), 1 for findings with --strict, 2 when it cannot be read, 3 when a\n"
    "log was damaged or unreadable (the rest was read: the story is partial).\n";

const OptionSpec kCheckOptionList[] = {{"strict", 0, nullptr}, {"min-severity", 0, "S"},
                                       {"json", 0, nullptr},   kNetOption,
                                       kNoNetOption,           kMergeUnrelatedOption};
const std::span<const OptionSpec> kCheckOptions{kCheckOptionList};

namespace {

using Findings = std::vector<const trace::Finding*>;

void printJson(const trace::Trace& t, const Findings& shown) {
  const uint64_t unmatched = t.bytes_received - t.bytes_matched - t.bytes_external - t.bytes_outside_window;
  std::printf(
      "{\"processes\":%zu,\"channels\":%zu,\"events\":%zu,\"bytes_sent\":%llu,"
      "\"bytes_received\":%llu,\"bytes_matched\":%llu,\"bytes_external\":%llu,"
      "\"bytes_unmatched\":%llu,\"bytes_ambiguous\":%llu,\"bytes_outside_window\":%llu,\"placed_by_time\":%llu,"
      "\"problems\":[",
      t.processes.size(), t.channels.size(), t.events.size(), static_cast<unsigned long long>(t.bytes_sent),
      static_cast<unsigned long long>(t.bytes_received), static_cast<unsigned long long>(t.bytes_matched),
      static_cast<unsigned long long>(t.bytes_external), static_cast<unsigned long long>(unmatched),
      static_cast<unsigned long long>(t.bytes_ambiguous), static_cast<unsigned long long>(t.bytes_outside_window),
      static_cast<unsigned long long>(t.placed_by_time));
  for (size_t i = 0; i < t.problems.size(); ++i)
    std::printf("%s{\"path\":%s,\"message\":%s}", i ? "," : "", jsonString(t.problems[i].path).c_str(),
                jsonString(t.problems[i].message).c_str());
  std::printf("],\"findings\":[");
  for (size_t i = 0; i < shown.size(); ++i) {
    const auto& f = *shown[i];
    std::printf("%s{\"kind\":%s,\"severity\":\"%s\",\"text\":%s,\"cause\":", i ? "," : "",
                jsonString(trace::findingKindName(f.kind)).c_str(), trace::severityName(f.severity),
                jsonString(trace::describe(t, f)).c_str());
    if (f.cause == trace::kNone)
      std::printf("null");
    else
      std::printf("%u", f.cause + 1);
    std::printf(",\"events\":[");
    for (size_t k = 0; k < f.events.size(); ++k) std::printf("%s%u", k ? "," : "", f.events[k] + 1);
    std::printf("],\"processes\":[");
    for (size_t k = 0; k < f.processes.size(); ++k)
      std::printf("%s%s", k ? "," : "", jsonString(t.label(f.processes[k])).c_str());
    std::printf("],\"channels\":[");
    for (size_t k = 0; k < f.channels.size(); ++k)
      std::printf("%s%s", k ? "," : "", jsonString(t.channelName(f.channels[k])).c_str());
    std::printf("]}");
  }
  std::printf("],\"unseen\":[");
  const auto unseen = trace::unseenLines(t);
  for (size_t i = 0; i < unseen.size(); ++i)
    std::printf("%s{\"what\":%s,\"process\":%s,\"text\":%s}", i ? "," : "", jsonString(unseen[i].name).c_str(),
                jsonString(t.label(unseen[i].process)).c_str(), jsonString(unseen[i].text).c_str());
  std::printf("]}\n");
}

void printText(const trace::Trace& t, const Findings& shown) {
  const uint64_t unmatched = t.bytes_received - t.bytes_matched - t.bytes_external - t.bytes_outside_window;
  const auto count = [](size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::printf("%s, %s, %s\n", count(t.processes.size(), "process", "processes").c_str(),
              count(t.channels.size(), "channel", "channels").c_str(),
              count(t.events.size(), "event", "events").c_str());
  std::printf(
      "bytes sent %llu, received %llu: %llu matched to their sends, %llu from outside the "
      "recording, %llu with no recorded sender\n",
      static_cast<unsigned long long>(t.bytes_sent), static_cast<unsigned long long>(t.bytes_received),
      static_cast<unsigned long long>(t.bytes_matched), static_cast<unsigned long long>(t.bytes_external),
      static_cast<unsigned long long>(unmatched));
  if (t.bytes_outside_window)
    std::printf(
        "%llu of the bytes received were sent where the flight recorder's logs do not reach (before the "
        "oldest events they kept, or after they were frozen)\n",
        static_cast<unsigned long long>(t.bytes_outside_window));
  if (t.bytes_ambiguous)
    std::printf(
        "%llu of the matched bytes went through channels with several writers or readers whose "
        "calls overlapped, and their content could not tell their order: it is by time\n",
        static_cast<unsigned long long>(t.bytes_ambiguous));
  if (t.placed_by_time)
    std::printf(
        "%llu events of multi-threaded processes were placed by time, where the order of their "
        "threads' calls and the messages between processes disagree\n",
        static_cast<unsigned long long>(t.placed_by_time));
  if (shown.empty()) std::printf(t.findings.empty() ? "no findings\n" : "no findings of that severity\n");
  for (const trace::Finding* f : shown) {
    std::printf("%s: %s: %s", trace::severityName(f->severity), trace::findingKindName(f->kind),
                terminalSafe(trace::describe(t, *f)).c_str());
    if (!f->events.empty()) std::printf(" (event %u)", f->events.front() + 1);
    std::printf("\n");
  }
  // Not findings: where the story cannot see (said; --strict ignores them).
  for (const trace::UnseenLine& u : trace::unseenLines(t)) {
    std::printf("not seen: %s", terminalSafe(u.text).c_str());
    if (u.event != trace::kNone) std::printf(" (from event %u)", u.event + 1);
    std::printf("\n");
  }
}

bool parseSeverity(const std::string& name, trace::Finding::Severity* out) {
  for (auto s : {trace::Finding::Severity::Error, trace::Finding::Severity::Warning, trace::Finding::Severity::Note})
    if (name == trace::severityName(s)) {
      *out = s;
      return true;
    }
  return false;
}

}  // namespace

int runCheck(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kCheckOptions)) return usageError("check", args.error());
  if (args.positional().empty()) return usageError("check", "no recording given");
  auto least = trace::Finding::Severity::Note;
  if (const auto s = args.value("min-severity"); s && !parseSeverity(*s, &least))
    return usageError("check", "--min-severity: error, warning or note, not '" + *s + "'");
  const Loaded loaded = loadForCommand("check", args.positional(), netChoice(args), args.has("merge-unrelated"));
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  Findings shown;
  for (const auto& f : t.findings)
    if (f.severity <= least) shown.push_back(&f);
  if (args.has("json"))
    printJson(t, shown);
  else
    printText(t, shown);
  return storyExitStatus(t, args.has("strict") && !shown.empty() ? kExitFindings : kExitOk);
}

}  // namespace radar::cli
