#include "real_check.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "recorded.h"

namespace radar::testing {
namespace {

bool number(const std::string& line, const char* field, int64_t* out) {
  const std::string key = std::string("\"") + field + "\":";
  const size_t at = line.find(key);
  if (at == std::string::npos) return false;
  *out = std::strtoll(line.c_str() + at + key.size(), nullptr, 10);
  return true;
}

std::string text(const std::string& line, const char* field) {
  const std::string key = std::string("\"") + field + "\":\"";
  const size_t at = line.find(key);
  if (at == std::string::npos) return "";
  std::string out;
  for (size_t i = at + key.size(); i < line.size() && line[i] != '"'; ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) ++i;
    out.push_back(line[i]);
  }
  return out;
}

// The two ports of "tcp 127.0.0.1:A - 127.0.0.1:B" (or of other IPv4
// addresses: hosts), smaller first; {0,0} for another channel.
std::pair<int, int> tcpPorts(const std::string& channel) {
  static const std::regex re(R"(^tcp [0-9.]+:(\d+) - [0-9.]+:(\d+)$)");
  std::smatch m;
  if (!std::regex_match(channel, m, re)) return {0, 0};
  const int a = std::stoi(m[1]), b = std::stoi(m[2]);
  return {std::min(a, b), std::max(a, b)};
}

std::string describe(const StoryEvent& e) {
  return e.kind + " by pid " + std::to_string(e.pid) + " (event " + std::to_string(e.position) + ", number " +
         std::to_string(e.number) + (e.channel.empty() ? "" : ", " + e.channel) + ")";
}

}  // namespace

std::vector<StoryEvent> readStory(const std::string& dir) { return readStory(std::vector<std::string>{dir}); }

std::vector<StoryEvent> readStory(const std::vector<std::string>& dirs) {
  std::vector<std::string> args = {"events", "--json"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  Result r = radar(args);
  std::vector<StoryEvent> story;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    StoryEvent e;
    int64_t v = 0;
    if (!number(line, "event", &v)) continue;
    e.position = static_cast<uint64_t>(v);
    if (number(line, "number", &v)) e.number = static_cast<uint64_t>(v);
    number(line, "pid", &e.pid);
    number(line, "result", &e.result);
    e.kind = text(line, "kind");
    e.channel = text(line, "channel");
    e.has_bytes = number(line, "bytes", &v);
    e.bytes = static_cast<uint64_t>(v);
    e.is_send = line.find("\"to\":[") != std::string::npos;
    e.external = line.find("\"external\":true") != std::string::npos;
    if (const size_t at = line.find("\"from_events\":["); at != std::string::npos) {
      std::istringstream list(line.substr(at + 15, line.find(']', at) - at - 15));
      for (std::string n; std::getline(list, n, ',');)
        if (!n.empty()) e.from_events.push_back(std::stoull(n));
    }
    // Who sent a signal, or was sent one, and which child a wait reaped:
    // the narrative names them, "X[pid]" (or "X[pid.generation]").
    if (e.kind == "kill" || e.kind == "signal" || e.kind == "sigwaitinfo" || e.kind == "wait") {
      static const std::regex peer(
          R"((?:sends signal \d+ \(\w+\) to|receives signal \d+ \(\w+\) from|learns that) [^\[\]]*\[(\d+)(?:\.\d+)?\])");
      std::smatch m;
      const std::string told = text(line, "text");
      if (std::regex_search(told, m, peer)) e.peer = std::stoll(m[1].str());
      e.to_group = told.find(" to the process group of ") != std::string::npos;
    }
    story.push_back(std::move(e));
  }
  return story;
}

