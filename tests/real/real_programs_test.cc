// Real programs from Debian, recorded and re-run the way a new user would:
// for each, the program's output and exit status equal a bare run's,
// `radar check` finds nothing, the story keeps every causal relation the
// kernel imposes, per-connection byte totals equal a packet capture of the
// loopback, and every process image re-runs alone as recorded, leaving
// nothing behind. Label `real` (ctest -L real).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "real_check.h"
#include "recorded.h"

namespace radar::testing {
namespace {

std::string radarRecord(const std::string& dir, const std::string& options = "") {
  return shellQuote(radarPath()) + " record " + options + " -o " + shellQuote(dir) + " -- ";
}

// The recording's checks, story and re-runs; `port` > 0: its connections
// against the capture `pcap` ("" when none could be made: `no_capture`
// says why, and the test is then reported skipped).
// `real_findings`: patterns of findings the program really gives (each
// with its reason at the call); any other finding fails.
// `isolated`: its re-runs must not see each other's effects (a server's
// data directory, its shared memory), which only the sandbox ensures:
// where the sandbox cannot be made, they are not made.
void expectTrueRecording(const std::string& dir, const std::string& run_as, const Excuse& excused = {},
                         const std::vector<std::string>& images = {},
                         const std::vector<std::string>& real_findings = {}, bool isolated = false) {
  Result check = radar({"check", dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  std::istringstream lines(check.out);
  std::string line;
  int findings = 0;
  for (int n = 0; std::getline(lines, line); ++n) {
    if (n < 2 || line == "no findings") continue;  // the summary
    if (line.starts_with("not seen: ")) {          // what radar does not record: said, no finding
      std::printf("radar check: %s\n", line.c_str());
      continue;
    }
    ++findings;
    const bool real = std::any_of(real_findings.begin(), real_findings.end(),
                                  [&](const std::string& p) { return std::regex_search(line, std::regex(p)); });
    EXPECT_TRUE(real) << "a finding: " << line << "\n" << check.out;
  }
  if (real_findings.empty()) {
    EXPECT_NE(check.out.find("no findings"), std::string::npos) << check.out;
  }
  std::printf("radar check: %d findings, all of them real\n", findings);

  const auto story = readStory(dir);
  ASSERT_FALSE(story.empty());
  const CausalCheck causal = checkCausalOrder(story);
  for (size_t i = 0; i < causal.violations.size() && i < 10; ++i) ADD_FAILURE() << causal.violations[i];
  std::string counts;
  for (const auto& [relation, n] : causal.checked) counts += relation + ": " + std::to_string(n) + "; ";
  std::printf("causal pairs checked: %s\n", counts.c_str());

  if (isolated && !sandboxAvailable()) {
    std::printf(
        "re-runs not made: the kernel refuses new namespaces here, and without the sandbox each re-run "
        "would change what the next one reads\n");
    return;
  }
  const ReRuns reruns = reRunEveryImage(dir, run_as, excused, images);
  for (const auto& f : reruns.failures) ADD_FAILURE() << "re-run: " << f;
  std::printf(
      "re-runs: %d as recorded, %d with a divergence whose named cause is real, %d with every event as recorded "
      "and files written otherwise for a named cause\n",
      reruns.as_recorded, reruns.excused, reruns.output_explained);
  EXPECT_GT(reruns.as_recorded, 0);
}

void expectBytesAsCaptured(const std::string& dir, const std::string& pcap, int port, const std::string& no_capture) {
  if (!no_capture.empty()) return;
  ConnectionBytes captured, told = storyConnectionBytes(readStory(dir), port);
  std::string error;
  ASSERT_TRUE(captureConnectionBytes(pcap, port, &captured, &error)) << error;
  EXPECT_FALSE(captured.empty());
  EXPECT_EQ(told, captured);
  uint64_t total = 0;
  for (const auto& [ports, bytes] : captured) total += bytes;
  std::printf("%zu connections, %llu bytes: the story and the capture agree on each\n", captured.size(),
              static_cast<unsigned long long>(total));
}

// radar's pcapng of the recording read by tshark (an independent reader):
// the field `field` of every packet `filter` matches, with the connections
// on `port` decoded as `protocol`. It must hold every one of `expected`,
// and, with a capture of the loopback, equal the capture's, as must each
// connection's bytes both ways.
void expectWiresharkReadsTheExport(const std::string& dir, const std::string& work, int port,
                                   const std::string& protocol, const std::string& filter, const std::string& field,
                                   const std::vector<std::string>& expected, const std::string& no_capture) {
  if (!have("tshark")) {
    std::printf("pcapng export not read: tshark is not installed\n");
    return;
  }
  const std::string file = work + "/radar.pcapng";
  const Result exported = radar({"export", "--pcapng", file, dir});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string decode = " -d tcp.port==" + std::to_string(port) + "," + protocol;
  auto fields = [&](const std::string& pcap) {
    const Result r = shell("tshark -r " + shellQuote(pcap) + decode + " -Y " + shellQuote(filter) +
                           " -T fields -E 'aggregator=|' -e " + field + " 2>/dev/null");
    std::vector<std::string> values;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      std::istringstream each(line);
      for (std::string value; std::getline(each, value, '|');) values.push_back(value);
    }
    std::sort(values.begin(), values.end());
    return values;
  };
  const auto told = fields(file);
  for (const auto& e : expected)
    EXPECT_TRUE(std::find(told.begin(), told.end(), e) != told.end()) << "tshark does not find '" << e << "'";
  // Each connection's bytes, both ways, as tshark reassembles them.
  auto streams = [&](const std::string& pcap) {
    const Result r = shell("tshark -r " + shellQuote(pcap) + " -Y " +
                           shellQuote("tcp.port == " + std::to_string(port) + " && tcp.len > 0") +
                           " -T fields -e tcp.srcport -e tcp.dstport -e tcp.payload 2>/dev/null");
    std::map<std::string, std::string> bytes;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      const auto tab = line.rfind('\t');
      bytes[line.substr(0, tab)] += line.substr(tab + 1);
    }
    return bytes;
  };
  const auto radar_streams = streams(file);
  EXPECT_FALSE(radar_streams.empty());
  // No handshake is made up: a connection's packets are its bytes (and
  // the FIN of an end of file a reader saw).
  const Result syns = shell("tshark -r " + shellQuote(file) + " -Y tcp -T fields -e tcp.flags.syn 2>/dev/null");
  EXPECT_FALSE(syns.out.empty()) << "tshark read no TCP packet";
  EXPECT_EQ(syns.out.find('1'), std::string::npos) << "a SYN radar made up";
  std::printf("tshark reads radar's pcapng: %zu values of %s, %zu directions of connections\n", told.size(),
              field.c_str(), radar_streams.size());
  if (!no_capture.empty()) return;
  EXPECT_EQ(told, fields(work + "/lo.pcap"));
  EXPECT_TRUE(radar_streams == streams(work + "/lo.pcap")) << "the connections' bytes differ from the capture's";
}

// A server's session (`session(prefix, output file)`), bare run already in
// work/bare.out, recorded with --nondet while the loopback is captured:
// it must say the same. False (a failure added) when it did not end well.
bool recordLikeBare(const std::function<Result(const std::string&, const std::string&)>& session,
                    const std::string& work, int port, const std::string& dir, std::string* no_capture) {
  Result rec = whileCapturing(work + "/lo.pcap", port, no_capture,
                              [&] { return session(radarRecord(dir, "--nondet"), work + "/rec.out"); });
  EXPECT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(slurp(work + "/rec.out"), slurp(work + "/bare.out"));
  return rec.exit_code == 0;
}

// ---- nginx: a master and two workers serving 40 requests ------------------------------------

TEST(RealPrograms, NginxMasterAndTwoWorkersServeFortyRequests) {
  if (!have("nginx") || !have("curl"))
    GTEST_SKIP() << "nginx or curl is not installed (apt-get install nginx-light curl)";
  const std::string work = testTempDir();
  ::chmod(work.c_str(), 0755);  // the workers run as another user
  const int port = freePort();
  std::filesystem::create_directories(work + "/html");
  for (int i = 0; i < 40; ++i) std::ofstream(work + "/html/page" + std::to_string(i) + ".html") << "page " << i << "\n";
  std::ofstream(work + "/nginx.conf") << "worker_processes 2;\ndaemon off;\npid " << work << "/nginx.pid;\nerror_log "
                                      << work << "/error.log;\n"
                                      << "events { worker_connections 64; }\nhttp {\n  access_log off;\n"
                                      << "  client_body_temp_path " << work << "/body; proxy_temp_path " << work
                                      << "/proxy; fastcgi_temp_path " << work << "/fcgi; uwsgi_temp_path " << work
                                      << "/uwsgi; scgi_temp_path " << work << "/scgi;\n"
                                      << "  server { listen 127.0.0.1:" << port << "; root " << work << "/html; }\n}\n";
  // The same session bare and recorded: start, 40 requests, a graceful stop.
  auto session = [&](const std::string& prefix, const std::string& out) {
    const std::string script = prefix + "nginx -p " + shellQuote(work) + " -c " + shellQuote(work + "/nginx.conf") +
                               " & server=$!\n" +
                               "for i in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:" + std::to_string(port) +
                               "/ && break; sleep 0.05; done\n" +
                               "for i in $(seq 0 39); do curl -s -i http://127.0.0.1:" + std::to_string(port) +
                               "/page$i.html | grep -v '^Date:\\|^Last-Modified:\\|^ETag:'; done > " + shellQuote(out) +
                               "\n" + "kill -QUIT $(cat " + shellQuote(work + "/nginx.pid") +
                               "); wait $server; echo \"nginx: $?\" >> " + shellQuote(out);
    return shell(script);
  };
  Result bare = session("", work + "/bare.out");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const std::string dir = work + "/rec";
  std::string no_capture;
  if (!recordLikeBare(session, work, port, dir, &no_capture)) return;
  EXPECT_NE(slurp(work + "/rec.out").find("page 39"), std::string::npos);
  EXPECT_NE(slurp(work + "/rec.out").find("nginx: 0"), std::string::npos);
  EXPECT_EQ(processImages(dir).size(), 3u);
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  std::vector<std::string> pages;
  for (int i = 0; i < 40; ++i) pages.push_back("/page" + std::to_string(i) + ".html");
  expectWiresharkReadsTheExport(dir, work, port, "http", "http.request", "http.request.uri", pages, no_capture);
  // At its shutdown the master (named by its title, "nginx: master process
  // ...", as ps shows it) tells each worker that another one ended
  // (NGX_CMD_CLOSE_CHANNEL); a worker that is already gone never reads it,
  // and the master holds both ends of the socket pair: nobody receives it.
  expectTrueRecording(
      dir, "", {}, {},
      {R"(^(warning|note): never-received: 1 message \(32 bytes\) sent by nginx: master process nginx\[\d+\] on socketpair \d never )"
       R"(received)"});
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- apache2 prefork: a parent and its workers (as www-data) under ab ---------------------------

TEST(RealPrograms, Apache2PreforkServesCurlAndAb) {
  if (!have("apache2") || !have("ab") || !have("curl") ||
      ::access("/usr/lib/apache2/modules/mod_mpm_prefork.so", R_OK) != 0)
    GTEST_SKIP() << "apache2, ab or curl is not installed (apt-get install apache2-bin apache2-utils curl)";
  const bool root = ::geteuid() == 0;
  if (root && shell("id www-data").exit_code != 0) GTEST_SKIP() << "no www-data user";
  const std::string work = testTempDir();
  ::chmod(work.c_str(), 0755);  // the workers run as another user
  const int port = freePort();
  std::filesystem::create_directories(work + "/html");
  std::filesystem::create_directories(work + "/server");
  for (int i = 0; i < 20; ++i) std::ofstream(work + "/html/page" + std::to_string(i) + ".html") << "page " << i << "\n";
  std::ofstream(work + "/apache.conf") << "ServerRoot " << work << "/server\n"
                                       << "LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so\n"
                                       << "LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so\n"
                                       << "Listen 127.0.0.1:" << port << "\nServerName localhost\nPidFile " << work
                                       << "/apache.pid\n"
                                       << "ErrorLog " << work << "/error.log\nMutex file:" << work
                                       << "/server default\n"
                                       << (root ? "User www-data\nGroup www-data\n" : "")
                                       << "StartServers 2\nMinSpareServers 2\nMaxSpareServers 4\nDocumentRoot " << work
                                       << "/html\n"
                                       << "<Directory " << work << "/html>\n  Require all granted\n</Directory>\n";
  // The same session bare and recorded: start, 20 pages, ab, a stop. The
  // server runs in a session of its own: at its stop it signals its whole
  // process group.
  auto session = [&](const std::string& prefix, const std::string& out) {
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
    const std::string script =
        prefix + "setsid apache2 -f " + shellQuote(work + "/apache.conf") + " -DFOREGROUND & server=$!\n" +
        "for i in $(seq 100); do curl -s -o /dev/null " + url + " && break; sleep 0.05; done\n" +
        "for i in $(seq 0 19); do curl -s -i " + url + "page$i.html | grep -v '^Date:\\|^Last-Modified:\\|^ETag:'; " +
        "done > " + shellQuote(out) + "\n" + "ab -q -n 200 -c 4 " + url +
        "page0.html | grep -E '^(Complete|Failed) requests' >> " + shellQuote(out) + "\n" + "kill -TERM $(cat " +
        shellQuote(work + "/apache.pid") + "); wait $server; echo \"apache2: $?\" >> " + shellQuote(out);
    return shell(script);
  };
  Result bare = session("", work + "/bare.out");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_NE(slurp(work + "/bare.out").find("Complete requests:      200"), std::string::npos)
      << slurp(work + "/bare.out");
  const std::string dir = work + "/rec";
  std::string no_capture;
  if (!recordLikeBare(session, work, port, dir, &no_capture)) return;
  EXPECT_NE(slurp(work + "/rec.out").find("page 19"), std::string::npos);
  EXPECT_NE(slurp(work + "/rec.out").find("Failed requests:        0"), std::string::npos);
  EXPECT_GE(processImages(dir, [](const std::string& p) { return p == "apache2"; }).size(), 3u);
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  std::vector<std::string> pages;
  for (int i = 0; i < 20; ++i) pages.push_back("/page" + std::to_string(i) + ".html");
  expectWiresharkReadsTheExport(dir, work, port, "http", "http.request", "http.request.uri", pages, no_capture);
  // The workers take turns at accept() through the scoreboard in memory
  // the parent shares with them: a worker re-run alone cannot read it, and
  // must say so, truly.
  expectTrueRecording(dir, "", [](const std::string&, const std::string& report) {
    return report.find("probable cause, an input radar does not record: memory this process shares with others") !=
           std::string::npos;
  });
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- dnsmasq: names answered to dig over UDP and TCP -----------------------------------------

// dnsmasq drops root for nobody, learns the machine's interfaces through
// netlink and ioctl(SIOCGIF*) (which the re-run's own network does not
// have: answered from the recording), and answers from a hosts file.
TEST(RealPrograms, DnsmasqAnswersDigOverUdpAndTcp) {
  if (!have("dnsmasq") || !have("dig"))
    GTEST_SKIP() << "dnsmasq or dig is not installed (apt-get install dnsmasq-base bind9-dnsutils)";
  if (::geteuid() != 0) GTEST_SKIP() << "dnsmasq drops root to nobody: run as root";
  const std::string work = testTempDir();
  ::chmod(work.c_str(), 0755);  // read as nobody
  const int port = freePort();
  std::ofstream(work + "/hosts") << "10.1.2.3 alpha.test\n10.1.2.4 beta.test\n10.1.2.5 gamma.test\n";
  ::chmod((work + "/hosts").c_str(), 0644);
  const std::string at = "@127.0.0.1 -p " + std::to_string(port) + " ";
  auto session = [&](const std::string& prefix, const std::string& out) {
    const std::string script = prefix + "dnsmasq --no-daemon --port=" + std::to_string(port) +
                               " --listen-address=127.0.0.1 --bind-interfaces --no-resolv --no-hosts --addn-hosts=" +
                               shellQuote(work + "/hosts") + " --user=nobody --pid-file= --log-facility=- 2> " +
                               shellQuote(work + "/dnsmasq.err") + " & server=$!\n" +
                               "for i in $(seq 100); do dig +short +time=1 +tries=1 " + at +
                               "alpha.test | grep -q . && break; sleep 0.05; done\n" +
                               "for n in alpha beta gamma nothere; do dig +short " + at + "$n.test; dig +short +tcp " +
                               at + "$n.test; done > " + shellQuote(out) + "\n" +
                               "kill -TERM $server; wait $server; echo \"dnsmasq: $?\" >> " + shellQuote(out);
    return shell(script);
  };
  Result bare = session("", work + "/bare.out");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_NE(slurp(work + "/bare.out").find("10.1.2.5\n10.1.2.5\n"), std::string::npos) << slurp(work + "/bare.out");
  const std::string dir = work + "/rec";
  std::string no_capture;
  if (!recordLikeBare(session, work, port, dir, &no_capture)) return;
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  expectTrueRecording(dir, "");
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- Node's cluster module: a primary and two workers under curl -------------------------------

const char kNodeCluster[] = R"js(const cluster = require('cluster');
const http = require('http');
const port = +process.argv[2];
if (cluster.isPrimary) {
  for (let i = 0; i < 2; i++) cluster.fork();
  process.on('SIGTERM', () => { for (const id in cluster.workers) cluster.workers[id].kill(); });
} else {
  http.createServer((req, res) => res.end('hello ' + req.url + '\n')).listen(port);
}
)js";

// The primary accepts each connection and hands it to a worker over their
// IPC socket pair (libuv, SCM_RIGHTS); the workers answer 40 curl requests.
TEST(RealPrograms, NodeClusterOfTwoWorkersServesCurl) {
  if (!have("node") || !have("curl")) GTEST_SKIP() << "node or curl is not installed (apt-get install nodejs curl)";
  const std::string work = testTempDir();
  std::ofstream(work + "/cluster.js") << kNodeCluster;
  const int port = freePort();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  auto session = [&](const std::string& prefix) {
    return shell(prefix + "sh -c " +
                 shellQuote("node " + work + "/cluster.js " + std::to_string(port) + " & n=$!\n" +
                            "for i in $(seq 100); do curl -s -o /dev/null " + url + " && break; sleep 0.1; done\n" +
                            "for i in $(seq 40); do curl -s " + url + "page$i; done\n" + "kill -TERM $n; wait $n"));
  };
  Result bare = session("");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_NE(bare.out.find("hello /page40"), std::string::npos) << bare.out;
  const std::string dir = work + "/rec";
  std::string no_capture;
  Result rec = whileCapturing(work + "/lo.pcap", port, &no_capture, [&] { return session(radarRecord(dir)); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  // Real: libuv's signal lock is a pipe holding one byte (a token), left
  // in it when the process ends or execs; the primary stops its workers
  // with SIGTERM. Re-run: the shell's and curl's images, and the primary's
  // forked children up to their exec (libuv's fork handler makes the signal
  // lock anew in each); Node's running images do not re-run faithfully
  // without --sync (libuv's threads meet in memory, in another order). The
  // story and the bytes are checked whole.
  auto rerun = processImages(dir, [](const std::string& program) { return program != "node"; });
  ASSERT_FALSE(rerun.empty());
  size_t forked = 0;
  for (const std::string& image : processImages(dir, [](const std::string& program) { return program == "node"; })) {
    if (!image.ends_with(".0")) continue;
    rerun.push_back(image);
    ++forked;
  }
  EXPECT_EQ(forked, 2u);
  expectTrueRecording(
      dir, "", {}, rerun,
      {R"(^(warning|note): never-received: 1 message \(1 byte\) sent by cluster\.js\[[\d.]+\] on pipe \d+ never received)",
       R"(^note: abnormal-end: cluster\.js\[[\d.]+\] was killed by signal 15 \(Terminated\))"});
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- a 200-process shell pipeline --------------------------------------------------------------

TEST(RealPrograms, ShellPipelineOfTwoHundredProcesses) {
  std::string pipeline = "seq 1 20000";
  for (int i = 0; i < 198; ++i) pipeline += i % 2 ? " | cat" : " | tr 0-9 0-9";
  pipeline += " | md5sum";
  const std::string work = testTempDir();
  Result bare = shell("sh -c " + shellQuote(pipeline));
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const std::string dir = work + "/rec";
  Result rec = shell(radarRecord(dir) + "sh -c " + shellQuote(pipeline));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  EXPECT_EQ(processImages(dir).size(), 401u);  // sh, and 200 children forked by it that exec
  expectTrueRecording(dir, "");
}

// ---- make -j2 of 20 small C files --------------------------------------------------------------

TEST(RealPrograms, MakeWithTwoJobsBuildsTwentyFiles) {
  if (!have("make") || !have("cc")) GTEST_SKIP() << "make or cc is not installed (apt-get install build-essential)";
  const std::string work = testTempDir();
  auto project = [&](const std::string& at) {
    std::filesystem::create_directories(at);
    std::string objects, declarations, sum;
    for (int i = 1; i <= 20; ++i) {
      std::ofstream(at + "/f" + std::to_string(i) + ".c") << "int f" << i << "(void) { return " << i * i << "; }\n";
      objects += " f" + std::to_string(i) + ".o";
      declarations += "int f" + std::to_string(i) + "(void);\n";
      sum += " + f" + std::to_string(i) + "()";
    }
    std::ofstream(at + "/main.c") << "#include <stdio.h>\n"
                                  << declarations << "int main(void) { printf(\"%d\\n\", 0" << sum
                                  << "); return 0; }\n";
    // -pipe: the compiler's stages talk through pipes, which are recorded.
    std::ofstream(at + "/Makefile") << "CFLAGS = -O1 -pipe\nsum: main.o" << objects << "\n\t$(CC) -o $@ $^\n";
  };
  project(work + "/bare");
  project(work + "/recorded");
  Result bare = shell("cd " + shellQuote(work + "/bare") + " && make -j2 && ./sum");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const std::string dir = work + "/rec";
  Result rec = shell("cd " + shellQuote(work + "/recorded") + " && " + radarRecord(dir) + "make -j2 && ./sum");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  auto sorted = [](const std::string& s) {
    std::vector<std::string> lines;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  EXPECT_EQ(sorted(rec.out), sorted(bare.out));  // -j2: the order of make's lines may differ
  EXPECT_NE(rec.out.find("2870\n"), std::string::npos) << rec.out;
  // make's decisions come from the files' times: it re-runs from the state
  // it started in (no objects yet); the compilers and the linker, from the
  // state they left (their inputs there).
  const auto make_images = processImages(dir, [](const std::string& p) { return p == "make"; });
  const auto tool_images = processImages(dir, [](const std::string& p) { return p != "make"; });
  ASSERT_EQ(make_images.size(), 1u);
  expectTrueRecording(dir, "", {}, tool_images);
  shell("cd " + shellQuote(work + "/recorded") + " && rm -f *.o sum");
  const ReRuns make = reRunEveryImage(dir, "", {}, make_images);
  for (const auto& f : make.failures) ADD_FAILURE() << "re-run: " << f;
  EXPECT_EQ(make.as_recorded, 1);
}

// ---- Python: an asyncio server and its clients ------------------------------------------------

const char kAsyncioServer[] = R"py(import asyncio, sys

async def main(port, clients):
    done = asyncio.Event()
    served = 0

    async def serve(reader, writer):
        nonlocal served
        while line := await reader.readline():
            writer.write(line.upper())
            await writer.drain()
        writer.close()
        await writer.wait_closed()
        served += 1
        if served == clients:
            done.set()

    server = await asyncio.start_server(serve, "127.0.0.1", port)
    async with server:
        await done.wait()
    print(f"served {served} clients")

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
)py";

const char kAsyncioClient[] = R"py(import asyncio, sys

async def main(port, me):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i in range(5):
        writer.write(f"client {me} line {i}\n".encode())
        await writer.drain()
        print((await reader.readline()).decode(), end="")
    writer.close()
    await writer.wait_closed()

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
)py";

std::vector<std::string> sortedLines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(RealPrograms, PythonAsyncioServerWithFourClients) {
  const std::string python = "/usr/bin/python3";
  if (::access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  const std::string work = testTempDir();
  std::ofstream(work + "/server.py") << kAsyncioServer;
  std::ofstream(work + "/client.py") << kAsyncioClient;
  const int port = freePort();
  const std::string p = std::to_string(port);
  // Server and clients in one recording: both sides of every connection.
  const std::string session =
      "sh -c " +
      shellQuote(python + " " + work + "/server.py " + p + " 5 & server=$!\n" +  // the readiness probe is one
                 "until " + python + " -c 'import socket; socket.create_connection((\"127.0.0.1\", " + p +
                 ")).close()' 2>/dev/null; do sleep 0.05; done\n" + "for i in 1 2 3 4; do " + python + " " + work +
                 "/client.py " + p + " $i & done; wait");
  Result bare = shell(session);
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const std::string dir = work + "/rec";
  std::string no_capture;
  Result rec = whileCapturing(work + "/lo.pcap", port, &no_capture, [&] { return shell(radarRecord(dir) + session); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(sortedLines(rec.out), sortedLines(bare.out));
  EXPECT_NE(rec.out.find("served 5 clients"), std::string::npos) << rec.out;
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  expectTrueRecording(dir, "");
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- Python: multiprocessing Pool with a Manager -----------------------------------------------

// The pool's threads (task and result handlers) and the manager's server
// threads pass messages to each other through pipes and sockets of their
// own process: the story must still tell every send before its receive.
TEST(RealPrograms, PythonMultiprocessingPoolWithAManager) {
  const std::string python = "/usr/bin/python3";
  if (::access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "python3 is not installed";
  const std::string work = testTempDir();
  std::filesystem::copy_file(RADAR_POOL_PROGRAM, work + "/pool.py");  // tests/threads/programs/pool.py
  Result bare = shell(python + " " + work + "/pool.py");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const std::string dir = work + "/rec";
  // --nondet: the manager's connections authenticate with random keys.
  Result rec = shell(radarRecord(dir, "--nondet") + python + " " + work + "/pool.py");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  EXPECT_NE(rec.out.find("(19, 361)"), std::string::npos) << rec.out;
  Result check = radar({"check", "--json", dir});
  EXPECT_NE(check.out.find("\"placed_by_time\":0,"), std::string::npos) << check.out;
  // Really never received: closing the pool puts a sentinel (8 bytes: a
  // length, pickled None) on its queues for every worker, more than the
  // workers read before they end, and wakes its worker handler with one
  // on a pipe of its own whenever its cache empties, read only as far as
  // the handler looked before it ended (so 1 to a few, by timing); the
  // manager answers a shutdown twice (Server.shutdown() sends ('#RETURN',
  // None), and so does the request's handler), and the client reads one
  // answer and closes. And on a busy
  // machine the manager may really be killed: its shutdown waits a second
  // for it to end, then sends it SIGTERM (BaseManager._finalize_manager).
  std::vector<std::string> real_findings = {
      R"(abnormal-end: pool\.py\[\d+\] was killed by signal 15 \(Terminated\))",
      R"(never-received: 1 message \(29 bytes\) sent by pool\.py\[\d+\] on unix socket /tmp/pymp-\S+/listener-\S+ ← pool\.py\[\d+\] \(\d+\) never received)"};
  // A thread of the manager answering when its process ends (exits, or
  // is killed as above) after the kernel moved the answer but before the
  // thread recorded its write: its slot says so, and the answer's receive
  // is a note naming that write.
  real_findings.push_back(
      R"(note: no-sender: \d+ receives? on unix socket /tmp/pymp-\S+/listener-\S+ ← pool\.py\[\d+\] \(\d+\) got )"
      R"(bytes no recorded process sent \(\d+ bytes\): pool\.py\[\d+\] was in (write|send)\(\) on it when its log ended)");
  for (int n = 1; n <= 8; ++n)  // sentinels, 8 bytes each
    real_findings.push_back("never-received: " + std::to_string(n) + (n == 1 ? " message \\(" : " messages \\(") +
                            std::to_string(8 * n) + R"( bytes\) sent by pool\.py\[\d+\] on pipe \d+ never received)");
  // The manager's re-run can leave the recording for two inputs radar does
  // not record (docs/debugging-one-process.md): its server threads look
  // at each other's state between calls (another thread schedule, said
  // with the other thread's event, or with the descriptor number another
  // thread holds longer than it did then, or a thread it let go out of its
  // recorded order), and it names the objects it shares by
  // their address (id(), in hexadecimal): the re-run has the recorded
  // memory layout, but threads that allocate in another order (Python
  // switches threads on a timer) get other addresses, which differ in
  // their last hexadecimal digits. And any
  // process of the pool may take another way where it looks at the
  // semaphores of its locks and queues, which live in memory the
  // processes share (/dev/shm/sem.*): that is the cause the re-run names.
  const std::regex other_schedule(
      R"(where the recording has: Process pool\.py\[\d+\] \(thread \d+\)|another thread of the re-run holds it|)"
      R"(probable cause, another order of threads: )");
  const std::regex other_address(R"(recorded: ((3[0-9]|6[1-6]) )+.*\n  re-run:   ((3[0-9]|6[1-6]) )+)");
  const std::regex semaphores(
      R"(probable cause, an input radar does not record: memory this process shares with others \(/dev/shm/sem\.)");
  // A manager killed is real only when the story has its killer.
  const std::string findings = radar({"check", dir}).out;
  std::smatch killed;
  if (std::regex_search(findings, killed, std::regex(R"(abnormal-end: (pool\.py\[\d+\]) was killed by signal 15)"))) {
    const std::string story = radar({"events", dir}).out;
    EXPECT_TRUE(
        std::regex_search(story, std::regex(R"(pool\.py\[\d+\] sends signal 15 \(SIGTERM\) to )" +
                                            std::regex_replace(killed[1].str(), std::regex(R"([\[\].])"), R"(\$&)"))))
        << findings;
  }
  expectTrueRecording(
      dir, "",
      [&](const std::string&, const std::string& report) {
        return (std::regex_search(report, other_schedule) || std::regex_search(report, other_address) ||
                std::regex_search(report, semaphores)) &&
               report.find("without --nondet") == std::string::npos;
      },
      {}, real_findings);
}

// ---- PostgreSQL: initdb, a server, psql inserting and selecting 1 000 rows ----------------------

std::string postgresBin() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec))
    if (::access((e.path() / "bin/postgres").c_str(), X_OK) == 0) return (e.path() / "bin").string();
  return "";
}

TEST(RealPrograms, PostgresqlServesPsqlInsertingAndSelectingAThousandRows) {
  const std::string bin = postgresBin();
  if (bin.empty() || !have("psql")) GTEST_SKIP() << "PostgreSQL is not installed (apt-get install postgresql)";
  // PostgreSQL refuses to run as root: as root, the session runs as postgres.
  const bool root = ::geteuid() == 0;
  if (root && shell("id postgres").exit_code != 0) GTEST_SKIP() << "no postgres user";
  const std::string as = root ? "runuser -u postgres -- " : "";
  const std::string work = testTempDir();
  if (root) shell("chown postgres " + shellQuote(work));
  Result init = shell(as + bin + "/initdb -A trust -D " + shellQuote(work + "/pristine") + " >/dev/null");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  const int port = freePort();
  const std::string p = std::to_string(port);
  auto session = [&](const std::string& data, const std::string& record) {
    const std::string script =
        bin + "/postgres -D " + data + " -k " + work + " -p " + p + " -c listen_addresses=127.0.0.1 >" + data +
        ".log 2>&1 &\n" + "until " + bin + "/pg_isready -q -h 127.0.0.1 -p " + p + "; do sleep 0.1; done\n" +
        "psql -X -q -h 127.0.0.1 -p " + p + " -d postgres -v ON_ERROR_STOP=1 -c 'create table t (x int)' " +
        "-c 'insert into t select generate_series(1, 1000)' -c 'select count(*), sum(x) from t'\n" + bin +
        "/pg_ctl -D " + data + " stop -m fast -w >/dev/null\nwait";
    shell(as + "cp -a " + shellQuote(work + "/pristine") + " " + shellQuote(data));
    return shell("cd " + shellQuote(work) + " && " + as + record + "sh -c " + shellQuote(script));
  };
  Result bare = session(work + "/bare", "");
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_NE(bare.out.find("1000 | 500500"), std::string::npos) << bare.out;
  const std::string dir = work + "/rec";
  std::string no_capture;
  Result rec = whileCapturing(work + "/lo.pcap", port, &no_capture,
                              [&] { return session(work + "/recorded", radarRecord(dir)); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  expectWiresharkReadsTheExport(
      dir, work, port, "pgsql", "pgsql.query", "pgsql.query",
      {"create table t (x int)", "insert into t select generate_series(1, 1000)", "select count(*), sum(x) from t"},
      no_capture);
  // A backend, the autovacuum launcher and the logical replication
  // launcher read what other processes wrote in shared memory (the
  // databases, the latches that wake them), and pg_ctl reads the server's
  // pid from postmaster.pid, gone once the server stopped: a process
  // re-run alone cannot have them, and must say so, truly.
  expectTrueRecording(
      dir, as,
      [](const std::string&, const std::string& report) {
        if (report.find("probable cause, an input radar does not record: memory this process shares with others") !=
            std::string::npos)
          return true;
        std::smatch m;
        if (!std::regex_search(report, m,
                               std::regex(R"(probable cause, files it looked for are not there now \(([^)]*)\))")))
          return false;
        std::istringstream paths(m[1].str());
        for (std::string path; std::getline(paths, path, ',');) {
          if (path.front() == ' ') path.erase(0, 1);
          if (::access(path.c_str(), F_OK) == 0) return false;  // it is there: not the cause
        }
        return true;
      },
      {}, {}, true);
  // At its stop the postmaster signals its children with kill(): each
  // delivery is told after the kill() that sent it.
  EXPECT_GT(checkCausalOrder(readStory(dir)).checked["kill -> signal"], 0);
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- Go: a TCP server (Go makes its own system calls) and a C client ---------------------------

const char kGoServer[] = R"go(package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

func main() {
	clients, _ := strconv.Atoi(os.Args[2])
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for i := 0; i < clients; i++ {
		c, err := l.Accept()
		if err != nil {
			os.Exit(1)
		}
		in := bufio.NewScanner(c)
		for in.Scan() {
			fmt.Fprintln(c, strings.ToUpper(in.Text()))
		}
		c.Close()
	}
	fmt.Printf("served %d clients\n", clients)
}
)go";

const char kCClient[] = R"c(#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char** argv) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1]))};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  while (connect(s, (struct sockaddr*)&a, sizeof a) != 0) {
    close(s);
    usleep(20000);
    s = socket(AF_INET, SOCK_STREAM, 0);
  }
  char line[64], reply[64];
  for (int i = 0; i < 3; ++i) {
    int n = snprintf(line, sizeof line, "client %s line %d\n", argv[2], i);
    if (write(s, line, n) != n) return 1;
    int got = 0;
    while (got < n) {
      int r = read(s, reply + got, sizeof reply - got);
      if (r <= 0) return 1;
      got += r;
    }
    fwrite(reply, 1, got, stdout);
  }
  shutdown(s, SHUT_WR);
  char end;
  return read(s, &end, 1) == 0 ? 0 : 1;
}
)c";

// The Go server and the C client, built in `work`.
Result buildGoServerAndClient(const std::string& work) {
  std::ofstream(work + "/server.go") << kGoServer;
  std::ofstream(work + "/client.c") << kCClient;
  return shell("cd " + shellQuote(work) + " && HOME=" + shellQuote(work) + " GOCACHE=" + shellQuote(work + "/gocache") +
               " GOFLAGS=-mod=mod GO111MODULE=off go build -o server server.go && cc -O1 -o client client.c");
}

TEST(RealPrograms, GoServerTalksTcpToCClients) {
  if (!have("go") || !have("cc")) GTEST_SKIP() << "Go or cc is not installed (apt-get install golang-go gcc)";
  const std::string work = testTempDir();
  const Result built = buildGoServerAndClient(work);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const int port = freePort();
  const std::string p = std::to_string(port);
  const std::string session =
      "timeout 120 sh -c " +
      shellQuote("cd " + work + "; ./server " + p + " 3 & for i in 1 2 3; do ./client " + p + " $i; done; wait");
  Result bare = shell(session);
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  const std::string dir = work + "/rec";
  std::string no_capture;
  Result rec = whileCapturing(work + "/lo.pcap", port, &no_capture,
                              [&] { return shell(radarRecord(dir, "--fallback off") + session); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(sortedLines(rec.out), sortedLines(bare.out));  // the server's last line races the last client's
  EXPECT_NE(rec.out.find("served 3 clients"), std::string::npos) << rec.out;
  // With the fallback recorder off: reported by name, with why; its peers'
  // bytes went to it and came from it, not lost.
  EXPECT_NE(rec.err.find("/server: not recorded: a Go program (it makes its own system calls)"), std::string::npos)
      << rec.err;
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  expectTrueRecording(dir, "", {}, {}, {R"(^warning: not-recorded: .*/server: not recorded: a Go program)"});
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// The same Go server run by radar record itself: the fallback recorder
// records it from outside (the interposer sees nothing of a Go program),
// every byte of its connections as the capture saw them; radar debug says
// why it cannot re-run it.
TEST(RealPrograms, GoServerRecordedByTheFallbackAsTheCaptureSawIt) {
  if (!have("go") || !have("cc")) GTEST_SKIP() << "Go or cc is not installed (apt-get install golang-go gcc)";
  const std::string work = testTempDir();
  const Result built = buildGoServerAndClient(work);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const int port = freePort();
  const std::string p = std::to_string(port), dir = work + "/rec";
  const std::string session =
      "timeout 120 sh -c " +
      shellQuote("cd " + work + "; " + radarRecord(dir) + "./server " + p +
                 " 3 > server.out 2> record.err & for i in 1 2 3; do ./client " + p + " $i; done; wait");
  std::string no_capture;
  Result rec = whileCapturing(work + "/lo.pcap", port, &no_capture, [&] { return shell(session); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out,
            "CLIENT 1 LINE 0\nCLIENT 1 LINE 1\nCLIENT 1 LINE 2\nCLIENT 2 LINE 0\nCLIENT 2 LINE 1\nCLIENT 2 LINE "
            "2\nCLIENT 3 LINE 0\nCLIENT 3 LINE 1\nCLIENT 3 LINE 2\n");
  EXPECT_EQ(slurp(work + "/server.out"), "served 3 clients\n");
  const std::string said = slurp(work + "/record.err");
  EXPECT_EQ(said.find("not recorded"), std::string::npos) << said;
  const Result dumped = shell(shellQuote(radarPath()) + " dump " + shellQuote(dir) + "/*.rlog");
  EXPECT_NE(dumped.out.find("recorded by the fallback recorder (ptrace)"), std::string::npos) << dumped.out;
  const Result check = radar({"check", dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  const Result rerun = shell(radarDebug() + " " + shellQuote(dir) + " server --no-gdb --yes");
  EXPECT_NE(rerun.exit_code, 0);
  EXPECT_NE(rerun.err.find("was recorded by the fallback recorder (ptrace)"), std::string::npos) << rerun.err;
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// The Go server started by a shell radar record runs, beside its C
// clients: the shell's child asks radar record to trace it through its
// exec, so both ends of every connection are recorded (the server by the
// fallback, the clients by the interposer) and every byte is matched.
TEST(RealPrograms, GoServerAShellStartsIsRecordedWithItsClients) {
  if (!have("go") || !have("cc")) GTEST_SKIP() << "Go or cc is not installed (apt-get install golang-go gcc)";
  const std::string work = testTempDir();
  const Result built = buildGoServerAndClient(work);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const std::string p = std::to_string(freePort()), dir = work + "/rec";
  const std::string line =
      "cd " + work + "; ./server " + p + " 3 > server.out & for i in 1 2 3; do ./client " + p + " $i; done; wait";
  const Result rec = shell("timeout 120 " + radarRecord(dir) + "sh -c " + shellQuote(line));
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out,
            "CLIENT 1 LINE 0\nCLIENT 1 LINE 1\nCLIENT 1 LINE 2\nCLIENT 2 LINE 0\nCLIENT 2 LINE 1\nCLIENT 2 LINE "
            "2\nCLIENT 3 LINE 0\nCLIENT 3 LINE 1\nCLIENT 3 LINE 2\n");
  EXPECT_EQ(slurp(work + "/server.out"), "served 3 clients\n");
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const Result told = radar({"events", dir});
  EXPECT_GE(occurrences(told.out, "Process client["), 3u) << told.out;
  EXPECT_NE(told.out.find("Process server["), std::string::npos) << told.out;
  const Result check = radar({"check", dir});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find(" 0 from outside the recording, 0 with no recorded sender"), std::string::npos) << check.out;
}

// ---- redis under redis-benchmark -n 5000 -c 4 -------------------------------------------------

// A redis server on `port`, the benchmark's 4 clients (`requests` of SET
// and GET), redis-cli's dbsize (and `then`, a command, if given), and the
// server's shutdown: one shell line, recorded or not.
std::string redisSession(const std::string& work, const std::string& port, int requests, const std::string& then) {
  const std::string cli = "redis-cli -p " + port;
  return "timeout 300 sh -c " +
         shellQuote("cd " + work + "; redis-server --port " + port +
                    " --bind 127.0.0.1 --save '' --appendonly no --daemonize no --logfile '' >/dev/null & " + "until " +
                    cli + " ping >/dev/null 2>&1; do sleep 0.05; done; redis-benchmark -p " + port + " -n " +
                    std::to_string(requests) + " -c 4 -t set,get -q >/dev/null && " + cli + " dbsize && " +
                    (then.empty() ? "" : cli + then + " && ") + cli + " shutdown nosave; wait");
}

TEST(RealPrograms, RedisUnderRedisBenchmark) {
  if (!have("redis-server") || !have("redis-benchmark") || !have("redis-cli"))
    GTEST_SKIP() << "redis is not installed (apt-get install redis-server redis-tools)";
  const std::string work = testTempDir();
  const int port = freePort();
  const std::string p = std::to_string(port);
  // The server, the benchmark's 4 clients and redis-cli in one recording.
  const std::string session = redisSession(work, p, 5000, " strlen key:__rand_int__");
  Result bare = shell(session);
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_EQ(bare.out, "1\n3\n") << bare.out;
  const std::string dir = work + "/rec";
  std::string no_capture;
  Result rec = whileCapturing(work + "/lo.pcap", port, &no_capture, [&] { return shell(radarRecord(dir) + session); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  expectBytesAsCaptured(dir, work + "/lo.pcap", port, no_capture);
  // tshark gives RESP's strings as hex.
  std::vector<std::string> commands;
  for (const std::string command : {"ping", "SET", "GET", "dbsize", "strlen", "shutdown"}) {
    std::string hex;
    for (unsigned char c : command) hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
    commands.push_back(hex);
  }
  expectWiresharkReadsTheExport(dir, work, port, "resp", "resp", "resp.bulk_string.value", commands, no_capture);
  expectTrueRecording(dir, "");
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

// ---- redis under a flight recorder: the last quarter megabyte, frozen while it runs ----------

// The largest disk space a log of `dir` takes.
uint64_t largestLogOnDisk(const std::string& dir) {
  uint64_t largest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    struct stat st {};
    if (entry.path().extension() == ".rlog" && ::stat(entry.path().c_str(), &st) == 0)
      largest = std::max<uint64_t>(largest, static_cast<uint64_t>(st.st_blocks) * 512);
  }
  return largest;
}

// A freeze, or a flight recording's end, as any recording: no damage, every
// byte either matched or outside the window, nothing blamed on a process
// for what the window left out; and its last second's messages there,
// matched.
void expectWholeWindow(const std::string& dir) {
  const Result check = radar({"check", dir, "--json"});
  EXPECT_NE(check.out.find("\"problems\":[],"), std::string::npos) << dir << ": " << check.out;
  EXPECT_NE(check.out.find("\"bytes_unmatched\":0,"), std::string::npos) << dir << ": " << check.out;
  EXPECT_EQ(occurrences(check.out, "no-sender") + occurrences(check.out, "never-received"), 0u) << check.out;
  const Result reads = radar({"events", dir, "--json", "--kind", "receive"});
  std::vector<std::string> lines;  // the server's requests (its title names its address)
  std::istringstream in(reads.out);
  for (std::string line; std::getline(in, line);)
    if (line.find("\"process\":\"redis-server") != std::string::npos && line.find("\"bytes\":0,") == std::string::npos)
      lines.push_back(line);
  ASSERT_GT(lines.size(), 100u) << dir;
  // The last requests before the end (the last 100 ms aside: a request on
  // its way when the freeze came), each from a recorded client.
  for (size_t k = lines.size() - 100; k + 20 < lines.size(); ++k)
    EXPECT_NE(lines[k].find("\"from\":[\"redis-benchmark["), std::string::npos) << dir << ": " << lines[k];
}

TEST(RealPrograms, RedisUnderAFlightRecorderIsFrozenWhileItRuns) {
  if (!have("redis-server") || !have("redis-benchmark") || !have("redis-cli"))
    GTEST_SKIP() << "redis is not installed (apt-get install redis-server redis-tools)";
  const std::string work = testTempDir();
  const int port = freePort();
  const std::string p = std::to_string(port);
  const std::string session = redisSession(work, p, 200000, "");
  const std::string dir = work + "/flight";
  Result rec;
  std::thread recording([&] { rec = shell(radarRecord(dir, "--flight 256K") + session); });
  // A freeze while the benchmark runs.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const Result dumped = radar({"dump-flight", dir});
  recording.join();
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, "1\n");  // the program saw what it sees unrecorded
  ASSERT_EQ(dumped.exit_code, 0) << dumped.err;
  EXPECT_EQ(dumped.out, dir + "/flight-1\n");
  expectWholeWindow(dir + "/flight-1");
  expectWholeWindow(dir);
  // Each log kept its quarter megabyte, its tail and what a trim gives
  // back at the next, of the megabytes the run wrote.
  EXPECT_LE(largestLogOnDisk(dir), uint64_t{1} << 20);
  const Result whole = radar({"events", dir, "--json", "--kind", "receive"});
  EXPECT_LT(occurrences(whole.out, "\"process\":\"redis-server"), 60000u) << "nothing was dropped";
}

// ---- memcached: four worker threads under memcslap, re-run in their recorded order ----------

// memcached's threads meet through locks (its LRU, slab and statistics
// threads, the listener handing connections to the workers): recorded with
// --sync (and --nondet: its clock thread's time decides what the LRU
// thread moves), every process re-runs as recorded.
TEST(RealPrograms, MemcachedFourThreadsUnderMemcslapReRunAsRecorded) {
  if (!have("memcached") || !have("memcslap") || !have("memcping"))
    GTEST_SKIP() << "memcached or its tools are not installed (apt-get install memcached libmemcached-tools)";
  const std::string work = testTempDir();
  const std::string server = "127.0.0.1:" + std::to_string(freePort());
  const std::string port = server.substr(server.find(':') + 1);
  const std::string session =
      "timeout 300 sh -c " +
      shellQuote("memcached $([ $(id -u) = 0 ] && echo -u root) -t 4 -l 127.0.0.1 -U 0 -p " + port + " & m=$!; " +
                 "until memcping --servers=" + server + " >/dev/null 2>&1; do sleep 0.05; done; " +
                 "memcslap --servers=" + server + " --concurrency=4 --execute-number=500 --binary >/dev/null && " +
                 "echo memcslap: ok; kill $m; wait $m; echo memcached: $?");
  const Result bare = shell(session);
  ASSERT_EQ(bare.exit_code, 0) << bare.err;
  ASSERT_EQ(bare.out, "memcslap: ok\nmemcached: 0\n");
  const std::string dir = work + "/rec";
  std::string no_capture;
  const Result rec = whileCapturing(work + "/lo.pcap", std::stoi(port), &no_capture,
                                    [&] { return shell(radarRecord(dir, "--sync --nondet") + session); });
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.out, bare.out);
  expectBytesAsCaptured(dir, work + "/lo.pcap", std::stoi(port), no_capture);
  // memcslap's threads close their connections without reading the last
  // answer (24 bytes, a binary header) to what they sent last.
  expectTrueRecording(
      dir, "", {}, {},
      {R"(^warning: never-received: 1 message \(24 bytes\) sent by memcached\[\d+\] on tcp .* never received)"});
  // Thread timing differs from one re-run to the next: the server, nine
  // times more.
  for (int run = 2; run <= 10; ++run) {
    const Result again = radar({"debug", dir, "memcached", "--no-gdb", "--yes"});
    EXPECT_EQ(again.exit_code, 0) << "re-run " << run << ": " << again.err;
    EXPECT_NE(again.err.find("exits with status 0, as recorded"), std::string::npos) << again.err;
  }
  if (!no_capture.empty()) GTEST_SKIP() << "no packet capture: " << no_capture;
}

}  // namespace
}  // namespace radar::testing
