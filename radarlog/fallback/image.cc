#include "fallback/image.h"

#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "fallback/mark.h"
#include "fallback/remote.h"

namespace radar::fallback {
namespace {

int64_t clockNs(clockid_t clock) {
  struct timespec ts {};
  ::clock_gettime(clock, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// The file name the interposer gives an image's log: PID-GEN-NAME.rlog.
std::string logStem(const TracerConfig& config, pid_t pid, uint32_t generation, const std::string& exe) {
  std::string name = exe.substr(exe.rfind('/') + 1).substr(0, 63);
  for (char& c : name)
    if (c == ' ') c = '_';
  return config.dir + "/" + std::to_string(pid) + "-" + std::to_string(generation) + "-" + name;
}

std::vector<const char*> pointers(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  for (const std::string& s : strings) out.push_back(s.c_str());
  out.push_back(nullptr);
  return out;
}

}  // namespace

TracedImage::TracedImage(pid_t pid, const TracerConfig& config, const ImageStart& start)
    : pid_(pid), config_(config), start_(start), generation_(start.generation) {}

TracedImage::~TracedImage() { close(); }

bool TracedImage::open(std::string* error) {
  if (::getrandom(&log_id_, sizeof log_id_, 0) != sizeof log_id_ || !log_id_)
    log_id_ = static_cast<uint64_t>(pid_) << 32 | generation_ | 1u << 31;
  const std::string exe = procLink(pid_, "exe"), cwd = procLink(pid_, "cwd");
  struct stat st {};
  if (::stat(exe.c_str(), &st) != 0) st = {};
  struct stat owner {};
  ::stat(("/proc/" + std::to_string(pid_)).c_str(), &owner);
  const std::vector<std::string> argv = splitNulls(procFile(pid_, "cmdline"));
  const std::vector<std::string> env = splitNulls(procFile(pid_, "environ"));
  const std::vector<const char*> argv_p = pointers(argv), env_p = pointers(env);
  const std::vector<int> open_fds = openDescriptors(pid_);
  const std::vector<int32_t> listed(open_fds.begin(), open_fds.end());
  const std::string version = "radar " + config_.version + " " + kMark;

  log::HeaderFields h;
  h.recording_id = config_.recording_id;
  h.log_id = log_id_;
  h.host_name = config_.host.c_str();
  h.boot_id = config_.boot_id.c_str();
  h.pid = pid_;
  h.ppid = 0;
  const std::string stat_line = procFile(pid_, "stat");
  if (const size_t paren = stat_line.rfind(')'); paren != std::string::npos && paren + 4 < stat_line.size())
    h.ppid = std::atoi(stat_line.c_str() + stat_line.find(' ', paren + 3) + 1);
  h.origin = start_.origin;
  h.parent_log_id = start_.parent_log;
  h.parent_counter = start_.parent_counter;
  h.generation = generation_;
  h.executable = exe.c_str();
  h.executable_size = static_cast<uint64_t>(st.st_size);
  h.executable_mtime_ns = st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec;
  h.argv = argv_p.data();
  h.cwd = cwd.c_str();
  h.environment = env_p.data();
  h.redact = config_.redact.empty() ? nullptr : config_.redact.c_str();
  h.realtime_ns = clockNs(CLOCK_REALTIME);
  h.monotonic_ns = clockNs(CLOCK_MONOTONIC);
  h.has_payload_limit = config_.payload_limit.has_value();
  h.payload_limit = config_.payload_limit.value_or(0);
  h.recorder_version = version.c_str();
  h.uid = static_cast<int32_t>(owner.st_uid);
  h.gid = static_cast<int32_t>(owner.st_gid);
  h.open_fds = listed.data();
  h.open_fd_count = listed.size();
  struct rlimit nofile {};
  if (::prlimit(pid_, RLIMIT_NOFILE, nullptr, &nofile) == 0) {
    h.has_nofile = true;
    h.nofile_soft = nofile.rlim_cur;
    h.nofile_hard = nofile.rlim_max;
  }
  log::WriterOptions options;
  if (config_.tail_capacity) options.tail_capacity = config_.tail_capacity;
  options.flight = config_.flight;
  const std::string stem = logStem(config_, pid_, generation_, exe);
  int r = -EEXIST;
  for (int attempt = 0; r == -EEXIST && attempt < 100; ++attempt)
    r = writer_.open((stem + (attempt ? "." + std::to_string(attempt) : "") + ".rlog").c_str(), h, options);
  if (r != 0) {
    *error = "cannot create the log of pid " + std::to_string(pid_) + " in " + config_.dir + ": " + std::strerror(-r);
    return false;
  }
  for (int fd : open_fds) descriptor(fd);
  return true;
}

void TracedImage::close() {
  if (writer_.isOpen()) writer_.close();
}

uint32_t TracedImage::define(int fd, const DescribedFd& d, log::ChannelOrigin origin, uint32_t index) {
  const bool fresh = !index;
  if (fresh) index = ++channels_;
  const log::ChannelFields c = d.channelFields(index, fd, origin);
  log::EventFields e;
  e.kind = log::Kind::Channel;
  e.channel_info = &c;
  writer_.append(e);
  if (fresh) moved_[index] = {0, 0};
  return index;
}

const TracedImage::Fd& TracedImage::descriptor(int fd, log::ChannelOrigin origin) {
  if (auto it = fds_.find(fd); it != fds_.end()) return it->second;
  return created(fd, origin);
}

std::vector<std::pair<int, TracedImage::Fd>> TracedImage::knownIn(uint64_t first, uint64_t last) const {
  std::vector<std::pair<int, Fd>> out;
  for (auto it = fds_.lower_bound(static_cast<int>(std::min<uint64_t>(first, INT32_MAX)));
       it != fds_.end() && static_cast<uint64_t>(it->first) <= last; ++it)
    out.emplace_back(*it);
  return out;
}

const TracedImage::Fd& TracedImage::created(int fd, log::ChannelOrigin origin) {
  const DescribedFd d = describeDescriptor(pid_, fd, config_.external);
  if (d.cls == FdClass::Unknown) {
    // Not known now (not open, or not to be examined): asked again on its next use.
    if (d.refused && !said_refused_) note(d.refused);
    static const Fd unknown;
    return unknown;
  }
  Fd& entry = fds_[fd];
  entry = Fd{d.cls, 0, d.store_received};
  if (d.cls == FdClass::Channel && writer_.isOpen()) entry.channel = define(fd, d, origin);
  return entry;
}

void TracedImage::refresh(int fd) {
  const Fd* was = known(fd);
  if (!was || was->cls != FdClass::Channel) {
    forget(fd);
    created(fd, log::ChannelOrigin::Inherited);
    return;
  }
  const uint32_t index = was->channel;
  const DescribedFd d = describeDescriptor(pid_, fd, config_.external);
  if (d.cls != FdClass::Channel) return;
  define(fd, d, log::ChannelOrigin::Created, index);
  fds_[fd].store_received = d.store_received;
}

void TracedImage::duplicated(int from, int to) {
  if (from == to) return;
  const Fd copy = descriptor(from);
  if (copy.cls == FdClass::Unknown) return forget(to);  // asked again on its next use
  fds_[to] = copy;
}

// A NOTE, once, that its descriptors cannot be examined: its messages go
// unrecorded, and the log says why.
void TracedImage::note(int error) {
  said_refused_ = true;
  const std::string text =
      std::string("the fallback recorder cannot examine this process's descriptors (pidfd_getfd: ") +
      std::strerror(error) + "): its messages are not recorded";
  const char* strings[1] = {text.c_str()};
  log::EventFields e;
  e.kind = log::Kind::Note;
  e.strings = strings;
  e.string_count = 1;
  writer_.append(e);
}

void TracedImage::sayUnseen(log::Unseen what, const std::string& detail) {
  const uint32_t bit = 1u << static_cast<unsigned>(what);
  if (said_unseen_ & bit) return;
  said_unseen_ |= bit;
  const std::string text = std::string(log::unseenDoes(what)) + (detail.empty() ? "" : " (" + detail + ")") + ": " +
                           log::unseenConsequence(what);
  const char* strings[4] = {text.c_str(), log::kUnseenNote, log::unseenName(what), detail.c_str()};
  log::EventFields e;
  e.kind = log::Kind::Note;
  e.strings = strings;
  e.string_count = 4;
  writer_.append(e);
}

uint32_t TracedImage::sysvQueue(int id) {
  if (id < 0) return 0;
  if (auto it = sysv_queues_.find(id); it != sysv_queues_.end()) return it->second;
  DescribedFd d;
  d.cls = FdClass::Channel;
  d.type = log::ChannelType::SysvMessageQueue;
  d.ino = uint64_t{1} << 32 | static_cast<uint32_t>(id);
  d.path = std::to_string(id);
  d.store_received = true;  // anyone may use the queue by its id
  return sysv_queues_[id] = define(-1, d, log::ChannelOrigin::Opened);
}

uint64_t TracedImage::append(pid_t tid, log::EventFields& e) {
  if (!writer_.isOpen()) return 0;
  e.tid = tid == pid_ ? 0 : static_cast<uint32_t>(tid);
  if (log::isData(e.kind) && e.channel) {
    auto it = moved_.find(e.channel);
    if (it != moved_.end()) {
      const int dir = log::categoryOf(e.kind) == log::Category::Send ? 0 : 1;
      e.has_offset = true;
      e.offset = it->second[dir];
      it->second[dir] += log::bytesMoved(e.kind, e.result, e.flags, e.lengths, e.length_count);
    }
  }
  return writer_.append(e);
}

}  // namespace radar::fallback