CausalCheck checkCausalOrder(const std::vector<StoryEvent>& story) {
  CausalCheck c;
  std::map<uint64_t, const StoryEvent*> at;
  std::map<int64_t, std::vector<const StoryEvent*>> by_pid;
  for (const auto& e : story) {
    at[e.position] = &e;
    by_pid[e.pid].push_back(&e);
  }
  auto before = [&](const char* relation, const StoryEvent& first, const StoryEvent& then) {
    ++c.checked[relation];
    if (first.position < then.position && first.number < then.number) return;
    c.violations.push_back(std::string(relation) + ": " + describe(then) + " is told before or with " +
                           describe(first));
  };
  std::map<std::pair<int, int>, std::vector<const StoryEvent*>> connects, accepts, closes, eofs;
  std::map<std::string, std::set<int64_t>> local_writers;
  std::map<std::pair<std::string, int64_t>, std::vector<const StoryEvent*>> local_closes;
  std::map<std::string, std::vector<const StoryEvent*>> local_eofs;
  std::map<int64_t, const StoryEvent*> exits;
  // (sender, receiver, signal) -> kills sent, signals delivered, in story
  // order; (sender, signal) -> kills it sent to a process group (which of
  // its members a group holds the story does not say: any of them).
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<const StoryEvent*>> kills, deliveries;
  std::map<std::pair<int64_t, int64_t>, std::vector<const StoryEvent*>> group_kills;
  for (const auto& e : story) {
    if (e.kind == "kill" && e.to_group && e.result > 0) group_kills[{e.pid, e.result}].push_back(&e);
    if (e.kind == "kill" && !e.to_group && e.peer > 0 && e.result > 0) kills[{e.pid, e.peer, e.result}].push_back(&e);
    if ((e.kind == "signal" || e.kind == "sigwaitinfo") && e.peer > 0)
      deliveries[{e.peer, e.pid, e.result}].push_back(&e);
    // A message is received after it was sent.
    for (uint64_t from : e.from_events)
      if (auto it = at.find(from); it != at.end()) before("send -> receive", *it->second, e);
    // A child's events come after the fork that made it; a reaped child's
    // events come before the wait that reaped it.
    // (vfork is told twice: as it begins, then with the child's pid once
    // the child exec'd or ended; the child runs between the two.)
    if (e.kind == "fork" && e.result > 0)
      if (auto it = by_pid.find(e.result); it != by_pid.end())
        for (const StoryEvent* child : it->second) before("fork -> child", e, *child);
    if (e.kind == "wait" && e.peer > 0)
      if (auto it = by_pid.find(e.peer); it != by_pid.end() && it->first != e.pid)
        for (const StoryEvent* child : it->second) before("child -> wait", *child, e);
    // Pipes and local sockets: who wrote on them, their closes, their ends
    // of file (TCP below, by its ports).
    if (!e.channel.empty() && tcpPorts(e.channel).first == 0) {
      if (e.is_send) local_writers[e.channel].insert(e.pid);
      if (e.kind == "close" || e.kind == "shutdown") local_closes[{e.channel, e.pid}].push_back(&e);
      if (e.has_bytes && e.bytes == 0 && !e.is_send && e.result == 0) local_eofs[e.channel].push_back(&e);
    }
    if (e.kind == "exit") exits[e.pid] = &e;
    const auto ports = tcpPorts(e.channel);
    if (ports.first == 0) continue;
    // The connect that asks for the connection: a process's first on it (a
    // non-blocking client calls connect() again to learn it is made).
    if (e.kind == "connect" && std::none_of(connects[ports].begin(), connects[ports].end(),
                                            [&](const StoryEvent* k) { return k->pid == e.pid; }))
      connects[ports].push_back(&e);
    if (e.kind == "accept") accepts[ports].push_back(&e);
    if (e.kind == "close" || e.kind == "shutdown" || e.kind == "exit") closes[ports].push_back(&e);
    if (e.has_bytes && e.bytes == 0 && !e.is_send && e.result == 0) eofs[ports].push_back(&e);
  }
  // accept() returns the connection connect() asked for.
  for (const auto& [ports, list] : accepts)
    for (const StoryEvent* a : list)
      for (const StoryEvent* k : connects[ports])
        if (k->pid != a->pid) before("connect -> accept", *k, *a);
  // A signal is delivered after a kill() sent it: the n-th delivery after
  // the n-th kill (pending signals of one number merge: never more
  // deliveries than kills).
  for (const auto& [key, list] : deliveries) {
    std::vector<const StoryEvent*> sent = kills[key];
    const auto& to_groups = group_kills[{std::get<0>(key), std::get<2>(key)}];
    sent.insert(sent.end(), to_groups.begin(), to_groups.end());
    std::sort(sent.begin(), sent.end(),
              [](const StoryEvent* a, const StoryEvent* b) { return a->position < b->position; });
    for (size_t n = 0; n < list.size(); ++n) {
      if (n < sent.size()) {
        before("kill -> signal", *sent[n], *list[n]);
      } else {
        ++c.checked["kill -> signal"];
        c.violations.push_back("kill -> signal: " + describe(*list[n]) + " has no kill() before it");
      }
    }
  }
  // On a pipe or a local socket, end of file comes after every other
  // process that wrote on it gave up its end: by a close, or by its exit
  // (which of its closes was of the written end the story does not say, so
  // the first of them, or its exit, is what must come before).
  for (const auto& [channel, list] : local_eofs)
    for (const StoryEvent* eof : list)
      for (int64_t writer : local_writers[channel]) {
        if (writer == eof->pid) continue;
        const StoryEvent* gave_up = nullptr;
        for (const StoryEvent* k : local_closes[{channel, writer}])
          if (!gave_up || k->position < gave_up->position) gave_up = k;
        if (auto it = exits.find(writer); it != exits.end() && (!gave_up || it->second->position < gave_up->position))
          gave_up = it->second;
        if (gave_up) before("close or exit -> end of file", *gave_up, *eof);
      }
  // End of file comes after the other side closed (or shut down) its end.
  for (const auto& [ports, list] : eofs)
    for (const StoryEvent* eof : list) {
      const StoryEvent* first_close = nullptr;
      for (const StoryEvent* k : closes[ports])
        if (k->pid != eof->pid && (!first_close || k->position < first_close->position)) first_close = k;
      if (first_close) before("close -> end of file", *first_close, *eof);
    }
  return c;
}

