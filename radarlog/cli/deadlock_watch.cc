#include "cli/deadlock_watch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>

#include "cli/loaded_recording.h"
#include "log/escape.h"
#include "record/session.h"
#include "trace/findings.h"
#include "trace/live.h"

namespace radar::cli {

namespace {

constexpr auto kLookEvery = std::chrono::milliseconds(200);
constexpr int64_t kLastingNs = 500'000'000;

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

// Waits (a second at most) for a process sent SIGSTOP to be stopped: the
// signal is taken when it next runs, a moment later.
void waitStopped(pid_t pid) {
  for (int tries = 0; tries < 100; ++tries) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    if (paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] == 'T' || text[paren + 2] == 't')
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
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

bool parseDeadlockAction(const std::string& text, DeadlockAction* action, std::string* error) {
  if (text == "stop" || text == "mark") {
    action->kind = text == "stop" ? DeadlockAction::Kind::Stop : DeadlockAction::Kind::Mark;
    return true;
  }
  if (text.rfind("run ", 0) == 0 && text.find_first_not_of(' ', 4) != std::string::npos) {
    action->kind = DeadlockAction::Kind::Run;
    action->command = text.substr(4);
    return true;
  }
  *error = "--do: expected stop, mark or 'run COMMAND', got '" + text + "'";
  return false;
}

DeadlockWatch::DeadlockWatch(std::string dir, DeadlockAction action) : dir_(std::move(dir)), action_(action) {}

void DeadlockWatch::start() {
  watcher_ = std::thread([this] { run(); });
}

void DeadlockWatch::stop() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

void DeadlockWatch::run() {
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

std::vector<const trace::Finding*> DeadlockWatch::lastingDeadlocks(const trace::Trace& t, int64_t now_wall,
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

std::string DeadlockWatch::json(const trace::Trace& t, const trace::Finding& f) {
  std::string out = "{\"kind\":\"deadlock\",\"text\":" + jsonString(trace::describe(t, f)) + ",\"processes\":[";
  for (size_t k = 0; k < f.processes.size(); ++k) {
    const trace::Process& p = t.processes[f.processes[k]];
    out += (k ? "," : "") + std::string("{\"name\":") + jsonString(t.label(p.index)) +
           ",\"pid\":" + std::to_string(p.pid) + "}";
  }
  out += "],\"channels\":[";
  for (size_t k = 0; k < f.channels.size(); ++k) out += (k ? "," : "") + jsonString(t.channelName(f.channels[k]));
  return out + "]}\n";
}

bool DeadlockWatch::look() {
  const int64_t now = wallNow();
  std::string error;
  Loaded loaded;
  try {
    loaded = loadQuietly({dir_}, {}, false, &error);
  } catch (const std::exception& e) {  // out of memory, say: the recording goes on, unwatched
    std::fprintf(stderr, "radar record: --on deadlock stops watching: %s\n", e.what());
    return false;
  }
  if (!loaded || trace::runningLogUnreadable(*loaded.trace)) return true;
  for (const trace::Finding* f : lastingDeadlocks(*loaded.trace, now, kLastingNs)) {
    std::vector<int> pids;
    for (uint32_t p : f->processes) pids.push_back(loaded.trace->processes[p].pid);
    std::sort(pids.begin(), pids.end());
    if (told_.insert(pids).second) act(*loaded.trace, *f);
  }
  return true;
}

void DeadlockWatch::act(const trace::Trace& t, const trace::Finding& f) {
  std::string what = "radar record: a deadlock: " + terminalSafe(trace::describe(t, f));
  if (action_.kind == DeadlockAction::Kind::Stop) {
    std::string pids;
    for (uint32_t p : f.processes) ::kill(t.processes[p].pid, SIGSTOP);
    for (uint32_t p : f.processes) {
      waitStopped(t.processes[p].pid);
      pids += " " + std::to_string(t.processes[p].pid);
    }
    what += "; stopped them (SIGSTOP) for gdb -p PID:" + pids;
  }
  std::fprintf(stderr, "%s\n", what.c_str());
  std::fflush(stderr);
  if (action_.kind == DeadlockAction::Kind::Run) runWithInput(action_.command, json(t, f));
}

}  // namespace radar::cli
