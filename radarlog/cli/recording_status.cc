#include "cli/recording_status.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
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

}  // namespace

RecordingStatus::RecordingStatus(std::string dir) : dir_(std::move(dir)) {}

bool RecordingStatus::wanted() {
  const char* term = std::getenv("TERM");
  return ::isatty(2) && !::isatty(0) && term && *term && std::strcmp(term, "dumb") != 0 && terminalRows() >= 3;
}

std::string RecordingStatus::line(const record::RecordingSoFar& so_far, double seconds, const std::string& dir) {
  return "radar record: " + std::to_string(so_far.logs) + (so_far.logs == 1 ? " process, " : " processes, ") +
         amount(static_cast<double>(so_far.events)) + " events, " + humanBytes(so_far.bytes) + " so far (" +
         std::to_string(static_cast<long long>(seconds)) + " s) into " + dir;
}

void RecordingStatus::start() {
  if (drawer_.joinable() || !wanted()) return;
  start_ = std::chrono::steady_clock::now();
  drawer_ = std::thread([this] { run(); });
}

void RecordingStatus::run() {
  std::unique_lock<std::mutex> hold(lock_);
  if (wake_.wait_for(hold, progressDelay(), [this] { return stopping_; })) return;
  while (!stopping_) {
    hold.unlock();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string text = line(record::recordingSoFar(dir_), seconds, dir_);
    hold.lock();
    if (stopping_) break;
    draw(text);
    wake_.wait_for(hold, std::chrono::milliseconds(250), [this] { return stopping_; });
  }
}

void RecordingStatus::draw(const std::string& text) {
  const int rows = terminalRows();
  if (rows < 3) return;
  if (rows_ == 0) {
    // A row for the line: a line feed that keeps the column (IND), scrolling
    // the screen when the cursor is on the last row, then back up into the
    // region.
    put("\033D" + scrollAbove(rows) + "\033[1A");
  } else if (rows != rows_) {
    put(clearRow(std::min(rows_, rows)) + scrollAbove(rows));  // the window was resized
  } else if (text == shown_) {
    return;  // as it is on the screen already
  }
  rows_ = rows;
  shown_ = text;
  put("\0337\033[" + std::to_string(rows) + ";1H\033[2K" + cutToWidth(text, terminalColumns() - 1) + "\0338");
}

void RecordingStatus::stop() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (drawer_.joinable()) drawer_.join();
  if (rows_ == 0) return;
  // The whole screen scrolls again, and the line's row is left empty.
  put("\0337\033[r\0338" + clearRow(terminalRows() > 0 ? terminalRows() : rows_));
  rows_ = 0;
  shown_.clear();
}

}  // namespace radar::cli
