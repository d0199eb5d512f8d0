#include "driver/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>

namespace radar::driver {
namespace {

// What the sandbox's first processes tell radar debug, one record per
// write (smaller than PIPE_BUF, so never interleaved).
struct Report {
  enum Kind : int32_t { Init = 1, Ready, Failed, Stopped, Ended };
  int32_t kind;
  int32_t value;  // Init: the init's pid (ours); Stopped, Ended: the wait status
  char text[1016];
};

void report(int fd, Report::Kind kind, int32_t value, const std::string& text = {}) {
  Report r{};
  r.kind = kind;
  r.value = value;
  std::strncpy(r.text, text.c_str(), sizeof(r.text) - 1);
  while (::write(fd, &r, sizeof(r)) < 0 && errno == EINTR) {
  }
}

std::string why(const std::string& what) { return what + ": " + std::strerror(errno); }

// ---- the view of the file systems ------------------------------------------------------------

struct MountPoint {
  std::string path;
  std::string type;
};

// /proc/self/mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8)));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::vector<MountPoint> mountTable() {
  std::vector<MountPoint> table;
  std::ifstream f("/proc/self/mountinfo");
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream fields(line);
    std::string field, point;
    for (int i = 0; i < 5 && fields >> field; ++i)
      if (i == 4) point = unescape(field);
    while (fields >> field && field != "-") {
    }
    std::string type;
    fields >> type;
    if (!point.empty() && !type.empty()) table.push_back({point, type});
  }
  return table;
}

// File systems that are views of the kernel, not stores of files: bound
// read-only as they are (the process file system is mounted anew).
bool kernelView(const std::string& type) {
  static const char* const kTypes[] = {"sysfs",      "cgroup", "cgroup2",     "debugfs",  "tracefs",
                                       "securityfs", "pstore", "bpf",         "configfs", "fusectl",
                                       "hugetlbfs",  "mqueue", "binfmt_misc", "autofs",   "efivarfs",
                                       "selinuxfs",  "nsfs",   "rpc_pipefs",  "nfsd",     "devpts"};
  return std::any_of(std::begin(kTypes), std::end(kTypes), [&](const char* t) { return type == t; });
}

