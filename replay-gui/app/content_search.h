// Search over what a recording holds: the bytes of every message (text,
// hex bytes or a regular expression) and the narrative of every event.
// It runs on the window's thread in slices of a few milliseconds, so the
// window stays live and the first matches show before it ends.
#pragma once

#include <QObject>
#include <QRegularExpression>
#include <QString>
#include <QTimer>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/narrative.h"
#include "trace/trace.h"

namespace radar::app {

class ContentSearch : public QObject {
  Q_OBJECT

 public:
  enum class Mode { Text, Hex, Regex };
  ContentSearch(const trace::Trace& trace, const analysis::Narrator& narrator, QObject* parent = nullptr);

  // Starts a search, ending one under way; "" clears. False, with *error,
  // for a pattern that is not one (odd hex digits, a bad expression).
  // Text is matched without regard to case (ASCII), in the bytes and in the
  // narrative; hex bytes and expressions in the bytes (an expression in the
  // narrative too).
  bool start(const QString& pattern, Mode mode, QString* error);
  void clear();
  bool running() const { return next_ < end_; }
  double progress() const;  // 0 to 1
  // Event positions that match, ascending (those found so far).
  const std::vector<uint32_t>& matches() const { return matches_; }
  // The first match after / last before a position (wrapping round), or kNone.
  uint32_t nextAfter(uint32_t position) const;
  uint32_t previousBefore(uint32_t position) const;
  // Runs to the end at once (tests, and a search asked to finish).
  void finish();
  // Where the pattern is in a message's bytes: (offset, length) of each
  // match, in order, at most `most`; none when nothing is searched for.
  std::vector<std::pair<size_t, size_t>> rangesIn(std::string_view bytes, size_t most = 1000) const;

 signals:
  void matchesChanged();  // more found, or cleared
  void finished();

 private:
  void slice();
  bool matchesEvent(uint32_t position);
  bool inBytes(std::string_view bytes) const;
  bool hasText(std::string_view text) const;  // the text needle, in any case where it has letters

  const trace::Trace& t_;
  const analysis::Narrator& narrator_;
  Mode mode_ = Mode::Text;
  std::string needle_;  // text (lower case) or bytes
  bool fold_case_ = false;
  QRegularExpression regex_;
  uint32_t next_ = 0, end_ = 0;
  std::vector<uint32_t> matches_;
  bool searching_ = false;  // a pattern was given (and not cleared)
  QTimer timer_;
};

}  // namespace radar::app
