// `radar netdesc DIR...`: a network description of a recording, with
// generated names, for the user to edit and reuse (--net, radar run).
#include <cstdio>
#include <string>

#include "binding/skeleton.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/loaded_recording.h"
#include "cli/output_file.h"

namespace radar::cli {

const char kNetdescHelp[] =
    "usage: radar netdesc [OPTIONS] DIR...\n\n"
    "Writes a network description (docs/netdesc.md) of a recording: every process\n"
    "that sent or received a message, how to recognise it (program name, and its\n"
    "place among processes of the same program), its ports (the descriptors it used,\n"
    "with their direction) and the connections between them. Rename processes and\n"
    "ports, add message types, and give it back with --net.\n"
    "\n"
    "  -o, --output FILE   write it to FILE (default: standard output)\n";

const OptionSpec kNetdescOptionList[] = {{"output", 'o', "FILE"}};
const std::span<const OptionSpec> kNetdescOptions{kNetdescOptionList};

int runNetdesc(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kNetdescOptions)) return usageError("netdesc", args.error());
  if (args.positional().empty()) return usageError("netdesc", "no recording given");
  // The generated names stand on their own: no description applied.
  const Loaded loaded = loadForCommand("netdesc", args.positional(), NetChoice{"", false});
  if (!loaded) return kExitUsage;
  const std::string out = netdesc::skeletonOf(*loaded.trace);
  std::string error;
  const bool written = writeStream(
      args.value("output").value_or("-"),
      [&](std::FILE* f, std::string*) { return std::fwrite(out.data(), 1, out.size(), f) == out.size(); }, &error);
  if (!written) {
    std::fprintf(stderr, "radar netdesc: %s\n", error.c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace radar::cli
