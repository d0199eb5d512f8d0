#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace radar::cli {

std::string amount(double v) {
  char b[32];
  if (v >= 1e9)
    std::snprintf(b, sizeof b, "%.1f G", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(b, sizeof b, "%.1f M", v / 1e6);
  else if (v >= 1e4)
    std::snprintf(b, sizeof b, "%.0f k", v / 1e3);
  else if (v >= 100 || v == static_cast<double>(static_cast<uint64_t>(v)))
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string humanBytes(uint64_t n) {
  char buf[32];
  if (n < 10 * 1024)
    std::snprintf(buf, sizeof(buf), "%llu bytes", static_cast<unsigned long long>(n));
  else if (n < 10ull * 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f KiB", n / 1024.0);
  else if (n < 10ull * 1024 * 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f MiB", n / 1048576.0);
  else
    std::snprintf(buf, sizeof(buf), "%.1f GiB", n / 1073741824.0);
  return buf;
}

std::chrono::steady_clock::duration progressDelay() {
  const char* after = std::getenv("RADAR_PROGRESS_AFTER");
  const double seconds = after && *after ? std::strtod(after, nullptr) : 1.0;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds > 0 ? seconds : 0));
}

// The terminal's width: a line longer than it would wrap, and each redraw
// would leave a row behind.
size_t terminalColumns() {
  struct winsize w {};
  return ::ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
}

std::string cutToWidth(std::string s, size_t width) {
  if (s.size() <= width) return s;
  size_t at = width;
  while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xc0) == 0x80) --at;
  s.resize(at);
  return s;
}

TerminalProgress::TerminalProgress(std::string what, std::string unit, double scale, bool rate)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      scale_(scale),
      rate_(rate),
      tty_(::isatty(2)),
      delay_(progressDelay()) {}

std::string TerminalProgress::line(const std::string& what, const std::string& unit, double scale, uint64_t done,
                                   uint64_t total, double seconds, bool rate, int width) {
  const double part = total ? static_cast<double>(std::min(done, total)) / static_cast<double>(total) : 0;
  const int filled = static_cast<int>(part * width);
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < width) bar += '>';
  bar.resize(static_cast<size_t>(width), ' ');
  char pct[8];
  std::snprintf(pct, sizeof pct, "%3d%%", static_cast<int>(part * 100));
  const double units = static_cast<double>(done) / scale;
  std::string out = what + " [" + bar + "] " + pct + "  " + amount(units) + " of " +
                    amount(static_cast<double>(total) / scale) + " " + unit;
  if (rate && seconds > 0) out += ", " + amount(units / seconds) + "/s";
  return out;
}

void TerminalProgress::update(uint64_t done, uint64_t total) {
  if (!tty_ || !total) return;
  const auto now = Clock::now();
  std::lock_guard<std::mutex> hold(lock_);
  if (now - start_ < delay_ || (shown_ && now - last_ < std::chrono::milliseconds(100))) return;
  last_ = now;
  shown_ = true;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  // \r and "erase to the end of the line": the line is redrawn in place.
  const std::string shown = cutToWidth(line(what_, unit_, scale_, done, total, seconds, rate_), terminalColumns() - 1);
  std::fprintf(stderr, "\r%s\033[K", shown.c_str());
  std::fflush(stderr);
}

void TerminalProgress::finish() {
  std::lock_guard<std::mutex> hold(lock_);
  if (!shown_) return;
  shown_ = false;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace radar::cli
