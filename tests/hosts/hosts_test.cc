// Programs spread over hosts: each host's processes recorded by `radar
// record` on that host into a recording of its own, and the recordings
// merged (`radar check A B`). The hosts are simulated on this machine:
// network namespaces joined by a veth pair, with addresses that exist only
// inside them (no route out), UTS namespaces for their host names, and for
// the client's host a time namespace whose monotonic clock runs 5 s ahead.
// Label `hosts`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

#include "real_check.h"
#include "recorded.h"
#include "simulated_hosts.h"

namespace radar::testing {
namespace {

// A server that answers each line with it in capitals, and a client that
// sends three lines over one connection and prints the answers.
const char kServer[] = R"py(import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.231.0.1", 7007))
s.listen()
c, _ = s.accept()
for _ in range(3):
    c.sendall(c.recv(100).upper())
c.close()
)py";

const char kClient[] = R"py(import socket, sys
for attempt in range(200):
    try:
        c = socket.create_connection(("10.231.0.1", 7007))
        break
    except ConnectionRefusedError:
        import time; time.sleep(0.05)
for word in ("alpha", "beta", "gamma"):
    c.sendall(word.encode())
    print(c.recv(100).decode())
c.close()
)py";

class Hosts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "making network namespaces needs root";
    if (!have("ip") || !have("unshare") || !have("python3")) GTEST_SKIP() << "needs ip, unshare and python3";
    work_ = testTempDir();
    hosts_ = std::make_unique<SimulatedHosts>("host-a", "host-b", 0, work_);
    if (!hosts_->ok()) GTEST_SKIP() << "cannot simulate hosts here: " << hosts_->why();
  }

  std::string work_;
  std::unique_ptr<SimulatedHosts> hosts_;
};

TEST_F(Hosts, ClientAndServerOnTwoHostsMergeIntoOneStory) {
  const std::string server = work_ + "/server.py", client = work_ + "/client.py";
  std::ofstream(server) << kServer;
  std::ofstream(client) << kClient;
  const std::string ra = work_ + "/host-a", rb = work_ + "/host-b";
  const std::string record = shellQuote(radarPath()) + " record -o ";
  const Result run = shell(hosts_->on(0, record + shellQuote(ra) + " -- /usr/bin/python3 " + server) + " & " +
                           hosts_->on(1, record + shellQuote(rb) + " -- /usr/bin/python3 " + client, true) + "; wait");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "ALPHA\nBETA\nGAMMA\n");

  // Every byte matched across the hosts, nothing found.
  const Result check = radar({"check", ra, rb});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("bytes sent 28, received 28: 28 matched to their sends"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("no findings"), std::string::npos) << check.out;
  // Each process is named with its host.
  const Result events = radar({"events", ra, rb});
  EXPECT_EQ(std::regex_search(events.out, std::regex(R"(server\.py\[\d+@host-a\] accepts a connection)")), true)
      << events.out;
  EXPECT_EQ(std::regex_search(events.out, std::regex(R"(client\.py\[\d+@host-b\] connects tcp 10\.231\.0\.1:7007)")),
            true)
      << events.out;

  // The kernel's order holds whatever the clocks say: the connect before
  // the accept returned, each send before its receive.
  const auto story = readStory(std::vector<std::string>{ra, rb});
  const CausalCheck causal = checkCausalOrder(story);
  for (size_t i = 0; i < causal.violations.size() && i < 10; ++i) ADD_FAILURE() << causal.violations[i];
  EXPECT_EQ(causal.checked.count("connect -> accept") ? causal.checked.at("connect -> accept") : 0, 1);
  EXPECT_GE(causal.checked.count("send -> receive") ? causal.checked.at("send -> receive") : 0, 6);
  // And the wall clock lines the hosts up although their monotonic clocks
  // are 5 s apart: the successful connect falls within the accept's wait.
  const Result json = radar({"events", "--json", ra, rb});
  const std::regex accept(R"("kind":"accept","time_ns":(\d+),"duration_ns":(\d+))");
  const std::regex connect(R"("kind":"connect","time_ns":(\d+),"duration_ns":\d+,"result":0,)");
  std::smatch at, co;
  ASSERT_TRUE(std::regex_search(json.out, at, accept)) << json.out;
  ASSERT_TRUE(std::regex_search(json.out, co, connect)) << json.out;
  const long long accept_ns = std::stoll(at[1]), waited_ns = std::stoll(at[2]), connect_ns = std::stoll(co[1]);
  EXPECT_GE(connect_ns, accept_ns - 100'000'000);
  EXPECT_LE(connect_ns, accept_ns + waited_ns + 100'000'000);
  // Two machines, two clocks: the messages both ways bound host-b's
  // against host-a's to an interval that holds the truth (their wall
  // clocks are this machine's one clock, whatever the monotonic skew), so
  // its times are left as read.
  const Result stats = radar({"stats", "--json", ra, rb});
  const std::regex clock(
      R"re(\{"host":"host-b","aligned":true,"shift_ns":(-?\d+),"low_ns":(-?\d+),"high_ns":(-?\d+),"messages":(\d+),"against":"host-a"\})re");
  std::smatch c;
  ASSERT_TRUE(std::regex_search(stats.out, c, clock)) << stats.out;
  EXPECT_EQ(std::stoll(c[1]), 0) << stats.out;
  EXPECT_LE(std::stoll(c[2]), 0) << stats.out;
  EXPECT_GE(std::stoll(c[3]), 0) << stats.out;
  EXPECT_LT(std::stoll(c[3]) - std::stoll(c[2]), 100'000'000) << stats.out;
  EXPECT_GE(std::stoi(c[4]), 6) << stats.out;
  const Result text = radar({"stats", ra, rb});
  EXPECT_NE(text.out.find("host-b's clock: agrees with host-a's as read (the "), std::string::npos) << text.out;
  // The exports carry the host: a host column in SQL, and in the pcapng
  // an interface per kind of channel and host, each packet on its sender's.
  const Result sql = radar({"sql", ra, rb, "select distinct host from processes order by host"});
  EXPECT_NE(sql.out.find("host-a\nhost-b\n"), std::string::npos) << sql.out << sql.err;
  const std::string pcap = work_ + "/both.pcapng";
  ASSERT_EQ(radar({"export", "--pcapng", pcap, ra, rb}).exit_code, 0);
  if (have("tshark")) {
    const Result packets = shell("tshark -r " + shellQuote(pcap) +
                                 " -Y 'tcp.port==7007 && tcp.len>0' -T fields -e frame.interface_name -e ip.src "
                                 "2>/dev/null | sort | uniq -c");
    EXPECT_NE(packets.out.find("3 tcp on host-a\t10.231.0.1\n"), std::string::npos) << packets.out;
    EXPECT_NE(packets.out.find("3 tcp on host-b\t10.231.0.2\n"), std::string::npos) << packets.out;
  } else {
    std::printf("no tshark here: the pcapng's interfaces were not read back\n");
  }
  if (!hosts_->skewed()) std::printf("no time namespace here: the hosts' clocks were not skewed\n");
}

