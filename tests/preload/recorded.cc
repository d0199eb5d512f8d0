#include "recorded.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "../temp_dirs.h"
#include "log/crc32c.h"
#include "record/recording.h"

namespace radar::testing {

std::string ProcessLog::exe() const {
  const auto& e = header.executable();
  return e.substr(e.rfind('/') + 1);
}

std::vector<const Event*> ProcessLog::ofKind(log::Kind kind) const {
  std::vector<const Event*> out;
  for (const auto& e : events)
    if (e.kind() == kind) out.push_back(&e);
  return out;
}

const Event* ProcessLog::first(log::Kind kind) const {
  for (const auto& e : events)
    if (e.kind() == kind) return &e;
  return nullptr;
}

const proto::ChannelInfo* ProcessLog::channel(uint32_t index) const {
  auto it = channels.find(index);
  return it == channels.end() ? nullptr : &it->second;
}

std::string ProcessLog::bytesOn(uint64_t ino, bool sends) const {
  std::string out;
  for (const auto& e : events) {
    const auto cat = log::categoryOf(e.kind());
    if (cat != (sends ? log::Category::Send : log::Category::Receive)) continue;
    const auto* c = channel(e.r.channel);
    if (c && c->ino() == ino) out += e.payload;
  }
  return out;
}

std::vector<const ProcessLog*> Recording::byExe(const std::string& name) const {
  std::vector<const ProcessLog*> out;
  for (const auto& l : logs)
    if (l.exe() == name) out.push_back(&l);
  return out;
}

const ProcessLog* Recording::onlyExe(const std::string& name) const {
  auto v = byExe(name);
  return v.size() == 1 ? v[0] : nullptr;
}

const ProcessLog* Recording::byPid(int pid, uint32_t generation) const {
  for (const auto& l : logs)
    if (l.header.pid() == pid && l.header.generation() == generation) return &l;
  return nullptr;
}

std::string programPath(const std::string& name) { return std::string(RADAR_TEST_PROGRAMS) + "/" + name; }
std::string radarPath() { return RADAR_BIN; }

std::string testTempDir() { return radar::testing::TempDirs::make("radar-rec-"); }

uint32_t crc(const std::string& bytes) { return radar::crc32c(0, bytes.data(), bytes.size()); }

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

int spawn(const std::vector<std::string>& args, int out, int err) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(out >= 0 ? out : null, 1);
    ::dup2(err >= 0 ? err : null, 2);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Result shell(const std::string& line, const std::string& input) {
  const std::string dir = testTempDir();
  std::ofstream(dir + "/in") << input;
  const std::string full =
      "(" + line + ") <" + shellQuote(dir + "/in") + " >" + shellQuote(dir + "/out") + " 2>" + shellQuote(dir + "/err");
  const int status = std::system(full.c_str());
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir + "/out");
  r.err = slurp(dir + "/err");
  return r;
}

Result radar(const std::vector<std::string>& args, const std::string& input) {
  std::string line = shellQuote(radarPath());
  for (size_t k = 0; k < args.size(); ++k) {
    line += " " + shellQuote(args[k]);
    // Before the arguments that go on to gdb.
    if (k == 0 && args[0] == "debug" && !sandboxAvailable() &&
        std::find(args.begin(), args.end(), "--no-sandbox") == args.end())
      line += " --no-sandbox";
  }
  return shell(line, input);
}

bool sandboxAvailable() {
  static const bool available = [] {
    const pid_t child = ::fork();
    if (child == 0) {
      constexpr int kNamespaces =
          CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID;
      ::_exit(::unshare(kNamespaces) == 0 ? 0 : 1);
    }
    int status = 0;
    return child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }();
  return available;
}

std::string radarDebug() { return shellQuote(radarPath()) + (sandboxAvailable() ? " debug" : " debug --no-sandbox"); }

Recording load(const std::string& dir) {
  Recording rec;
  rec.dir = dir;
  google::protobuf::TextFormat::ParseFromString(slurp(dir + "/recording.txt"), &rec.meta);
  for (const auto& path : log::listLogs(dir)) {
    ProcessLog pl;
    pl.path = path;
    log::LogError err;
    auto reader = log::LogReader::open(path, &err);
    if (!reader) {
      pl.error = err.toString();
      rec.logs.push_back(pl);
      continue;
    }
    pl.header = reader->header();
    pl.control = reader->control();
    log::Record r;
    while (reader->next(r)) {
      if (r.kind == log::Kind::Channel) {
        proto::ChannelInfo ci;
        log::LogReader::parseChannel(r.channel_bytes, &ci);
        pl.channels[ci.index()] = ci;
        continue;
      }
      if (r.kind == log::Kind::Note) {
        pl.notes.emplace_back(r.strings.empty() ? "" : std::string(r.strings[0]));
        continue;
      }
      if (r.kind == log::Kind::Output) {
        pl.outputs.push_back(r);
        continue;
      }
      Event e;
      e.payload = std::string(r.payload);
      for (auto s : r.strings) e.strings.emplace_back(s);
      e.address = std::string(r.address);
      e.r = r;
      e.r.payload = {};
      e.r.strings.clear();
      e.r.address = {};
      e.r.header_bytes = e.r.channel_bytes = {};
      pl.events.push_back(std::move(e));
    }
    if (reader->error()) pl.error = reader->error()->toString();
    pl.notes.insert(pl.notes.end(), reader->notes().begin(), reader->notes().end());
    rec.logs.push_back(std::move(pl));
  }
  return rec;
}

Recording record(const std::vector<std::string>& command, const RecordOptions& options) {
  const std::string dir = options.dir.empty() ? testTempDir() + "/rec" : options.dir;
  const std::string scratch = testTempDir();
  std::string line =
      options.shell_prefix + " exec " + shellQuote(radarPath()) + " record --force -o " + shellQuote(dir);
  for (const auto& a : options.radar_args) line += " " + shellQuote(a);
  line += " --";
  for (const auto& a : command) line += " " + shellQuote(a);
  line +=
      " <" + shellQuote(scratch + "/in") + " >" + shellQuote(scratch + "/out") + " 2>" + shellQuote(scratch + "/err");
  std::ofstream(scratch + "/in") << options.input;
  const int status = std::system(line.c_str());
  Recording rec = load(dir);
  rec.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  rec.out = slurp(scratch + "/out");
  rec.err = slurp(scratch + "/err");
  return rec;
}

}  // namespace radar::testing
