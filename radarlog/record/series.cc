#include "record/series.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "log/wait_status.h"
#include "record/recording.h"

namespace radar::record {
namespace {

volatile sig_atomic_t g_stop_series = 0;
void stopSeries(int) { g_stop_series = 1; }

bool isDirectoryAt(int dir_fd, const char* name) {
  struct stat st;
  return ::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

// Removes one run's recording (its files, then the directory, never
// following a link). False when something else is in it.
bool removeRun(int series_fd, const std::string& name) {
  const int fd = ::openat(series_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  const bool cleared = clearRecording(fd);
  ::close(fd);
  return cleared && ::unlinkat(series_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

std::vector<std::string> entriesOf(int dir_fd) {
  std::vector<std::string> names;
  const int scan = ::dup(dir_fd);
  if (scan < 0) return names;
  DIR* d = ::fdopendir(scan);
  if (!d) {
    ::close(scan);
    return names;
  }
  ::rewinddir(d);  // the copy shares the position the emptiness check left at the end
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
  ::closedir(d);
  return names;
}

// --force replaces an earlier series: its run-K recordings, nothing else.
bool replaceEarlierSeries(const SeriesSettings& s, int series_fd, std::string* error) {
  const std::vector<std::string> names = entriesOf(series_fd);
  bool replaceable = s.force;
  for (const auto& n : names)
    replaceable = replaceable && n.compare(0, 4, "run-") == 0 && isDirectoryAt(series_fd, n.c_str());
  if (!replaceable) {
    *error =
        s.dir + " is not empty" +
        (s.force ? " and holds more than runs of radar record --repeat" : " (use --force to replace the runs in it)");
    return false;
  }
  for (const auto& n : names)
    if (!removeRun(series_fd, n)) {
      *error = "cannot remove " + s.dir + "/" + n + ": " + std::strerror(errno);
      return false;
    }
  return true;
}

// Ctrl-C reaches the program (each run's radar record waits for it); the
// series then ends after that run.
class StopAfterThisRun {
 public:
  StopAfterThisRun() {
    struct sigaction stop {};
    stop.sa_handler = stopSeries;
    ::sigaction(SIGINT, &stop, &old_int_);
    ::sigaction(SIGTERM, &stop, &old_term_);
  }
  ~StopAfterThisRun() { restore(); }
  void restore() const {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Waits for a child; its status as a shell gives it.
int statusOf(pid_t child) {
  int wstatus = 0;
  while (::waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  return log::shellExitStatus(wstatus);
}

// Records run K, its standard output into `output` unless that is -1; its
// exit status, or -1 with `error` when it could not start.
int recordRun(const SeriesSettings& s, unsigned long long k, const StopAfterThisRun& stop, int output,
              std::string* error) {
  std::vector<std::string> argv = s.recorder;
  argv.insert(argv.end(), {"--output", s.dir + "/run-" + std::to_string(k), "--"});
  argv.insert(argv.end(), s.command.begin(), s.command.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::fprintf(stderr, "radar: run %llu of %llu\n", k, s.runs);
  const pid_t child = ::fork();
  if (child < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (child == 0) {
    stop.restore();
    if (output >= 0) ::dup2(output, STDOUT_FILENO);
    ::execv(cargv[0], cargv.data());
    std::fprintf(stderr, "radar record: cannot run %s: %s\n", cargv[0], std::strerror(errno));
    ::_exit(2);
  }
  return statusOf(child);
}

// A run's standard output, kept to give to --until's command: a file with
// no name, emptied before each run.
class RunOutput {
 public:
  RunOutput() : fd_(::memfd_create("radar-run-output", MFD_CLOEXEC)) {}
  ~RunOutput() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  bool empty() { return ::ftruncate(fd_, 0) == 0 && ::lseek(fd_, 0, SEEK_SET) == 0; }
  // Copies what the run printed to radar's own standard output.
  void show() const {
    char buf[65536];
    ::lseek(fd_, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0;)
      for (ssize_t done = 0, w; done < n; done += w)
        if ((w = ::write(STDOUT_FILENO, buf + done, n - done)) <= 0) return;
  }
  // --until's command on this run: its status (127 when it cannot start).
  int check(const std::string& command, const std::string& run, int status) const {
    ::lseek(fd_, 0, SEEK_SET);
    const pid_t child = ::fork();
    if (child < 0) return 127;
    if (child == 0) {
      ::dup2(fd_, STDIN_FILENO);
      ::setenv("RADAR_RUN", run.c_str(), 1);
      ::setenv("RADAR_RUN_STATUS", std::to_string(status).c_str(), 1);
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return statusOf(child);
  }

 private:
  int fd_;
};

// The runs, until the last, a stop, or the one the settings look for.
void runSeries(const SeriesSettings& s, int series_fd, SeriesOutcome& out) {
  const StopAfterThisRun stop;
  RunOutput output;
  if (!s.until.empty() && output.fd() < 0) {
    out.error = std::string("memfd_create: ") + std::strerror(errno);
    return;
  }
  for (unsigned long long k = 1; k <= s.runs && !g_stop_series; ++k) {
    if (!s.until.empty() && !output.empty()) {
      out.error = std::string("cannot empty the run's output: ") + std::strerror(errno);
      return;
    }
    out.status = recordRun(s, k, stop, s.until.empty() ? -1 : output.fd(), &out.error);
    if (out.status < 0) return;
    if (!s.until.empty()) output.show();  // what it printed, even when it was not recorded
    // A run radar could not make (not the program's status): the series ends.
    const std::string run = "run-" + std::to_string(k);
    if (::faccessat(series_fd, (run + "/recording.txt").c_str(), F_OK, 0) != 0) {
      out.error = "run " + std::to_string(k) + " was not recorded; the series stops";
      return;
    }
    out.recorded = k;
    if (out.first_status < 0) out.first_status = out.status;
    if (g_stop_series) return;  // a run cut short by Ctrl-C is not judged: it did not end by itself
    if (!s.until.empty()) {
      if ((out.until_status = output.check(s.until, s.dir + "/" + run, out.status)) != 0) return;
    } else if (s.until_fail && out.status != out.first_status) {
      return;
    }
  }
}

}  // namespace

SeriesOutcome recordSeries(const SeriesSettings& s) {
  SeriesOutcome out;
  bool created = false, empty = true;
  const int series_fd = openRecordingDirectory(s.dir, &created, &empty, &out.error);
  if (series_fd < 0) return out;
  if (!empty && !replaceEarlierSeries(s, series_fd, &out.error)) {
    ::close(series_fd);
    return out;
  }
  runSeries(s, series_fd, out);
  out.interrupted = g_stop_series;
  // A run stopped by Ctrl-C is not caught: it did not end by itself.
  const bool caught =
      !out.interrupted && (s.until.empty() ? s.until_fail && out.status != out.first_status : out.until_status != 0);
  if (out.error.empty() && caught) {
    // Keep the run caught and the one before it.
    const unsigned long long k = out.recorded;
    for (unsigned long long j = 1; j + 1 < k; ++j)
      if (!removeRun(series_fd, "run-" + std::to_string(j)))
        std::fprintf(stderr, "radar record: cannot remove %s/run-%llu: %s\n", s.dir.c_str(), j, std::strerror(errno));
    out.before = k > 1 ? s.dir + "/run-" + std::to_string(k - 1) : "";
    out.after = s.dir + "/run-" + std::to_string(k);
  }
  ::close(series_fd);
  return out;
}

}  // namespace radar::record
