// `radar patterns DIR...`: what repeats in the story, condensed
// ("request/response × 4000" instead of 8000 lines).
#include <cstdio>
#include <string>

#include "analysis/patterns.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"

namespace radar::cli {

const char kPatternsHelp[] =
    "usage: radar patterns [OPTIONS] DIR...\n\n"
    "Finds what repeats in each process's calls: a unit of calls done again and\n"
    "again back to back (request/response, a pipeline stage, a round of sends to\n"
    "several processes, bursts of sends that queue, a call that fails and is\n"
    "retried), and which of them are joined by channels between processes (a\n"
    "pipeline, a client and its server). A call is known by what it does and by\n"
    "the names of the processes at the other end of its channel (the message type\n"
    "too, with a description); readiness waits, receives that found nothing and\n"
    "clock reads are left out. A pattern is reported only when so long a\n"
    "repetition would be unlikely by chance (fewer than 1 in 1000 expected) in a\n"
    "random sequence of the process's calls.\n"
    "\n"
    "A network description's `pattern` entries name patterns (docs/netdesc.md):\n"
    "`radar events` and the replay then tell each stretch of one as one event.\n"
    "\n"
    "  --all             every pattern (default: the 40 that cover the most calls)\n"
    "  --json            one JSON object, for tools\n" RADAR_NET_HELP RADAR_MERGE_HELP;

const OptionSpec kPatternsOptionList[] = {
    {"json", 0, nullptr}, {"all", 0, nullptr}, kNetOption, kNoNetOption, kMergeUnrelatedOption};
const std::span<const OptionSpec> kPatternsOptions{kPatternsOptionList};

namespace {

std::string processList(const trace::Trace& t, const std::vector<uint32_t>& processes) {
  std::string out;
  for (size_t k = 0; k < processes.size() && k < 4; ++k) out += (k ? ", " : "") + t.label(processes[k]);
  if (processes.size() > 4) out += " and " + std::to_string(processes.size() - 4) + " more";
  return out;
}

}  // namespace

namespace {

void printPatternsJson(const trace::Trace& t, const analysis::Patterns& found, const std::vector<std::string>& name_of,
                       size_t shown) {
  std::printf("{\"calls\":%llu,\"patterns\":[", static_cast<unsigned long long>(found.symbols));
  for (size_t k = 0; k < shown; ++k) {
    const auto& p = found.patterns[k];
    std::printf("%s{\"kind\":\"%s\",\"name\":%s,\"process\":%s,\"processes\":[", k ? "," : "",
                analysis::patternKindName(p.kind), name_of[k].empty() ? "null" : jsonString(name_of[k]).c_str(),
                jsonString(p.process_name).c_str());
    for (size_t j = 0; j < p.processes.size(); ++j)
      std::printf("%s%s", j ? "," : "", jsonString(t.label(p.processes[j])).c_str());
    std::printf("],\"steps\":[");
    for (size_t j = 0; j < p.unit.size(); ++j)
      std::printf("%s{\"text\":%s,\"min_run\":%u,\"max_run\":%u}", j ? "," : "", jsonString(p.unit[j].text).c_str(),
                  p.unit[j].min_run, p.unit[j].max_run);
    std::printf("],\"repetitions\":%llu,\"stretches\":%u,\"first_event\":%u,\"last_event\":%u,\"example\":[",
                static_cast<unsigned long long>(p.repetitions), p.occurrences, p.first_event + 1, p.last_event + 1);
    for (size_t j = 0; j < p.example.size(); ++j) std::printf("%s%u", j ? "," : "", p.example[j] + 1);
    std::printf("],\"chance\":%.3g,\"most_queued\":%u}", p.chance, p.most_queued);
  }
  std::printf("],\"links\":[");
  for (size_t k = 0; k < found.links.size(); ++k) {
    std::printf("%s{\"kind\":\"%s\",\"patterns\":[", k ? "," : "", analysis::patternLinkKindName(found.links[k].kind));
    for (size_t j = 0; j < found.links[k].patterns.size(); ++j)
      std::printf("%s%u", j ? "," : "", found.links[k].patterns[j] + 1);
    std::printf("]}");
  }
  std::printf("]}\n");
}

void printPatterns(const trace::Trace& t, const analysis::Patterns& found, const std::vector<std::string>& name_of,
                   size_t shown) {
  if (found.patterns.empty()) {
    std::printf("no pattern: nothing in the %llu calls repeats more than chance would\n",
                static_cast<unsigned long long>(found.symbols));
    return;
  }
  std::printf(
      "%zu pattern%s in %llu calls%s\n\n", found.patterns.size(), found.patterns.size() == 1 ? "" : "s",
      static_cast<unsigned long long>(found.symbols),
      shown < found.patterns.size() ? (" (the " + std::to_string(shown) + " largest shown; --all)").c_str() : "");
  for (size_t k = 0; k < shown; ++k) {
    const auto& p = found.patterns[k];
    std::printf("%2zu. %s%s%s × %llu in %s: %s\n", k + 1, terminalSafe(name_of[k]).c_str(),
                name_of[k].empty() ? "" : ", ", analysis::patternKindName(p.kind),
                static_cast<unsigned long long>(p.repetitions), terminalSafe(processList(t, p.processes)).c_str(),
                terminalSafe(p.text()).c_str());
    std::string example;
    for (size_t j = 0; j < p.example.size() && j < 8; ++j) example += (j ? " " : "") + std::to_string(p.example[j] + 1);
    if (p.example.size() > 8) example += " …";
    std::printf("    %u stretch%s, events %u to %u; one repetition: %s\n", p.occurrences,
                p.occurrences == 1 ? "" : "es", p.first_event + 1, p.last_event + 1, example.c_str());
    if (p.most_queued) std::printf("    up to %u of its messages waited in the channel at once\n", p.most_queued);
  }
  if (!found.links.empty()) {
    std::printf("\nbetween processes:\n");
    for (const auto& l : found.links) {
      std::string chain;
      for (uint32_t i : l.patterns) {
        const auto& p = found.patterns[i];
        chain += (chain.empty() ? "" : " → ") + p.process_name + " (" + std::to_string(i + 1) + ")";
      }
      std::printf("  %s: %s\n", analysis::patternLinkKindName(l.kind), terminalSafe(chain).c_str());
    }
  }
}

}  // namespace

int runPatterns(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kPatternsOptions)) return usageError("patterns", args.error());
  if (args.positional().empty()) return usageError("patterns", "no recording given");
  const Loaded loaded = loadForCommand("patterns", args.positional(), netChoice(args), args.has("merge-unrelated"));
  if (!loaded) return kExitUsage;
  const trace::Trace& t = *loaded.trace;
  const analysis::Patterns found = analysis::findPatterns(t, netdesc::patternOptions(loaded.net.get(), t));
  // The description's names for them.
  const std::vector<analysis::PatternName> names = netdesc::patternNames(loaded.net.get());
  std::vector<bool> matched;
  const std::vector<analysis::NamedStretch> named = analysis::namedStretches(found, names, &matched);
  std::vector<std::string> name_of(found.patterns.size());
  for (const auto& st : named) name_of[st.pattern] = names[st.name].name;
  for (size_t n = 0; n < names.size(); ++n)
    if (!matched[n])
      std::fprintf(stderr, "radar patterns: the description's pattern '%s' matches no pattern found\n",
                   terminalSafe(names[n].name).c_str());
  const size_t shown = args.has("all") ? found.patterns.size() : std::min<size_t>(found.patterns.size(), 40);

  if (args.has("json"))
    printPatternsJson(t, found, name_of, shown);
  else
    printPatterns(t, found, name_of, shown);
  return kExitOk;
}

}  // namespace radar::cli
