// radar export: recordings made here, read back by readers radar does not
// share code with (tshark for pcapng).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "perfetto_trace.pb.h"
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

Recording httpPair(const std::string& work);

const char kReply[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello";

// --decode-as by a named socket's name, as --channel takes it: every
// connection to it is decoded so; a name the recording lacks is refused.
TEST(ExportPcapng, DecodeAsANamedSocketDecodesItsConnections) {
  if (!haveTshark()) GTEST_SKIP() << "tshark is not installed (apt-get install tshark)";
  const std::string work = testTempDir();
  Recording rec = record({HTTP_PAIR, work + "/http.sock"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string file = work + "/out.pcapng";
  const Result exported =
      radar({"export", "--pcapng", file, "--decode-as", "unix socket " + work + "/http.sock=http", rec.dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(lines(tshark(file, "-Y http.request -T fields -e http.request.uri").out),
            (std::vector<std::string>{"/over-unix"}));
  // A channel given by its number is decoded as asked, whatever a name
  // that covers it says.
  const Result connection =
      radar({"sql", rec.dir, "select channel from channels where name like 'unix socket %\u2190%'", "--format", "csv"});
  const std::vector<std::string> numbers = lines(connection.out);
  ASSERT_EQ(numbers.size(), 2u) << connection.out << connection.err;       // the header, the connection
  const std::string number = numbers[1].substr(0, numbers[1].find('\r'));  // CSV's lines end in CR LF
  const Result both = radar({"export", "--pcapng", file, "--decode-as", "unix socket " + work + "/http.sock=http",
                             "--decode-as", number + "=pgsql", rec.dir});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(lines(tshark(file, "-Y http.request -T fields -e http.request.uri").out), std::vector<std::string>{});
  const Result unknown =
      radar({"export", "--pcapng", file, "--decode-as", "unix socket " + work + "/none.sock=http", rec.dir});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no channel 'unix socket"), std::string::npos) << unknown.err;
}

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
    EXPECT_TRUE(
        std::regex_search(c, std::regex(R"(^http_pair\[\d+\], event \d+: (write|send)\(\) on (pipe|unix socket) )")))
        << c;

  // The recording's times: every packet within the run.
  const auto times = lines(tshark(file, "-T fields -e frame.time_epoch").out);
  ASSERT_FALSE(times.empty());
  const double now = static_cast<double>(::time(nullptr));
  for (const auto& t : times) {
    EXPECT_GT(std::stod(t), now - 600) << t;
    EXPECT_LE(std::stod(t), now + 1) << t;
  }
}

// Each packet names its process where Wireshark reads it (Apple's process
// blocks and the packet's option for its block), its direction, and sits
// on the interface of its channel's kind and host; nothing is made up
// before a stream's first bytes.
TEST(ExportPcapng, EachPacketNamesItsProcessDirectionAndKindOfChannel) {
  if (!haveTshark()) GTEST_SKIP() << "tshark is not installed (apt-get install tshark)";
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string file = work + "/out.pcapng";
  ASSERT_EQ(radar({"export", "--pcapng", file, rec.dir}).exit_code, 0);
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const std::string on = std::string(" on ") + host;
  std::set<std::string> interfaces;
  for (const auto& name : lines(tshark(file, "-T fields -e frame.interface_name").out)) interfaces.insert(name);
  EXPECT_EQ(interfaces, (std::set<std::string>{"pipe" + on, "unix stream socket" + on, "unix datagram socket" + on}));
  const std::string syn = tshark(file, "-Y tcp -T fields -e tcp.flags.syn").out;
  EXPECT_EQ(syn, "0\n0\n0\n0\n0\n0\n0\n") << "a handshake made up (or tshark read no TCP)";

  // Per packet: its comment (the process and pid, the call), its direction.
  const auto packets =
      lines(tshark(file, "-T fields -E 'separator=|' -e frame.packet_flags_direction -e frame.comment").out);
  ASSERT_EQ(packets.size(), 9u);
  std::vector<std::string> pids;
  for (const auto& p : packets) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(p, m, std::regex(R"((0x\d+)\|http_pair\[(\d+)\], event \d+: (\w+)\(\) (.*))"))) << p;
    pids.push_back(m[2]);
    const bool eof = m[4].str().rfind("saw the end of file", 0) == 0;
    EXPECT_EQ(m[1], eof ? "0x00000001" : "0x00000002") << p;  // inbound to its reader; a send outbound
  }
  // The file's blocks, as Wireshark's pcapng reader shows them: a process
  // block per process (pid, name), and each packet's index into them.
  const auto blocks = lines(tshark(file,
                                   "-X 'read_format:MIME Files Format' -T fields -E 'separator=|' "
                                   "-e pcapng.darwin.process_id -e pcapng.darwin.process_name "
                                   "-e pcapng.options.option.data.packet.darwin.dpeb_id")
                                .out);
  ASSERT_EQ(blocks.size(), 1u);
  std::smatch m;
  ASSERT_TRUE(std::regex_match(blocks[0], m, std::regex(R"(([\d,]+)\|([\w,]+)\|([\d,]+))"))) << blocks[0];
  auto split = [](const std::string& list) {
    std::vector<std::string> out;
    std::istringstream in(list);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
  };
  const auto process_pids = split(m[1]), names = split(m[2]), of_packet = split(m[3]);
  EXPECT_EQ(names, std::vector<std::string>(process_pids.size(), "http_pair"));
  ASSERT_EQ(of_packet.size(), packets.size());
  for (size_t k = 0; k < of_packet.size(); ++k) {
    const size_t block = std::stoul(of_packet[k]);
    ASSERT_LT(block, process_pids.size());
    EXPECT_EQ(process_pids[block], pids[k]) << "packet " << k + 1 << ": " << packets[k];
  }
}

// UDP keeps its real addresses, also for a client whose socket the kernel
// bound at its first sendto (recorded unbound): each ping goes from the
// client's port to the server's, each pong back to the port it came from,
// each once.
TEST(ExportPcapng, UdpDatagramsKeepTheirAddressesBothWays) {
  if (!haveTshark()) GTEST_SKIP() << "tshark is not installed (apt-get install tshark)";
  const std::string work = testTempDir();
  Recording rec = record({UDP_ECHO});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string file = work + "/udp.pcapng";
  const Result exported = radar({"export", "--pcapng", file, rec.dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const auto packets =
      lines(tshark(file, "-T fields -e ip.src -e udp.srcport -e ip.dst -e udp.dstport -e data.data").out);
  ASSERT_EQ(packets.size(), 12u);
  std::map<std::string, std::string> client_of;  // payload after "ping "/"pong " -> the client's port
  std::string server_port;
  int pings = 0, pongs = 0;
  for (const auto& p : packets) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(p, m, std::regex(R"(127\.0\.0\.1\t(\d+)\t127\.0\.0\.1\t(\d+)\t(\w{8})(\w+))"))) << p;
    const std::string kind = m[3], rest = m[4], from = m[1], to = m[2];
    if (kind == "70696e67") {  // "ping"
      ++pings;
      if (server_port.empty()) server_port = to;
      EXPECT_EQ(to, server_port) << p;
      EXPECT_TRUE(client_of.emplace(rest, from).second) << "ping twice: " << p;
    } else {
      ASSERT_EQ(kind, "706f6e67") << p;  // "pong"
      ++pongs;
      EXPECT_EQ(from, server_port) << p;
      ASSERT_TRUE(client_of.count(rest)) << "a pong before its ping: " << p;
      EXPECT_EQ(to, client_of[rest]) << p;
    }
  }
  EXPECT_EQ(pings, 6);
  EXPECT_EQ(pongs, 6);
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
  // A write that fails on the way (the file is written on a thread of its own).
  for (const char* format : {"--pcapng", "--perfetto"}) {
    r = shell(shellQuote(radarPath()) + " export " + format + " - " + shellQuote(rec.dir) + " > /dev/full");
    EXPECT_EQ(r.exit_code, 2) << format;
    EXPECT_NE(r.err.find("cannot write: No space left on device"), std::string::npos) << format << ": " << r.err;
  }
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

// ---- radar sql and radar export --sqlite -----------------------------------------------------

Recording httpPair(const std::string& work) {
  Recording rec = record({HTTP_PAIR, work + "/http.sock"});
  EXPECT_EQ(rec.exit_code, 0) << rec.err;
  return rec;
}

// radar sql with its cache in `cache`.
Result sql(const std::string& cache, const std::string& args, const std::string& input = "") {
  return shell("XDG_CACHE_HOME=" + shellQuote(cache) + " " + shellQuote(radarPath()) + " sql " + args, input);
}

TEST(Sql, TheEventsTableIsTheEventListing) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const Result csv = radar({"events", "--format", "csv", rec.dir});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = lines(csv.out);
  ASSERT_GT(rows.size(), 20u);
  // The documented columns, in their order (docs/queries.md).
  EXPECT_EQ(rows[0],
            "event,number,process,thread,kind,call,channel,entry_ns,return_ns,result,failed,errno,bytes,peer_pid,"
            "external,peek\r");
  const Result table = sql(work + "/cache", "--format csv " + shellQuote(rec.dir) + " 'select * from events'");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out, csv.out);
  // Each event once, numbered as the narration numbers them.
  const Result told = radar({"events", rec.dir});
  EXPECT_EQ(lines(told.out).size() + 1, rows.size());
}

TEST(Sql, AnswersTheTemporalQuestions) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string cache = work + "/cache", dir = shellQuote(rec.dir);
  auto ask = [&](const std::string& query) {
    const Result r = sql(cache, "--format csv " + dir + " " + shellQuote(query));
    EXPECT_EQ(r.exit_code, 0) << query << "\n" << r.err;
    auto out = lines(r.out);
    if (!out.empty()) out.erase(out.begin());  // the header
    for (auto& l : out)
      if (!l.empty() && l.back() == '\r') l.pop_back();
    return out;
  };
  // Every message was received: each channel's queue ends empty, and was
  // never negative.
  for (const auto& l : ask("select channel, min(queued_bytes) >= 0, (select queued_bytes from queue_lengths q "
                           "where q.channel = l.channel order by event desc limit 1) from queue_lengths l "
                           "group by channel"))
    EXPECT_TRUE(std::regex_match(l, std::regex(R"(\d+,1,0)"))) << l;
  // The request over the pipes was sent in two writes (10 and 31 bytes)
  // and read by one read when both were in the pipe, else by two: the
  // first read's message rows are one write (10 bytes) or both (41), and
  // add up to what it read; the pipe's reads together are the request.
  const auto first =
      ask("select count(*), count(distinct receive), sum(bytes), (select bytes from events where event = m.receive) "
          "from messages m where receive = (select min(event) from events where kind = 'receive' and bytes > 0)");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_TRUE(std::regex_match(first[0], std::regex(R"(1,1,10,10|2,1,41,41)"))) << first[0];
  EXPECT_EQ(ask("select replace(replace(group_concat(cast(contents(event) as text), ''), char(13), '\\r'), "
                "char(10), '\\n') from (select event from events where kind = 'receive' and bytes > 0 and channel = "
                "(select channel from events where kind = 'receive' and bytes > 0 order by event limit 1) "
                "order by event)"),
            (std::vector<std::string>{"GET /over-pipes HTTP/1.1\\r\\nHost: radar\\r\\n\\r\\n"}));
  // Time blocked: the server waited for each request; waits add up.
  EXPECT_EQ(ask("select (select sum(blocked_ns) from time_blocked) = (select sum(waited_ns) from waits)"),
            (std::vector<std::string>{"1"}));
  // After its last send, the client (the first process) never sends again.
  EXPECT_EQ(ask("select count(*) from events e join last_sends l using (process) where e.kind = 'send' and "
                "e.event > l.last_send"),
            (std::vector<std::string>{"0"}));
  // The narration of an event.
  const auto text = ask("select text(event) from events where call = 'accept'");
  ASSERT_EQ(text.size(), 1u);
  EXPECT_TRUE(text[0].find("accepts a connection") != std::string::npos) << text[0];
}

