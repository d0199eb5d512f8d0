// MPI programs run by Open MPI's mpirun under `radar record`, checked
// message by message against what each rank printed it sent and got: the
// sends in each rank's log (destination, tag, the value in the bytes), and
// each receive matched in the story to the send whose value it printed.
// The story must keep every causal relation, and the run's output must be
// a bare run's. Label `mpi`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "real_check.h"
#include "recorded.h"
#include "simulated_hosts.h"
#include "simulated_slurm.h"

namespace radar::testing {
namespace {

// What a rank printed: "rank 1 sends 102 to 2 tag 1", "rank 2 got 102 from 1 tag 1".
struct Printed {
  int rank, peer, tag;
  std::string value;
};
struct PrintedRun {
  std::map<int, std::vector<Printed>> sends, receives;  // by rank, in its order
};

PrintedRun parsePrinted(const std::string& out) {
  PrintedRun run;
  static const std::regex line(R"(rank (\d+) (sends|got) (\S+) (to|from) (\d+) tag (\d+))");
  std::istringstream in(out);
  for (std::string s; std::getline(in, s);) {
    std::smatch m;
    if (!std::regex_search(s, m, line)) continue;
    Printed p{std::stoi(m[1]), std::stoi(m[5]), std::stoi(m[6]), m[3]};
    (m[2] == "sends" ? run.sends : run.receives)[p.rank].push_back(p);
  }
  return run;
}

// The value a message carried, printed as the program prints it (%d, %g).
std::string valueOf(const std::string& bytes) {
  char text[64] = "?";
  if (bytes.size() == sizeof(int)) {
    int v;
    std::memcpy(&v, bytes.data(), sizeof v);
    std::snprintf(text, sizeof text, "%d", v);
  } else if (bytes.size() == sizeof(double)) {
    double v;
    std::memcpy(&v, bytes.data(), sizeof v);
    std::snprintf(text, sizeof text, "%g", v);
  }
  return text;
}

std::string jsonText(const std::string& line, const std::string& key) {
  const std::regex field("\"" + key + "\":\"([^\"]*)\"");
  std::smatch m;
  return std::regex_search(line, m, field) ? std::string(m[1]) : "";
}
long jsonNumber(const std::string& line, const std::string& key) {
  const std::regex field("\"" + key + "\":(-?\\d+)");
  std::smatch m;
  return std::regex_search(line, m, field) ? std::stol(m[1]) : -1;
}
std::vector<long> jsonNumbers(const std::string& line, const std::string& key) {
  const std::regex field("\"" + key + "\":\\[([^\\]]*)\\]");
  std::smatch m;
  std::vector<long> out;
  if (!std::regex_search(line, m, field)) return out;
  std::istringstream in(m[1]);
  for (std::string n; std::getline(in, n, ',');) out.push_back(std::stol(n));
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef RADAR_MPI_PROGRAMS
    GTEST_SKIP() << "no MPI library where radar was built (libopenmpi-dev): MPI is recorded at the socket level only";
#else
    if (shell("command -v mpirun").exit_code != 0) GTEST_SKIP() << "mpirun is missing (openmpi-bin)";
#endif
  }

  static std::string program(const std::string& name) {
#ifdef RADAR_MPI_PROGRAMS
    return std::string(RADAR_MPI_PROGRAMS) + "/" + name;
#else
    return name;
#endif
  }

  // mpirun as people run it here (as root if need be, more ranks than
  // cores), under `radar record` when `dir` is given.
  static std::string mpirun(int ranks, const std::string& name, const std::string& args, const std::string& dir = "") {
    const std::string recorder = dir.empty() ? "" : shellQuote(radarPath()) + " record -o " + shellQuote(dir) + " -- ";
    return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + recorder + "mpirun --oversubscribe -n " +
           std::to_string(ranks) + " " + shellQuote(program(name)) + " " + args;
  }

  Result recordJob(int ranks, const std::string& name, const std::string& args = "") {
    dir_ = testTempDir() + "/rec";
    dirs_ = {dir_};
    return shell(mpirun(ranks, name, args, dir_));
  }

