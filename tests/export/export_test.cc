// radar export: recordings made here, read back by readers radar does not
// share code with (tshark for pcapng).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "recorded.h"

namespace radar::testing {
namespace {

bool haveTshark() { return shell("command -v tshark >/dev/null").exit_code == 0; }

// tshark's output; its warning about running as root goes to stderr.
Result tshark(const std::string& file, const std::string& args) {
  return shell("tshark -r " + shellQuote(file) + " " + args + " 2>/dev/null");
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The channels that carried a send, as `radar events --json` names them.
std::set<std::string> channelsWithSends(const std::string& dir) {
  std::set<std::string> names;
  const Result events = radar({"events", "--json", "-k", "send", dir});
  std::smatch m;
  for (const auto& line : lines(events.out))
    if (std::regex_search(line, m, std::regex(R"re("channel":"([^"]*)")re"))) names.insert(m[1]);
  return names;
}

// Both directions of TCP stream `n`, as `tshark -z follow,tcp,raw` gives
// them: [0] what the first node sent, [1] what the other did.
std::pair<std::string, std::string> follow(const std::string& file, int n) {
  const Result r = tshark(file, "-q -z follow,tcp,raw," + std::to_string(n));
  std::pair<std::string, std::string> out;
  bool body = false;
  for (const auto& line : lines(r.out)) {
    if (line.rfind("Node 1:", 0) == 0) {
      body = true;
      continue;
    }
    if (!body || line.empty() || line[0] == '=') continue;
    const bool second = line[0] == '\t';
    std::string hex = second ? line.substr(1) : line;
    std::string bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    (second ? out.second : out.first) += bytes;
  }
  return out;
}

const char kReply[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello";

TEST(ExportPcapng, PipesAndUnixSocketsAreStreamsWiresharkDecodes) {
  if (!haveTshark()) GTEST_SKIP() << "tshark is not installed (apt-get install tshark)";
  const std::string work = testTempDir();
  Recording rec = record({HTTP_PAIR, work + "/http.sock"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto channels = channelsWithSends(rec.dir);
  ASSERT_EQ(channels.size(), 4u);  // two pipes, the connection, the datagram pair
  std::vector<std::string> args = {"export", "--pcapng", work + "/out.pcapng"};
  for (const auto& c : channels) {
    args.push_back("--decode-as");
    args.push_back(c + (c.rfind("socketpair", 0) == 0 ? "=dns" : "=http"));
  }
  args.push_back(rec.dir);
  const Result exported = radar(args);
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string file = work + "/out.pcapng";

  // Every request and reply, decoded by Wireshark's HTTP dissector and
  // reassembled from two writes; the datagrams by its DNS dissector.
  EXPECT_EQ(sorted(lines(tshark(file, "-Y http.request -T fields -e http.request.uri").out)),
            (std::vector<std::string>{"/over-pipes", "/over-unix"}));
  EXPECT_EQ(lines(tshark(file, "-Y http.response -T fields -e http.response.code").out),
            (std::vector<std::string>{"200", "200"}));
  EXPECT_EQ(lines(tshark(file, "-Y dns -T fields -e dns.qry.name -e dns.flags.response -e dns.a").out),
            (std::vector<std::string>{"radar.example\t0\t", "radar.example\t1\t127.0.0.1"}));

  // Follow Stream: the connection and the pipes, whole, both ways, in the
  // order tshark numbers them (first use).
  const std::string request = "GET /over-%s HTTP/1.1\r\nHost: radar\r\n\r\n";
  auto requestOver = [&](const std::string& over) { return std::regex_replace(request, std::regex("%s"), over); };
  const auto pipe_up = follow(file, 0);
  EXPECT_EQ(pipe_up.first, requestOver("pipes"));
  EXPECT_EQ(pipe_up.second, "");  // a pipe goes one way
  const auto pipe_down = follow(file, 1);
  EXPECT_EQ(pipe_down.first, kReply);
  const auto unix_conn = follow(file, 2);
  EXPECT_EQ(unix_conn.first, requestOver("unix"));
  EXPECT_EQ(unix_conn.second, kReply);

  // The server's close reached the client as an end of file: a FIN from
  // the server's side, after its reply.
  EXPECT_EQ(lines(tshark(file, "-Y 'tcp.stream == 2 && tcp.flags.fin == 1' -T fields -e tcp.srcport").out),
            (std::vector<std::string>{"80"}));

  // Each packet says who sent it: the process, its pid, the event, the call.
  const auto comments = lines(tshark(file, "-Y http.request -T fields -e frame.comment").out);
  ASSERT_EQ(comments.size(), 2u);
  for (const auto& c : comments)
    EXPECT_TRUE(std::regex_search(c, std::regex(R"(^http_pair\[\d+\], event \d+: (write|send), sent on )"))) << c;

  // The recording's times: every packet within the run.
  const auto times = lines(tshark(file, "-T fields -e frame.time_epoch").out);
  ASSERT_FALSE(times.empty());
  const double now = static_cast<double>(::time(nullptr));
  for (const auto& t : times) {
    EXPECT_GT(std::stod(t), now - 600) << t;
    EXPECT_LE(std::stod(t), now + 1) << t;
  }
}

TEST(ExportPcapng, WithoutDecodeAsTheProtocolIsStillFoundByItsContents) {
  if (!haveTshark()) GTEST_SKIP() << "tshark is not installed (apt-get install tshark)";
  const std::string work = testTempDir();
  Recording rec = record({HTTP_PAIR, work + "/http.sock"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const Result exported = radar({"export", "--pcapng", work + "/out.pcapng", rec.dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  // Streams between the ports radar gives channels that are not TCP: 50000
  // for the side that spoke first, 50001 for the other.
  const auto ports =
      lines(tshark(work + "/out.pcapng", "-Y 'tcp.len > 0' -T fields -e tcp.srcport -e tcp.dstport").out);
  ASSERT_FALSE(ports.empty());
  for (const auto& p : ports) EXPECT_TRUE(p == "50000\t50001" || p == "50001\t50000") << p;
  EXPECT_NE(exported.err.find("packets"), std::string::npos) << exported.err;
}

TEST(ExportPcapng, BadInputGetsAClearErrorAndNoFile) {
  const std::string work = testTempDir();
  Recording rec = record({HTTP_PAIR, work + "/http.sock"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  // An output that cannot be written.
  Result r = radar({"export", "--pcapng", work + "/no/such/dir/out.pcapng", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write " + work + "/no/such/dir/out.pcapng"), std::string::npos) << r.err;
  // A file that is a symbolic link is not followed.
  ASSERT_EQ(::symlink("/etc/passwd", (work + "/link.pcapng").c_str()), 0);
  r = radar({"export", "--pcapng", work + "/link.pcapng", rec.dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // replaced by the export, not written through
  struct stat st;
  ASSERT_EQ(::lstat((work + "/link.pcapng").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_NE(slurp("/etc/passwd").find("root"), std::string::npos);
  // Nothing to export, a protocol or channel radar does not know, no recording.
  r = radar({"export", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nothing to export"), std::string::npos) << r.err;
  r = radar({"export", "--pcapng", work + "/x.pcapng", "--decode-as", "pipe 2=gopher2", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown protocol 'gopher2'"), std::string::npos) << r.err;
  r = radar({"export", "--pcapng", work + "/x.pcapng", "--decode-as", "pipe 99=http", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no channel 'pipe 99'"), std::string::npos) << r.err;
  ::mkdir((work + "/empty").c_str(), 0755);
  r = radar({"export", "--pcapng", work + "/x.pcapng", work + "/empty"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(::access((work + "/x.pcapng").c_str(), F_OK), 0);
}

}  // namespace
}  // namespace radar::testing
