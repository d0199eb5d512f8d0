// Test helper: two hosts simulated on this machine. Each is a network
// namespace (the two joined by a veth pair: 10.231.X.1 and .2), a host name
// of its own (UTS namespace), a boot id of its own (a file bound over
// /proc/sys/kernel/random/boot_id in a mount namespace: what tells radar
// two machines apart), and optionally a monotonic clock 5 s ahead (a time
// namespace). Addresses exist only inside the namespaces: no route out.
// Made by the constructor (ok() says whether the kernel let it), removed
// by the destructor.
#pragma once

#include <unistd.h>

#include <fstream>
#include <string>

#include "recorded.h"

namespace radar::testing {

class SimulatedHosts {
 public:
  // Two hosts named `a` and `b`, at 10.231.`subnet`.1 and .2; files (boot
  // ids, the launcher's agent) go in `work`.
  SimulatedHosts(const std::string& a, const std::string& b, int subnet, const std::string& work)
      : work_(work), names_{a, b} {
    const std::string id = std::to_string(::getpid() % 100000) + "-" + std::to_string(subnet);
    ns_[0] = "radar-" + a + "-" + id;
    ns_[1] = "radar-" + b + "-" + id;
    address_[0] = "10.231." + std::to_string(subnet) + ".1";
    address_[1] = "10.231." + std::to_string(subnet) + ".2";
    const std::string va = "rv" + std::to_string(subnet) + "a" + std::to_string(::getpid() % 100000);
    const std::string vb = "rv" + std::to_string(subnet) + "b" + std::to_string(::getpid() % 100000);
    std::string make = "set -e; ip netns add " + ns_[0] + "; ip netns add " + ns_[1] + "; ip link add " + va +
                       " type veth peer name " + vb + "; ip link set " + va + " netns " + ns_[0] + "; ip link set " +
                       vb + " netns " + ns_[1];
    for (int k = 0; k < 2; ++k) {
      const std::string& v = k ? vb : va;
      make += "; ip -n " + ns_[k] + " addr add " + address_[k] + "/24 dev " + v + "; ip -n " + ns_[k] + " link set " +
              v + " up; ip -n " + ns_[k] + " link set lo up";
      // Host names resolve on both hosts (ip netns exec binds this over /etc/hosts).
      make += "; mkdir -p /etc/netns/" + ns_[k];
    }
    const Result made = shell(make + " 2>&1");
    made_ = made.exit_code == 0;
    if (!made_) {
      why_ = made.out + made.err;
      return;
    }
    for (int k = 0; k < 2; ++k) {
      std::ofstream("/etc/netns/" + ns_[k] + "/hosts") << "127.0.0.1 localhost\n"
                                                       << address_[0] << " " << a << "\n"
                                                       << address_[1] << " " << b << "\n";
      std::ofstream(work_ + "/boot-id-" + names_[k]) << "00000000-0000-4000-8000-00000000000" << k << "\n";
    }
    // A boot id of its own needs a mount namespace and a bind mount.
    const Result bound = shell(
        "unshare --mount sh -c " +
        shellQuote("mount --bind " + shellQuote(work_ + "/boot-id-" + names_[0]) + " /proc/sys/kernel/random/boot_id") +
        " 2>&1");
    if (bound.exit_code != 0) {
      why_ = "no boot id of its own for a host (mount namespace, bind mount): " + bound.out;
      made_ = false;
      shell("ip netns del " + ns_[0] + "; ip netns del " + ns_[1] + "; rm -rf /etc/netns/" + ns_[0] + " /etc/netns/" +
            ns_[1]);
      return;
    }
    skewed_ = shell("unshare --time --monotonic 5 true").exit_code == 0;
  }
  ~SimulatedHosts() {
    if (!made_) return;
    // Nothing outlives its host: what a test left running there is ended.
    shell("for ns in " + ns_[0] + " " + ns_[1] + "; do ip netns pids $ns | xargs -r kill -KILL; done 2>/dev/null");
    shell("ip netns del " + ns_[0] + "; ip netns del " + ns_[1] + "; rm -rf /etc/netns/" + ns_[0] + " /etc/netns/" +
          ns_[1]);
  }
  SimulatedHosts(const SimulatedHosts&) = delete;
  SimulatedHosts& operator=(const SimulatedHosts&) = delete;

  bool ok() const { return made_; }
  const std::string& why() const { return why_; }  // why hosts cannot be made here
  bool skewed() const { return skewed_; }          // whether time namespaces exist here
  const std::string& address(int host) const { return address_[host]; }

  // `command` (a shell command line) run on host 0 or 1, with (`skew`) its
  // monotonic clock 5 s ahead where time namespaces exist.
  std::string on(int host, const std::string& command, bool skew = false) const {
    const std::string clock = skew && skewed_ ? " --time --monotonic 5 --boottime 5" : "";
    return "ip netns exec " + ns_[host] + " unshare --uts --mount" + clock + " sh -c " +
           shellQuote("mount --bind " + shellQuote(work_ + "/boot-id-" + names_[host]) +
                      " /proc/sys/kernel/random/boot_id && hostname " + names_[host] + " && exec " + command);
  }

  // As on(), but this machine's /sys stays, and with it its cgroups, which
  // a node daemon (Slurm's slurmd) reads: the network namespace is entered
  // with nsenter, and the host's /etc/hosts bound as `ip netns exec` does.
  std::string daemonOn(int host, const std::string& command, bool skew = false) const {
    const std::string clock = skew && skewed_ ? " --time --monotonic 5 --boottime 5" : "";
    return "nsenter --net=/run/netns/" + ns_[host] + " unshare --uts --mount" + clock + " sh -c " +
           shellQuote("mount --bind /etc/netns/" + ns_[host] + "/hosts /etc/hosts && mount --bind " +
                      shellQuote(work_ + "/boot-id-" + names_[host]) + " /proc/sys/kernel/random/boot_id && hostname " +
                      names_[host] + " && exec " + command);
  }
  const std::string& name(int host) const { return names_[host]; }

  // An agent for launchers that start their daemons through ssh (Open
  // MPI's plm_rsh_agent): "AGENT [-options] HOST COMMAND" runs COMMAND on
  // that host, as ssh would. Returns its path.
  std::string agent() const {
    const std::string path = work_ + "/agent";
    std::ofstream script(path);
    script << "#!/bin/sh\n"
              "while [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; done\n"
              "host=$1; shift\n"
              "case \"$host\" in\n";
    for (int k = 0; k < 2; ++k) script << "  " << names_[k] << ") exec " << on(k, "sh -c \"$0\"") << " \"$*\" ;;\n";
    script << "esac\necho \"agent: no host $host\" >&2; exit 255\n";
    script.close();
    shell("chmod +x " + shellQuote(path));
    return path;
  }

 private:
  std::string work_;
  std::string names_[2], ns_[2], address_[2];
  bool made_ = false, skewed_ = false;
  std::string why_;
};

}  // namespace radar::testing
