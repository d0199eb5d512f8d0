// Test helper: a Slurm cluster on two simulated hosts (simulated_hosts.h).
// The controller (slurmctld) runs on host 0 and a node daemon (slurmd) on
// each host. The daemons do not authenticate each other (auth/none: the
// hosts exist only on this machine), and there are no cgroups and no
// accounting. Each node's daemon has a configuration directory of its own,
// so that its PMIx server keeps its sockets apart from the other's, as two
// machines' /tmp would. Made by the constructor (ok() says whether the
// nodes came up, why() why not), stopped by the destructor.
#pragma once

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "real_check.h"
#include "recorded.h"
#include "simulated_hosts.h"

namespace radar::testing {

class SimulatedSlurm {
 public:
  SimulatedSlurm(const SimulatedHosts& hosts, const std::string& work) : hosts_(hosts), work_(work + "/slurm") {
    if (!have("slurmctld") || !have("slurmd") || !have("srun") || !have("sinfo") || !have("nsenter")) {
      why_ = "needs Slurm (Debian's slurmctld, slurmd and slurm-client) and nsenter";
      return;
    }
    shell("mkdir -p " + shellQuote(work_ + "/state"));
    for (int k = 0; k < 2; ++k) writeConfiguration(k);
    started_ = true;
    start(0, "slurmctld -D -f " + shellQuote(configuration(0)), "slurmctld");
    for (int k = 0; k < 2; ++k)
      start(k, "slurmd -D -N " + hosts_.name(k) + " -f " + shellQuote(configuration(k)), "slurmd-" + hosts_.name(k),
            k == 1);
    made_ = waitForIdleNodes();
  }
  ~SimulatedSlurm() {
    if (!started_) return;
    // The daemons by their pid files; what a job left behind ends with its
    // node's daemon.
    const std::string pids =
        "cat " + shellQuote(work_) + "/slurmctld.pid " + shellQuote(work_) + "/*/slurmd.pid 2>/dev/null";
    shell("kill -TERM $(" + pids + ")");
    for (int i = 0; i < 100 && shell("kill -0 $(" + pids + ") 2>/dev/null").exit_code == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    shell("kill -KILL $(" + pids + ") 2>/dev/null");
  }
  SimulatedSlurm(const SimulatedSlurm&) = delete;
  SimulatedSlurm& operator=(const SimulatedSlurm&) = delete;

  bool ok() const { return made_; }
  const std::string& why() const { return why_; }

  // `srun ARGUMENTS` as a user on host 0 types it (bounded: a job that
  // does not end is ended after two minutes).
  std::string srun(const std::string& arguments) const {
    return hosts_.on(0, "env SLURM_CONF=" + shellQuote(configuration(0)) + " timeout 120 srun " + arguments);
  }

 private:
  std::string configuration(int host) const { return work_ + "/" + hosts_.name(host) + "/slurm.conf"; }

  void writeConfiguration(int host) const {
    const std::string dir = work_ + "/" + hosts_.name(host);
    shell("mkdir -p " + shellQuote(dir + "/pmix") + " " + shellQuote(dir + "/spool"));
    std::ofstream conf(dir + "/slurm.conf");
    conf << "ClusterName=radar\n"
         << "SlurmctldHost=" << hosts_.name(0) << "(" << hosts_.address(0) << ")\n"
         << "AuthType=auth/none\nCredType=cred/none\nSlurmUser=root\nSlurmdUser=root\n"
         << "StateSaveLocation=" << work_ << "/state\n"
         << "SlurmdSpoolDir=" << work_ << "/%n/spool\n"
         << "SlurmctldPidFile=" << work_ << "/slurmctld.pid\nSlurmdPidFile=" << work_ << "/%n/slurmd.pid\n"
         << "SlurmctldLogFile=" << work_ << "/slurmctld.log\nSlurmdLogFile=" << work_ << "/%n/slurmd.log\n"
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/none\n"
         << "AccountingStorageType=accounting_storage/none\nSelectType=select/linear\nMpiDefault=none\n"
         << "MailProg=/bin/true\nReturnToService=2\nSlurmdParameters=config_overrides\n";
    for (int k = 0; k < 2; ++k)
      conf << "NodeName=" << hosts_.name(k) << " NodeAddr=" << hosts_.address(k) << " CPUs=2 State=UNKNOWN\n";
    conf << "PartitionName=debug Nodes=" << hosts_.name(0) << "," << hosts_.name(1)
         << " Default=YES MaxTime=INFINITE State=UP\n";
    std::ofstream(dir + "/mpi.conf") << "PMIxCliTmpDirBase=" << dir << "/pmix\n";
  }

  void start(int host, const std::string& daemon, const std::string& log, bool skew = false) const {
    shell("setsid " + hosts_.daemonOn(host, daemon, skew) + " > " + shellQuote(work_ + "/" + log + ".out") +
          " 2>&1 < /dev/null &");
  }

  bool waitForIdleNodes() {
    const std::string sinfo =
        hosts_.on(0, "env SLURM_CONF=" + shellQuote(configuration(0)) + " sinfo -h -N -o %T 2>&1");
    std::string last;
    for (int i = 0; i < 300; ++i) {
      last = shell(sinfo).out;
      if (last == "idle\nidle\n") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    why_ = "Slurm's nodes did not come up in 30 s (sinfo: " + last + "; logs in " + work_ + ")";
    return false;
  }

  const SimulatedHosts& hosts_;
  std::string work_;
  bool started_ = false, made_ = false;
  std::string why_;
};

}  // namespace radar::testing
