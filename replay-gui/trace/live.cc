#include "trace/live.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <google/protobuf/text_format.h>

#include "radar/proto/radarlog.pb.h"
#include "trace/merge.h"

namespace radar::trace {

namespace {

bool running(const Process& p) { return p.end == Process::End::Unknown && !p.external && p.not_recorded.empty(); }

// A call in progress in a running process, as its thread slot says.
struct CallInProgress {
  int64_t entry_wall;
  log::Kind kind;
  uint32_t channel;  // Trace::channels, kNone when not known
};

std::vector<CallInProgress> callsInProgress(const Trace& t) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> channel_of;  // (process, log's channel index)
  for (const Endpoint& e : t.endpoints) channel_of[{e.process, e.local_index}] = e.channel;
  std::vector<CallInProgress> calls;
  for (const Process& p : t.processes) {
    if (!running(p)) continue;
    for (const log::ThreadSlot& s : p.control.threads) {
      if (!s.tid || !s.kind) continue;
      const auto found = s.channel ? channel_of.find({p.index, s.channel}) : channel_of.end();  // 0: none
      calls.push_back({s.entry_ns + p.realtime_offset, static_cast<log::Kind>(s.kind),
                       found == channel_of.end() ? kNone : found->second});
    }
  }
  return calls;
}

// The process events of the last `within` ns that created a process whose
// log is not there yet: the new process's calls are not known.
int64_t unloggedChildren(const Trace& t, const LiveTimes& times) {
  std::set<std::pair<uint32_t, int32_t>> known;  // (boot, pid)
  for (const Process& p : t.processes) known.insert({p.boot, p.pid});
  int64_t before = times.now_wall;
  const int64_t since = times.now_wall - times.new_log_wait_ns;
  for (const Process& p : t.processes) {
    const EventList events = t.process_events[p.index];
    for (size_t k = events.size(); k-- > 0 && t.wallReturnTime(events[k]) >= since;) {
      const Event& e = t.events[events[k]];
      if (e.flags & kEventFailed) continue;
      const int32_t child = e.eventKind() == log::Kind::Fork    ? e.result
                            : e.eventKind() == log::Kind::Spawn ? static_cast<int32_t>(e.value)
                                                                : 0;
      if (child > 0 && !known.count({p.boot, child})) before = std::min(before, t.wallTime(events[k]));
    }
    // A new program image's log comes after the exec.
    const bool next_unseen = p.next_image == kNone || t.processes[p.next_image].external;
    if (p.end == Process::End::Execed && next_unseen && p.last_event != kNone &&
        t.wallReturnTime(p.last_event) >= since)
      before = std::min(before, t.wallTime(p.last_event));
  }
  return before;
}

// Whether a send still in progress, begun before the receive returned,
// may have written bytes it got that no logged send explains.
bool awaitsASend(const Trace& t, uint32_t receive, const std::vector<CallInProgress>& calls) {
  const Event& e = t.events[receive];
  if (!(e.flags & kEventUnmatched) || (e.flags & kEventExternal)) return false;
  const uint32_t channel = e.endpoint == kNone ? kNone : t.endpoints[e.endpoint].channel;
  return std::any_of(calls.begin(), calls.end(), [&](const CallInProgress& c) {
    return log::categoryOf(c.kind) == log::Category::Send && c.entry_wall <= t.wallReturnTime(receive) &&
           (c.channel == kNone || channel == kNone || c.channel == channel);
  });
}

}  // namespace