  // Every rank's MPI sends, in its log, against what it printed it sent:
  // the same destinations, tags and values in the same order.
  void expectSendsAsPrinted(const PrintedRun& printed, const std::string& name) {
    const Recording rec = loadAll();
    int ranks = 0;
    for (const ProcessLog* log : rec.byExe(name)) {
      const Event* init = log->first(log::Kind::MpiInit);
      ASSERT_NE(init, nullptr) << log->path << ": no MPI_Init recorded";
      const int rank = init->r.fds.at(0);
      ++ranks;
      std::vector<Printed> recorded;
      for (const Event* e : log->ofKind(log::Kind::MpiSend))
        recorded.push_back({rank, e->r.peer_pid, e->r.status, valueOf(e->payload)});
      const auto it = printed.sends.find(rank);
      const std::vector<Printed> said = it == printed.sends.end() ? std::vector<Printed>{} : it->second;
      ASSERT_EQ(recorded.size(), said.size()) << "rank " << rank;
      for (size_t i = 0; i < said.size(); ++i) {
        EXPECT_EQ(recorded[i].peer, said[i].peer) << "rank " << rank << " send " << i;
        EXPECT_EQ(recorded[i].tag, said[i].tag) << "rank " << rank << " send " << i;
        EXPECT_EQ(recorded[i].value, said[i].value) << "rank " << rank << " send " << i;
      }
    }
    EXPECT_GT(ranks, 1);
  }

  // Every receive in the story comes from one send, of the rank and with
  // the tag and value the receiving rank printed it got.
  void expectReceivesMatched(const PrintedRun& printed) {
    std::vector<std::string> events{"events", "--json", "-k", "MPI_Send", "-k", "MPI_Recv"};
    events.insert(events.end(), dirs_.begin(), dirs_.end());
    const Result story = radar(events);
    ASSERT_EQ(story.exit_code, 0) << story.err;
    const Recording rec = loadAll();
    std::map<long, std::string> send_value;  // story event -> the value its bytes carry
    std::map<long, int> send_rank, send_tag;
    std::map<int, std::vector<std::pair<long, std::vector<long>>>> receives;  // rank -> (counter, from)
    std::istringstream in(story.out);
    for (std::string line; std::getline(in, line);) {
      const std::regex rank_in_name(R"( rank (\d+)$)");
      std::smatch m;
      const std::string process = jsonText(line, "process");
      ASSERT_TRUE(std::regex_search(process, m, rank_in_name)) << line;
      const int rank = std::stoi(m[1]);
      const long counter = jsonNumber(line, "counter");
      const ProcessLog* log = rec.byPid(static_cast<int>(jsonNumber(line, "pid")), 1);
      if (!log) log = rec.byPid(static_cast<int>(jsonNumber(line, "pid")), 0);
      ASSERT_NE(log, nullptr) << line;
      const Event& e = log->events.at(static_cast<size_t>(counter - 1));
      if (jsonText(line, "kind") == "MPI_Send") {
        send_value[jsonNumber(line, "event")] = valueOf(e.payload);
        send_rank[jsonNumber(line, "event")] = rank;
        send_tag[jsonNumber(line, "event")] = e.r.status;
      } else {
        receives[rank].push_back({counter, jsonNumbers(line, "from_events")});
      }
    }
    size_t checked = 0;
    for (auto& [rank, got] : receives) {
      std::sort(got.begin(), got.end());
      const auto it = printed.receives.find(rank);
      ASSERT_NE(it, printed.receives.end()) << "rank " << rank << " printed no receive";
      ASSERT_EQ(got.size(), it->second.size()) << "rank " << rank;
      for (size_t i = 0; i < got.size(); ++i) {
        const Printed& said = it->second[i];
        ASSERT_EQ(got[i].second.size(), 1u)
            << "rank " << rank << " receive " << i << " is matched to " << got[i].second.size() << " sends";
        const long from = got[i].second[0];
        EXPECT_EQ(send_rank[from], said.peer) << "rank " << rank << " receive " << i;
        EXPECT_EQ(send_tag[from], said.tag) << "rank " << rank << " receive " << i;
        EXPECT_EQ(send_value[from], said.value) << "rank " << rank << " receive " << i;
        ++checked;
      }
    }
    EXPECT_GT(checked, 0u);
    std::printf("%zu receives matched to the sends their ranks printed\n", checked);
  }