// radar record --join: host-b's part takes the recording id of the
// recording host-a started (named by its directory, on a file system both
// see), and the parts are read as one recording: merged even where they
// share no channel, where two recordings would be refused. A copy of a
// part is still a recording given twice.
TEST_F(Hosts, AHostJoinsARecordingStartedOnAnother) {
  const std::string server = work_ + "/server.py", client = work_ + "/client.py";
  std::ofstream(server) << kServer;
  std::ofstream(client) << kClient;
  const std::string ra = work_ + "/host-a", rb = work_ + "/host-b", rc = work_ + "/host-b-true", rd = work_ + "/other";
  const std::string record = shellQuote(radarPath()) + " record";
  const Result run = shell(
      hosts_->on(0, record + " -o " + shellQuote(ra) + " -- /usr/bin/python3 " + server) + " & " +
      "for i in $(seq 200); do [ -s " + shellQuote(ra + "/recording.txt") + " ] && break; sleep 0.05; done; " +
      hosts_->on(1, record + " --join " + shellQuote(ra) + " -o " + shellQuote(rb) + " -- /usr/bin/python3 " + client) +
      "; wait");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "ALPHA\nBETA\nGAMMA\n");
  const Result check = radar({"check", ra, rb});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("bytes sent 28, received 28: 28 matched to their sends"), std::string::npos) << check.out;

  // A part that shares no channel with the others is still part of it.
  ASSERT_EQ(
      shell(hosts_->on(1, record + " --join " + shellQuote(ra) + " -o " + shellQuote(rc) + " -- /bin/true")).exit_code,
      0);
  ASSERT_EQ(shell(hosts_->on(1, record + " -o " + shellQuote(rd) + " -- /bin/true")).exit_code, 0);
  const Result joined = radar({"check", ra, rc});
  EXPECT_EQ(joined.exit_code, 0) << joined.err;
  const Result unrelated = radar({"check", ra, rd});
  EXPECT_EQ(unrelated.exit_code, 2) << unrelated.out;
  EXPECT_NE(unrelated.err.find("share no channel"), std::string::npos) << unrelated.err;

  // A copy is a recording given twice; a bad id is refused.
  ASSERT_EQ(shell("cp -a " + shellQuote(rb) + " " + shellQuote(rb + "-copy")).exit_code, 0);
  const Result twice = radar({"check", ra, rb, rb + "-copy"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("the same recording is given twice"), std::string::npos) << twice.err;
  const Result bad = shell(record + " --join 12ab -o " + shellQuote(work_ + "/bad") + " -- /bin/true");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--join: '12ab' is neither a recording id"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace radar::testing
