#include "record/recording.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "log/executables.h"
#include "log/file_hash.h"
#include "log/finalize.h"
#include "log/format.h"
#include "log/go_program.h"
#include "log/reader.h"
#include "log/recorder_env.h"
#include "log/unseen.h"
#include "log/wait_status.h"

namespace radar::record {
namespace {

// The file an exec of `name` ran, as execvp would find it from the
// image's PATH and working directory.
std::string resolveProgram(const std::string& name, const std::string& cwd, const std::string& path) {
  const std::string found = log::findExecutable(name, path.empty() ? nullptr : path.c_str(), cwd);
  return found.empty() ? name : found;
}

}  // namespace

std::string unseenByTheInterposer(const std::string& file, bool or_missed) {
  const char* why = log::unseenByTheInterposer(file.c_str(), or_missed);
  return why ? why : "";
}

namespace {

// Why a program leaves no log when exec'd under radar.
std::string unrecordable(const std::string& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
    return "not recorded: set-user-ID or set-group-ID";
  char caps[64];
  if (::getxattr(file.c_str(), "security.capability", caps, sizeof(caps)) > 0)
    return "not recorded: it has file capabilities";
  if (const std::string why = unseenByTheInterposer(file); !why.empty()) return "not recorded: " + why;
  return "not recorded: it wrote no log (exec'd with a scrubbed environment, or a raw system call?)";
}

std::string envValue(const proto::Header& h, const std::string& name) {
  for (const auto& e : h.environment())
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=')
      return e.substr(name.size() + 1);
  return "";
}

// Adds the image's program to `out` (once), with the hash of its content
// if the file still has the size and time it had when the image started.
void hashExecutable(const std::string& path, uint64_t recorded_size, int64_t recorded_mtime_ns,
                    std::vector<proto::Recording::Executable>* out) {
  for (const auto& e : *out)
    if (e.path() == path && e.size() == recorded_size && e.mtime_ns() == recorded_mtime_ns) return;
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  const int64_t mtime = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  if (static_cast<uint64_t>(st.st_size) != recorded_size || mtime != recorded_mtime_ns) return;
  uint64_t hash = 0, size = 0;
  if (!log::hashFile(path, &hash, &size) || size != recorded_size) return;
  proto::Recording::Executable e;
  e.set_path(path);
  e.set_size(size);
  e.set_mtime_ns(mtime);
  e.set_xxh64(hash);
  out->push_back(e);
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

namespace {

// The directories above `dir` that are missing, made as mkdir -p would,
// private (ranks of one job making rec/rank-N side by side all succeed).
// False, with why, when one cannot be made.
bool makeParents(const std::string& dir, std::string* error) {
  for (size_t slash = dir.find('/', 1); slash != std::string::npos; slash = dir.find('/', slash + 1)) {
    const std::string parent = dir.substr(0, slash);
    if (::mkdir(parent.c_str(), 0700) != 0 && errno != EEXIST) {
      *error = "cannot create " + parent + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

}  // namespace

int openRecordingDirectory(const std::string& dir, bool* created, bool* empty, std::string* error) {
  *created = false;
  *empty = true;
  int made = ::mkdir(dir.c_str(), 0700);
  if (made != 0 && errno == ENOENT) {
    if (!makeParents(dir, error)) return -1;
    made = ::mkdir(dir.c_str(), 0700);
  }
  if (made == 0)
    *created = true;
  else if (errno != EEXIST) {
    *error = "cannot create " + dir + ": " + std::strerror(errno);
    return -1;
  }
  // A link to a directory is followed; what it leads to is checked below,
  // on the descriptor every later file is made through.
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open " + dir + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st {};
  std::string refusal;
  if (::fstat(fd, &st) != 0)
    refusal = std::string("cannot examine it: ") + std::strerror(errno);
  else if (st.st_uid != ::geteuid())
    refusal = "it belongs to uid " + std::to_string(st.st_uid) + ", not to you (uid " + std::to_string(::geteuid()) +
              "): its owner could replace what radar writes there";
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    refusal = "others can write into it: they could replace what radar writes there (chmod go-w " + dir + ")";
  if (!refusal.empty()) {
    *error = "refusing to record into " + dir + ": " + refusal;
    ::close(fd);
    return -1;
  }
  // Held while the descriptor is open (radar record's whole run; no
  // recorded program inherits it): a second recorder into the same
  // directory, --force or not, would mix its logs with this one's.
  // (A follower looking whether radar record still runs holds the lock
  // shared for an instant: asked again for a tenth of a second.)
  bool locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  for (int k = 0; k < 10 && !locked && errno == EWOULDBLOCK; ++k) {
    ::usleep(10000);
    locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  }
  if (!locked) {
    *error = errno == EWOULDBLOCK ? "another radar record is recording into " + dir +
                                        ": two recordings in one directory would mix (wait for it to end, or "
                                        "record elsewhere)"
                                  : "cannot lock " + dir + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (*created) ::fchmod(fd, 0700);  // whatever the umask
  // A copy of the descriptor shares its position: the listing starts from
  // the beginning, and leaves it there for the next one.
  const int scan = ::dup(fd);
  if (DIR* d = scan >= 0 ? ::fdopendir(scan) : nullptr) {
    ::rewinddir(d);
    while (dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) *empty = false;
    ::closedir(d);
  } else if (scan >= 0) {
    ::close(scan);
  }
  return fd;
}

bool clearRecording(int dir_fd) {
  const int scan = ::dup(dir_fd);
  DIR* d = scan >= 0 ? ::fdopendir(scan) : nullptr;
  if (!d) {
    if (scan >= 0) ::close(scan);
    return false;
  }
  // From the beginning: the copy shares the position where an earlier
  // listing of the same directory left it (at its end: nothing was
  // cleared, and --force mixed the old recording's logs with the new).
  ::rewinddir(d);
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const bool log = name.size() > 5 && name.compare(name.size() - 5, 5, ".rlog") == 0;
    if (log || name == "recording.txt" || name == "recording.txt.partial" || name == "attach" ||
        name == "attach.partial")
      names.push_back(name);
  }
  ::closedir(d);
  // unlinkat removes a link itself, never what it points to.
  for (const auto& name : names)
    if (::unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT) return false;
  return true;
}

bool writeFileAtomically(int dir_fd, const std::string& name, const std::string& text) {
  const std::string partial = name + ".partial";
  ::unlinkat(dir_fd, partial.c_str(), 0);
  const int fd = ::openat(dir_fd, partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = ::fchmod(fd, 0600) == 0;
  for (size_t done = 0; ok && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<size_t>(n);
  }
  ok = ::close(fd) == 0 && ok;
  if (ok) ok = ::renameat(dir_fd, partial.c_str(), dir_fd, name.c_str()) == 0;
  if (!ok) ::unlinkat(dir_fd, partial.c_str(), 0);
  return ok;
}

namespace {

// One image's part of the summary, found in one pass over its log.
struct Image {
  std::string exe;
  uint64_t exe_size = 0;  // the program's file when the image started
  int64_t exe_mtime_ns = 0;
  bool readable = false;
  int pid = 0;
  uint32_t generation = 0;
  int64_t started_ns = 0;  // CLOCK_REALTIME when its log began (as its header says)
  bool ended_in_exec = false;
  bool ended_seen = false;  // an EXIT or EXEC event, or a log closed cleanly
  std::string exec_path;
  std::string cwd, path_env;
  uint64_t events = 0, bytes = 0;
  std::vector<proto::Recording::Problem> problems;
  struct Child {
    int pid, parent;
    std::string path;  // resolved; empty for fork()
  };
  std::vector<Child> children;
  std::vector<std::pair<int, int>> reaped;  // pid, wait status this image got
  std::vector<std::string> unseen;          // what it used that radar does not record (log/unseen.h)
  std::string unshared_memory;              // anonymous shared memory not yet shared by a fork
};

// A NOTE saying the image used what radar does not record. Anonymous shared
// memory counts only once the image forks (the merge's rule too); shared
// memory mapped inside an MPI call is the MPI library's transport.
void noteUnseen(const log::Record& r, Image& img) {
  if (r.strings.size() < 4 || r.strings[1] != log::kUnseenNote) return;
  std::string text(r.strings[0]);
  const bool shared_memory = r.strings[2] == log::unseenName(log::Unseen::SharedMemory);
  if (shared_memory && r.in_mpi_call)
    text += "; mapped by the MPI library: its transport, whose messages are recorded as MPI calls";
  if (shared_memory && r.strings[3].starts_with("anonymous"))
    img.unshared_memory = text;
  else
    img.unseen.push_back(text);
}

Image summarizeLog(const std::string& path, bool finalize) {
  Image img;
  auto problem = [&](int pid, const std::string& exe, const std::string& what) {
    proto::Recording::Problem p;
    p.set_pid(pid);
    p.set_executable(exe);
    p.set_what(what);
    p.set_log(path.substr(path.rfind('/') + 1));
    img.problems.push_back(p);
  };
  auto addBytes = [&] {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) img.bytes = static_cast<uint64_t>(st.st_blocks) * 512;
  };
  log::LogError err;
  // The events only: a message's bytes are for the replay to read.
  auto reader = log::LogReader::open(path, &err, log::LogReader::Payloads::SkipLarge);
  if (!reader) {
    addBytes();
    problem(0, "", "unreadable log: " + err.toString());
    return img;
  }
  img.readable = true;
  const proto::Header& h = reader->header();
  img.exe = h.executable();
  img.exe_size = h.executable_size();
  img.exe_mtime_ns = h.executable_mtime_ns();
  img.pid = h.pid();
  img.generation = h.generation();
  img.started_ns = h.realtime_ns();
  img.cwd = h.cwd();
  img.path_env = envValue(h, "PATH");
  log::Record r;
  log::Kind last = log::Kind::Unspecified;
  while (reader->next(r)) {
    if (r.kind == log::Kind::Note) noteUnseen(r, img);
    if (!r.counter) continue;
    last = r.kind;
    ++img.events;
    if (r.kind == log::Kind::Fork && !img.unshared_memory.empty()) {
      img.unseen.push_back(std::move(img.unshared_memory));
      img.unshared_memory.clear();
    }
    if (r.kind == log::Kind::Exec) img.exec_path = r.strings.empty() ? "" : std::string(r.strings[0]);
    if (r.kind == log::Kind::Wait && r.peer_pid > 0 && r.result == r.peer_pid)
      img.reaped.push_back({r.peer_pid, r.status});
    // A vfork child that ended without an exec (no program named) never
    // runs code of its own: it has no log to expect.
    const bool creates = r.kind == log::Kind::Fork || r.kind == log::Kind::Spawn ||
                         (r.kind == log::Kind::Vfork && r.error == 0 && !r.strings.empty());
    if (creates && r.peer_pid > 0)
      img.children.push_back({r.peer_pid, img.pid,
                              r.kind == log::Kind::Fork || r.strings.empty()
                                  ? ""
                                  : resolveProgram(std::string(r.strings[0]), img.cwd, img.path_env)});
  }
  img.ended_in_exec = last == log::Kind::Exec;
  // A log that lost its end (damaged, events lost: already a problem of
  // its own) says nothing of how the image ended.
  img.ended_seen = last == log::Kind::Exit || last == log::Kind::Exec || reader->control().closed || reader->error() ||
                   reader->control().incomplete;
  if (reader->error()) problem(img.pid, img.exe, "log damaged: " + reader->error()->toString());
  if (h.has_nofile_soft() && log::leavesRadarNoRoom(h.nofile_soft(), h.nofile_hard()))
    problem(img.pid, img.exe,
            "its descriptor limit (" + std::to_string(h.nofile_soft()) + ", hard " + std::to_string(h.nofile_hard()) +
                ") left radar's own descriptors no room above the program's: they took numbers it would have had");
  // Compacted from what this pass read: the log is read once.
  std::string error;
  if (finalize && !reader->error() && log::finalizeLog(path, *reader, &error) == log::FinalizeResult::NotCompacted)
    problem(img.pid, img.exe, error);
  addBytes();
  const auto& c = reader->control();
  if (c.incomplete)
    problem(img.pid, img.exe,
            "log incomplete from event " + std::to_string(c.lost_from_counter) + ": " +
                std::strerror(c.lost_errno ? c.lost_errno : EIO) + " (" + std::to_string(c.lost_events) +
                " events lost)");
  return img;
}

// Every log, summarized on as many threads as there are cores (up to 8):
// a recording of many processes is read once, after they all ended.
std::vector<Image> summarizeLogs(const std::vector<std::string>& paths, bool finalize) {
  std::vector<Image> images(paths.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < paths.size();) images[i] = summarizeLog(paths[i], finalize);
  };
  const unsigned cores = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> helpers;
  for (unsigned k = 1; k < cores && k < paths.size(); ++k) helpers.emplace_back(work);
  work();
  for (auto& t : helpers) t.join();
  return images;
}

}  // namespace

RecordingSoFar recordingSoFar(const std::string& dir) {
  RecordingSoFar so_far;
  for (const std::string& path : log::listLogs(dir)) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st {};
    uint64_t last_counter = 0;
    constexpr off_t kAt = 8 + offsetof(log::FileControl, last_counter);  // after the frame's header, as the reader
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        ::pread(fd, &last_counter, sizeof last_counter, kAt) == static_cast<ssize_t>(sizeof last_counter)) {
      ++so_far.logs;
      so_far.events += last_counter;
      so_far.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    }
    ::close(fd);
  }
  return so_far;
}

RecordingSummary summarizeRecording(const std::string& dir, const proto::Recording& recording, bool finalize) {
  RecordingSummary s;
  std::vector<Image> images;
  std::set<std::pair<int, uint32_t>> present;
  std::set<int> pids_with_logs;
  std::vector<Image::Child> children;
  std::map<int, int> reaped_by_parents;  // pid -> wait status a recorded parent got

  // In the order their logs began, by the wall clock (comparable across
  // hosts, as a monotonic clock is not): log names sort as text, pid 100001
  // before pid 99998, and pids wrap round at pid_max.
  std::vector<Image> summarized = summarizeLogs(log::listLogs(dir), finalize);
  std::stable_sort(summarized.begin(), summarized.end(), [](const Image& a, const Image& b) {
    return std::tie(a.started_ns, a.pid, a.generation) < std::tie(b.started_ns, b.pid, b.generation);
  });
  for (Image& img : summarized) {
    s.bytes += img.bytes;
    for (auto& p : img.problems) s.problems.push_back(std::move(p));
    for (auto& u : img.unseen)
      s.unseen.push_back("pid " + std::to_string(img.pid) + " " + img.exe + ": " + std::move(u));
    if (!img.readable) continue;
    ++s.logs;
    s.events += img.events;
    present.insert({img.pid, img.generation});
    pids_with_logs.insert(img.pid);
    for (const auto& [pid, status] : img.reaped) reaped_by_parents[pid] = status;
    children.insert(children.end(), img.children.begin(), img.children.end());
    hashExecutable(img.exe, img.exe_size, img.exe_mtime_ns, &s.executables);
    images.push_back(std::move(img));
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
  // An image that exited normally, by the status its parent or radar record
  // reaped, though its log saw no exit: it exec'd (with the environment
  // scrubbed, or statically) or exited through a raw system call.
  std::map<int, int> statuses = reaped_by_parents;
  for (const auto& r : recording.reaped()) statuses[r.pid()] = r.status();
  for (const auto& img : images) {
    if (img.ended_seen || present.count({img.pid, img.generation + 1})) continue;
    auto status = statuses.find(img.pid);
    if (status == statuses.end() || !WIFEXITED(status->second)) continue;
    add(img.pid, img.exe,
        "exited with status " + std::to_string(WEXITSTATUS(status->second)) +
            " without radar seeing it exit: it executed a program (or exited) through a raw system call, "
            "and was not recorded from then on");
  }
  std::set<int> reported;
  for (const auto& c : children)
    if (!pids_with_logs.count(c.pid) && reported.insert(c.pid).second)
      add(c.pid, c.path,
          !c.path.empty() ? unrecordable(c.path)
                          : "no log (child of pid " + std::to_string(c.parent) +
                                "): it could not write one, or it exited before its first instruction");
  for (const auto& r : recording.reaped()) {
    if (pids_with_logs.count(r.pid()) || !reported.insert(r.pid()).second) continue;
    if (recording.dormant()) continue;  // it may have ended before radar attach
    if (r.pid() == recording.root_pid() && recording.command_size()) {
      // The program radar record started: why it left no log.
      const char* path = std::getenv("PATH");  // radar record gave the program its own environment
      const std::string file = resolveProgram(recording.command(0), recording.cwd(), path ? path : "");
      add(r.pid(), file, unrecordable(file) + "; it " + log::statusText(r.status()));
    } else {
      add(r.pid(), "", log::statusText(r.status()) + " but was not recorded");
    }
  }
  return s;
}

}  // namespace radar::record
