#include "recording.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "finalize.h"
#include "reader.h"

namespace radar::cli {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string unrecordable(uint32_t reason) {
  if (reason & 1) return "not recorded: statically linked";
  if (reason & 2) return "not recorded: set-user-ID, set-group-ID or file capabilities";
  return "not recorded: the new program wrote no log (a scrubbed environment or a raw exec?)";
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

}  // namespace

std::vector<std::string> listLogs(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d))
    if (endsWith(e->d_name, ".rlog")) out.push_back(dir + "/" + e->d_name);
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool clearRecording(const std::string& dir) {
  for (const auto& log : listLogs(dir))
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
    uint32_t exec_reason = 0;
  };
  std::vector<Image> images;
  std::set<std::pair<int, uint32_t>> present;
  std::set<int> pids_with_logs;
  struct Child {
    int pid, parent;
    uint32_t reason;
    std::string path;
  };
  std::vector<Child> children;

  for (const auto& path : listLogs(dir)) {
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
    present.insert({img.pid, img.generation});
    pids_with_logs.insert(img.pid);
    log::Record r;
    log::Kind last = log::Kind::Unspecified;
    while (reader->next(r)) {
      if (!r.counter) continue;
      last = r.kind;
      s.events = s.events + 1;
      if (r.kind == log::Kind::Exec) {
        img.exec_path = r.strings.empty() ? "" : std::string(r.strings[0]);
        img.exec_reason = r.flags;
      }
      const bool creates = r.kind == log::Kind::Fork || r.kind == log::Kind::Spawn ||
                           (r.kind == log::Kind::Vfork && r.error == 0);
      if (creates && r.peer_pid > 0)
        children.push_back({r.peer_pid, img.pid, r.kind == log::Kind::Fork ? 0 : r.flags,
                            r.strings.empty() ? "" : std::string(r.strings[0])});
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
  for (const auto& img : images)
    if (img.ended_in_exec && !present.count({img.pid, img.generation + 1}))
      add(img.pid, img.exec_path, unrecordable(img.exec_reason));
  std::set<int> reported;
  for (const auto& c : children)
    if (!pids_with_logs.count(c.pid) && reported.insert(c.pid).second)
      add(c.pid, c.path,
          c.reason ? unrecordable(c.reason)
                   : "no log (child of pid " + std::to_string(c.parent) +
                         "): it could not write one, or it exited before its first instruction");
  for (const auto& r : recording.reaped())
    if (!pids_with_logs.count(r.pid()) && reported.insert(r.pid()).second)
      add(r.pid(), r.pid() == recording.root_pid() && recording.command_size() ? recording.command(0) : "",
          describeStatus(r.status()) + " but was not recorded");
  return s;
}

}  // namespace radar::cli
