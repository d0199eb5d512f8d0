// radar record --flight SIZE: while the program runs, a thread keeps each
// log to about its last SIZE bytes (record/flight.h) and freezes them into
// DIR/flight-N, a recording of its own, when asked: SIGUSR2 to radar
// record, or with --save-on, a process that crashed or exited non-zero.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "record/flight.h"

namespace radar::cli {

struct SaveOn {
  bool crash = false;  // a process killed by SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP or SIGSYS
  bool error = false;  // a process that exited with a status other than 0
};
// "crash", "error" or "crash,error"; false (with `error`) for anything else.
bool parseSaveOn(const std::string& text, SaveOn* save_on, std::string* error);

// Whether an end is one --save-on saves on: `status` is a raw wait status.
bool savesOn(const SaveOn& save_on, int status);

class FlightWatch {
 public:
  FlightWatch(std::string dir, uint64_t keep, SaveOn save_on);
  ~FlightWatch() { stop(); }
  FlightWatch(const FlightWatch&) = delete;
  FlightWatch& operator=(const FlightWatch&) = delete;

  void start();  // once the program runs
  // Once it has ended (the program's wait status): a last look, and a
  // freeze if --save-on says so.
  void ended(int status);
  void stop();

 private:
  void run();
  void look();
  void freeze(const std::string& why);

  const std::string dir_;
  const SaveOn save_on_;
  record::FlightKeeper keeper_;
  std::set<int> saved_for_;  // the pids whose end made a freeze
  std::thread watcher_;
  std::mutex lock_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace radar::cli
