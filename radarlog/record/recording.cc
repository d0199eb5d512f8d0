#include "recording.h"

#include <elf.h>
#include <sys/xattr.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "finalize.h"
#include "reader.h"

namespace radar::cli {
namespace {

// The file an exec of `name` ran, as execvp would find it from the
// image's PATH and working directory.
std::string resolveProgram(const std::string& name, const std::string& cwd, const std::string& path) {
  auto absolute = [&](const std::string& p) { return p.empty() || p[0] == '/' ? p : cwd + "/" + p; };
  if (name.find('/') != std::string::npos) return absolute(name);
  std::stringstream dirs(path.empty() ? "/bin:/usr/bin" : path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = absolute((dir.empty() ? "." : dir) + "/" + name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;
}

// Why a program leaves no log when exec'd under radar.
std::string unrecordable(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
    return "not recorded: set-user-ID or set-group-ID";
  char caps[64];
  if (::getxattr(file.c_str(), "security.capability", caps, sizeof(caps)) > 0)
    return "not recorded: it has file capabilities";
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr eh{};
  if (in.read(reinterpret_cast<char*>(&eh), sizeof(eh)) &&
      std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64) {
    bool interp = false;
    for (int i = 0; i < eh.e_phnum && i < 128; ++i) {
      Elf64_Phdr ph{};
      in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * sizeof(ph)));
      if (!in.read(reinterpret_cast<char*>(&ph), sizeof(ph))) break;
      interp |= ph.p_type == PT_INTERP;
    }
    if (!interp) return "not recorded: statically linked";
  }
  return "not recorded: it wrote no log (exec'd with a scrubbed environment, or a raw system call?)";
}

std::string envValue(const proto::Header& h, const std::string& name) {
  for (const auto& e : h.environment())
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return "";
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

}  // namespace

std::string newRecordingDirectory(const std::string& base) {
  char stamp[32];
  const time_t now = ::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
  std::string dir = base + "-" + stamp;
  for (int i = 2; ::access(dir.c_str(), F_OK) == 0; ++i) dir = base + "-" + stamp + "-" + std::to_string(i);
  return dir;
}

bool clearRecording(const std::string& dir) {
  for (const auto& log : log::listLogs(dir))
    if (::unlink(log.c_str()) != 0) return false;
  const std::string meta = dir + "/recording.txt";
  if (::access(meta.c_str(), F_OK) == 0 && ::unlink(meta.c_str()) != 0) return false;
  return true;
}

RecordingSummary summarizeRecording(const std::string& dir, const proto::Recording& recording,
                                    bool finalize) {
  RecordingSummary s;
  struct Image {
    std::string path, exe;
    int pid = 0;
    uint32_t generation = 0;
    bool ended_in_exec = false;
    std::string exec_path;
    std::string cwd, path_env;
  };
  std::vector<Image> images;
  std::set<std::pair<int, uint32_t>> present;
  std::set<int> pids_with_logs;
  struct Child {
    int pid, parent;
    std::string path;  // resolved; empty for fork()
  };
  std::vector<Child> children;

  for (const auto& path : log::listLogs(dir)) {
    auto problem = [&](int pid, const std::string& exe, const std::string& what) {
      proto::Recording::Problem p;
      p.set_pid(pid);
      p.set_executable(exe);
      p.set_what(what);
      p.set_log(path.substr(path.rfind('/') + 1));
      s.problems.push_back(p);
    };
    std::string error;
    if (finalize && log::finalizeLog(path, &error) == log::FinalizeResult::Damaged)
      problem(0, "", "log damaged: " + error);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) s.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    log::LogError err;
    auto reader = log::LogReader::open(path, &err);
    if (!reader) {
      if (error.empty()) problem(0, "", "unreadable log: " + err.toString());
      continue;
    }
    ++s.logs;
    Image img;
    img.path = path;
    img.exe = reader->header().executable();
    img.pid = reader->header().pid();
    img.generation = reader->header().generation();
    img.cwd = reader->header().cwd();
    img.path_env = envValue(reader->header(), "PATH");
    present.insert({img.pid, img.generation});
    pids_with_logs.insert(img.pid);
    log::Record r;
    log::Kind last = log::Kind::Unspecified;
    while (reader->next(r)) {
      if (!r.counter) continue;
      last = r.kind;
      s.events = s.events + 1;
      if (r.kind == log::Kind::Exec)
        img.exec_path = r.strings.empty() ? "" : std::string(r.strings[0]);
      const bool creates = r.kind == log::Kind::Fork || r.kind == log::Kind::Spawn ||
                           (r.kind == log::Kind::Vfork && r.error == 0);
      if (creates && r.peer_pid > 0)
        children.push_back({r.peer_pid, img.pid,
                            r.kind == log::Kind::Fork || r.strings.empty()
                                ? ""
                                : resolveProgram(std::string(r.strings[0]), img.cwd, img.path_env)});
    }
    img.ended_in_exec = last == log::Kind::Exec;
    if (reader->error()) problem(img.pid, img.exe, "log damaged: " + reader->error()->toString());
    const auto& c = reader->control();
    if (c.incomplete)
      problem(img.pid, img.exe,
              "log incomplete from event " + std::to_string(c.lost_from_counter) + ": " +
                  std::strerror(c.lost_errno ? c.lost_errno : EIO) + " (" +
                  std::to_string(c.lost_events) + " events lost)");
    images.push_back(img);
  }

  auto add = [&](int pid, const std::string& exe, const std::string& what) {
    proto::Recording::Problem p;
    p.set_pid(pid);
    p.set_executable(exe);
    p.set_what(what);
    s.problems.push_back(p);
  };
  for (const auto& img : images) {
    if (!img.ended_in_exec || present.count({img.pid, img.generation + 1})) continue;
    const std::string file = resolveProgram(img.exec_path, img.cwd, img.path_env);
    add(img.pid, file, unrecordable(file));
  }
  std::set<int> reported;
  for (const auto& c : children)
    if (!pids_with_logs.count(c.pid) && reported.insert(c.pid).second)
      add(c.pid, c.path,
          !c.path.empty() ? unrecordable(c.path)
                          : "no log (child of pid " + std::to_string(c.parent) +
                                "): it could not write one, or it exited before its first instruction");
  for (const auto& r : recording.reaped())
    if (!pids_with_logs.count(r.pid()) && reported.insert(r.pid()).second)
      add(r.pid(), r.pid() == recording.root_pid() && recording.command_size() ? recording.command(0) : "",
          describeStatus(r.status()) + " but was not recorded");
  return s;
}

}  // namespace radar::cli
