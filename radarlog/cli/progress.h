// A line of progress for work that takes a while: on a terminal only (a
// file or a pipe reading radar's messages never gets one), once the work
// has taken a second, and at most ten times a second:
//   radar export: writing run.pcapng [=========>          ]  48%  2.1 M of 4.4 M events, 1.3 M/s
// The line is cleared when the work ends, leaving the terminal as it was.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace radar::cli {

// 2100000 → "2.1 M", 950 → "950", 0.25 → "0.2": read at a glance.
std::string amount(double v);
// 2048 → "2048 bytes", 56000 → "54.7 KiB", and MiB and GiB likewise.
std::string humanBytes(uint64_t n);
// How long work goes on before its progress shows: a second, or
// RADAR_PROGRESS_AFTER=SECONDS.
std::chrono::steady_clock::duration progressDelay();
// The columns of the terminal on standard error (80 when it says none).
size_t terminalColumns();
// `s` cut to `width` bytes, not inside a UTF-8 character.
std::string cutToWidth(std::string s, size_t width);

class TerminalProgress {
 public:
  // `what`: "radar export: writing run.pcapng"; `unit`: "events", "MiB";
  // `scale`: what one unit is of the counts given (1 for events, 2^20 for
  // bytes shown in MiB); `rate`: whether units per second mean anything.
  TerminalProgress(std::string what, std::string unit, double scale = 1, bool rate = true);
  ~TerminalProgress() { finish(); }
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  // `done` of `total` so far; any thread, now and then.
  void update(uint64_t done, uint64_t total);
  // Clears the line, if one was shown.
  void finish();

  // The line for `done` of `total` after `seconds`, `width` columns for the
  // bar: what update() shows (a function of its own, for its test).
  static std::string line(const std::string& what, const std::string& unit, double scale, uint64_t done, uint64_t total,
                          double seconds, bool rate = true, int width = 20);

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_, unit_;
  double scale_;
  bool rate_, tty_;
  Clock::duration delay_;
  Clock::time_point start_ = Clock::now(), last_;
  bool shown_ = false;
  std::mutex lock_;
};

}  // namespace radar::cli
