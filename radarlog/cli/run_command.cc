// `radar run NET [-o DIR]`: start a described network and record it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/commands.h"
#include "netdesc/description.h"
#include "netdesc/plan.h"
#include "record/recording.h"

namespace radar::cli {

const char kRunHelp[] =
    "usage: radar run [OPTIONS] NET\n\n"
    "Starts the network that the description NET describes (docs/netdesc.md) and\n"
    "records it, as `radar record` would: creates a pipe for every connected input\n"
    "port (written by every output connected to it) and a socket pair for every\n"
    "INOUT connection, starts each process with its ports as inherited descriptors\n"
    "listed in RADAR_PORT_<NAME> (e.g. RADAR_PORT_OUTPUT=4,6), and waits until all\n"
    "have ended. The recording carries the description: `radar events`, `check`,\n"
    "`stats` and `replay` name processes and channels by it and decode messages.\n"
    "\n"
    "  -o, --output DIR     the recording's directory (default: NAME-YYYYMMDD-HHMMSS)\n"
    "  --force              replace a recording already in DIR\n"
    "  --payload-limit N    as for radar record\n"
    "\n"
    "Exit status: the first non-zero status a process ended with (128 + N for one\n"
    "killed by signal N), 0 when all succeeded, 2 for a bad description.\n";

const OptionSpec kRunOptionList[] = {{"output", 'o', "DIR"}, {"force", 0, nullptr}, {"payload-limit", 0, "N"}};
const std::span<const OptionSpec> kRunOptions{kRunOptionList};

int runRun(int argc, char** argv) {
  Args args;
  if (!args.parse(argc, argv, 1, kRunOptions)) return usageError("run", args.error());
  if (args.positional().size() != 1)
    return usageError("run",
                      args.positional().empty() ? "no network description given" : "one network description at a time");
  const std::string& net = args.positional()[0];
  std::vector<netdesc::Problem> problems;
  auto description = netdesc::Description::load(net, &problems);
  for (const auto& p : problems) std::fprintf(stderr, "%s\n", p.toString().c_str());
  if (!description) return kExitUsage;
  netdesc::Plan plan;
  std::string error;
  if (!netdesc::planNetwork(*description, &plan, &error)) {
    std::fprintf(stderr, "radar run: %s\n", error.c_str());
    return kExitUsage;
  }
  const std::string launcher = selfDirectory() + "/../libexec/radar/radar-network";
  if (::access(launcher.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "radar run: %s is missing: this radar installation is incomplete\n", launcher.c_str());
    return kExitUsage;
  }

  std::string dir;
  if (auto o = args.value("output")) {
    dir = *o;
  } else {
    std::string base = description->network().name();
    if (base.empty()) {
      base = net.substr(net.rfind('/') + 1);
      base = base.substr(0, base.find('.'));
    }
    dir = record::newRecordingDirectory(base);
  }

  // The plan goes to the launcher in a file of its own, gone afterwards.
  const char* tmp = std::getenv("TMPDIR");
  std::string plan_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/radar-run-XXXXXX";
  const int fd = ::mkstemp(plan_path.data());
  if (fd < 0) {
    std::perror("radar run: cannot write the launch plan");
    return kExitUsage;
  }
  const std::string text = netdesc::writePlan(plan);
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) {
    std::perror("radar run: cannot write the launch plan");
    ::unlink(plan_path.c_str());
    return kExitUsage;
  }

  std::vector<std::string> record = {"record", "-o", dir, "--net", net};
  if (args.has("force")) record.push_back("--force");
  if (auto limit = args.value("payload-limit")) record.insert(record.end(), {"--payload-limit", *limit});
  record.insert(record.end(), {"--", launcher, plan_path});
  std::vector<char*> record_argv;
  for (auto& a : record) record_argv.push_back(a.data());
  record_argv.push_back(nullptr);
  const int rc = runRecord(static_cast<int>(record.size()), record_argv.data());
  ::unlink(plan_path.c_str());
  return rc;
}

}  // namespace radar::cli
