// The re-run's own world: a re-run must have no effect outside itself.
//
// The program (or gdb with it) runs in new user, mount, network, IPC, UTS
// and PID namespaces, built with the kernel's own calls (no helper
// program): every file system is seen through an overlay whose writes go
// to a throwaway layer in memory, the network is a loopback of its own,
// SysV IPC and POSIX message queues are its own, and its processes are
// children of a small init that radar debug controls: when the program (or
// gdb) ends, or radar debug is killed, everything in it is killed and its
// layer is gone. One directory, radar debug's own (the script and the
// status the replay library writes), is seen as it is.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace radar::driver {

class Sandbox {
 public:
  struct Options {
    bool enabled = true;  // false: --no-sandbox, a plain child process
    std::string own_dir;  // seen read-write, as it is
    // Directories the program is likely to write in (its working
    // directory, directories its arguments and environment name): writes
    // there work for a user other than root too (sandbox.cc).
    std::vector<std::string> write_places;
    bool report_stops = false;
  };
  enum class Change { Stopped, Ended, Interrupted, Failed, Stuck };

  Sandbox() = default;
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;
  ~Sandbox() { killAll(); }

  // Runs `exec` (which must exec or _exit) in a new process, inside the
  // sandbox when enabled. false with *error when the sandbox cannot be made
  // ("interrupted" when *stop was set meanwhile).
  bool start(const Options& options, const std::function<void()>& exec, const volatile sig_atomic_t* stop,
             std::string* error);

  // Waits until the program stops (Stopped) or ends (Ended: *status is its
  // wait status). Interrupted when *stop is set by a signal handler (that
  // must not restart calls); Failed with *error if the sandbox broke; Stuck
  // when `stuck`, asked now and then, says the program will never go on
  // (the program is then killed).
  Change wait(int* status, const volatile sig_atomic_t* stop, std::string* error,
              const std::function<bool()>& stuck = {});

  // The program's pid as this process sees it (for "gdb -p").
  pid_t programPid() const;

  // Kills the program and everything it started in the sandbox, and waits
  // until they are gone.
  void killAll();

 private:
  enum class Read { Got, Stopped, Closed, Stuck };
  Read readReport(void* report, const volatile sig_atomic_t* stop, const std::function<bool()>& stuck);
  std::string awaitInit(const volatile sig_atomic_t* stop);

  bool enabled_ = false;
  bool report_stops_ = false;
  pid_t child_ = -1;  // the program itself, or the process that holds the namespaces
  pid_t init_ = -1;   // the sandbox's init (pid 1 inside)
  int init_pidfd_ = -1;
  int reports_ = -1;  // init -> us
};

}  // namespace radar::driver
