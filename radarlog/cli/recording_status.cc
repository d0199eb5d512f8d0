#include "cli/recording_status.h"

#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/progress.h"

namespace radar::cli {

namespace {

// Each piece of drawing is one write(), so that it never lands in the
// middle of one of the program's own.
void put(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(2, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    at += static_cast<size_t>(n);
  }
}

int terminalRows() {
  struct winsize w {};
  return ::ioctl(2, TIOCGWINSZ, &w) == 0 ? w.ws_row : 0;
}

// The rows above the last scroll as one region (the cursor saved and put
// back: setting the region moves it).
std::string scrollAbove(int rows) { return "\0337\033[1;" + std::to_string(rows - 1) + "r\0338"; }

std::string clearRow(int row) { return "\0337\033[" + std::to_string(row) + ";1H\033[2K\0338"; }

// The whole screen scrolls again, and the line's row is left empty.
std::string giveBack(int rows) { return "\0337\033[r\0338" + clearRow(rows); }

// Whether the terminal is the recording's to draw on now: radar is in its
// foreground (not a job sent to the background), and no program has taken
// it for its own (a full-screen program, a pager, a password prompt turn
// off its line editing or its echo).
bool terminalIsOurs() {
  struct termios mode {};
  return ::tcgetpgrp(2) == ::getpgrp() && ::tcgetattr(2, &mode) == 0 && (mode.c_lflag & ICANON) &&
         (mode.c_lflag & ECHO);
}

// What Ctrl+Z finds: the row given back before radar stops with the
// program, as the shell's prompt comes next (a signal handler can only
// write what was made ready for it).
char g_give_back[64];
std::atomic<size_t> g_give_back_size{0};
struct sigaction g_old_tstp {};

void stopGivingTheRowBack(int) {
  const int saved = errno;
  if (const size_t n = g_give_back_size.exchange(0); n > 0) {
    [[maybe_unused]] const ssize_t written = ::write(2, g_give_back, n);  // a handler can do no more if it fails
  }
  ::kill(::getpid(), SIGSTOP);  // as SIGTSTP would; the line comes back once radar runs again
  errno = saved;
}

void readyToGiveBack(int rows) {
  const std::string text = rows > 0 ? giveBack(rows) : "";
  g_give_back_size.store(0);
  std::memcpy(g_give_back, text.data(), std::min(text.size(), sizeof g_give_back));
  g_give_back_size.store(std::min(text.size(), sizeof g_give_back));
}

}  // namespace

RecordingStatus::RecordingStatus(std::string dir) : dir_(std::move(dir)) {}

bool RecordingStatus::wanted() {
  const char* term = std::getenv("TERM");
  return ::isatty(2) && term && *term && std::strcmp(term, "dumb") != 0 && terminalRows() >= 3;
}

std::string RecordingStatus::line(const record::RecordingSoFar& so_far, double seconds, const std::string& dir) {
  return "radar record: " + std::to_string(so_far.logs) + (so_far.logs == 1 ? " process, " : " processes, ") +
         amount(static_cast<double>(so_far.events)) + " events, " + humanBytes(so_far.bytes) + " so far (" +
         std::to_string(static_cast<long long>(seconds)) + " s) into " + dir;
}

void RecordingStatus::start() {
  if (drawer_.joinable() || !wanted()) return;
  start_ = std::chrono::steady_clock::now();
  struct sigaction tstp {};
  tstp.sa_handler = stopGivingTheRowBack;
  ::sigaction(SIGTSTP, &tstp, &g_old_tstp);
  drawer_ = std::thread([this] { run(); });
}

void RecordingStatus::run() {
  // A write to the terminal from the background never stops radar (and its
  // program with it) where the terminal says `stty tostop`.
  sigset_t ttou;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  pthread_sigmask(SIG_BLOCK, &ttou, nullptr);
  // The terminal is looked at often, so that a program taking it finds the
  // row given back at once; the logs are read only a few times a second.
  const auto look_every = std::chrono::milliseconds(50), read_every = std::chrono::milliseconds(250);
  const auto delay = progressDelay();
  auto ours_since = start_;  // the line waits until the terminal has been free this long
  auto read_at = start_;
  std::string text;
  std::unique_lock<std::mutex> hold(lock_);
  while (!wake_.wait_for(hold, look_every, [this] { return stopping_; })) {
    const auto now = std::chrono::steady_clock::now();
    if (!keepRow()) {
      ours_since = now;  // a program that takes the terminal again and again (a shell's prompt) keeps it
      continue;
    }
    if (now - ours_since < delay) continue;
    if (text.empty() || now - read_at >= read_every) {
      hold.unlock();
      text = line(record::recordingSoFar(dir_), std::chrono::duration<double>(now - start_).count(), dir_);
      hold.lock();
      read_at = now;
      if (stopping_) break;
    }
    draw(text);
  }
}

bool RecordingStatus::keepRow() {
  const int rows = terminalRows();
  if (rows_ != 0 && g_give_back_size.load() == 0) rows_ = 0;  // given back at Ctrl+Z
  if (rows >= 3 && terminalIsOurs()) return true;
  if (rows_ != 0) put(giveBack(rows > 0 ? rows : rows_));
  rows_ = 0;
  readyToGiveBack(0);
  return false;
}

void RecordingStatus::draw(const std::string& text) {
  if (!keepRow()) return;  // looked at again just before writing
  const int rows = terminalRows();
  if (rows_ == 0) {
    // A row for the line: a line feed that keeps the column (IND), scrolling
    // the screen when the cursor is on the last row, then back up into the
    // region. What is right of the cursor is cleared: nothing, unless a
    // full-screen program left the line on the screen it went back to.
    put("\033D" + scrollAbove(rows) + "\033[1A\033[K");
  } else if (rows != rows_) {
    put(clearRow(std::min(rows_, rows)) + scrollAbove(rows));  // the window was resized
  } else if (text == shown_) {
    return;  // as it is on the screen already
  }
  rows_ = rows;
  readyToGiveBack(rows);
  shown_ = text;
  put("\0337\033[" + std::to_string(rows) + ";1H\033[2K" + cutToWidth(text, terminalColumns() - 1) + "\0338");
}

void RecordingStatus::stop() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (!drawer_.joinable()) return;
  drawer_.join();
  ::sigaction(SIGTSTP, &g_old_tstp, nullptr);
  readyToGiveBack(0);
  if (rows_ == 0) return;
  put(giveBack(terminalRows() > 0 ? terminalRows() : rows_));
  rows_ = 0;
  shown_.clear();
}

}  // namespace radar::cli