ConnectionBytes storyConnectionBytes(const std::vector<StoryEvent>& story, int port) {
  ConnectionBytes out;
  for (const auto& e : story) {
    const auto ports = tcpPorts(e.channel);
    if (ports.first == 0 || (ports.first != port && ports.second != port) || !e.has_bytes) continue;
    // Each byte once: when a recorded process sent it, or, from outside,
    // when a recorded one received it.
    if (e.is_send || e.external) out[ports] += e.bytes;
  }
  return out;
}

bool captureConnectionBytes(const std::string& pcap, int port, ConnectionBytes* out, std::string* error) {
  const std::string all = slurp(pcap);
  if (all.size() < 24) {
    *error = "the capture " + pcap + " is empty";
    return false;
  }
  uint32_t magic;
  std::memcpy(&magic, all.data(), 4);
  const bool swapped = magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1;
  if (!swapped && magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
    *error = "not a pcap file: " + pcap;
    return false;
  }
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, all.data() + at, 4);
    return swapped ? __builtin_bswap32(v) : v;
  };
  const uint32_t link = u32(20);
  const size_t link_header = link == 1 ? 14 : link == 113 ? 16 : link == 276 ? 20 : link == 0 ? 4 : SIZE_MAX;
  if (link_header == SIZE_MAX) {
    *error = "unknown link type " + std::to_string(link);
    return false;
  }
  for (size_t at = 24; at + 16 <= all.size();) {
    const uint32_t captured = u32(at + 8);
    const size_t packet = at + 16;
    at = packet + captured;
    if (at > all.size() || captured < link_header + 20) continue;
    const auto* ip = reinterpret_cast<const uint8_t*>(all.data() + packet + link_header);
    if ((ip[0] >> 4) != 4 || ip[9] != IPPROTO_TCP) continue;
    const size_t ihl = (ip[0] & 15u) * 4, total = (size_t{ip[2]} << 8) | ip[3];
    if (captured < link_header + ihl + 20) continue;
    const uint8_t* tcp = ip + ihl;
    const int from = (tcp[0] << 8) | tcp[1], to = (tcp[2] << 8) | tcp[3];
    const size_t tcp_header = (tcp[12] >> 4) * 4u;
    if (total < ihl + tcp_header || (from != port && to != port)) continue;
    const size_t payload = total - ihl - tcp_header;
    if (payload) (*out)[{std::min(from, to), std::max(from, to)}] += payload;
  }
  return true;
}

