// While `radar record` runs a program, a status line at the foot of the
// terminal, redrawn a few times a second:
//   radar record: 12 processes, 1.2 M events, 41 MiB so far (6 s) into run1
// The program shares the terminal, so the line keeps a row of its own: the
// rows above it scroll as they always do (the terminal's scroll region, as
// apt draws its progress below dpkg's output), and the row is given back
// when the recording ends. Shown only where it cannot get in the way: on a
// terminal (radar's standard error, never a file or a pipe) of at least
// three rows, while radar is in the terminal's foreground and no program
// has taken the terminal for its own (line editing or echo turned off: a
// shell's or a REPL's prompt, a pager, an editor, a password prompt).
// That is looked at twenty times a second and before each drawing: the
// row is given back as soon as it is not so, and taken again only once it
// has been so for as long as the line waits at the start (a second).
// Ctrl+Z gives it back before radar stops. The line's drawing saves and
// restores the cursor (DECSC): a program that keeps a position there
// itself may find it moved.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "record/recording.h"

namespace radar::cli {

class RecordingStatus {
 public:
  explicit RecordingStatus(std::string dir);
  ~RecordingStatus() { stop(); }
  RecordingStatus(const RecordingStatus&) = delete;
  RecordingStatus& operator=(const RecordingStatus&) = delete;

  // Once the program runs (never before its fork: the drawing thread must
  // not hold a lock the child could need before its exec).
  void start();
  // Clears the line and gives its row back.
  void stop();

  // The terminal is one the line may be drawn on: what start() checks.
  static bool wanted();
  // The line for what the recording holds after `seconds`.
  static std::string line(const record::RecordingSoFar& so_far, double seconds, const std::string& dir);

 private:
  void run();
  // Gives the row back where the terminal is not the line's to draw on
  // now; says whether it is.
  bool keepRow();
  void draw(const std::string& text);

  std::string dir_;
  std::chrono::steady_clock::time_point start_;
  std::thread drawer_;
  std::mutex lock_;
  std::condition_variable wake_;
  bool stopping_ = false;
  int rows_ = 0;       // the terminal's rows when the region was set; 0: none set
  std::string shown_;  // the line last drawn
};

}  // namespace radar::cli