TEST(Sql, TheDatabaseIsKeptUntilTheLogsChange) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string cache = work + "/cache";
  const std::string query = shellQuote(rec.dir) + " 'select count(*) from events'";
  Result first = sql(cache, query);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const Result files = shell("ls " + shellQuote(cache + "/radar/sql"));
  ASSERT_EQ(lines(files.out).size(), 1u) << files.out;
  const std::string db = cache + "/radar/sql/" + lines(files.out)[0];
  struct stat before;
  ASSERT_EQ(::stat(db.c_str(), &before), 0);
  EXPECT_EQ(before.st_mode & 0777, 0644u);
  struct stat dir_mode;
  ASSERT_EQ(::stat((cache + "/radar/sql").c_str(), &dir_mode), 0);
  EXPECT_EQ(dir_mode.st_mode & 0777, 0700u);
  // Asked again: the same file, unchanged, the same answer.
  Result second = sql(cache, query);
  EXPECT_EQ(second.out, first.out);
  struct stat after;
  ASSERT_EQ(::stat(db.c_str(), &after), 0);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_EQ(after.st_ino, before.st_ino);
  // A log changed (its time, here): a new database.
  ASSERT_EQ(shell("touch -d '2001-01-01' " + shellQuote(rec.dir) + "/*.rlog").exit_code, 0);
  Result third = sql(cache, query);
  EXPECT_EQ(third.out, first.out);
  EXPECT_EQ(lines(shell("ls " + shellQuote(cache + "/radar/sql")).out).size(), 2u);
}