bool Capture::start(const std::string& pcap, int port, std::string* why_not) {
  if (::geteuid() != 0) {
    *why_not = "capturing the loopback needs root";
    return false;
  }
  if (!have("tcpdump")) {
    *why_not = "tcpdump is not installed";
    return false;
  }
  log_ = pcap + ".log";
  pid_ = ::fork();
  if (pid_ == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    const int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(null, 1);
    ::dup2(log, 2);
    const std::string filter = "tcp port " + std::to_string(port);
    // A big buffer: the kernel drops no packet of a benchmark's burst.
    ::execlp("tcpdump", "tcpdump", "-i", "lo", "--immediate-mode", "-U", "-B", "65536", "-s", "0", "-w", pcap.c_str(),
             filter.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // tcpdump writes the file's header once it listens.
  for (int i = 0; i < 500; ++i) {
    struct stat st {};
    if (::stat(pcap.c_str(), &st) == 0 && st.st_size >= 24) {
      ::usleep(100000);
      return true;
    }
    ::usleep(10000);
  }
  stop();
  *why_not = "tcpdump did not start";
  return false;
}

void Capture::stop() {
  if (pid_ <= 0) return;
  ::usleep(200000);  // the last packets
  ::kill(pid_, SIGINT);
  int status;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  std::smatch m;
  const std::string log = slurp(log_);
  if (std::regex_search(log, m, std::regex(R"((\d+) packets dropped by kernel)")) && m[1] != "0")
    dropped_ = std::stoul(m[1]);
}

Result whileCapturing(const std::string& pcap, int port, std::string* no_capture, const std::function<Result()>& run) {
  Capture capture;
  capture.start(pcap, port, no_capture);
  Result r = run();
  capture.stop();
  if (no_capture->empty() && capture.dropped())
    *no_capture = "the kernel dropped " + std::to_string(capture.dropped()) + " packets of the capture";
  return r;
}

std::vector<std::string> processImages(const std::string& dir, const std::function<bool(const std::string&)>& keep) {
  std::vector<std::string> images;
  static const std::regex re(R"(^(\d+)-(\d+)-(.*)\.rlog$)");
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (std::regex_match(name, m, re) && (!keep || keep(m[3].str()))) images.push_back(m[1].str() + "." + m[2].str());
  }
  std::sort(images.begin(), images.end());
  return images;
}

namespace {

// The SysV IPC objects created by `uid`, by kind and id (tests that run at
// the same time as other users, PostgreSQL's, come and go meanwhile).
std::set<std::string> ipcObjects(uid_t uid) {
  std::set<std::string> out;
  for (const char* f : {"/proc/sysvipc/shm", "/proc/sysvipc/sem", "/proc/sysvipc/msg"}) {
    std::ifstream in(f);
    std::string line, word;
    size_t cuid = std::string::npos;
    for (bool header = true; std::getline(in, line); header = false) {
      std::istringstream words(line);
      std::vector<std::string> columns;
      while (words >> word) columns.push_back(word);
      if (header) {
        cuid = std::find(columns.begin(), columns.end(), "cuid") - columns.begin();
        continue;
      }
      if (cuid < columns.size() && columns.size() > 1 && columns[cuid] == std::to_string(uid))
        out.insert(std::string(f) + " " + columns[1]);  // the id
    }
  }
  return out;
}

// The user `run_as` ("runuser -u NAME --", or "" for this one) runs as.
uid_t runAsUid(const std::string& run_as) {
  std::smatch m;
  if (std::regex_search(run_as, m, std::regex(R"(-u (\S+))")))
    if (const struct passwd* pw = ::getpwnam(m[1].str().c_str())) return pw->pw_uid;
  return ::geteuid();
}

}  // namespace

ReRuns reRunEveryImage(const std::string& dir, const std::string& run_as, const Excuse& excused,
                       const std::vector<std::string>& images) {
  ReRuns out;
  const std::string parent = testTempDir(), tmp = parent + "/debug-tmp";
  ::chmod(parent.c_str(), 0755);  // for run_as
  ::mkdir(tmp.c_str(), 01777);
  ::chmod(tmp.c_str(), 01777);
  const uid_t uid = runAsUid(run_as);
  const std::set<std::string> ipc_before = ipcObjects(uid);
  for (const std::string& image : images.empty() ? processImages(dir) : images) {
    Result r = shell("cd / && timeout 300 " + run_as + " env TMPDIR=" + shellQuote(tmp) + " " + radarDebug() +
                     " --yes " + shellQuote(dir) + " " + image + " --no-gdb");
    if (r.exit_code == 0 && r.err.find("as recorded") != std::string::npos) {
      ++out.as_recorded;
      continue;
    }
    static const std::regex all_replayed(
        "radar: replayed ([0-9]+) of \\1 events; .*but what it wrote to files and "
        "devices differs from the recording: .*\n  probable cause, ");
    if (r.exit_code == 1 && std::regex_search(r.err, all_replayed)) {
      ++out.output_explained;
      std::printf("re-run of %s: %s\n", image.c_str(), r.err.substr(r.err.rfind("radar: replayed")).c_str());
      continue;
    }
    const size_t at = r.err.find("radar: the re-run");
    const std::string report = at == std::string::npos ? r.err : r.err.substr(at);
    if (r.exit_code == 1 && excused && excused(image, report)) {
      ++out.excused;
      continue;
    }
    out.failures.push_back(image + " (exit " + std::to_string(r.exit_code) + "):\n" + report);
  }
  std::error_code ec;
  const auto left = std::distance(std::filesystem::directory_iterator(tmp, ec), std::filesystem::directory_iterator());
  if (left != 0) out.failures.push_back(std::to_string(left) + " entries left in radar debug's TMPDIR " + tmp);
  // An object another test makes meanwhile (as root, the sandbox tests do)
  // goes again; one the re-runs left stays.
  // Left by the re-runs: objects there now that were not before. One that
  // another test made meanwhile (as root, the sandbox tests do) goes
  // again; one the re-runs left stays. One that went is no leak.
  auto madeSince = [&] {
    std::vector<std::string> made;
    for (const std::string& o : ipcObjects(uid))
      if (!ipc_before.count(o)) made.push_back(o);
    return made;
  };
  std::vector<std::string> made = madeSince();
  for (int wait = 0; !made.empty() && wait < 100; ++wait) {
    ::usleep(100000);
    made = madeSince();
  }
  if (!made.empty())
    out.failures.push_back("SysV IPC objects of uid " + std::to_string(uid) + " left by the re-runs: " + made[0] +
                           (made.size() > 1 ? " and " + std::to_string(made.size() - 1) + " more" : ""));
  return out;
}

int freePort() {
  const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), len);
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

bool waitForPort(int port, int seconds) {
  for (int i = 0; i < seconds * 20; ++i) {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    const bool up = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    ::close(s);
    if (up) return true;
    ::usleep(50000);
  }
  return false;
}

bool have(const std::string& command) { return shell("command -v " + shellQuote(command)).exit_code == 0; }

}  // namespace radar::testing