  // Every rank re-run alone (`radar debug DIR... "rank N"`: no mpirun, no
  // other rank), its MPI calls answered from the job's recordings: as
  // recorded, and printing what it printed in the job.
  void expectEveryRankReRunsAlone(int ranks, const Result& recorded) {
    for (int rank = 0; rank < ranks; ++rank) {
      const std::string name = "rank " + std::to_string(rank);
      std::vector<std::string> debug{"debug", "--yes", "--no-gdb"};
      debug.insert(debug.end(), dirs_.begin(), dirs_.end());
      debug.push_back(name);
      const Result rerun = radar(debug);
      EXPECT_EQ(rerun.exit_code, 0) << name << "\n" << rerun.err;
      EXPECT_TRUE(std::regex_search(rerun.err, std::regex("replayed (\\d+) of \\1 events; .* as recorded")))
          << name << "\n"
          << rerun.err;
      std::istringstream printed(recorded.out);
      size_t lines = 0;
      for (std::string line; std::getline(printed, line);) {
        if (!line.starts_with(name + " ")) continue;
        ++lines;
        EXPECT_NE(rerun.out.find(line + "\n"), std::string::npos) << line << "\n" << rerun.out;
      }
      EXPECT_GT(lines, 0u) << name;
    }
  }

  // What the ranks printed, after checking the recording against it:
  // sends, receives, and the story's causal order.
  PrintedRun expectAsPrinted(const Result& recorded, const std::string& name) {
    const PrintedRun printed = parsePrinted(recorded.out);
    expectSendsAsPrinted(printed, name);
    expectReceivesMatched(printed);
    expectCausalStory();
    return printed;
  }

  // A 4-rank ring on two hosts: ranks 0 and 1 on host-a, 2 and 3 on
  // host-b, named so.
  void expectRingRanksOnTwoHosts() {
    std::vector<std::string> mpi{"events", "-k", "MPI_Init"};
    mpi.insert(mpi.end(), dirs_.begin(), dirs_.end());
    const Result inits = radar(mpi);
    for (const char* rank : {"0\\[\\d+@host-a\\]", "1\\[\\d+@host-a\\]", "2\\[\\d+@host-b\\]", "3\\[\\d+@host-b\\]"})
      EXPECT_TRUE(std::regex_search(inits.out, std::regex(std::string("Process ring rank ") + rank + " starts MPI")))
          << rank << "\n"
          << inits.out;
  }

  void expectCausalStory() {
    const CausalCheck causal = checkCausalOrder(readStory(dirs_));
    for (size_t i = 0; i < causal.violations.size() && i < 10; ++i) ADD_FAILURE() << causal.violations[i];
  }

  // The logs of every recording of the job.
  Recording loadAll() const {
    Recording all;
    for (const auto& dir : dirs_) {
      Recording one = load(dir);
      for (auto& log : one.logs) all.logs.push_back(std::move(log));
    }
    return all;
  }