TEST(Sql, TheShellSpeaksLikeSqlite3) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const Result r = sql(work + "/cache", shellQuote(rec.dir),
                       ".tables\n.mode csv\nselect count(*) as n\n  from processes;\n.schema last_sends\n.quit\n"
                       "select 'not reached';\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("arguments  channels  events  findings  last_sends  messages  processes"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("n\r\n2\r\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CREATE VIEW last_sends"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("not reached"), std::string::npos) << r.out;
}

TEST(Sql, BadInputGetsAClearErrorAndAFailingStatus) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string cache = work + "/cache", dir = shellQuote(rec.dir);
  Result r = sql(cache, dir + " 'selec * from events'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("syntax error"), std::string::npos) << r.err;
  r = sql(cache, dir + " 'select * from no_such_table'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such table: no_such_table"), std::string::npos) << r.err;
  r = sql(cache, dir + " 'select contents(999999)'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such event"), std::string::npos) << r.err;
  // The database is read-only: a query cannot change what others will read.
  r = sql(cache, dir + " 'delete from events'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("readonly"), std::string::npos) << r.err;
  r = sql(cache, "--format xml " + dir + " 'select 1'");
  EXPECT_EQ(r.exit_code, 2);
  // A statement that fails in a script fails the run; the others still run.
  r = sql(cache, dir, "select 1;\nselec 2;\nselect 3;\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("3"), std::string::npos) << r.out;
  ::mkdir((work + "/empty").c_str(), 0755);
  r = sql(cache, shellQuote(work + "/empty") + " " + shellQuote(work + "/empty2") + " 'select 1'");
  EXPECT_EQ(r.exit_code, 2);
  r = radar({"export", "--sqlite", work + "/no/such/dir/x.sqlite", rec.dir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write " + work + "/no/such/dir/x.sqlite"), std::string::npos) << r.err;
}

// A disk that fills up (a file size limit, its signal ignored) while the
// big tables are written, or later, while SQLite adds the rest: a clear
// error, a failing status, and no file, whole or partial.
TEST(ExportSqlite, AFullDiskGetsAClearErrorAndNoFile) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string out = work + "/out";
  ::mkdir(out.c_str(), 0755);
  // 64 KiB: the bulk writer's second page fails, and it says what the
  // system said; 256 KiB: SQLite's first pages fail, in its own words.
  for (auto [kib, said] :
       {std::pair<const char*, const char*>{"64", "File too large"}, {"256", "SQLite: disk I/O error"}}) {
    SCOPED_TRACE(std::string("ulimit -f ") + kib);
    const Result r = shell("bash -c " + shellQuote(std::string("trap '' XFSZ; ulimit -f ") + kib + "; exec " +
                                                   shellQuote(radarPath()) + " export --sqlite " +
                                                   shellQuote(out + "/run.sqlite") + " " + shellQuote(rec.dir)));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "radar export: cannot write " + out + "/run.sqlite: " + said + "\n");
    EXPECT_EQ(shell("ls -A " + shellQuote(out)).out, "");
  }
  // The limit lifted, the same command makes the database.
  const Result r = radar({"export", "--sqlite", out + "/run.sqlite", rec.dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(ExportSqlite, Sqlite3ReadsTheDatabaseWithItsBytes) {
  if (shell("command -v sqlite3 >/dev/null").exit_code != 0)
    GTEST_SKIP() << "sqlite3 is not installed (apt-get install sqlite3)";
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string db = work + "/run.sqlite";
  const Result exported = radar({"export", "--sqlite", db, "--bytes", rec.dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const Result events = radar({"events", rec.dir});
  const Result count = shell("sqlite3 " + shellQuote(db) + " 'select count(*) from events'");
  EXPECT_EQ(count.out, std::to_string(lines(events.out).size()) + "\n");
  // The reply over the named socket, as the client received it.
  const Result reply = shell("sqlite3 " + shellQuote(db) +
                             " \"select b.data from bytes b join events e using (event) join channels c using "
                             "(channel) where c.name like 'unix socket %' and e.kind = 'receive' and e.bytes > 0 "
                             "and e.process = 1\"");
  EXPECT_EQ(reply.out, std::string(kReply) + "\n");
}

// ---- radar export --perfetto -----------------------------------------------------------------

// Chrome's JSON trace format, read back by Python's json: a slice per
// call, each on a named thread of a named process, a flow per message
// from its send to its receive, the findings as global instants.
TEST(ExportChromeJson, SlicesFlowsAndNamesAgreeWithTheRecording) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string file = work + "/run.json";
  const Result exported = radar({"export", "--chrome-json", file, rec.dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string check = R"py(
import json, sys
d = json.load(open(sys.argv[1]))
assert d["displayTimeUnit"] == "ns"
ev = d["traceEvents"]
names = {(e["pid"], e.get("tid")) for e in ev if e["ph"] == "M"}
slices = [e for e in ev if e["ph"] == "X"]
for e in slices:
    assert (e["pid"], None) in names and (e["pid"], e["tid"]) in names, e
    assert e["dur"] >= 0 and e["ts"] >= 0, e
events = sorted(e["args"]["event"] for e in slices)
assert events == sorted(set(events)), "an event twice"
out = {e["id"]: e["ts"] for e in ev if e["ph"] == "s"}
into = {e["id"]: e["ts"] for e in ev if e["ph"] == "f"}
assert out.keys() == into.keys(), "a flow without its other end"
assert all(out[k] <= into[k] for k in out), "a message received before it was sent"
print(len(slices), len(out), sum(1 for e in ev if e.get("cat") == "finding"), len({e["pid"] for e in slices}))
)py";
  const Result read = shell("python3 -c " + shellQuote(check) + " " + shellQuote(file));
  ASSERT_EQ(read.exit_code, 0) << read.err;
  // As many slices as calls, flows as messages received, instants as
  // findings, processes as pids: what radar sql counts.
  const Result counted = shell(shellQuote(radarPath()) + " sql --format csv " + shellQuote(rec.dir) + " " +
                               shellQuote("select (select count(*) from events where call != 'user'), "
                                          "(select count(*) from messages where receive is not null), "
                                          "(select count(*) from findings), "
                                          "(select count(distinct pid) from processes p where events > 0)"));
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  std::string expected = counted.out.substr(counted.out.find('\n') + 1);
  std::replace(expected.begin(), expected.end(), ',', ' ');
  expected.erase(std::remove(expected.begin(), expected.end(), '\r'), expected.end());
  EXPECT_EQ(read.out, expected);
}

TEST(ExportPerfetto, TracksSlicesAndFlowsAgreeWithTheRecording) {
  const std::string work = testTempDir();
  Recording rec = httpPair(work);
  const std::string file = work + "/run.pftrace";
  const Result exported = radar({"export", "--perfetto", file, rec.dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  radar::test::perfetto::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(slurp(file)));
  ASSERT_GT(trace.packet_size(), 0);
  EXPECT_EQ(trace.packet(0).sequence_flags(), 1u);  // incremental state cleared: events are read
  // Names, categories and argument names are interned by the first packet.
  std::map<uint64_t, std::string> event_names, categories, argument_names;
  for (const auto& n : trace.packet(0).interned_data().event_names()) event_names[n.iid()] = n.name();
  for (const auto& n : trace.packet(0).interned_data().event_categories()) categories[n.iid()] = n.name();
  for (const auto& n : trace.packet(0).interned_data().debug_annotation_names()) argument_names[n.iid()] = n.name();
  std::map<std::string, int> calls;  // slices by name

  using radar::test::perfetto::TrackEvent;
  std::map<uint64_t, int32_t> process_tracks;  // uuid -> pid
  std::map<uint64_t, uint64_t> thread_parent;
  std::set<std::string> names;
  std::map<int32_t, int> slices_per_pid;
  std::map<uint64_t, std::vector<uint64_t>> open;  // per track: begin times not yet ended
  std::multiset<uint64_t> flows_out, flows_in;
  std::map<uint64_t, uint64_t> sent_at, received_at;  // per flow: its instants' times
  int begins = 0, ends = 0, instants = 0;
  std::vector<uint64_t> begin_times;
  for (const auto& p : trace.packet()) {
    EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
    if (p.has_track_descriptor()) {
      const auto& d = p.track_descriptor();
      if (d.has_process()) {
        process_tracks[d.uuid()] = d.process().pid();
        names.insert(d.process().process_name());
      }
      if (d.has_thread()) thread_parent[d.uuid()] = d.parent_uuid();
      continue;
    }
    ASSERT_TRUE(p.has_track_event());
    const auto& e = p.track_event();
    if (e.type() == TrackEvent::TYPE_SLICE_BEGIN) {
      ++begins;
      ASSERT_TRUE(thread_parent.count(e.track_uuid())) << "a slice on a track never described";
      ++slices_per_pid[process_tracks[thread_parent[e.track_uuid()]]];
      open[e.track_uuid()].push_back(p.timestamp());
      begin_times.push_back(p.timestamp());
      EXPECT_EQ(e.flow_ids_size() + e.terminating_flow_ids_size(), 0) << "a flow on a slice, not on an instant";
      EXPECT_EQ(p.sequence_flags(), 2u);  // needs the interned strings
      ASSERT_TRUE(event_names.count(e.name_iid()));
      ++calls[event_names[e.name_iid()]];
      ASSERT_EQ(e.category_iids_size(), 1);
      EXPECT_TRUE(categories.count(e.category_iids(0)));
      std::set<std::string> arguments;
      for (const auto& a : e.debug_annotations()) arguments.insert(argument_names[a.name_iid()]);
      EXPECT_TRUE(arguments.count("event") && arguments.count("radar_number"));
    } else if (e.type() == TrackEvent::TYPE_SLICE_END) {
      ++ends;
      auto& stack = open[e.track_uuid()];
      ASSERT_FALSE(stack.empty()) << "an end without a begin";
      EXPECT_GE(p.timestamp(), stack.back());  // slices nest on their track
      stack.pop_back();
    } else if (e.type() == TrackEvent::TYPE_INSTANT) {
      ++instants;
      if (e.flow_ids_size() + e.terminating_flow_ids_size() == 0) continue;
      // A flow's ends are instants inside the send's and the receive's
      // slices: where the send began, where the receive ended.
      const auto& stack = open[e.track_uuid()];
      ASSERT_FALSE(stack.empty()) << "a message's instant outside its call";
      const bool sent = e.flow_ids_size() > 0;
      EXPECT_EQ(event_names[e.name_iid()], sent ? "message sent" : "message received");
      ASSERT_EQ(e.category_iids_size(), 1);
      EXPECT_EQ(categories[e.category_iids(0)], "message");
      if (sent) {
        EXPECT_EQ(p.timestamp(), stack.back()) << "not where the send began";
      }
      EXPECT_GE(p.timestamp(), stack.back());
      for (uint64_t f : e.flow_ids()) flows_out.insert(f), sent_at[f] = p.timestamp();
      for (uint64_t f : e.terminating_flow_ids()) flows_in.insert(f), received_at[f] = p.timestamp();
    }
  }
  EXPECT_EQ(begins, ends);
  for (const auto& [f, at] : received_at) EXPECT_LE(sent_at[f], at) << "flow " << f << " received before it was sent";
  for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty());
  EXPECT_EQ(calls["accept"], 1);
  EXPECT_EQ(calls["fork"], 1);
  EXPECT_TRUE(names.count("http_pair"));

  // A slice per call: as many as radar stats counts events, process by process.
  const Result stats = radar({"stats", "--json", rec.dir});
  std::map<int32_t, int> events_per_pid;
  const std::regex each(R"re("pid":(\d+),"events":(\d+))re");
  for (auto it = std::sregex_iterator(stats.out.begin(), stats.out.end(), each); it != std::sregex_iterator(); ++it)
    events_per_pid[std::stoi((*it)[1])] += std::stoi((*it)[2]);
  EXPECT_EQ(slices_per_pid, events_per_pid);
  EXPECT_EQ(process_tracks.size(), events_per_pid.size());

  // A flow per message: out of its send, into its receive, and as many as
  // the database has received messages.
  EXPECT_EQ(flows_out, flows_in);
  const Result messages = sql(work + "/cache", shellQuote(rec.dir) +
                                                   " --format csv 'select count(*) from messages where receive is "
                                                   "not null'");
  EXPECT_EQ(messages.out, "count(*)\r\n" + std::to_string(flows_out.size()) + "\r\n");
  EXPECT_GE(flows_out.size(), 6u);

  // Times are the recording's: the slices begin when the calls did.
  const auto rows = lines(radar({"events", "--format", "jsonl", rec.dir}).out);
  ASSERT_EQ(rows.size(), begin_times.size());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(rows[0], m, std::regex(R"re("entry_ns":(\d+))re")));
  EXPECT_EQ(std::to_string(begin_times[0]), m[1].str());
  EXPECT_NE(exported.err.find(std::to_string(begins) + " slices"), std::string::npos) << exported.err;
}

}  // namespace
}  // namespace radar::testing
