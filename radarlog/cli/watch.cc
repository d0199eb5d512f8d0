#include "cli/watch.h"

#include <fcntl.h>
#include <google/protobuf/text_format.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "cli/loaded_recording.h"
#include "log/escape.h"
#include "log/stop_at.h"
#include "radar/proto/radarlog.pb.h"
#include "record/flight.h"
#include "record/session.h"
#include "trace/findings.h"
#include "trace/live.h"
#include "trace/select.h"

namespace radar::cli {

namespace {

constexpr auto kLookEvery = std::chrono::milliseconds(200);
constexpr int64_t kLastingNs = 500'000'000;
constexpr int kMostRuns = 100;      // commands run for one watch: a condition met a million times is no page storm
constexpr int kMostSnapshots = 10;  // copies of the whole recording: no disk filled by a condition met often

// Copies the recording as it is now into DIR/snapshot-N; its path, or ""
// with `error`.
std::string snapshot(const std::string& dir, std::string* error) {
  proto::Recording recording;
  std::ifstream meta(dir + "/recording.txt");
  std::stringstream text;
  text << meta.rdbuf();
  google::protobuf::TextFormat::ParseFromString(text.str(), &recording);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string into = record::nextFreezeDirectory(dir, "snapshot");
    if (record::freezeRecording(dir, into, recording, error)) return into;
    if (error->find("File exists") == std::string::npos) break;
  }
  return "";
}

int64_t wallNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Whether process p has a call blocked on `channel` since before `since`.
bool blockedOnSince(const trace::Trace& t, uint32_t p, uint32_t channel, int64_t since) {
  const trace::Process& process = t.processes[p];
  for (const log::ThreadSlot& s : process.control.threads) {
    if (!s.kind || !s.channel) continue;
    for (const trace::Endpoint& e : t.endpoints)
      if (e.process == p && e.local_index == s.channel && e.channel == channel &&
          s.entry_ns + process.realtime_offset <= since)
        return true;
  }
  return false;
}

// Fields 3 on of /proc/PID/stat (after the name, which may hold spaces
// and parentheses); empty when there is no such process.
std::vector<std::string> statFields(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  std::vector<std::string> fields;
  if (paren == std::string::npos) return fields;
  std::istringstream words(text.substr(paren + 1));
  for (std::string word; words >> word;) fields.push_back(word);
  return fields;
}

// Waits (a second at most) for a process sent SIGSTOP to be stopped: the
// signal is taken when it next runs, a moment later.
void waitStopped(pid_t pid) {
  for (int tries = 0; tries < 100; ++tries) {
    const std::vector<std::string> fields = statFields(pid);
    if (fields.empty() || fields[0] == "T" || fields[0] == "t") return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// Whether `pid` descends from this process. radar record is its program's
// subreaper: every process it records stays below it, however it
// detaches, while a pid of another host or of a pid namespace below (as
// its logs give them) is, here, most likely nobody's of ours.
bool descendsFromUs(int pid) {
  const int self = static_cast<int>(::getpid());
  for (int hops = 0; hops < 4096 && pid > 1; ++hops) {
    const std::vector<std::string> fields = statFields(pid);
    if (fields.size() < 2) return false;
    pid = std::atoi(fields[1].c_str());  // field 4: the parent
    if (pid == self) return true;
  }
  return false;
}

// When `pid` started, in CLOCK_MONOTONIC ns (the kernel counts from boot,
// suspended time included: taken off by the two clocks' difference now);
// -1 when there is no such process.
int64_t startedAt(int pid) {
  const std::vector<std::string> fields = statFields(pid);
  if (fields.size() < 20) return -1;
  const unsigned long long ticks = std::strtoull(fields[19].c_str(), nullptr, 10);  // field 22, since boot
  timespec boot{}, mono{};
  ::clock_gettime(CLOCK_BOOTTIME, &boot);
  ::clock_gettime(CLOCK_MONOTONIC, &mono);
  const int64_t asleep = (boot.tv_sec - mono.tv_sec) * 1'000'000'000LL + (boot.tv_nsec - mono.tv_nsec);
  return static_cast<int64_t>(ticks * (1'000'000'000ULL / static_cast<unsigned long long>(::sysconf(_SC_CLK_TCK)))) -
         asleep;
}

// Runs `command` with `input` on its standard input; waits for it.
void runWithInput(const std::string& command, const std::string& input) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;
  const pid_t pid = record::startOwnChild([&] {
    const pid_t forked = ::fork();
    if (forked == 0) {
      // As a shell would start it: no signal blocked or ignored that
      // radar record or this thread set for itself.
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      for (int sig : {SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
      ::dup2(fds[0], 0);
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return forked;
  });
  ::close(fds[0]);
  if (pid > 0) {
    for (size_t at = 0; at < input.size();) {
      const ssize_t n = ::write(fds[1], input.data() + at, input.size() - at);
      if (n <= 0 && errno != EINTR) break;  // it did not read it all: EPIPE
      if (n > 0) at += static_cast<size_t>(n);
    }
    ::close(fds[1]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  } else {
    ::close(fds[1]);
  }
}

}  // namespace

bool stillTheImage(int pid, const Involved& who) {
  const int64_t started = startedAt(pid);
  const int64_t tick = 1'000'000'000LL / ::sysconf(_SC_CLK_TCK);
  return started >= 0 && who.alive_at_ns != INT64_MAX && started - tick <= who.alive_at_ns && descendsFromUs(pid);
}

// Through a pidfd taken before the look, so that a pid that changes hands
// after it is sent nothing (the pidfd's process has ended).
bool stopIfStillTheImage(const Involved& who) {
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, who.pid, 0));
  if (pidfd < 0 && errno == ESRCH) return false;  // ended
  bool sent = false;
  if (stillTheImage(who.pid, who))
    sent =
        pidfd >= 0 ? ::syscall(SYS_pidfd_send_signal, pidfd, SIGSTOP, nullptr, 0) == 0 : ::kill(who.pid, SIGSTOP) == 0;
  if (pidfd >= 0) ::close(pidfd);
  return sent;
}

bool parseWatchAction(const std::string& text, WatchAction* action, std::string* error) {
  if (text == "stop" || text == "mark" || text == "snapshot") {
    action->kind = text == "stop"   ? WatchAction::Kind::Stop
                   : text == "mark" ? WatchAction::Kind::Mark
                                    : WatchAction::Kind::Snapshot;
    return true;
  }
  if (text.rfind("run ", 0) == 0 && text.find_first_not_of(' ', 4) != std::string::npos) {
    action->kind = WatchAction::Kind::Run;
    action->command = text.substr(4);
    return true;
  }
  *error = "--do: expected stop, mark, snapshot or 'run COMMAND', got '" + text + "'";
  return false;
}

namespace {

// The terms of a condition: KEY=VALUE separated by spaces, VALUE in double
// quotes where it holds spaces.
bool splitTerms(const std::string& text, std::vector<std::pair<std::string, std::string>>* terms, std::string* error) {
  for (size_t at = text.find_first_not_of(' '); at != std::string::npos; at = text.find_first_not_of(' ', at)) {
    const size_t equals = text.find('=', at);
    if (equals == std::string::npos || text.find(' ', at) < equals) {
      *error = "--on: expected deadlock or terms KEY=VALUE, got '" + text + "'";
      return false;
    }
    std::string value;
    size_t end = equals + 1;
    if (end < text.size() && text[end] == '"') {
      const size_t close = text.find('"', end + 1);
      if (close == std::string::npos) {
        *error = "--on: a quote is not closed in '" + text + "'";
        return false;
      }
      value = text.substr(end + 1, close - end - 1);
      end = close + 1;
    } else {
      end = std::min(text.find(' ', end), text.size());
      value = text.substr(equals + 1, end - equals - 1);
    }
    if (value.empty()) {
      *error = "--on: " + text.substr(at, equals - at) + "= names nothing";
      return false;
    }
    terms->emplace_back(text.substr(at, equals - at), value);
    at = end;
  }
  return true;
}

}  // namespace

bool parseWatchCondition(const std::string& text, WatchCondition* condition, std::string* error) {
  WatchCondition c;
  if (text == "deadlock") {
    c.deadlock = true;
    *condition = c;
    return true;
  }
  std::vector<std::pair<std::string, std::string>> terms;
  if (!splitTerms(text, &terms, error)) return false;
  if (terms.empty()) {
    *error = "--on: expected deadlock or terms KEY=VALUE";
    return false;
  }
  for (const auto& [key, value] : terms) {
    std::vector<std::string>* into = key == "process"    ? &c.processes
                                     : key == "channel"  ? &c.channels
                                     : key == "kind"     ? &c.kinds
                                     : key == "user"     ? &c.users
                                     : key == "contains" ? &c.contains
                                                         : nullptr;
    if (!into) {
      *error = "--on: unknown term '" + key + "' (process, channel, kind, user or contains)";
      return false;
    }
    into->push_back(value);
  }
  *condition = c;
  return true;
}

bool WatchCondition::names(const trace::Trace& t, trace::EventFilter* filter) const {
  for (const std::string& spec : processes) {
    std::string error;
    const auto found = findProcesses(t, spec, false, &error);
    if (found.empty()) return false;
    filter->processes.insert(found.begin(), found.end());
  }
  for (const std::string& spec : channels)
    if (!trace::selectChannels(t, spec, &filter->channels)) return false;
  filter->kinds = kinds;
  if (!users.empty()) filter->kinds.push_back("user");
  return true;
}

std::string WatchCondition::forRecorder() const {
  if (deadlock || !processes.empty() || !channels.empty()) return {};
  std::string spec;
  auto term = [&](char key, const std::string& value) {
    static const char kHex[] = "0123456789abcdef";
    if (!spec.empty()) spec += ',';
    spec += key;
    spec += ':';
    for (const unsigned char c : value) spec.append({kHex[c >> 4], kHex[c & 15]});
  };
  for (const std::string& k : kinds) {
    if (trace::mpiCollectiveCode(k) != 0) return {};
    term('k', k);
  }
  // As names() has it: a user= term makes user events one of the kinds.
  if (!kinds.empty() && !users.empty()) term('k', "user");
  for (const std::string& u : users) term('u', u);
  for (const std::string& c : contains) term('c', c);
  // A value or a whole longer than the recorder keeps: left to radar record.
  const auto too_long = [](const std::string& v) { return v.size() > log::stop_at::kMostBytes; };
  if (std::any_of(kinds.begin(), kinds.end(), too_long) || std::any_of(users.begin(), users.end(), too_long) ||
      std::any_of(contains.begin(), contains.end(), too_long) || spec.size() >= log::stop_at::kMostSpec)
    return {};
  return spec;
}

RecordingWatch::RecordingWatch(std::string dir, WatchCondition condition, WatchAction action)
    : dir_(std::move(dir)), condition_(std::move(condition)), action_(std::move(action)) {}

void RecordingWatch::start() {
  watcher_ = std::thread([this] { run(); });
}

void RecordingWatch::stop() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

void RecordingWatch::run() {
  // A command that leaves its input unread gives this thread EPIPE, not
  // radar a SIGPIPE (blocked here, a thread's own SIGPIPE stays pending
  // and goes with the thread).
  sigset_t pipe_signal;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
  std::unique_lock<std::mutex> hold(lock_);
  while (!wake_.wait_for(hold, kLookEvery, [this] { return stopping_; })) {
    hold.unlock();
    if (!look()) return;
    hold.lock();
  }
}

std::vector<const trace::Finding*> RecordingWatch::lastingDeadlocks(const trace::Trace& t, int64_t now_wall,
                                                                    int64_t lasting_ns) {
  std::vector<const trace::Finding*> out;
  for (const trace::Finding& f : t.findings) {
    if (f.kind != trace::Finding::Kind::Deadlock || f.waits_for.empty()) continue;
    const bool lasting = std::all_of(f.waits_for.begin(), f.waits_for.end(), [&](const trace::Finding::Wait& w) {
      return t.processes[w.waiter].end == trace::Process::End::Unknown &&
             blockedOnSince(t, w.waiter, w.channel, now_wall - lasting_ns);
    });
    if (lasting) out.push_back(&f);
  }
  return out;
}

namespace {
Involved involved(const trace::Trace& t, const trace::Process& p) {
  // A moment it surely ran: its first event, or a call it is in.
  int64_t alive_at = p.first_event != trace::kNone ? t.events[p.first_event].entry_ns : INT64_MAX;
  for (const log::ThreadSlot& slot : p.control.threads)
    if (slot.tid && slot.kind) alive_at = std::min(alive_at, slot.entry_ns);
  return Involved{p.pid, alive_at};
}
}  // namespace

Happened RecordingWatch::deadlock(const trace::Trace& t, const trace::Finding& f) {
  Happened h;
  h.text = "a deadlock: " + trace::describe(t, f);
  h.json = "{\"kind\":\"deadlock\",\"text\":" + jsonString(trace::describe(t, f)) + ",\"processes\":[";
  for (size_t k = 0; k < f.processes.size(); ++k) {
    const trace::Process& p = t.processes[f.processes[k]];
    h.processes.push_back(involved(t, p));
    h.json += (k ? "," : "") + std::string("{\"name\":") + jsonString(t.label(p.index)) +
              ",\"pid\":" + std::to_string(p.pid) + "}";
  }
  h.json += "],\"channels\":[";
  for (size_t k = 0; k < f.channels.size(); ++k) h.json += (k ? "," : "") + jsonString(t.channelName(f.channels[k]));
  h.json += "]}\n";
  return h;
}

Happened RecordingWatch::event(const trace::Trace& t, uint32_t position) {
  const analysis::Narrator narrator(t, /*live=*/true);
  const trace::Event& e = t.events[position];
  const trace::Process& p = t.processes[e.process];
  Happened h;
  h.text = "event " + std::to_string(position + 1) + ": " + narrator.describe(position);
  // Only a process still running is stopped: an ended one's pid may be
  // another's now.
  if (p.end == trace::Process::End::Unknown && p.pid > 0) h.processes = {involved(t, p)};
  const uint32_t channel = t.channelOf(position);
  h.json = "{\"kind\":\"event\",\"event\":" + std::to_string(position + 1) +
           ",\"process\":" + jsonString(t.label(p.index)) + ",\"pid\":" + std::to_string(p.pid) +
           ",\"call\":" + jsonString(log::kindName(e.eventKind())) +
           (channel == trace::kNone ? "" : ",\"channel\":" + jsonString(t.channelName(channel))) +
           ",\"text\":" + jsonString(narrator.describe(position)) + "}\n";
  return h;
}

namespace {

// The bytes a message carried: a send's (its own, or those of the receive
// it passed on); for a receive, those of the sends it got them from.
std::string messageBytes(const trace::Trace& t, uint32_t position) {
  const log::Category category = log::categoryOf(t.events[position].eventKind());
  std::string bytes;
  if (category == log::Category::Send || category == log::Category::Receive) t.payload(position, &bytes, nullptr);
  return bytes;
}

}  // namespace

bool RecordingWatch::matches(const trace::Trace& t, uint32_t position, const WatchCondition& condition) {
  if (!condition.users.empty()) {
    log::Record r;
    std::vector<std::string> strings;
    if (t.events[position].eventKind() != log::Kind::User || !t.record(position, &r, nullptr, &strings, nullptr) ||
        strings.empty() ||
        std::find(condition.users.begin(), condition.users.end(), strings[0]) == condition.users.end())
      return false;
  }
  if (condition.contains.empty()) return true;
  const std::string bytes = messageBytes(t, position);
  for (const std::string& text : condition.contains)
    if (bytes.find(text) == std::string::npos) return false;
  return true;
}

bool RecordingWatch::look() {
  const int64_t now = wallNow();
  std::string error;
  Loaded loaded;
  try {
    loaded = loadQuietly({dir_}, {}, false, &error);
  } catch (const std::exception& e) {  // out of memory, say: the recording goes on, unwatched
    std::fprintf(stderr, "radar record: --on stops watching: %s\n", e.what());
    return false;
  }
  if (!loaded || trace::runningLogUnreadable(*loaded.trace)) return true;
  if (condition_.deadlock)
    lookForDeadlocks(*loaded.trace, now);
  else
    lookAtEvents(*loaded.trace, now);
  return true;
}

void RecordingWatch::lookForDeadlocks(const trace::Trace& t, int64_t now) {
  for (const trace::Finding* f : lastingDeadlocks(t, now, kLastingNs)) {
    std::vector<int> pids;
    for (uint32_t p : f->processes) pids.push_back(t.processes[p].pid);
    std::sort(pids.begin(), pids.end());
    if (told_.insert(pids).second) act(deadlock(t, *f));
  }
}

// The events whose place became sure since the last look that the
// condition names, each acted on.
void RecordingWatch::lookAtEvents(const trace::Trace& t, int64_t now) {
  trace::LiveTimes times;
  times.now_wall = now;
  const uint64_t settled = trace::settledEvents(t, times);
  if (settled <= seen_) return;
  trace::EventFilter filter;
  if (condition_.names(t, &filter))  // else a process or channel it names is not there yet
    for (uint64_t position = seen_; position < settled; ++position) {
      const auto i = static_cast<uint32_t>(position);
      if (filter.wants(t, i) && matches(t, i, condition_)) act(event(t, i));
    }
  seen_ = settled;
}

// Stops the processes that still are the recorded ones, and says which.
std::string RecordingWatch::stopAll(const std::vector<Involved>& processes) {
  std::vector<int> now_stopped;
  std::string pids, gone;
  for (const Involved& who : processes) {
    const std::string pid = " " + std::to_string(who.pid);
    if (stopIfStillTheImage(who)) {  // again, if it was before: its pid may be another's now
      now_stopped.push_back(who.pid);
      pids += pid;
    } else {
      gone += pid;
    }
  }
  for (int pid : now_stopped) waitStopped(pid);
  std::string said;
  if (!now_stopped.empty())
    said = std::string("; stopped ") + (now_stopped.size() == 1 ? "it" : "them") + " (SIGSTOP) for gdb -p PID:" + pids;
  if (!gone.empty()) said += "; not stopped, no longer the recorded process:" + gone;
  return said;
}

void RecordingWatch::act(const Happened& what) {
  std::string said = "radar record: " + terminalSafe(what.text);
  if (action_.kind == WatchAction::Kind::Stop && what.processes.empty())
    said += "; its process has ended: nothing to stop";
  else if (action_.kind == WatchAction::Kind::Stop)
    said += stopAll(what.processes);
  if (action_.kind == WatchAction::Kind::Snapshot && snapshots_ < kMostSnapshots) {
    std::string error;
    const std::string into = snapshot(dir_, &error);
    said += into.empty() ? "; no snapshot: " + terminalSafe(error) : "; the recording so far copied into " + into;
    if (++snapshots_ == kMostSnapshots) said += " (" + std::to_string(kMostSnapshots) + " snapshots: no more)";
  }
  std::fprintf(stderr, "%s\n", said.c_str());
  std::fflush(stderr);
  if (action_.kind == WatchAction::Kind::Run && runs_ < kMostRuns) {
    if (++runs_ == kMostRuns) std::fprintf(stderr, "radar record: --do run: %d runs, no more\n", kMostRuns);
    runWithInput(action_.command, what.json);
  }
}

}  // namespace radar::cli
