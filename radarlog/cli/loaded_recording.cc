#include "cli/loaded_recording.h"

#include <cstdio>
#include <set>

#include "cli/progress.h"
#include "log/escape.h"
#include "trace/merge.h"

namespace radar::cli {

namespace {

const char kNetUnusable[] = "the network description cannot be used (--no-net ignores the one a recording carries)";

// The trace with the network description that names and decodes it; none
// (with `error`) when the description cannot be used.
Loaded describe(std::unique_ptr<trace::Trace> trace, const NetChoice& net, std::vector<std::string>* unmatched,
                std::string* error) {
  Loaded out;
  out.net = netdesc::Binding::forRecording(*trace, net.path, net.carried, unmatched, error);
  if (!out.net && !error->empty()) return {};
  if (out.net) trace->described = out.net->names();
  out.trace = std::move(trace);
  return out;
}

}  // namespace

Loaded loadForCommand(const char* command, const std::vector<std::string>& dirs, const NetChoice& net,
                      bool merge_unrelated, bool keep_hashes, uint64_t keep_sent_bytes) {
  trace::LoadOptions options;
  options.merge_unrelated = merge_unrelated;
  options.keep_hashes = keep_hashes;
  options.keep_sent_bytes = keep_sent_bytes;
  // A line of progress on a terminal, for a load that takes a while: the
  // logs read (MiB), then the merge's steps.
  const std::string doing = std::string("radar ") + command + ": ";
  TerminalProgress reading(doing + "reading logs", "MiB", 1048576.0);
  TerminalProgress merging(doing + "merging", "steps", 1, false);
  options.progress = [&](uint64_t done, uint64_t total) { reading.update(done, total); };
  options.merge_progress = [&](int step) {
    reading.finish();
    merging.update(static_cast<uint64_t>(step), trace::kMergeSteps);
  };
  std::string error;
  auto trace = trace::loadTrace(dirs, options, &error);
  reading.finish();
  merging.finish();
  if (!trace) {
    std::fprintf(stderr, "radar %s: %s\n", command, error.c_str());
    return {};
  }
  for (const auto& p : trace->problems)
    std::fprintf(stderr, "radar %s: %s%s%s\n", command, p.path.c_str(), p.path.empty() ? "" : ": ", p.message.c_str());
  for (const auto& w : trace->warnings)
    std::fprintf(stderr, "radar %s: warning: %s\n", command, terminalSafe(w).c_str());
  std::vector<std::string> unmatched;
  Loaded out = describe(std::move(trace), net, &unmatched, &error);
  if (!out) {
    std::fprintf(stderr, "%s\nradar %s: %s\n", error.c_str(), command, kNetUnusable);
    return {};
  }
  const std::string source = net.path.empty() ? "the recording's network description" : net.path;
  for (const auto& u : unmatched) std::fprintf(stderr, "radar %s: %s: %s\n", command, source.c_str(), u.c_str());
  return out;
}

Loaded loadQuietly(const std::vector<std::string>& dirs, const NetChoice& net, bool merge_unrelated,
                   std::string* error) {
  trace::LoadOptions options;
  options.merge_unrelated = merge_unrelated;
  auto trace = trace::loadTrace(dirs, options, error);
  if (!trace) return {};
  std::vector<std::string> unmatched;
  Loaded out = describe(std::move(trace), net, &unmatched, error);
  if (!out) *error += std::string("\n") + kNetUnusable;
  return out;
}

int storyExitStatus(const trace::Trace& t, int status) {
  if (status == kExitUsage) return status;
  for (const trace::Finding& f : t.findings)
    if (f.kind == trace::Finding::Kind::Damaged) return kExitDamaged;
  return status;
}

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  log::appendEscaped(out, s, log::Escaping::Json);
  return out + "\"";
}

}  // namespace radar::cli
