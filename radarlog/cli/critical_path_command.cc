// `radar critical-path DIR...`: the chain of events and messages that
// decided when an event happened, and where its time went.
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "analysis/critical_path.h"
#include "analysis/interactions.h"
#include "analysis/narrative.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "trace/findings.h"

namespace radar::cli {

const char kCriticalPathHelp[] =
    "usage: radar critical-path [OPTIONS] DIR...\n\n"
    "Why did it take so long? Walks back from an event along what was ready\n"
    "last at each step (the thread's previous call, or the send, fork, exit or\n"
    "kill that led into it) and splits the time into segments: running (in a call\n"
    "or between calls), blocked (waiting for what the recording does not link),\n"
    "transit (a send's completion to the return of the receive waiting for it)\n"
    "and queued (a message waiting while its receiver was busy); with totals by\n"
    "kind, process and channel, and the other ways in with the least slack.\n"
    "\n"
    "  --to N            the path to event N (default: the last event of the\n"
    "                    recording's first process)\n"
    "  -p, --process P   the path to the last event of process P\n"
    "  --from N          start at event N: every step follows from it\n"
    "  --interactions    instead, every request a server received and answered on\n"
    "                    the same connection, by service: percentiles of the\n"
    "                    response time and of its parts (send, queued, transit in,\n"
    "                    server, reply queued, transit out), and the slowest ones\n"
    "  --json            the whole path as one JSON object\n" RADAR_NET_HELP RADAR_MERGE_HELP
    "\n"
    "Exit status: 0; 2 when the recording cannot be read, an option is wrong, or\n"
    "the end does not follow from the start.\n";

const OptionSpec kCriticalPathOptionList[] = {{"to", 0, "N"},       {"process", 'p', "P", InUsage::kOr},
                                              {"from", 0, "N"},     {"interactions", 0, nullptr},
                                              {"json", 0, nullptr}, kNetOption,
                                              kNoNetOption,         kMergeUnrelatedOption};
const std::span<const OptionSpec> kCriticalPathOptions{kCriticalPathOptionList};

namespace {

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

int printInteractions(const trace::Trace& t, bool json) {
  const analysis::Interactions found = analysis::findInteractions(t);
  if (json) std::printf("{\"groups\":[");
  for (uint32_t g = 0; g < found.groups.size(); ++g) {
    std::vector<const analysis::Interaction*> members;
    for (const auto& in : found.all)
      if (in.group == g) members.push_back(&in);
    std::vector<int64_t> values(members.size());
    auto stats = [&](int part) {  // p50, p90, p99, max
      for (size_t k = 0; k < members.size(); ++k) values[k] = part < 0 ? members[k]->total() : members[k]->ns[part];
      std::array<int64_t, 4> s{analysis::percentile(values, 0.5), analysis::percentile(values, 0.9),
                               analysis::percentile(values, 0.99), *std::max_element(values.begin(), values.end())};
      return s;
    };
    std::sort(members.begin(), members.end(),
              [](const analysis::Interaction* a, const analysis::Interaction* b) { return a->total() > b->total(); });
    std::string server;
    for (uint32_t p : found.groups[g].servers) server += (server.empty() ? "" : ", ") + t.label(p);
    if (json) {
      std::printf("%s{\"service\":%s,\"server\":%s,\"interactions\":%zu,\"parts\":{", g ? "," : "",
                  jsonString(found.groups[g].name).c_str(), jsonString(server).c_str(), members.size());
      for (int part = -1; part < analysis::Interaction::kParts; ++part) {
        const auto s = stats(part);
        std::printf("%s\"%s\":[%lld,%lld,%lld,%lld]", part < 0 ? "" : ",",
                    part < 0 ? "total" : analysis::interactionPartName(part), static_cast<long long>(s[0]),
                    static_cast<long long>(s[1]), static_cast<long long>(s[2]), static_cast<long long>(s[3]));
      }
      std::printf("},\"worst\":[");
      for (size_t k = 0; k < members.size() && k < 5; ++k)
        std::printf("%s{\"request\":%u,\"reply\":%u,\"ns\":%lld}", k ? "," : "", members[k]->request_receive + 1,
                    members[k]->reply_send + 1, static_cast<long long>(members[k]->total()));
      std::printf("]}");
      continue;
    }
    std::printf("%s served by %s: %zu interactions\n", terminalSafe(found.groups[g].name).c_str(),
                terminalSafe(server).c_str(), members.size());
    std::printf("  %-13s %10s %10s %10s %10s  (ms)\n", "", "p50", "p90", "p99", "max");
    for (int part = -1; part < analysis::Interaction::kParts; ++part) {
      const auto s = stats(part);
      std::printf("  %-13s %10.3f %10.3f %10.3f %10.3f\n", part < 0 ? "total" : analysis::interactionPartName(part),
                  ms(s[0]), ms(s[1]), ms(s[2]), ms(s[3]));
    }
    std::printf("  slowest:\n");
    for (size_t k = 0; k < members.size() && k < 5; ++k) {
      const auto& in = *members[k];
      std::printf("    %.3f ms: request received at event %u, reply sent at event %u", ms(in.total()),
                  in.request_receive + 1, in.reply_send + 1);
      if (in.request_send != trace::kNone) std::printf(" (asked at event %u", in.request_send + 1);
      if (in.reply_receive != trace::kNone)
        std::printf("%sanswered at event %u", in.request_send != trace::kNone ? ", " : " (", in.reply_receive + 1);
      std::printf("%s\n", in.request_send != trace::kNone || in.reply_receive != trace::kNone ? ")" : "");
    }
    std::printf("\n");
  }
  if (json)
    std::printf("]}\n");
  else if (found.groups.empty())
    std::printf("no interactions: no process received a request and answered it on the same channel\n");
  return kExitOk;
}

// The event a path ends at without --to: the last of the process asked
// for, else of the first process; kNone with *why.
uint32_t lastEventAsked(const trace::Trace& t, const std::optional<std::string>& process, std::string* why) {
  if (!process) {
    const uint32_t last = analysis::lastEventOfRoot(t);
    if (last == trace::kNone) *why = "the recording has no events";
    return last;
  }
  const auto found = findProcesses(t, *process, true, why);
  if (found.empty()) return trace::kNone;
  const uint32_t last = t.processes[found[0]].last_event;
  if (last == trace::kNone) *why = "process '" + *process + "' has no events";
  return last;
}

void printPathJson(const trace::Trace& t, const analysis::CriticalPath& path, uint32_t to) {
  std::printf("{\"to\":%u,\"from\":%u,\"begin_ns\":%lld,\"end_ns\":%lld,\"events\":[", to + 1, path.events.front() + 1,
              static_cast<long long>(path.begin_ns), static_cast<long long>(path.end_ns));
  for (size_t k = 0; k < path.events.size(); ++k) std::printf("%s%u", k ? "," : "", path.events[k] + 1);
  std::printf("],\"segments\":[");
  for (size_t k = 0; k < path.segments.size(); ++k) {
    const auto& s = path.segments[k];
    std::printf(
        "%s{\"kind\":\"%s\",\"begin_ns\":%lld,\"ns\":%lld,\"process\":%s,\"thread\":%u,\"channel\":%s,"
        "\"event\":%u,\"woken_by\":%s}",
        k ? "," : "", analysis::pathSegmentName(s.kind), static_cast<long long>(s.begin_ns),
        static_cast<long long>(s.ns()), s.process == trace::kNone ? "null" : jsonString(t.label(s.process)).c_str(),
        t.events[s.event].thread + 1u,
        s.channel == trace::kNone ? "null" : jsonString(t.channelName(s.channel)).c_str(), s.event + 1,
        s.woken_by == trace::kNone ? "null" : std::to_string(s.woken_by + 1).c_str());
  }
  std::printf("],\"branches\":[");
  for (size_t k = 0; k < path.branches.size() && k < 100; ++k)
    std::printf("%s{\"from\":%u,\"to\":%u,\"slack_ns\":%lld}", k ? "," : "", path.branches[k].from + 1,
                path.branches[k].to + 1, static_cast<long long>(path.branches[k].slack_ns));
  std::printf("]}\n");
}

// The path, one line per stretch: consecutive segments of one kind and one
// thread (and channel) read as one.
void printSegments(const trace::Trace& t, const analysis::CriticalPath& path) {
  const analysis::Narrator narrator(t);
  std::printf("%10s %10s  %-8s %-44s %s\n", "at ms", "ms", "kind", "process / channel", "up to event");
  for (size_t k = 0; k < path.segments.size();) {
    const auto& s = path.segments[k];
    size_t j = k + 1;
    int64_t end = s.end_ns;
    while (j < path.segments.size() && path.segments[j].kind == s.kind && path.segments[j].process == s.process &&
           t.events[path.segments[j].event].thread == t.events[s.event].thread &&
           path.segments[j].channel == s.channel && path.segments[j].woken_by == s.woken_by) {
      end = path.segments[j].end_ns;
      ++j;
    }
    const uint32_t last = path.segments[j - 1].event;
    std::printf("%10.3f %10.3f  %-8s %-44s %u: %s\n", ms(s.begin_ns - path.begin_ns), ms(end - s.begin_ns),
                analysis::pathSegmentName(s.kind), terminalSafe(analysis::segmentOwner(t, s)).c_str(), last + 1,
                terminalSafe(narrator.describe(last)).c_str());
    k = j;
  }
}

// Where the time went: by kind, by process, by channel; and the other ways
// in with the least slack.
void printTotals(const trace::Trace& t, const analysis::CriticalPath& path) {
  const analysis::Narrator narrator(t);
  const int64_t total = path.end_ns - path.begin_ns;
  std::map<analysis::PathSegment::Kind, int64_t> by_kind;
  std::map<uint32_t, std::map<analysis::PathSegment::Kind, int64_t>> by_process, by_channel;
  for (const auto& s : path.segments) {
    by_kind[s.kind] += s.ns();
    if (s.process != trace::kNone) by_process[s.process][s.kind] += s.ns();
    if (s.channel != trace::kNone) by_channel[s.channel][s.kind] += s.ns();
  }
  const analysis::PathSegment::Kind kinds[] = {
      analysis::PathSegment::Kind::Running, analysis::PathSegment::Kind::Blocked, analysis::PathSegment::Kind::Transit,
      analysis::PathSegment::Kind::Queued};
  auto line = [&](const std::map<analysis::PathSegment::Kind, int64_t>& m) {
    std::string out;
    char buf[96];
    for (auto k : kinds) {
      const auto it = m.find(k);
      if (it == m.end()) continue;
      std::snprintf(buf, sizeof buf, "  %s %.3f ms (%.1f%%)", analysis::pathSegmentName(k), ms(it->second),
                    total ? 100.0 * static_cast<double>(it->second) / static_cast<double>(total) : 0.0);
      out += buf;
    }
    return out;
  };
  std::printf("\nby kind:%s\n", line(by_kind).c_str());
  std::printf("by process:\n");
  for (const auto& [p, m] : by_process) std::printf("  %-30s%s\n", terminalSafe(t.label(p)).c_str(), line(m).c_str());
  if (!by_channel.empty()) {
    std::printf("by channel:\n");
    for (const auto& [c, m] : by_channel)
      std::printf("  %-30s%s\n", terminalSafe(t.channelName(c)).c_str(), line(m).c_str());
  }
  if (!path.branches.empty()) {
    std::printf("other ways in, least slack first:\n");
    for (size_t k = 0; k < path.branches.size() && k < 5; ++k)
      std::printf("  event %u -> event %u: %.3f ms of slack (%s)\n", path.branches[k].from + 1, path.branches[k].to + 1,
                  ms(path.branches[k].slack_ns), terminalSafe(narrator.describe(path.branches[k].from)).c_str());
  }
}

void printPath(const trace::Trace& t, const analysis::CriticalPath& path, uint32_t to) {
  const analysis::Narrator narrator(t);
  const int64_t total = path.end_ns - path.begin_ns;
  std::printf("Critical path to event %u: %s\n", to + 1, terminalSafe(narrator.describe(to)).c_str());
  std::printf("from event %u: %s\n", path.events.front() + 1,
              terminalSafe(narrator.describe(path.events.front())).c_str());
  std::printf("%.3f ms, %zu events on the path\n\n", ms(total), path.events.size());
  printSegments(t, path);
  printTotals(t, path);
}

}  // namespace

int runCriticalPath(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kCriticalPathOptions)) return usageError("critical-path", args.error());
  if (args.positional().empty()) return usageError("critical-path", "no recording given");
  if (args.has("to") && args.has("process")) return usageError("critical-path", "give --to or --process, not both");
  unsigned long long to_n = 0, from_n = 0;
  if (!args.number("to", &to_n, 0) || !args.number("from", &from_n, 0))
    return usageError("critical-path", args.error());
  const Loaded loaded =
      loadForCommand("critical-path", args.positional(), netChoice(args), args.has("merge-unrelated"));
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  if (args.has("interactions")) return printInteractions(t, args.has("json"));
  const uint64_t n = t.events.size();
  if ((args.has("to") && (to_n < 1 || to_n > n)) || (args.has("from") && (from_n < 1 || from_n > n)))
    return usageError("critical-path", "no such event: the recording has events 1 to " + std::to_string(n));
  std::string why;
  const uint32_t to = args.has("to") ? static_cast<uint32_t>(to_n - 1) : lastEventAsked(t, args.value("process"), &why);
  if (to == trace::kNone) return usageError("critical-path", why);
  const uint32_t from = args.has("from") ? static_cast<uint32_t>(from_n - 1) : trace::kNone;
  analysis::CriticalPath path;
  std::string error;
  if (!analysis::criticalPath(t, from, to, &path, &error)) {
    std::fprintf(stderr, "radar critical-path: %s\n", error.c_str());
    return kExitUsage;
  }
  if (args.has("json"))
    printPathJson(t, path, to);
  else
    printPath(t, path, to);
  return kExitOk;
}

}  // namespace radar::cli