  std::string dir_;                // the job's recording
  std::vector<std::string> dirs_;  // or its recordings, one a rank
};

TEST_F(Mpi, RingOfFourRanksIsRecordedMessageByMessage) {
  const Result bare = shell(mpirun(4, "ring", "3"));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const Result recorded = recordJob(4, "ring", "3");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  // The same lines (ranks print in their own order).
  auto sorted = [](const std::string& s) {
    std::vector<std::string> lines;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  EXPECT_EQ(sorted(recorded.out), sorted(bare.out));
  expectAsPrinted(recorded, "ring");
  // Ranks are named by their rank; the collective is told once per rank.
  const Result mpi = radar({"events", "-k", "mpi", dir_});
  for (const char* told : {"starts MPI as rank", "joins MPI_Allreduce on MPI_COMM_WORLD (4 bytes)", "finishes MPI"})
    EXPECT_EQ(count(mpi.out, told), 4u) << told << "\n" << mpi.out;
  EXPECT_NE(mpi.out.find("Process ring rank 3["), std::string::npos) << mpi.out;
  const Result allreduce = radar({"events", "-k", "MPI_Allreduce", dir_});
  EXPECT_EQ(count(allreduce.out, "\n"), 4u) << allreduce.out << allreduce.err;
  EXPECT_EQ(count(allreduce.out, "joins MPI_Allreduce"), 4u) << allreduce.out;
  // What the MPI library did on its own (its connections, polls and threads)
  // is not told unless asked: a rank's story is its MPI calls, what it
  // printed and its end.
  const Result rank2 = radar({"events", "--rank", "2", dir_});
  const std::regex own(
      "Process ring rank 2\\[\\d+\\] (starts MPI|receives a message from ring rank|sends a message to ring "
      "rank|sends a message to .* on (terminal|pipe) |joins MPI_Allreduce|finishes MPI|exits with status).*");
  std::istringstream told(rank2.out);
  size_t lines = 0;
  for (std::string line; std::getline(told, line); ++lines) EXPECT_TRUE(std::regex_match(line, own)) << line;
  EXPECT_GE(lines, 9u) << rank2.out;  // MPI_Init, 3 receives, 3 sends, the Allreduce, MPI_Finalize
  EXPECT_TRUE(std::regex_search(rank2.err, std::regex("\\d+ events of the MPI library not told"))) << rank2.err;
  const Result with_library = radar({"events", "--rank", "2", "--library", dir_});
  EXPECT_GT(count(with_library.out, "\n"), lines + 20) << with_library.out;
  EXPECT_NE(with_library.out.find(" tcp "), std::string::npos) << with_library.out;
  EXPECT_EQ(with_library.err.find("not told"), std::string::npos) << with_library.err;
  // The shared memory each rank's MPI library maps in MPI_Init is said to
  // be its transport (whose messages are recorded as MPI calls); mpirun's
  // is not.
  std::istringstream unseen(radar({"check", dir_}).out);
  std::set<std::string> ranks_with_transport;
  for (std::string line; std::getline(unseen, line);) {
    if (!line.starts_with("not seen: ") || line.find("shared memory") == std::string::npos) continue;
    const bool transport = line.find("mapped in MPI_Init: the MPI library's transport") != std::string::npos;
    const bool of_a_rank = line.starts_with("not seen: ring rank ");
    EXPECT_TRUE(of_a_rank || !transport) << line;
    if (transport) ranks_with_transport.insert(line.substr(0, line.find('[')));
  }
  EXPECT_EQ(ranks_with_transport.size(), 4u);
  expectEveryRankReRunsAlone(4, recorded);
  // A change planted in rank 1 (what it sends from its second lap on, not
  // what it prints) is caught at that send: the first that differs.
  const Result sends = radar({"events", "--rank", "1", "-k", "MPI_Send", dir_});
  std::vector<std::string> numbers;
  const std::regex event_number(R"(Event (\d+)\.)");
  for (std::sregex_iterator it(sends.out.begin(), sends.out.end(), event_number), end; it != end; ++it)
    numbers.push_back((*it)[1]);
  ASSERT_EQ(numbers.size(), 3u) << sends.out << sends.err;
  const Result planted = radar({"debug", "--yes", "--no-gdb", "--env", "RING_EXTRA=5", dir_, "rank 1"});
  EXPECT_EQ(planted.exit_code, 1) << planted.err;
  EXPECT_NE(planted.err.find("left the recording at event " + numbers[1] + " "), std::string::npos) << planted.err;
  EXPECT_NE(planted.err.find("MPI_Send(to rank 2, tag 1, 4 bytes) sends other bytes than the recording"),
            std::string::npos)
      << planted.err;
}

// A 4-rank ring on two machines: Open MPI's launcher on host-a starts its
// daemon on host-b through an agent (as it would through ssh), each rank
// records itself into a recording of its own (`mpirun … radar record -o
// DIR/rank-N -- ring`), and the four recordings, two of each machine,
// merge into one story: every message as its ranks printed it, each rank
// named with its host, the machines' clocks lined up by their messages.
TEST_F(Mpi, RingOfFourRanksOnTwoHostsIsOneStory) {
  if (::geteuid() != 0) GTEST_SKIP() << "making network namespaces needs root";
  if (!have("ip") || !have("unshare")) GTEST_SKIP() << "needs ip and unshare";
  // RADAR_MPI_HOSTS_RING_DIR: where to make (and keep) the recordings, for
  // docs' screenshot of them (tests/e2e/screenshots_test.sh).
  const char* keep = std::getenv("RADAR_MPI_HOSTS_RING_DIR");
  const std::string work = keep && *keep ? keep : testTempDir();
  SimulatedHosts hosts("host-a", "host-b", 1, work);
  if (!hosts.ok()) GTEST_SKIP() << "cannot simulate hosts here: " << hosts.why();
  const std::string each_rank =
      "sh -c " + shellQuote("exec " + shellQuote(radarPath()) + " record -o " + shellQuote(work + "/rank-") +
                            "$OMPI_COMM_WORLD_RANK -- " + shellQuote(program("ring")) + " 3");
  const Result run = shell(hosts.on(0,
                                    "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun "
                                    "--oversubscribe --mca plm_rsh_agent " +
                                        hosts.agent() + " --host host-a:2,host-b:2 -n 4 " + each_rank));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  for (int rank = 0; rank < 4; ++rank) dirs_.push_back(work + "/rank-" + std::to_string(rank));
  expectAsPrinted(run, "ring");
  expectRingRanksOnTwoHosts();
  // host-b's clock lined up with host-a's by an interval that holds the
  // truth (one machine's clock, really), and left as read.
  std::vector<std::string> stats{"stats", "--json"};
  stats.insert(stats.end(), dirs_.begin(), dirs_.end());
  const Result clocks = radar(stats);
  std::smatch c;
  ASSERT_TRUE(std::regex_search(
      clocks.out, c,
      std::regex(R"re(\{"host":"host-b","aligned":true,"shift_ns":(-?\d+),"low_ns":(-?\d+),"high_ns":(-?\d+),)re")))
      << clocks.out;
  EXPECT_EQ(std::stoll(c[1]), 0);
  EXPECT_LE(std::stoll(c[2]), 0);
  EXPECT_GE(std::stoll(c[3]), 0);
  // Each rank re-run here from the four recordings, its messages from the
  // other host's ranks over TCP answered from their logs.
  expectEveryRankReRunsAlone(4, run);
}

// The same ring launched by Slurm: a controller on host-a, a node daemon on
// each host (host-b's clock 5 s ahead), and `srun --mpi=pmix -N 2 -n 4`
// starting each rank under `radar record` as it starts any program, the
// ranks meeting through Slurm's PMIx servers instead of mpirun's. Ranks 0
// and 1 on host-a, 2 and 3 on host-b; the four recordings one story, in
// causal order whatever host-b's clock says (expectAsPrinted).
TEST_F(Mpi, SrunStartsARecordedRingOnTwoHosts) {
  if (::geteuid() != 0) GTEST_SKIP() << "making network namespaces needs root";
  if (!have("ip") || !have("unshare")) GTEST_SKIP() << "needs ip and unshare";
  const std::string work = testTempDir();
  SimulatedHosts hosts("host-a", "host-b", 2, work);
  if (!hosts.ok()) GTEST_SKIP() << "cannot simulate hosts here: " << hosts.why();
  SimulatedSlurm slurm(hosts, work);
  if (!slurm.ok()) GTEST_SKIP() << "cannot run Slurm here: " << slurm.why();
  const std::string each_rank =
      "sh -c " + shellQuote("exec " + shellQuote(radarPath()) + " record -o " + shellQuote(work + "/rank-") +
                            "$SLURM_PROCID -- " + shellQuote(program("ring")) + " 3");
  const Result run = shell(slurm.srun("--mpi=pmix -N 2 -n 4 " + each_rank));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  for (int rank = 0; rank < 4; ++rank) dirs_.push_back(work + "/rank-" + std::to_string(rank));
  expectAsPrinted(run, "ring");
  // The shared memory each rank's MPI library maps is said to be its
  // transport when the rank's recording ends.
  std::istringstream said(run.err);
  size_t transports = 0;
  for (std::string line; std::getline(said, line);) {
    if (line.find("maps shared memory") == std::string::npos) continue;
    EXPECT_NE(line.find("; mapped by the MPI library: its transport, whose messages are recorded as MPI calls"),
              std::string::npos)
        << line;
    ++transports;
  }
  EXPECT_EQ(transports, 4u) << run.err;
  expectRingRanksOnTwoHosts();
  expectEveryRankReRunsAlone(4, run);
}

TEST_F(Mpi, MasterTakesAnswersFromAnySourceInTheOrderTheyCame) {
  const Result recorded = recordJob(4, "master_worker", "12");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const PrintedRun printed = expectAsPrinted(recorded, "master_worker");
  EXPECT_EQ(printed.receives.at(0).size(), 12u) << recorded.out;
  expectEveryRankReRunsAlone(4, recorded);  // the master's receives from any source as they came
}

TEST_F(Mpi, HaloExchangeWithIsendIrecvWaitallAndCollectives) {
  const Result recorded = recordJob(4, "halo", "4");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  expectAsPrinted(recorded, "halo");
  // Each collective once per rank, on the communicator it ran on; the
  // split's two halves are two communicators.
  const Result mpi = radar({"events", "-k", "mpi", dir_});
  for (const char* operation : {"MPI_Bcast", "MPI_Allreduce", "MPI_Gather", "MPI_Reduce", "MPI_Barrier"})
    EXPECT_EQ(count(mpi.out, std::string("joins ") + operation + " "), 4u) << operation << "\n" << mpi.out;
  EXPECT_NE(mpi.out.find("joins MPI_Allreduce on MPI communicator w/1.0"), std::string::npos) << mpi.out;
  EXPECT_NE(mpi.out.find("joins MPI_Allreduce on MPI communicator w/1.1"), std::string::npos) << mpi.out;
  // --rank and --tag select one rank's messages of one tag.
  const Result tagged = radar({"events", "--rank", "2", "--tag", "1", dir_});
  ASSERT_EQ(tagged.exit_code, 0) << tagged.err;
  EXPECT_EQ(std::count(tagged.out.begin(), tagged.out.end(), '\n'), 2 * 4)
      << tagged.out;  // a send and a receive a step
  std::istringstream lines(tagged.out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.starts_with("Process halo rank 2[")) << line;
    EXPECT_NE(line.find("tag 1)"), std::string::npos) << line;
  }
  EXPECT_EQ(radar({"events", "--rank", "9", dir_}).exit_code, 2);
  // Each rank alone: its Irecv/Isend/Waitall, and what each collective
  // gave it (a broadcast's value, an Allreduce's sum in its half).
  expectEveryRankReRunsAlone(4, recorded);
}

// A rank that polls (MPI_Test, MPI_Iprobe) while the other takes its time:
// what the MPI library does between the polls that find nothing is the
// library's, hidden from the rank's story and not made in its re-run, which
// finds the message at the poll where the recorded one did.
TEST_F(Mpi, PollsThatFoundNothingAreTheLibrarysAndReRunAsRecorded) {
  const Result recorded = recordJob(2, "polling");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const PrintedRun printed = expectAsPrinted(recorded, "polling");
  EXPECT_EQ(printed.receives.at(1).size(), 2u) << recorded.out;
  const Result story = radar({"events", "--rank", "1", dir_});
  std::istringstream told(story.out);
  for (std::string line; std::getline(told, line);)
    EXPECT_TRUE(std::regex_search(line, std::regex("(starts|finishes) MPI|posts a receive|receives a message|probes|"
                                                   "sends a message to .* on (terminal|pipe) |joins MPI_Barrier|"
                                                   "exits with status")))
        << line;
  EXPECT_GT(count(radar({"events", "--rank", "1", "--library", dir_}).out, "\n"), count(story.out, "\n"));
  expectEveryRankReRunsAlone(2, recorded);
}

// Derived datatypes (a matrix's column, a pair), recorded as they travel
// (packed), and each rank re-run alone with the same columns in its matrix.
TEST_F(Mpi, DerivedDatatypesTravelPackedAndReRunAsRecorded) {
  const Result recorded = recordJob(3, "derived");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const Result sends = radar({"events", "-k", "MPI_Send", "-k", "MPI_Recv", dir_});
  EXPECT_EQ(count(sends.out, "(16 bytes, tag 1)"), 2u) << sends.out;  // the column, sent and received
  EXPECT_EQ(count(sends.out, "(8 bytes, tag 2)"), 2u) << sends.out;   // the pair
  expectCausalStory();
  EXPECT_NE(recorded.out.find("rank 1 column 2 12 22 32\n"), std::string::npos) << recorded.out;
  EXPECT_NE(recorded.out.find("rank 2 broadcast column 101 111 121 131\n"), std::string::npos) << recorded.out;
  EXPECT_EQ(count(recorded.out, " broadcast block xx\n"), 3u) << recorded.out;
  expectEveryRankReRunsAlone(3, recorded);
}

// Communicators made from groups (MPI_Comm_group, MPI_Group_incl/excl,
// MPI_Comm_create): recorded as any communicator, its messages and its
// Allreduces on it (one with a reduction of the program's own,
// MPI_Op_create), and each rank re-run alone with its groups worked out
// by the stand-ins and its new communicator confirmed by the recording
// (its rank, size and members). A group planted in another order is caught
// at MPI_Comm_create.
TEST_F(Mpi, CommunicatorsMadeFromGroupsReRunAsRecorded) {
  const Result recorded = recordJob(4, "groups");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  for (const char* line : {"rank 2 is 1 of 2 among the evens (its group rank 1)\n", "rank 3 got 1001 from rank 1\n",
                           "rank 1: the odds' ranks sum to 4\n", "rank 0: the evens' highest rank is 2\n",
                           "rank 0: evens and odds together are similar to the world's group, and share 0 ranks\n"})
    EXPECT_NE(recorded.out.find(line), std::string::npos) << line << recorded.out;
  const Result made = radar({"events", "-k", "mpi", dir_});
  EXPECT_EQ(count(made.out, "(MPI_Comm_create)"), 4u) << made.out;  // each rank in one of the two
  EXPECT_EQ(count(made.out, "joins MPI_Allreduce on MPI communicator w/"), 8u) << made.out;
  expectCausalStory();
  expectEveryRankReRunsAlone(4, recorded);
  const Result planted = radar({"debug", "--yes", "--no-gdb", "--env", "GROUPS_REVERSED=1", dir_, "rank 0"});
  EXPECT_EQ(planted.exit_code, 1) << planted.err;
  EXPECT_NE(planted.err.find("the program's MPI_Comm_create(a group of 2) has members (as ranks of its parent, in "
                             "order) whose checksum is "),
            std::string::npos)
      << planted.err;
}

// The classic MPI bug: ranks calling their collectives in another order.
// Open MPI lets this one through (its broadcast is small), so the output is
// right, and only the recording shows that the ranks disagreed.
TEST_F(Mpi, RanksCallingCollectivesInAnotherOrderAreFound) {
  const Result recorded = recordJob(3, "mismatch");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_EQ(count(recorded.out, "value 42"), 3u) << recorded.out;
  const Result check = radar({"check", dir_});
  EXPECT_NE(check.out.find("collective-mismatch: the ranks call different collectives on MPI_COMM_WORLD: as its "
                           "1st, mismatch rank "),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("calls MPI_Bcast"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("calls MPI_Barrier"), std::string::npos) << check.out;
  expectCausalStory();
}

// The classic hang, ended by a watchdog: rank 0 waits in a barrier rank 1
// never comes to (it waits for a message rank 0 sends after it), and rank 1
// aborts the job. The recording says where rank 0 was when it was killed,
// and who had not come.
TEST_F(Mpi, RankKilledInACollectiveAnotherNeverCameToIsFound) {
  const Result recorded = recordJob(2, "hang");
  EXPECT_EQ(recorded.exit_code, 3) << recorded.err;
  ASSERT_NE(recorded.out.find("rank 1 gives up"), std::string::npos) << recorded.out;
  const Result check = radar({"check", dir_});
  const std::regex stuck(
      R"(stuck-in-collective: hang rank 0\[\d+\] was still in MPI_Barrier, its 1st collective on MPI_COMM_WORLD, )"
      R"(when the recording ended; hang rank 1\[\d+\] had not come to it)");
  EXPECT_TRUE(std::regex_search(check.out, stuck)) << check.out;
  expectCausalStory();
}

// A wildcard race: rank 0 takes the others' numbers from any source, in
// the order they come. Each of its receives but the last could have got
// another rank's message: the finding says so, naming the other rank.
TEST_F(Mpi, ReceivesFromAnySourceThatCouldHaveGotAnotherMessageAreARace) {
  const Result recorded = recordJob(4, "wildcard_race");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  const PrintedRun printed = expectAsPrinted(recorded, "wildcard_race");
  ASSERT_EQ(printed.receives.at(0).size(), 3u) << recorded.out;
  const Result check = radar({"check", dir_});
  const std::regex race(
      R"(wildcard-race: 2 receives from any source by wildcard_race rank 0\[\d+\] on MPI_COMM_WORLD could have got )"
      R"(another rank's message: the first got wildcard_race rank (\d)\[\d+\]'s, and wildcard_race rank (\d)\[\d+\]'s )"
      R"(send could have come first)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(check.out, m, race)) << check.out;
  // The first it got is the one it printed first; the other is another.
  EXPECT_EQ(std::stoi(m[1]), printed.receives.at(0).front().peer) << check.out;
  EXPECT_NE(m[2], m[1]);
  expectEveryRankReRunsAlone(4, recorded);  // rank 0 gets them in the order they came then
  // The program that named its sources has no race.
  const Result ring = recordJob(3, "ring", "1");
  ASSERT_EQ(ring.exit_code, 0) << ring.err;
  EXPECT_EQ(radar({"check", dir_}).out.find("wildcard-race"), std::string::npos);
}

}  // namespace
}  // namespace radar::testing
