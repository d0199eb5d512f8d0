#include "app/content_search.h"

#include "log/kinds.h"

#include <QElapsedTimer>
#include <algorithm>
#include <cctype>
#include <functional>

namespace radar::app {

using trace::kNone;

namespace {
constexpr qint64 kSliceMs = 8;  // of work between two turns of the event loop

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// "de ad be ef", "deadbeef", "0xde 0xad": the bytes; false if not hex.
bool parseHex(const QString& text, std::string* out) {
  QString digits;
  for (const QString& word : text.split(QRegularExpression(QStringLiteral("[\\s,:]+")), Qt::SkipEmptyParts))
    digits += word.startsWith(QStringLiteral("0x"), Qt::CaseInsensitive) ? word.mid(2) : word;
  if (digits.isEmpty() || digits.size() % 2) return false;
  out->clear();
  for (qsizetype k = 0; k < digits.size(); k += 2) {
    bool ok = false;
    const int v = digits.mid(k, 2).toInt(&ok, 16);
    if (!ok) return false;
    out->push_back(static_cast<char>(v));
  }
  return true;
}
}  // namespace

ContentSearch::ContentSearch(const trace::Trace& trace, const analysis::Narrator& narrator, QObject* parent)
    : QObject(parent), t_(trace), narrator_(narrator) {
  timer_.setInterval(0);
  connect(&timer_, &QTimer::timeout, this, &ContentSearch::slice);
}

bool ContentSearch::start(const QString& pattern, Mode mode, QString* error) {
  clear();
  if (pattern.isEmpty()) return true;
  mode_ = mode;
  fold_case_ = false;
  switch (mode) {
    case Mode::Text: {
      const QByteArray utf8 = pattern.toUtf8();
      needle_.assign(utf8.constData(), static_cast<size_t>(utf8.size()));
      std::transform(needle_.begin(), needle_.end(), needle_.begin(), lower);
      // Without letters, case does not matter: the faster exact search.
      fold_case_ = std::any_of(needle_.begin(), needle_.end(),
                               [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
      break;
    }
    case Mode::Hex:
      if (!parseHex(pattern, &needle_)) {
        if (error) *error = tr("not hex bytes: %1 (write them as \"de ad be ef\")").arg(pattern);
        return false;
      }
      break;
    case Mode::Regex:
      regex_ = QRegularExpression(pattern);
      if (!regex_.isValid()) {
        if (error)
          *error =
              tr("not a regular expression: %1 (at %2)").arg(regex_.errorString()).arg(regex_.patternErrorOffset());
        return false;
      }
      regex_.optimize();
      break;
  }
  next_ = 0;
  end_ = static_cast<uint32_t>(t_.events.size());
  searching_ = true;
  timer_.start();
  return true;
}

std::vector<std::pair<size_t, size_t>> ContentSearch::rangesIn(std::string_view bytes, size_t most) const {
  std::vector<std::pair<size_t, size_t>> out;
  if (!searching_) return out;
  if (mode_ == Mode::Regex) {
    // Each byte one character, as the search matched them.
    auto it = regex_.globalMatch(QString::fromLatin1(bytes.data(), static_cast<qsizetype>(bytes.size())));
    while (it.hasNext() && out.size() < most) {
      const QRegularExpressionMatch m = it.next();
      if (m.capturedLength() > 0)
        out.push_back({static_cast<size_t>(m.capturedStart()), static_cast<size_t>(m.capturedLength())});
    }
    return out;
  }
  if (needle_.empty()) return out;
  auto same = [this](char a, char b) { return mode_ == Mode::Text && fold_case_ ? lower(a) == lower(b) : a == b; };
  for (auto at = bytes.begin(); out.size() < most;) {
    at = std::search(at, bytes.end(), needle_.begin(), needle_.end(), same);
    if (at == bytes.end()) break;
    out.push_back({static_cast<size_t>(at - bytes.begin()), needle_.size()});
    at += static_cast<std::ptrdiff_t>(needle_.size());
  }
  return out;
}

void ContentSearch::clear() {
  timer_.stop();
  searching_ = false;
  next_ = end_ = 0;
  needle_.clear();
  regex_ = QRegularExpression();
  if (!matches_.empty()) {
    matches_.clear();
    emit matchesChanged();
  }
}

double ContentSearch::progress() const {
  return end_ == 0 ? 1.0 : static_cast<double>(next_) / static_cast<double>(end_);
}

bool ContentSearch::hasText(std::string_view text) const {
  if (!fold_case_)
    return std::search(text.begin(), text.end(), std::boyer_moore_horspool_searcher(needle_.begin(), needle_.end())) !=
           text.end();
  const std::boyer_moore_horspool_searcher searcher(
      needle_.begin(), needle_.end(), [](char c) { return std::hash<char>()(lower(c)); },
      [](char a, char b) { return lower(a) == lower(b); });
  return std::search(text.begin(), text.end(), searcher) != text.end();
}

bool ContentSearch::inBytes(std::string_view bytes) const {
  switch (mode_) {
    case Mode::Text:
      return hasText(bytes);
    case Mode::Hex:
      return std::search(bytes.begin(), bytes.end(),
                         std::boyer_moore_horspool_searcher(needle_.begin(), needle_.end())) != bytes.end();
    case Mode::Regex:
      // Each byte one character: binary contents are searched as they are.
      return regex_.match(QString::fromLatin1(bytes.data(), static_cast<qsizetype>(bytes.size()))).hasMatch();
  }
  return false;
}

bool ContentSearch::matchesEvent(uint32_t position) {
  // The bytes an event holds itself: a send's, or a receive's from outside
  // the recording (a recorded send's receive holds the same bytes as it).
  const trace::Event& e = t_.events[position];
  bool own = (e.flags & trace::kEventHasPayload) != 0;
  if (own && log::categoryOf(e.eventKind()) == log::Category::Receive) {
    // A receive that kept the bytes of recorded sends: found at the sends.
    auto [b, end] = t_.incoming(position);
    for (; b != end && own; ++b) own = b->why != trace::Edge::Why::Message;
  }
  if (own) {
    std::string_view bytes;
    std::string error;
    if (t_.payloadView(position, &bytes, &error) && inBytes(bytes)) return true;
  }
  if (mode_ == Mode::Hex) return false;
  const std::string sentence = narrator_.describe(position);
  if (mode_ == Mode::Regex) return regex_.match(QString::fromStdString(sentence)).hasMatch();
  return hasText(sentence);
}

void ContentSearch::slice() {
  QElapsedTimer clock;
  clock.start();
  const size_t before = matches_.size();
  while (next_ < end_) {
    if (matchesEvent(next_)) matches_.push_back(next_);
    ++next_;
    if ((next_ & 255) == 0 && clock.elapsed() >= kSliceMs) break;
  }
  if (matches_.size() != before) emit matchesChanged();
  if (next_ >= end_) {
    timer_.stop();
    emit finished();
  }
}

void ContentSearch::finish() {
  const size_t before = matches_.size();
  for (; next_ < end_; ++next_)
    if (matchesEvent(next_)) matches_.push_back(next_);
  if (matches_.size() != before) emit matchesChanged();
  if (timer_.isActive()) {
    timer_.stop();
    emit finished();
  }
}

uint32_t ContentSearch::nextAfter(uint32_t position) const {
  if (matches_.empty()) return kNone;
  auto it = position == kNone ? matches_.begin() : std::upper_bound(matches_.begin(), matches_.end(), position);
  return it == matches_.end() ? matches_.front() : *it;
}

uint32_t ContentSearch::previousBefore(uint32_t position) const {
  if (matches_.empty()) return kNone;
  auto it = position == kNone ? matches_.end() : std::lower_bound(matches_.begin(), matches_.end(), position);
  return it == matches_.begin() ? matches_.back() : *(it - 1);
}

}  // namespace radar::app