namespace {

bool readRecordingFile(const std::string& dir, proto::Recording* rec) {
  std::ifstream meta(dir + "/recording.txt");
  if (!meta) return false;
  std::stringstream text;
  text << meta.rdbuf();
  return google::protobuf::TextFormat::ParseFromString(text.str(), rec);
}

// Whether a process of this boot runs (a zombie has ended).
bool runsHere(int32_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return ::kill(pid, 0) == 0 || errno == EPERM;  // /proc hides it, or it is gone
  const size_t paren = line.rfind(')');                                         // "pid (name) STATE ..."
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

}  // namespace

bool recordingEnded(const std::string& dir) {
  proto::Recording rec;
  return readRecordingFile(dir, &rec) && rec.end_realtime_ns() != 0;
}

bool recorderGone(const std::string& dir) {
  proto::Recording rec;
  if (!readRecordingFile(dir, &rec) || rec.end_realtime_ns() != 0) return false;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool free = ::flock(fd, LOCK_SH | LOCK_NB) == 0;  // let go as it closes
  ::close(fd);
  return free;
}

bool recordersGone(const std::vector<std::string>& dirs) {
  bool gone = false;
  for (const std::string& dir : dirs) {
    const bool lost = recorderGone(dir);
    if (!lost && !recordingEnded(dir)) return false;
    gone |= lost;
  }
  return gone;
}

bool anyProcessAlive(const Trace& t) {
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::any_of(t.processes.begin(), t.processes.end(), [&](const Process& p) {
    if (!running(p) || p.pid <= 0) return false;
    if (p.boot < t.boots.size() && t.boots[p.boot] == boot) return runsHere(p.pid);
    return p.host != host;  // another machine's, which may run on; this one's before it booted again, not
  });
}

bool flightRecorderRunning(const std::string& dir) {
  proto::Recording rec;
  return readRecordingFile(dir, &rec) && rec.flight() && !rec.frozen() && rec.end_realtime_ns() == 0;
}

bool runningLogUnreadable(const Trace& t) {
  return std::any_of(t.processes.begin(), t.processes.end(),
                     [](const Process& p) { return running(p) && !p.damage.empty(); });
}

int64_t completeBefore(const Trace& t, const LiveTimes& times) {
  // A call still in progress returns after now: it takes its place after
  // every call that has returned (see linearize.cc).
  return std::min(times.now_wall - times.log_margin_ns, unloggedChildren(t, times));
}

uint32_t settledEvents(const Trace& t, const LiveTimes& times) {
  const int64_t before = completeBefore(t, times);
  const std::vector<CallInProgress> calls = callsInProgress(t);
  const auto n = static_cast<uint32_t>(t.events.size());
  for (uint32_t i = 0; i < n; ++i) {
    if (t.wallReturnTime(i) >= before) return i;
    const Event& e = t.events[i];
    if (!log::isData(e.eventKind()) || (e.flags & kEventFailed)) continue;
    if (log::categoryOf(e.eventKind()) == log::Category::Receive && awaitsASend(t, i, calls)) return i;
    const bool unreceived =
        log::categoryOf(e.eventKind()) == log::Category::Send && !(e.flags & (kEventReceivedWhole | kEventExternal));
    if (unreceived && times.now_wall - t.wallReturnTime(i) < times.receiver_wait_ns) return i;
  }
  return n;
}

LiveLook lookAtRecording(const std::vector<std::string>& dirs, bool merge_unrelated) {
  LiveLook look;
  const auto began = std::chrono::steady_clock::now();
  // Looked at before the logs are read: once it ended, they are whole.
  look.ended = !dirs.empty() && std::all_of(dirs.begin(), dirs.end(), recordingEnded);
  const int64_t now_wall =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  LoadOptions options;
  options.merge_unrelated = merge_unrelated;
  options.running_at_ns = look.ended ? 0 : now_wall;
  look.trace = loadTrace(dirs, options, &look.error);
  // radar record killed, and every process it recorded gone too: nothing
  // will write any more; read whole, as a finished recording.
  if (look.trace && !look.ended && recordersGone(dirs) && !anyProcessAlive(*look.trace)) {
    look.ended = look.recorder_lost = true;
    options.running_at_ns = 0;
    look.trace = loadTrace(dirs, options, &look.error);
  }
  if (look.trace && !look.ended && runningLogUnreadable(*look.trace)) {
    look.trace.reset();
    look.error = "a log was being written as it was read";
  }
  look.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return look;
}

}  // namespace radar::trace
