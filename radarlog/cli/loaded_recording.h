// What `radar events`, `check` and `stats` share: loading recordings with
// progress and clear errors, naming processes on the command line, JSON.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "binding/binding.h"
#include "cli/cli.h"
#include "trace/select.h"
#include "trace/trace.h"

namespace radar::cli {

using trace::findProcesses;

// Which network description names and decodes: --net FILE, else the one
// the recording carries (radar run), unless --no-net.
struct NetChoice {
  std::string path;
  bool carried = true;
};
inline constexpr OptionSpec kNetOption{"net", 0, "FILE"};
inline constexpr OptionSpec kNoNetOption{"no-net", 0, nullptr, InUsage::kOr};
inline NetChoice netChoice(const Args& args) { return {args.value("net").value_or(""), !args.has("no-net")}; }
// Their help lines, for the commands' help texts.
#define RADAR_NET_HELP                                                               \
  "  --net FILE        name processes and channels and decode messages by this\n"    \
  "                    network description (docs/netdesc.md); a recording made by\n" \
  "                    `radar run` or `radar record --net` carries its own\n"        \
  "  --no-net          ignore the description the recording carries\n"

// Directories that share no channel are refused unless --merge-unrelated.
inline constexpr OptionSpec kMergeUnrelatedOption{"merge-unrelated", 0, nullptr};
#define RADAR_MERGE_HELP                                                           \
  "  --merge-unrelated show recordings that share no channel together (two runs\n" \
  "                    of a program are compared with `radar diff` instead)\n"

struct Loaded {
  std::unique_ptr<trace::Trace> trace;
  std::unique_ptr<netdesc::Binding> net;  // null without a description
  explicit operator bool() const { return trace != nullptr; }
};

// Loads and merges, and applies the network description; reports problems
// and progress on stderr. Returns no trace (after printing why) when
// nothing could be read or the description cannot be used.
// `keep_hashes`, `keep_sent_bytes`: see trace::LoadOptions.
Loaded loadForCommand(const char* command, const std::vector<std::string>& dirs, const NetChoice& net = {},
                      bool merge_unrelated = false, bool keep_hashes = false, uint64_t keep_sent_bytes = 0);

// The same without a word on stderr, for a recording read again and again
// as it grows: no trace, with `error`, when it cannot be read yet.
Loaded loadQuietly(const std::vector<std::string>& dirs, const NetChoice& net, bool merge_unrelated,
                   std::string* error);

// The status of a command that told the story of `t`: `status`, unless a
// log was damaged or could not be read (kExitDamaged: the story is partial,
// which a script must be able to tell). A usage error stays one.
int storyExitStatus(const trace::Trace& t, int status);

std::string jsonString(const std::string& s);

}  // namespace radar::cli