// Overlay's option syntax: ',' ':' and '\' in a path are escaped.
std::string overlayPath(const std::string& p) {
  std::string out;
  for (char c : p) {
    if (c == ',' || c == ':' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

int mountSetattr(const char* path, unsigned flags, uint64_t set) {
#ifndef SYS_mount_setattr
  (void)path, (void)flags, (void)set;
  errno = ENOSYS;
  return -1;
#else
  struct {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
  } attr = {set, 0, 0, 0};
  return static_cast<int>(::syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &attr, sizeof(attr)));
#endif
}
constexpr uint64_t kMountAttrRdonly = 0x1;
constexpr unsigned kAtRecursive = 0x8000;

class ViewBuilder {
 public:
  ViewBuilder(std::vector<MountPoint> table, std::string layers, std::vector<std::string> places)
      : table_(std::move(table)), layers_(std::move(layers)), places_(std::move(places)) {}

  // src as the re-run sees it, built at dst (an existing directory).
  bool build(const std::string& src, const std::string& dst, std::string* error) {
    if (src == "/dev") return devices(dst, error);
    const MountPoint* at = mountAt(src);
    if (at && at->type == "proc") return processes(dst, error);
    // An automount point is left empty: looking it up would mount it.
    if (at && at->type == "autofs") return true;
    if (at && kernelView(at->type)) return readOnlyTree(src, dst, error);
    if (!mountsBelow(src)) return overlay(src, dst, error);
    return skeleton(src, dst, error);
  }

 private:
  const MountPoint* mountAt(const std::string& path) const {
    const MountPoint* top = nullptr;
    for (const auto& m : table_)
      if (m.path == path) top = &m;
    return top;
  }
  bool mountsBelow(const std::string& path) const {
    const std::string prefix = path == "/" ? "/" : path + "/";
    return std::any_of(table_.begin(), table_.end(), [&](const MountPoint& m) {
      return m.path.size() > prefix.size() && m.path.compare(0, prefix.size(), prefix) == 0;
    });
  }

  // Reads come from src, writes go to a layer in the sandbox's memory.
  bool overlay(const std::string& src, const std::string& dst, std::string* error) {
    const std::string layer = layers_ + "/" + std::to_string(++layer_count_);
    if (::mkdir(layer.c_str(), 0700) != 0 || ::mkdir((layer + "/upper").c_str(), 0755) != 0 ||
        ::mkdir((layer + "/work").c_str(), 0700) != 0) {
      *error = why("cannot make a layer in " + layers_);
      return false;
    }
    prepareUpper(src, layer + "/upper");
    const std::string options = "lowerdir=" + overlayPath(src) + ",upperdir=" + overlayPath(layer + "/upper") +
                                ",workdir=" + overlayPath(layer + "/work");
    if (::mount("overlay", dst.c_str(), "overlay", 0, (options + ",userxattr").c_str()) == 0 ||
        ::mount("overlay", dst.c_str(), "overlay", 0, options.c_str()) == 0)
      return true;
    // A file system overlayfs does not take stays unchanged: read-only.
    return readOnlyTree(src, dst, error);
  }

  // overlayfs copies a directory up to the layer before anything in it
  // changes, and refuses to (EOVERFLOW) when its owner has no id in the
  // sandbox: a user other than root has only their own, so writing into
  // /tmp/pg/data (a directory of theirs in one of root's) would fail.
  // The directories on the way to the places the program is likely to
  // write to are made in the layer beforehand, with their modes and times:
  // overlayfs merges them with the ones below and copies nothing up.
  void prepareUpper(const std::string& src, const std::string& upper) const {
    if (::geteuid() == 0) return;  // every id is in the sandbox
    const std::string prefix = src == "/" ? "/" : src + "/";
    for (const std::string& place : places_) {
      if (place.compare(0, prefix.size(), prefix) != 0) continue;
      for (size_t end = prefix.size(); end <= place.size(); ++end) {
        if (end < place.size() && place[end] != '/') continue;
        const std::string from = place.substr(0, end),
                          to = upper + "/" + place.substr(prefix.size(), end - prefix.size());
        struct stat st;
        if (::lstat(from.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) break;
        if (::mkdir(to.c_str(), 0700) != 0 && errno != EEXIST) break;
        ::chmod(to.c_str(), st.st_mode & 07777);
        const struct timespec times[2] = {st.st_atim, st.st_mtim};
        ::utimensat(AT_FDCWD, to.c_str(), times, 0);
      }
    }
  }

  bool readOnlyTree(const std::string& src, const std::string& dst, std::string* error) {
    if (::mount(src.c_str(), dst.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      *error = why("cannot show " + src + " in the sandbox");
      return false;
    }
    if (mountSetattr(dst.c_str(), kAtRecursive, kMountAttrRdonly) == 0) return true;
    // No mount_setattr (before Linux 5.12): a remount, which covers one
    // mount only.
    if (!mountsBelow(src) && ::mount(nullptr, dst.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) == 0)
      return true;
    *error = why("cannot make " + src + " read-only in the sandbox");
    ::umount2(dst.c_str(), MNT_DETACH);
    return false;
  }

  // A directory with mount points below it: made in memory, entry by
  // entry, each directory built again (an overlay cannot span mounts).
  // The new PID namespace's own /proc, with the kernel's settings
  // read-only (a re-run as root must not change the host's sysctls).
  bool processes(const std::string& dst, std::string* error) {
    if (::mount("proc", dst.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
      *error = why("cannot mount a /proc of the sandbox's own (a container that hides parts of /proc?)");
      return false;
    }
    for (const char* settings : {"sys", "sysrq-trigger", "irq", "bus", "fs"}) {
      const std::string at = dst + "/" + settings;
      if (::access(at.c_str(), F_OK) != 0) continue;
      if (::mount(at.c_str(), at.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0 ||
          mountSetattr(at.c_str(), kAtRecursive, kMountAttrRdonly) != 0) {
        *error = why("cannot make /proc/" + std::string(settings) + " read-only in the sandbox");
        return false;
      }
    }
    return true;
  }

  bool skeleton(const std::string& src, const std::string& dst, std::string* error) {
    DIR* dir = ::opendir(src.c_str());
    if (!dir) {
      // A directory this user cannot read (/var/lib/docker): the same here.
      if (errno == EACCES || errno == EPERM) return readOnlyTree(src, dst, error) || (error->clear(), true);
      *error = why("cannot read " + src);
      return false;
    }
    bool ok = true;
    while (const dirent* d = ::readdir(dir)) {
      const std::string name = d->d_name;
      if (name == "." || name == "..") continue;
      const std::string from = (src == "/" ? "" : src) + "/" + name, to = dst + "/" + name;
      struct stat st;
      if (::lstat(from.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        if (::mkdir(to.c_str(), st.st_mode & 07777) != 0 || !build(from, to, error)) {
          if (error->empty()) *error = why("cannot make " + to);
          ok = false;
          break;
        }
        copyAttributes(st, to);
      } else if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        const ssize_t n = ::readlink(from.c_str(), target, sizeof(target) - 1);
        if (n < 0) continue;
        target[n] = 0;
        if (::symlink(target, to.c_str()) == 0 && ::lchown(to.c_str(), st.st_uid, st.st_gid) != 0) {
          // an owner outside the sandbox's ids shows as nobody
        }
      } else if (S_ISREG(st.st_mode)) {
        copyFile(from, to, st);
      } else if (S_ISFIFO(st.st_mode)) {
        ::mkfifo(to.c_str(), st.st_mode & 07777);
      }
      // Sockets are left out: connecting to one would reach outside.
    }
    ::closedir(dir);
    return ok;
  }

  // A file next to mount points: a copy the re-run may change (or, if it
  // cannot be read, the file itself, read-only).
  void copyFile(const std::string& from, const std::string& to, const struct stat& st) {
    const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
    bool copied = in >= 0 && out >= 0 && st.st_size <= (64 << 20);
    for (off_t done = 0; copied && done < st.st_size;) {
      const ssize_t n = ::sendfile(out, in, &done, static_cast<size_t>(st.st_size - done));
      if (n <= 0) copied = false;
    }
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    if (copied) {
      copyAttributes(st, to);
    } else if (out >= 0 && ::mount(from.c_str(), to.c_str(), nullptr, MS_BIND, nullptr) == 0 &&
               mountSetattr(to.c_str(), 0, kMountAttrRdonly) != 0) {
      ::umount2(to.c_str(), MNT_DETACH);  // never the real file writable: an empty one instead
    }
  }

  static void copyAttributes(const struct stat& st, const std::string& path) {
    if (::lchown(path.c_str(), st.st_uid, st.st_gid) != 0) {
      // an owner outside the sandbox's ids shows as nobody
    }
    ::chmod(path.c_str(), st.st_mode & 07777);
    const struct timespec times[2] = {st.st_atim, st.st_mtim};
    ::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
  }

  // /dev: the harmless devices, a terminal, and shared memory of its own;
  // no disks, no logging socket.
  bool devices(const std::string& dst, std::string* error) {
    if (::mount("tmpfs", dst.c_str(), "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") != 0) {
      *error = why("cannot make /dev in the sandbox");
      return false;
    }
    for (const char* node : {"null", "zero", "full", "random", "urandom", "tty", "ptmx"}) {
      const std::string from = std::string("/dev/") + node, to = dst + "/" + node;
      if (::access(from.c_str(), F_OK) != 0) continue;
      const int fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0) ::close(fd);
      if (::mount(from.c_str(), to.c_str(), nullptr, MS_BIND, nullptr) != 0) {
        *error = why("cannot show " + from + " in the sandbox");
        return false;
      }
    }
    // The terminal the re-run (or gdb) was given is one of these.
    if (::mkdir((dst + "/pts").c_str(), 0755) == 0 &&
        ::mount("/dev/pts", (dst + "/pts").c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      // no pseudo-terminals here
    }
    ::symlink("/proc/self/fd", (dst + "/fd").c_str());
    ::symlink("/proc/self/fd/0", (dst + "/stdin").c_str());
    ::symlink("/proc/self/fd/1", (dst + "/stdout").c_str());
    ::symlink("/proc/self/fd/2", (dst + "/stderr").c_str());
    if (::mkdir((dst + "/shm").c_str(), 01777) != 0 ||
        ::mount("tmpfs", (dst + "/shm").c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
      *error = why("cannot make /dev/shm in the sandbox");
      return false;
    }
    if (::mkdir((dst + "/mqueue").c_str(), 01777) == 0)
      ::mount("mqueue", (dst + "/mqueue").c_str(), "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
    return true;
  }

  std::vector<MountPoint> table_;
  std::string layers_;
  std::vector<std::string> places_;
  int layer_count_ = 0;
};

// Directories near the root that this user may write in (/tmp/theirs,
// /var/tmp, /var/lib/theirs): the usual places a program writes to that
// its arguments do not name.
void addWritableDirectories(std::vector<std::string>* places) {
  auto scan = [&](const std::string& dir, int depth, auto&& self) -> void {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    while (const dirent* e = ::readdir(d)) {
      if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
      const std::string path = (dir == "/" ? "" : dir) + "/" + e->d_name;
      if (path == "/proc" || path == "/sys" || path == "/dev") continue;
      if (::access(path.c_str(), W_OK) == 0) places->push_back(path);
      if (depth < 2) self(path, depth + 1, self);
    }
    ::closedir(d);
  };
  scan("/", 1, scan);
}

// The mounts are the new namespace's own from here on; then every file
// system is placed, radar debug's directory shown as it is, and the view
// made the root.
bool buildView(const std::string& own_dir, const std::vector<std::string>& places, std::string* error) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    *error = why("cannot make the sandbox's mounts private");
    return false;
  }
  std::vector<MountPoint> table = mountTable();
  const std::string base = own_dir + "/sandbox", layers = base + "/layers", root = base + "/root";
  if (::mkdir(base.c_str(), 0700) != 0 ||
      ::mount("tmpfs", base.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0 ||
      ::mkdir(layers.c_str(), 0700) != 0 || ::mkdir(root.c_str(), 0755) != 0 ||
      ::mount("tmpfs", root.c_str(), "tmpfs", 0, "mode=0755") != 0) {
    *error = why("cannot make the sandbox's memory in " + own_dir);
    return false;
  }
  std::vector<std::string> write_places = places;
  if (::geteuid() != 0) addWritableDirectories(&write_places);
  ViewBuilder view(std::move(table), layers, std::move(write_places));
  if (!view.build("/", root, error)) return false;
  // radar debug's own directory, where the script is read and the status
  // written; the path may be new in the view (under /dev/shm, say).
  std::string at = root;
  for (size_t i = 1; i <= own_dir.size(); ++i) {
    if (i < own_dir.size() && own_dir[i] != '/') continue;
    at = root + own_dir.substr(0, i);
    ::mkdir(at.c_str(), 0700);
  }
  if (::mount(own_dir.c_str(), at.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    *error = why("cannot show " + own_dir + " in the sandbox");
    return false;
  }
  if (::chdir(root.c_str()) != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0 || ::umount2(".", MNT_DETACH) != 0 ||
      ::chdir("/") != 0) {
    *error = why("cannot enter the sandbox's view");
    return false;
  }
  return true;
}

// The network namespace starts with its loopback down.
bool loopbackUp(std::string* error) {
  const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq ifr{};
  std::strcpy(ifr.ifr_name, "lo");
  const bool ok = s >= 0 && ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0 &&
                  (ifr.ifr_flags |= IFF_UP | IFF_RUNNING, ::ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
  if (!ok) *error = why("cannot bring up the sandbox's loopback");
  if (s >= 0) ::close(s);
  return ok;
}

// Identity maps: the re-run has the ids it has outside. Root keeps every
// id its namespace has; anyone else has one uid and one gid.
bool writeIdMaps(pid_t pid, std::string* error) {
  auto write = [&](const std::string& file, const std::string& text) {
    const int fd = ::open(("/proc/" + std::to_string(pid) + "/" + file).c_str(), O_WRONLY | O_CLOEXEC);
    const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (!ok) *error = why("cannot write the sandbox's " + file);
    if (fd >= 0) ::close(fd);
    return ok;
  };
  auto identity = [](const char* own) {
    std::ifstream f(own);
    std::string out;
    unsigned long inner, outer, count;
    while (f >> inner >> outer >> count)
      out += std::to_string(inner) + " " + std::to_string(inner) + " " + std::to_string(count) + "\n";
    return out;
  };
  if (::geteuid() == 0 && write("uid_map", identity("/proc/self/uid_map")) &&
      write("gid_map", identity("/proc/self/gid_map")))
    return true;
  const std::string uid = std::to_string(::geteuid()), gid = std::to_string(::getegid());
  return (write("setgroups", "deny") || errno == ENOENT) && write("uid_map", uid + " " + uid + " 1\n") &&
         write("gid_map", gid + " " + gid + " 1\n");
}

// Pid 1 of the sandbox: builds the view, starts the program, reaps every
// process, and ends (the kernel then kills all that is left) when the
// program does.
[[noreturn]] void runInit(const Sandbox::Options& options, const std::function<void()>& exec, int reports,
                          const struct sigaction given[2]) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::string cwd(PATH_MAX, '\0');
  if (!::getcwd(cwd.data(), cwd.size())) cwd = "/";
  cwd.resize(std::strlen(cwd.c_str()));
  std::string error;
  if (!buildView(options.own_dir, options.write_places, &error) || !loopbackUp(&error)) {
    report(reports, Report::Failed, 0, error);
    ::_exit(1);
  }
  // The program gets the terminal's signals as radar debug was given them
  // (pid 1 ignores them anyway).
  ::sigaction(SIGINT, &given[0], nullptr);
  ::sigaction(SIGQUIT, &given[1], nullptr);
  // Root in the sandbox could remount what was made read-only (/proc/sys,
  // /sys): the program gets a user and mount namespace of its own below
  // this one, where the kernel locks those mounts as they are.
  const bool lock = ::geteuid() == 0;
  int up[2] = {-1, -1}, down[2] = {-1, -1};
  if (lock && (::pipe2(up, O_CLOEXEC) != 0 || ::pipe2(down, O_CLOEXEC) != 0)) {
    report(reports, Report::Failed, 0, why("cannot make pipes in the sandbox"));
    ::_exit(1);
  }
  const pid_t program = ::fork();
  if (program < 0) {
    report(reports, Report::Failed, 0, why("cannot fork in the sandbox"));
    ::_exit(1);
  }
  if (program == 0) {
    ::close(reports);
    if (lock) {
      const char done = ::unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? '1' : '0';
      char go = 0;
      if (::write(up[1], &done, 1) != 1 || ::read(down[0], &go, 1) != 1 || go != '1') ::_exit(127);
    }
    if (::chdir(cwd.c_str()) != 0) {
      // the working directory is recorded and set by the launch itself
    }
    exec();
    ::_exit(127);
  }
  if (lock) {
    char done = 0;
    if (::read(up[0], &done, 1) != 1 || done != '1' || !writeIdMaps(program, &error) || ::write(down[1], "1", 1) != 1) {
      report(reports, Report::Failed, 0,
             error.empty() ? "cannot make the program's own user namespace in the sandbox" : error);
      ::_exit(1);
    }
  }
  report(reports, Report::Ready, 0);
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(-1, &status, __WALL | (options.report_stops ? WUNTRACED : 0));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) ::_exit(0);
    if (r != program) continue;
    if (WIFSTOPPED(status)) {
      report(reports, Report::Stopped, status);
      continue;
    }
    report(reports, Report::Ended, status);
    ::_exit(0);
  }
}

}  // namespace

bool Sandbox::start(const Options& options, const std::function<void()>& exec, const volatile sig_atomic_t* stop,
                    std::string* error) {
  enabled_ = options.enabled;
  report_stops_ = options.report_stops;
  if (!enabled_) {
    child_ = ::fork();
    if (child_ < 0) {
      *error = why("cannot fork");
      return false;
    }
    if (child_ == 0) {
      exec();
      ::_exit(127);
    }
    return true;
  }
  int up[2], down[2], reports[2];
  if (::pipe2(up, O_CLOEXEC) != 0 || ::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(reports, O_CLOEXEC) != 0) {
    *error = why("cannot make pipes");
    return false;
  }
  const pid_t parent = ::getpid();
  child_ = ::fork();
  if (child_ < 0) {
    *error = why("cannot fork");
    return false;
  }
  if (child_ == 0) {
    ::close(up[0]);
    ::close(down[1]);
    ::close(reports[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    // The terminal's Ctrl-C is the program's (or gdb's); this process
    // ends with radar debug.
    struct sigaction given[2];
    ::sigaction(SIGINT, nullptr, &given[0]);
    ::sigaction(SIGQUIT, nullptr, &given[1]);
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGQUIT, SIG_IGN);
    constexpr int kNamespaces = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID;
    if (::unshare(kNamespaces) != 0) {
      report(reports[1], Report::Failed, errno, why("cannot make the sandbox's namespaces (unshare)"));
      ::_exit(1);
    }
    char go = 0;
    if (::write(up[1], "1", 1) != 1 || ::read(down[0], &go, 1) != 1 || go != '1') ::_exit(1);
    const pid_t init = ::fork();
    if (init < 0) {
      report(reports[1], Report::Failed, 0, why("cannot fork"));
      ::_exit(1);
    }
    if (init == 0) runInit(options, exec, reports[1], given);
    report(reports[1], Report::Init, init);
    ::close(reports[1]);
    int status;
    while (::waitpid(init, &status, 0) < 0 && errno == EINTR) {
    }
    ::_exit(0);
  }
  ::close(up[1]);
  ::close(down[0]);
  ::close(reports[1]);
  reports_ = reports[0];
  char ready = 0;
  ssize_t n;
  while ((n = ::read(up[0], &ready, 1)) < 0 && errno == EINTR) {
  }
  ::close(up[0]);
  std::string failure;
  if (n == 1 && !writeIdMaps(child_, &failure)) {
    ::close(down[1]);
    killAll();
    *error = failure;
    return false;
  }
  if (n == 1 && ::write(down[1], "1", 1) != 1) failure = why("cannot reach the sandbox");
  ::close(down[1]);
  if (failure.empty()) failure = awaitInit(stop);
  if (failure.empty()) return true;
  killAll();
  *error = failure;
  return false;
}

// Until the view is built: the init's pid, and ready; else why not.
std::string Sandbox::awaitInit(const volatile sig_atomic_t* stop) {
  bool have_init = false, have_ready = false;
  while (!(have_init && have_ready)) {
    Report r{};
    const Read got = readReport(&r, stop, {});
    if (got == Read::Stopped) return "interrupted";
    if (got == Read::Closed) return "the sandbox ended while it was being made";
    if (r.kind == Report::Init) {
      init_ = r.value;
      init_pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, init_, 0));
      have_init = true;
    }
    if (r.kind == Report::Ready) have_ready = true;
    if (r.kind == Report::Failed) return r.text;
  }
  return "";
}

Sandbox::Read Sandbox::readReport(void* report, const volatile sig_atomic_t* stop, const std::function<bool()>& stuck) {
  for (;;) {
    // A signal that comes between the check and poll() is seen at the next
    // check, a tenth of a second later.
    if (stop && *stop) return Read::Stopped;
    if (stuck && stuck()) return Read::Stuck;
    pollfd p{reports_, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready <= 0) continue;
    const ssize_t got = ::read(reports_, report, sizeof(Report));
    if (got < 0 && errno == EINTR) continue;
    return got == static_cast<ssize_t>(sizeof(Report)) ? Read::Got : Read::Closed;
  }
}

Sandbox::Change Sandbox::wait(int* status, const volatile sig_atomic_t* stop, std::string* error,
                              const std::function<bool()>& stuck) {
  if (!enabled_) {
    for (;;) {
      if (stop && *stop) return Change::Interrupted;
      if (stuck && stuck()) {
        killAll();
        return Change::Stuck;
      }
      const pid_t r = ::waitpid(child_, status, (report_stops_ ? WUNTRACED : 0) | WNOHANG);
      if (r == child_) {
        if (WIFSTOPPED(*status)) return Change::Stopped;
        child_ = -1;
        return Change::Ended;
      }
      if (r < 0 && errno != EINTR) {
        *error = why("lost the re-run");
        return Change::Failed;
      }
      const struct timespec tick = {0, 5'000'000};
      ::nanosleep(&tick, nullptr);
    }
  }
  for (;;) {
    Report r{};
    const Read got = readReport(&r, stop, stuck);
    if (got == Read::Stopped) return Change::Interrupted;
    if (got == Read::Stuck) {
      killAll();
      return Change::Stuck;
    }
    if (got == Read::Closed) {
      *error = "the sandbox ended before the re-run did";
      killAll();
      return Change::Failed;
    }
    *status = r.value;
    if (r.kind == Report::Stopped) return Change::Stopped;
    if (r.kind == Report::Ended) {
      // The init ends now, and its holder once every process of the
      // namespace is gone.
      int held;
      while (::waitpid(child_, &held, 0) < 0 && errno == EINTR) {
      }
      child_ = -1;
      killAll();
      return Change::Ended;
    }
  }
}

pid_t Sandbox::programPid() const {
  if (!enabled_) return child_;
  std::ifstream f("/proc/" + std::to_string(init_) + "/task/" + std::to_string(init_) + "/children");
  pid_t pid = -1;
  f >> pid;
  return pid;
}

void Sandbox::killAll() {
  if (child_ > 0) {
    // The init by its pidfd (its pid may be another process's once it is
    // gone); without one, the holder, whose death takes the init with it.
    if (enabled_ && init_pidfd_ >= 0)
      ::syscall(SYS_pidfd_send_signal, init_pidfd_, SIGKILL, nullptr, 0);
    else
      ::kill(child_, SIGKILL);
    int status;
    while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  child_ = init_ = -1;
  if (init_pidfd_ >= 0) ::close(init_pidfd_);
  init_pidfd_ = -1;
  if (reports_ >= 0) ::close(reports_);
  reports_ = -1;
}

}  // namespace radar::driver
