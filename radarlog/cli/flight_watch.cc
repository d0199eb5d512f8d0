#include "cli/flight_watch.h"

#include <google/protobuf/text_format.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "log/escape.h"
#include "log/wait_status.h"
#include "record/session.h"

namespace radar::cli {
namespace {

constexpr auto kLookEvery = std::chrono::milliseconds(100);

bool isCrashSignal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP ||
         sig == SIGSYS;
}

// "name[pid]" of a log named PID-GENERATION-NAME.rlog.
std::string labelOfLog(const std::string& log) {
  const size_t first = log.find('-'), second = log.find('-', first + 1), dot = log.rfind(".rlog");
  if (first == std::string::npos || second == std::string::npos || dot == std::string::npos || dot < second) return log;
  return log.substr(second + 1, dot - second - 1) + "[" + log.substr(0, first) + "]";
}

std::string endText(const record::FlightKeeper::LogEnd& e) {
  if (!e.end.reaped) return labelOfLog(e.log) + " exited with status " + std::to_string(e.end.status);
  return "pid " + std::to_string(e.end.pid) + " (a child of " + labelOfLog(e.log) + ") " +
         log::statusText(e.end.status);
}

}  // namespace

bool parseSaveOn(const std::string& text, SaveOn* save_on, std::string* error) {
  SaveOn s;
  std::stringstream in(text);
  for (std::string word; std::getline(in, word, ',');) {
    if (word == "crash") {
      s.crash = true;
    } else if (word == "error") {
      s.error = true;
    } else {
      *error = "--save-on: expected crash, error or crash,error, got '" + text + "'";
      return false;
    }
  }
  if (!s.crash && !s.error) {
    *error = "--save-on: expected crash, error or crash,error";
    return false;
  }
  *save_on = s;
  return true;
}

bool savesOn(const SaveOn& save_on, int status) {
  if (WIFSIGNALED(status)) return save_on.crash && isCrashSignal(WTERMSIG(status));
  return save_on.error && WIFEXITED(status) && WEXITSTATUS(status) != 0;
}

FlightWatch::FlightWatch(std::string dir, uint64_t keep, SaveOn save_on)
    : dir_(std::move(dir)), save_on_(save_on), keeper_(dir_, keep) {}

void FlightWatch::start() {
  watcher_ = std::thread([this] { run(); });
}

void FlightWatch::stop() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

void FlightWatch::ended(int status) {
  stop();
  const size_t saved = saved_for_.size();
  look();
  // (Unless its own exit, just read, made the freeze already.)
  if (saved_for_.size() == saved && savesOn(save_on_, status)) freeze("the program " + log::statusText(status));
}

void FlightWatch::run() {
  std::unique_lock<std::mutex> hold(lock_);
  while (!stopping_) {
    hold.unlock();
    look();
    if (record::takeFreezeRequest()) freeze("asked (SIGUSR2)");
    hold.lock();
    wake_.wait_for(hold, kLookEvery, [this] { return stopping_; });
  }
}

void FlightWatch::look() {
  std::vector<std::string> problems;
  std::vector<record::FlightKeeper::LogEnd> ends;
  keeper_.trimAll(&problems, &ends);
  for (const std::string& p : problems)
    std::fprintf(stderr, "radar record: flight: %s; it keeps growing\n", log::terminalSafe(p).c_str());
  std::string why;
  for (const auto& e : ends) {
    const bool saves = e.end.reaped ? savesOn(save_on_, e.end.status) : save_on_.error && e.end.status != 0;
    // A process's end is told by its own exit and by its parent's wait:
    // one freeze for it.
    const int pid = e.end.reaped ? e.end.pid : std::atoi(e.log.c_str());
    if (saves && saved_for_.insert(pid).second && why.empty()) why = endText(e);
  }
  if (!why.empty()) freeze(why);
}

// Freezes the logs as they are into the next DIR/flight-N.
void FlightWatch::freeze(const std::string& why) {
  proto::Recording recording;
  std::ifstream meta(dir_ + "/recording.txt");
  std::stringstream text;
  text << meta.rdbuf();
  google::protobuf::TextFormat::ParseFromString(text.str(), &recording);
  std::string error;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string into = record::nextFreezeDirectory(dir_);
    if (record::freezeRecording(dir_, into, recording, &error)) {
      std::fprintf(stderr, "radar record: flight: %s: froze the logs into %s\n", log::terminalSafe(why).c_str(),
                   log::terminalSafe(into).c_str());
      return;
    }
    if (error.find("File exists") == std::string::npos) break;  // another freeze took that name
  }
  std::fprintf(stderr, "radar record: flight: %s: cannot freeze: %s\n", log::terminalSafe(why).c_str(),
               log::terminalSafe(error).c_str());
}

}  // namespace radar::cli
