#include "app/spacetime_view.h"

#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <bitset>
#include <cmath>
#include <limits>
#include <map>

#include "app/palette.h"
#include "log/kinds.h"

namespace radar::app {

using trace::kNone;

namespace {
constexpr double kLaneHeight = 26, kLabelWidth = 160, kMargin = 12;
constexpr double kRulerHeight = 38, kOverviewHeight = 26;
constexpr double kDotSpacing = 3;  // fewer pixels an event than this: a lane drawn as columns
constexpr double kColumn = 3;      // a column's width
constexpr size_t kOverviewBins = 512;
constexpr size_t kCausalColouring = 6000;  // dots coloured by their relation to the selected event, at most

// 1, 2 or 5 times a power of ten, at least `x`.
double niceStep(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(std::max(x, 1e-9))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= x) return m * p;
  return 10 * p;
}

QString formatNs(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return QStringLiteral("%1 ns").arg(ns, 0, 'g', 4);
  if (a < 1e6) return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'g', 4);
  if (a < 1e9) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'g', 4);
  return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'g', 5);
}

QString formatBytes(uint64_t b) {
  if (b < 10 * 1024) return QStringLiteral("%1 B").arg(b);
  if (b < 10 * 1024 * 1024) return QStringLiteral("%1 KiB").arg(static_cast<double>(b) / 1024, 0, 'f', 1);
  return QStringLiteral("%1 MiB").arg(static_cast<double>(b) / (1024 * 1024), 0, 'f', 1);
}
}  // namespace

SpaceTimeView::SpaceTimeView(const trace::Trace& trace, QWidget* parent) : QWidget(parent), t_(trace) {
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
  setMinimumHeight(static_cast<int>(kRulerHeight + kOverviewHeight + 4 * kLaneHeight));
  setFocusPolicy(Qt::StrongFocus);
  setToolTip(
      tr("Wheel: zoom · drag: pan · Shift+wheel: scroll lanes · Shift+drag: a range's statistics\n"
         "With the diagram focused: W/S zoom, A/D pan, 0 the whole run, ↑/↓ lanes · right-click: lanes"));

  // Lanes: a process's images after exec join the lane of its first.
  const uint32_t np = static_cast<uint32_t>(t_.processes.size());
  root_of_.resize(np);
  for (uint32_t p = 0; p < np; ++p) {
    uint32_t r = p;
    for (uint32_t steps = 0; steps < np; ++steps) {  // bounded: a damaged log's links could loop
      const trace::Process& proc = t_.processes[r];
      if (proc.origin != log::Origin::Execed || proc.parent == kNone || proc.parent >= np) break;
      r = proc.parent;
    }
    root_of_[p] = r;
  }
  // Each later image, in turn, and where it began: its first event, else
  // the exec that made it (an image blocked from its start has no event).
  execs_.resize(np);
  for (uint32_t p = 0; p < np; ++p) {
    if (root_of_[p] == p) continue;
    uint32_t at = t_.processes[p].first_event;
    const uint32_t before = t_.processes[p].parent;
    if (at == kNone && t_.processes[before].last_event != kNone &&
        t_.events[t_.processes[before].last_event].eventKind() == log::Kind::Exec)
      at = t_.processes[before].last_event;
    execs_[root_of_[p]].push_back({at, p});
  }
  for (auto& e : execs_)
    std::sort(e.begin(), e.end(), [&](const auto& a, const auto& b) {
      return t_.processes[a.second].generation < t_.processes[b.second].generation;
    });

  // Tracks: one per thread of each lane's process, its events in order.
  // A process of one image and one thread (most) uses the trace's list of
  // its events; the others get lists of their own.
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
  std::vector<std::bitset<256>> threads(np);
  for (uint32_t i = 0; i < n; ++i) threads[t_.events[i].process].set(t_.events[i].thread);
  track_of_.resize(np);
  std::map<std::pair<uint32_t, uint8_t>, uint32_t> index;
  auto trackFor = [&](uint32_t p, uint8_t thread) {
    auto& by_thread = track_of_[p];
    if (thread >= by_thread.size()) by_thread.resize(thread + 1u, kNone);
    if (by_thread[thread] == kNone) {
      auto [it, fresh] = index.emplace(std::make_pair(root_of_[p], thread), tracks_.size());
      if (fresh) tracks_.push_back({root_of_[p], thread, {}, {}, {}});
      by_thread[thread] = it->second;
    }
    return by_thread[thread];
  };
  std::vector<bool> own(np, false);
  bool any_own = false;
  for (uint32_t p = 0; p < np; ++p) {
    if (threads[p].none()) continue;
    own[p] = root_of_[p] != p || !execs_[p].empty() || threads[p].count() != 1;
    any_own |= own[p];
    if (!own[p]) {
      uint8_t thread = 0;
      while (!threads[p].test(thread)) ++thread;
      tracks_[trackFor(p, thread)].events = t_.process_events[p];
    }
  }
  if (any_own)
    for (uint32_t i = 0; i < n; ++i) {
      const trace::Event& ev = t_.events[i];
      if (own[ev.process]) tracks_[trackFor(ev.process, ev.thread)].own.push_back(i);
    }
  // A process with no events has its lane too (it may be blocked from its start).
  for (uint32_t p = 0; p < np; ++p)
    if (root_of_[p] == p && !t_.processes[p].external &&
        index.emplace(std::make_pair(p, uint8_t{0}), tracks_.size()).second)
      tracks_.push_back({p, 0, {}, {}, {}});
  // In lane order: by process, then thread.
  std::vector<uint32_t> order(tracks_.size()), rank(tracks_.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::make_pair(tracks_[a].root, tracks_[a].thread) < std::make_pair(tracks_[b].root, tracks_[b].thread);
  });
  std::vector<Track> sorted;
  sorted.reserve(tracks_.size());
  for (uint32_t k = 0; k < order.size(); ++k) {
    rank[order[k]] = k;
    sorted.push_back(std::move(tracks_[order[k]]));
  }
  tracks_ = std::move(sorted);
  for (Track& tr : tracks_)
    if (!tr.own.empty()) {
      tr.own.shrink_to_fit();
      tr.events = trace::EventList(tr.own.data(), tr.own.size());
    }
  for (auto& by_thread : track_of_)
    for (uint32_t& s : by_thread)
      if (s != kNone) s = rank[s];
  for (const Track& tr : tracks_)
    if (order_.empty() || order_.back() != tr.root) order_.push_back(tr.root);
  root_tracks_.assign(np, {0, 0});
  for (uint32_t k = 0; k < tracks_.size(); ++k) {
    auto& r = root_tracks_[tracks_[k].root];
    if (r.first == r.second) r.first = k;
    r.second = k + 1;
  }

  // The run in wall time.
  bool any = false;
  int64_t lo = 0, hi = 0;
  for (const trace::Process& p : t_.processes) {
    if (p.first_event == kNone) continue;
    const int64_t a = t_.wallTime(p.first_event), b = t_.wallTime(p.last_event);
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  // Calls still in progress at the end began before it too.
  for (const trace::Process& p : t_.processes)
    for (const auto& slot : p.control.threads)
      if (any && slot.tid && slot.kind) hi = std::max(hi, slot.entry_ns + p.realtime_offset);
  wall0_ = lo;
  // And a little after the last: where the calls that never returned go on.
  wall_span_ = std::max<int64_t>(1, hi - lo + 1);
  wall_span_ += std::max<int64_t>(1000, wall_span_ / 50);
  // Messages sent, over the run, for the overview.
  overview_[0].assign(std::clamp<size_t>(n, 1, kOverviewBins), 0);
  for (const trace::Edge& e : t_.edges)
    if (e.why == trace::Edge::Why::Message)
      ++overview_[0][static_cast<size_t>(e.from) * overview_[0].size() / std::max(n, 1u)];

  // Threads in a call when the recording ended: blocked from their entry
  // (in logical order, from their last event on, else from when the time
  // of their entry falls among the others' events).
  std::set<uint32_t> deadlocked;
  for (const trace::Finding& f : t_.findings)
    if (f.kind == trace::Finding::Kind::Deadlock)
      for (const trace::Finding::Wait& w : f.waits_for) deadlocked.insert(w.waiter);
  for (uint32_t p = 0; p < np; ++p) {
    const trace::Process& proc = t_.processes[p];
    for (const auto& slot : proc.control.threads) {
      if (!slot.tid || !slot.kind) continue;
      const uint8_t thread = proc.threadIndex(slot.tid);
      const double wall = static_cast<double>(std::max<int64_t>(0, slot.entry_ns + proc.realtime_offset - wall0_));
      double logical = -1;
      const auto& mine = t_.process_events[p];
      for (size_t k = mine.size(); k-- > 0;)
        if (t_.events[mine[k]].thread == thread) {
          logical = mine[k] + 1.0;
          break;
        }
      if (logical < 0) {
        makeWallKeys();
        uint32_t first = n;
        for (const Track& tr : tracks_) {
          const size_t j = wallLowerBound(tr, wall, 0);
          if (j < tr.events.size()) first = std::min(first, tr.events[j]);
        }
        logical = first;
      }
      blocks_.push_back({p, thread, slot.kind, logical, wall, deadlocked.count(p) != 0});
    }
  }

  filter_edit_ = new QLineEdit(this);
  filter_edit_->setPlaceholderText(tr("Filter lanes"));
  filter_edit_->setClearButtonEnabled(true);
  filter_edit_->setToolTip(tr("Only the lanes whose name has this"));
  connect(filter_edit_, &QLineEdit::textChanged, this, &SpaceTimeView::setLaneFilter);

  rebuildRows();
  // A small run whole; a long one from its start, a few hundred events wide.
  begin_ = 0;
  end_ = n <= 2000 ? axisEnd() : 400;
  relayout();
}

// ---- state --------------------------------------------------------------------------------------

void SpaceTimeView::setCurrent(uint32_t position) {
  if (position == current_) return;
  current_ = position;
  followCurrent();
  relayout();
}

void SpaceTimeView::setPath(std::vector<uint32_t> events) {
  path_ = std::move(events);
  sorted_path_ = path_;
  std::sort(sorted_path_.begin(), sorted_path_.end());
  update();
}

void SpaceTimeView::setSelected(uint32_t position) {
  selected_ = position;
  update();
}

void SpaceTimeView::setStretches(std::vector<Stretch> stretches) {
  stretches_ = std::move(stretches);
  relayout();
}

void SpaceTimeView::setExpanded(size_t stretch, bool on) {
  if (stretch >= stretches_.size()) return;
  stretches_[stretch].expanded = on;
  relayout();
}

uint32_t SpaceTimeView::foldedStretchOf(uint32_t position) const {
  if (position >= t_.events.size()) return kNone;
  const uint32_t process = t_.events[position].process;
  for (size_t k = 0; k < stretches_.size(); ++k) {
    const Stretch& s = stretches_[k];
    if (!s.expanded && s.process == process && position >= s.first && position <= s.last)
      return static_cast<uint32_t>(k);
  }
  return kNone;
}

void SpaceTimeView::setWallTime(bool on) {
  if (on == wall_time_) return;
  const bool whole = begin_ <= 0 && end_ >= axisEnd();
  // The same events in view, on the other axis: their count in logical
  // order, the time they took in wall time.
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
  double span = 0;
  if (n && !whole) {
    if (on) {
      const uint32_t a = static_cast<uint32_t>(std::clamp(begin_, 0.0, n - 1.0));
      const uint32_t b = static_cast<uint32_t>(std::clamp(end_, 0.0, n - 1.0));
      span = static_cast<double>(std::max<int64_t>(1000, t_.wallTime(b) - t_.wallTime(a)));
    } else {
      for (const Track& tr : tracks_) {
        auto [a, b] = within(tr, begin_, end_);
        span += static_cast<double>(b - a);
      }
    }
  }
  wall_time_ = on;
  if (on) makeWallKeys();
  if (whole || !n) {
    begin_ = 0;
    end_ = axisEnd();
  } else {
    const double centre = current_ != kNone ? keyOf(current_) : axisEnd() / 2;
    begin_ = centre - span / 2;
    end_ = centre + span / 2;
  }
  setView(begin_, end_);
}

double SpaceTimeView::axisEnd() const {
  // In logical order, one more place: the end, where calls that never
  // returned go on.
  return wall_time_ ? static_cast<double>(wall_span_) : static_cast<double>(t_.events.size()) + 1;
}

double SpaceTimeView::keyOf(uint32_t position) const {
  return wall_time_ ? static_cast<double>(t_.wallTime(position) - wall0_) : position + 0.5;
}

void SpaceTimeView::setView(double begin, double end) {
  const double whole = axisEnd();
  const double smallest = wall_time_ ? 1000.0 : 4.0;  // 1 µs, or a few events
  double span = std::clamp(end - begin, std::min(smallest, whole), whole);
  begin = std::clamp(begin, 0.0, whole - span);
  begin_ = begin;
  end_ = begin + span;
  relayout();
}

void SpaceTimeView::zoomBy(double factor, double anchor_x) {
  if (factor <= 0) return;
  const double span = end_ - begin_;
  const double anchor = anchor_x < 0 ? (begin_ + end_) / 2 : keyAt(anchor_x);
  const double fraction = (anchor - begin_) / span;
  const double next = span / factor;
  setView(anchor - fraction * next, anchor - fraction * next + next);
}

void SpaceTimeView::panBy(double pixels) {
  const double dk = pixels / std::max(1.0, plotRect().width()) * (end_ - begin_);
  setView(begin_ + dk, end_ + dk);
}

void SpaceTimeView::showWholeRun() { setView(0, axisEnd()); }

int SpaceTimeView::lanesShown() const { return std::max(1, static_cast<int>(plotRect().height() / kLaneHeight)); }

void SpaceTimeView::scrollLanes(int rows) {
  first_row_ += rows;
  relayout();
}

void SpaceTimeView::setLaneFilter(const QString& text) {
  if (filter_edit_->text() != text) {
    const QSignalBlocker quiet(filter_edit_);
    filter_edit_->setText(text);
  }
  filter_ = text.trimmed();
  rebuildRows();
  relayout();
}

void SpaceTimeView::hideLane(size_t lane) {
  if (lane >= rows_.size()) return;
  hidden_.insert(rows_[lane].process);
  rebuildRows();
  relayout();
}

void SpaceTimeView::moveLane(size_t lane, int by) {
  if (lane >= rows_.size() || by == 0) return;
  // Past as many shown processes as asked (hidden ones keep their places).
  const uint32_t root = rows_[lane].process;
  auto at = std::find(order_.begin(), order_.end(), root);
  std::vector<uint32_t> shown;
  for (const Lane& l : rows_)
    if (shown.empty() || shown.back() != l.process) shown.push_back(l.process);
  const auto me = std::find(shown.begin(), shown.end(), root) - shown.begin();
  const auto target = std::clamp<ptrdiff_t>(me + by, 0, static_cast<ptrdiff_t>(shown.size()) - 1);
  if (target == me) return;
  order_.erase(at);
  auto other = std::find(order_.begin(), order_.end(), shown[static_cast<size_t>(target)]);
  order_.insert(by > 0 ? other + 1 : other, root);
  rebuildRows();
  relayout();
}

void SpaceTimeView::setThreadsFolded(size_t lane, bool folded) {
  if (lane >= rows_.size()) return;
  if (folded)
    folded_.insert(rows_[lane].process);
  else
    folded_.erase(rows_[lane].process);
  rebuildRows();
  relayout();
}

void SpaceTimeView::showAllLanes() {
  hidden_.clear();
  setLaneFilter(QString());
}

void SpaceTimeView::setMarks(const std::vector<uint32_t>* positions) {
  marks_ = positions;
  relayout();
}

void SpaceTimeView::setKept(const std::vector<uint32_t>* positions) {
  kept_ = positions;
  relayout();
}

void SpaceTimeView::setLifeArrowsHidden(bool hidden) {
  life_hidden_ = hidden;
  relayout();
}

QString SpaceTimeView::laneLabel(size_t lane) const {
  if (lane >= rows_.size()) return {};
  const Lane& l = rows_[lane];
  // The names of its images, in turn: "sh → nginx[12]".
  QString name;
  QString last;
  auto add = [&](uint32_t p) {
    const QString part = QString::fromStdString(t_.processName(p));
    if (part != last) name += (name.isEmpty() ? QString() : QStringLiteral(" → ")) + part;
    last = part;
  };
  add(l.process);
  for (const auto& e : execs_[l.process]) add(e.second);
  name += QStringLiteral("[%1]").arg(t_.processes[l.process].pid);
  const bool threaded = l.sub_lane || (lane + 1 < rows_.size() && rows_[lane + 1].sub_lane);
  if (l.sub_lane) return QStringLiteral("  ") + threadName(l.process, l.thread);
  if (threaded) return name + QLatin1Char(' ') + threadName(l.process, l.thread);
  if (l.folded) return name + tr(" (threads)");
  return name;
}

void SpaceTimeView::rebuildRows() {
  rows_.clear();
  row_tracks_.clear();
  row_of_track_.assign(tracks_.size(), -1);
  for (uint32_t root : order_) {
    if (hidden_.count(root)) continue;
    const auto [a, b] = root_tracks_[root];
    if (a == b) continue;
    const size_t first = rows_.size();
    if (folded_.count(root) || b - a == 1) {
      rows_.push_back({root, tracks_[a].thread, false, b - a > 1});
      row_tracks_.emplace_back();
      for (uint32_t k = a; k < b; ++k) row_tracks_.back().push_back(k);
    } else {
      for (uint32_t k = a; k < b; ++k) {
        rows_.push_back({root, tracks_[k].thread, k != a, false});
        row_tracks_.push_back({k});
      }
    }
    if (!filter_.isEmpty() && !laneLabel(first).contains(filter_, Qt::CaseInsensitive)) {
      rows_.resize(first);
      row_tracks_.resize(first);
    }
  }
  for (size_t r = 0; r < row_tracks_.size(); ++r)
    for (uint32_t k : row_tracks_[r]) row_of_track_[k] = static_cast<int>(r);
}

void SpaceTimeView::makeWallKeys() {
  if (wall_keys_) return;
  wall_keys_ = true;
  for (Track& tr : tracks_) {
    // Non-decreasing, for binary search (a thread's calls can overlap by
    // a few ns where a signal handler ran in one).
    tr.wall_blocks.resize((tr.events.size() + kWallBlock - 1) / kWallBlock);
    int64_t high = 0;
    for (size_t k = 0; k < tr.events.size(); ++k) {
      const int64_t w = t_.wallTime(tr.events[k]) - wall0_;
      high = k ? std::max(high, w) : w;
      if (k % kWallBlock == kWallBlock - 1 || k + 1 == tr.events.size()) tr.wall_blocks[k / kWallBlock] = high;
    }
  }
  overview_[1].assign(kOverviewBins, 0);
  for (const trace::Edge& e : t_.edges)
    if (e.why == trace::Edge::Why::Message) {
      const double f = static_cast<double>(t_.wallTime(e.from) - wall0_) / static_cast<double>(wall_span_);
      ++overview_[1][std::min(kOverviewBins - 1, static_cast<size_t>(std::max(0.0, f) * kOverviewBins))];
    }
}

// The first event of a track (from `from` on) whose wall time, or a
// time before it in the track, is at or after `v`.
size_t SpaceTimeView::wallLowerBound(const Track& track, double v, size_t from) const {
  const auto& blocks = track.wall_blocks;
  const size_t b = static_cast<size_t>(
      std::lower_bound(blocks.begin() + static_cast<ptrdiff_t>(std::min(blocks.size(), from / kWallBlock)),
                       blocks.end(), v, [](int64_t w, double x) { return w < x; }) -
      blocks.begin());
  if (b == blocks.size()) return track.events.size();
  int64_t high = b ? blocks[b - 1] : std::numeric_limits<int64_t>::min();
  const size_t end = std::min(track.events.size(), (b + 1) * kWallBlock);
  for (size_t k = b * kWallBlock; k < end; ++k) {
    high = std::max(high, t_.wallTime(track.events[k]) - wall0_);
    if (high >= v) return std::max(k, from);
  }
  return std::max(end, from);
}

std::pair<size_t, size_t> SpaceTimeView::within(const Track& track, double lo, double hi) const {
  if (wall_time_) {
    const size_t a = wallLowerBound(track, lo, 0);
    return {a, wallLowerBound(track, hi, a)};
  }
  auto key = [](uint32_t p, double v) { return p + 0.5 < v; };
  auto a = std::lower_bound(track.events.begin(), track.events.end(), lo, key);
  auto b = std::lower_bound(a, track.events.end(), hi, key);
  return {static_cast<size_t>(a - track.events.begin()), static_cast<size_t>(b - track.events.begin())};
}

int SpaceTimeView::rowOfEvent(uint32_t position) const {
  if (position >= t_.events.size()) return -1;
  const trace::Event& ev = t_.events[position];
  const auto& by_thread = track_of_[ev.process];
  if (ev.thread >= by_thread.size() || by_thread[ev.thread] == kNone) return -1;
  return row_of_track_[by_thread[ev.thread]];
}

int SpaceTimeView::rowOfProcess(uint32_t process, uint8_t thread) const {
  if (process >= track_of_.size()) return -1;
  const auto& by_thread = track_of_[process];
  if (thread < by_thread.size() && by_thread[thread] != kNone) return row_of_track_[by_thread[thread]];
  // An image with no event of that thread: its process's lane (a process
  // shown has all its tracks shown).
  const auto [a, b] = root_tracks_[root_of_[process]];
  return a == b ? -1 : row_of_track_[a];
}

QRectF SpaceTimeView::plotRect() const {
  return QRectF(kLabelWidth, kRulerHeight, std::max(50.0, width() - kLabelWidth - kMargin),
                std::max(kLaneHeight, height() - kRulerHeight - kOverviewHeight));
}

double SpaceTimeView::rowY(int row) const {
  return plotRect().top() + (row - first_row_) * kLaneHeight + kLaneHeight / 2;
}

double SpaceTimeView::xOf(double key) const {
  const QRectF plot = plotRect();
  return plot.left() + (key - begin_) / (end_ - begin_) * plot.width();
}

double SpaceTimeView::keyAt(double x) const {
  const QRectF plot = plotRect();
  return begin_ + (x - plot.left()) / plot.width() * (end_ - begin_);
}

QRectF SpaceTimeView::overviewRect() const {
  return QRectF(kLabelWidth, height() - kOverviewHeight + 3, plotRect().width(), kOverviewHeight - 6);
}

QRectF SpaceTimeView::overviewWindow() const {
  const QRectF o = overviewRect();
  const double whole = axisEnd();
  const double left = o.left() + begin_ / whole * o.width(), right = o.left() + end_ / whole * o.width();
  return QRectF(left, o.top(), std::max(2.0, right - left), o.height());
}

void SpaceTimeView::followCurrent() {
  if (current_ == kNone || current_ >= t_.events.size()) return;
  const double key = keyOf(current_), span = end_ - begin_;
  if (key < begin_ || key >= end_) {
    const double whole = axisEnd();
    begin_ = std::clamp(key - span / 2, 0.0, std::max(0.0, whole - span));
    end_ = begin_ + span;
  }
  const int row = rowOfEvent(current_), shown = lanesShown();
  if (row >= 0 && (row < first_row_ || row >= first_row_ + shown)) first_row_ = row - shown / 2;
}

std::pair<const uint32_t*, const uint32_t*> SpaceTimeView::outgoing(uint32_t position) {
  // Edge indices sorted by sender (edges are by receiver): a counting sort,
  // its counts let go once sorted.
  if (by_sender_.size() != t_.edges.size()) {
    const size_t n = t_.events.size(), m = t_.edges.size();
    std::vector<uint32_t> start(n + 1, 0);
    for (const trace::Edge& e : t_.edges) ++start[e.from + 1];
    for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    by_sender_.assign(m, 0);
    for (uint32_t k = 0; k < m; ++k) by_sender_[start[t_.edges[k].from]++] = k;
  }
  auto from = [&](uint32_t k) { return static_cast<uint32_t>(t_.edges[k].from); };
  auto a = std::lower_bound(by_sender_.begin(), by_sender_.end(), position,
                            [&](uint32_t k, uint32_t p) { return from(k) < p; });
  auto b = std::upper_bound(a, by_sender_.end(), position, [&](uint32_t p, uint32_t k) { return p < from(k); });
  return {by_sender_.data() + (a - by_sender_.begin()), by_sender_.data() + (b - by_sender_.begin())};
}

// ---- layout -------------------------------------------------------------------------------------

void SpaceTimeView::relayout() {
  dots_.clear();
  bars_.clear();
  columns_.clear();
  ticks_.clear();
  exec_marks_.clear();
  arrows_.clear();
  if (wall_time_) makeWallKeys();
  const QRectF plot = plotRect();
  const int shown = lanesShown(), rows = static_cast<int>(rows_.size());
  first_row_ = std::clamp(first_row_, 0, std::max(0, rows - shown));
  const double capacity = plot.width() / kDotSpacing;
  for (int r = first_row_; r < std::min(rows, first_row_ + shown); ++r) {
    const double y = rowY(r);
    std::vector<std::pair<size_t, size_t>> spans;  // per track of the row: its events in the window
    size_t count = 0;
    for (uint32_t k : row_tracks_[r]) {
      spans.push_back(within(tracks_[k], begin_, end_));
      count += spans.back().second - spans.back().first;
    }
    if (count <= capacity) {
      for (size_t k = 0; k < spans.size(); ++k)
        for (size_t j = spans[k].first; j < spans[k].second; ++j) {
          const uint32_t pos = tracks_[row_tracks_[r][k]].events[j];
          dots_.push_back({pos, QPointF(xOf(keyOf(pos)), y), false});
        }
    } else {
      // Too many to tell apart: how many fall in each column.
      std::vector<size_t> at(spans.size());
      for (size_t k = 0; k < at.size(); ++k) at[k] = spans[k].first;
      for (double x = plot.left(); x < plot.right(); x += kColumn) {
        const double hi = keyAt(x + kColumn);
        uint32_t c = 0;
        for (size_t k = 0; k < at.size(); ++k) {
          const Track& tr = tracks_[row_tracks_[r][k]];
          const size_t next = within(tr, hi, hi).first;  // the first at or past the column's end
          const size_t end = std::max(next, at[k]);
          c += static_cast<uint32_t>(end - at[k]);
          at[k] = end;
        }
        if (c)
          columns_.push_back({static_cast<size_t>(r), QRectF(x, y - kLaneHeight / 2 + 3, kColumn, kLaneHeight - 6), c});
      }
    }
    // Where the process exec'd: the first event of each later image.
    for (const auto& [first, image] : execs_[rows_[r].process]) {
      if (rows_[r].sub_lane) break;
      if (first == kNone) continue;
      const double key = keyOf(first);
      if (key >= begin_ && key < end_)
        exec_marks_.push_back({static_cast<size_t>(r), xOf(key), QString::fromStdString(t_.processName(image))});
    }
  }
  // Arrows: into every dot, and out of every dot to an event not drawn
  // (off the window's edge, or in a lane drawn as columns).
  if (!dots_.empty()) {
    std::vector<uint32_t> drawn;
    drawn.reserve(dots_.size());
    for (const Dot& d : dots_) drawn.push_back(d.position);
    std::sort(drawn.begin(), drawn.end());
    auto arrow = [&](const trace::Edge& e) {
      const bool life = e.why == trace::Edge::Why::Create || e.why == trace::Edge::Why::Exit;
      if (life && life_hidden_) return;
      const int rf = rowOfEvent(e.from), rt = rowOfEvent(e.to);
      if (rf < first_row_ || rf >= first_row_ + shown || rt < first_row_ || rt >= first_row_ + shown) return;
      arrows_.push_back(
          {e.from, e.to, e.why, QPointF(xOf(keyOf(e.from)), rowY(rf)), QPointF(xOf(keyOf(e.to)), rowY(rt))});
    };
    for (const Dot& d : dots_) {
      auto [b, e] = t_.incoming(d.position);
      for (; b != e; ++b) arrow(*b);
      for (auto [k, end] = outgoing(d.position); k != end; ++k) {
        const trace::Edge& edge = t_.edges[*k];
        if (!std::binary_search(drawn.begin(), drawn.end(), edge.to)) arrow(edge);
      }
    }
  }
  // Blocked to the end, and where a deadlock formed, who waits for whom.
  blocked_bars_.clear();
  waits_.clear();
  for (const Block& b : blocks_) {
    const int r = rowOfProcess(b.process, b.thread);
    const double from = wall_time_ ? b.wall : b.logical;
    if (r < first_row_ || r >= first_row_ + shown || from >= end_) continue;
    const double left = std::max(plot.left(), xOf(from)), right = std::min(plot.right(), xOf(axisEnd()));
    if (right > left)
      blocked_bars_.push_back({b.process, b.thread, b.kind, b.deadlocked, QRectF(left, rowY(r) - 6, right - left, 12)});
  }
  for (const trace::Finding& f : t_.findings) {
    if (f.kind != trace::Finding::Kind::Deadlock || f.waits_for.empty()) continue;
    // Formed when the last of them blocked.
    double formed = 0;
    for (const Block& b : blocks_)
      for (const auto& w : f.waits_for)
        if (b.process == w.waiter) formed = std::max(formed, wall_time_ ? b.wall : b.logical);
    if (formed < begin_ || formed >= end_) continue;
    for (size_t k = 0; k < f.waits_for.size(); ++k) {
      const auto [from, to, channel] = f.waits_for[k];
      const int ra = rowOfProcess(from, 0), rb = rowOfProcess(to, 0);
      if (ra < first_row_ || rb < first_row_ || ra >= first_row_ + shown || rb >= first_row_ + shown) continue;
      const double x = xOf(formed) + 10 + 7.0 * static_cast<double>(k);
      waits_.push_back({from, to, QPointF(x, rowY(ra)), QPointF(x, rowY(rb))});
    }
  }
  // Named stretches: a bar from their first to their last event, hiding
  // the events of their process between, when folded.
  for (size_t k = 0; k < stretches_.size(); ++k) {
    const Stretch& s = stretches_[k];
    if (s.first >= t_.events.size() || s.last >= t_.events.size()) continue;
    const double a = keyOf(s.first), b = keyOf(s.last);
    if (b < begin_ || a >= end_) continue;
    const int r = rowOfEvent(s.first);
    if (r < first_row_ || r >= first_row_ + shown) continue;
    const double left = std::max(plot.left() - 6, xOf(a)), right = std::min(plot.right() + 6, xOf(b));
    bars_.push_back({k, QRectF(left - 6, rowY(r) - 8, right - left + 12, 16)});
  }
  if (kept_)
    for (Dot& d : dots_) d.dimmed = !std::binary_search(kept_->begin(), kept_->end(), d.position);
  if (!stretches_.empty())
    for (Dot& d : dots_) {
      const uint32_t k = foldedStretchOf(d.position);
      d.hidden = k != kNone;
    }
  // Marks: those in the window, one per pixel.
  mark_xs_.clear();
  if (marks_ && !marks_->empty()) {
    auto add = [&](uint32_t p) {
      const double k = keyOf(p);
      if (k < begin_ || k >= end_) return;
      const double x = std::floor(xOf(k));
      if (mark_xs_.empty() || mark_xs_.back() != x) mark_xs_.push_back(x);
    };
    if (wall_time_) {
      for (uint32_t p : *marks_) add(p);
      std::sort(mark_xs_.begin(), mark_xs_.end());
      mark_xs_.erase(std::unique(mark_xs_.begin(), mark_xs_.end()), mark_xs_.end());
    } else {
      auto a =
          std::lower_bound(marks_->begin(), marks_->end(), begin_, [](uint32_t p, double v) { return p + 0.5 < v; });
      for (; a != marks_->end() && *a + 0.5 < end_; ++a) add(*a);
    }
  }
  // The ruler: event numbers (or wall time), and the other axis below.
  const double step = wall_time_ ? niceStep((end_ - begin_) * 110 / plot.width())
                                 : std::max(1.0, niceStep((end_ - begin_) * 110 / plot.width()));
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
  for (double v = std::ceil((wall_time_ ? begin_ : begin_ + 0.5) / step) * step; n; v += step) {
    const double key = wall_time_ ? v : v - 0.5;  // event number v is at position v - 1
    if (key >= end_) break;
    if (wall_time_) {
      ticks_.push_back({xOf(key), formatNs(v), true});
      // The first event at or after that time.
      uint32_t first = kNone;
      for (const Track& tr : tracks_) {
        const size_t j = within(tr, key, key).first;
        if (j < tr.events.size()) first = std::min(first, tr.events[j]);
      }
      if (first != kNone) ticks_.push_back({xOf(key), QStringLiteral("#%1").arg(first + 1), false});
    } else if (v >= 1 && v <= n) {
      ticks_.push_back({xOf(key), QString::number(static_cast<qulonglong>(v)), false});
      ticks_.push_back(
          {xOf(key), formatNs(static_cast<double>(t_.wallTime(static_cast<uint32_t>(v) - 1) - wall0_)), true});
    }
  }
  update();
}

void SpaceTimeView::resizeEvent(QResizeEvent*) {
  // The lane filter sits beside the overview, under the lanes' names.
  filter_edit_->setGeometry(4, static_cast<int>(height() - kOverviewHeight + 1), static_cast<int>(kLabelWidth) - 10,
                            static_cast<int>(kOverviewHeight) - 2);
  relayout();
}

// ---- drawing ------------------------------------------------------------------------------------

void SpaceTimeView::drawRuler(QPainter& painter) {
  const QRectF plot = plotRect();
  painter.fillRect(QRectF(0, 0, width(), kRulerHeight - 2), colors::kBackground);
  painter.setPen(colors::kChannelLine);
  painter.drawLine(QPointF(0, kRulerHeight - 2), QPointF(width(), kRulerHeight - 2));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  painter.setFont(small);
  const QFontMetricsF fm(small);
  // Logical on top, wall time below, whichever the axis is.
  for (const Tick& tick : ticks_) {
    if (tick.x < plot.left() - 1 || tick.x > plot.right() + 1) continue;
    const double y = tick.wall ? kRulerHeight - 6 : kRulerHeight / 2 - 4;
    const bool primary = tick.wall == wall_time_;
    painter.setPen(primary ? colors::kText : colors::kBorder);
    painter.drawLine(QPointF(tick.x, primary ? kRulerHeight - 8 : kRulerHeight - 5), QPointF(tick.x, kRulerHeight - 2));
    if (tick.x + 3 + fm.horizontalAdvance(tick.label) <= width() - 2)
      painter.drawText(QPointF(tick.x + 3, y), tick.label);
  }
  // What each row tells, beside it.
  painter.setPen(colors::kBorder);
  const QRectF top(4, 2, kLabelWidth - 10, kRulerHeight / 2 - 2),
      bottom(4, kRulerHeight / 2, kLabelWidth - 10, kRulerHeight / 2 - 4);
  painter.drawText(wall_time_ ? bottom : top, Qt::AlignRight | Qt::AlignVCenter, tr("event number"));
  painter.drawText(wall_time_ ? top : bottom, Qt::AlignRight | Qt::AlignVCenter, tr("time since the first event"));
  painter.setFont(font());
}

void SpaceTimeView::drawOverview(QPainter& painter) {
  const QRectF o = overviewRect();
  painter.fillRect(QRectF(0, o.top() - 3, width(), kOverviewHeight), colors::kBackground);
  const auto& bins = overview_[wall_time_ ? 1 : 0];
  const uint32_t most = bins.empty() ? 0 : *std::max_element(bins.begin(), bins.end());
  if (most) {
    const double w = o.width() / static_cast<double>(bins.size());
    for (size_t b = 0; b < bins.size(); ++b) {
      if (!bins[b]) continue;
      const double h = std::max(1.0, o.height() * std::log1p(bins[b]) / std::log1p(most));
      painter.fillRect(QRectF(o.left() + b * w, o.bottom() - h, std::max(w, 1.0), h), colors::kConsumed);
    }
  }
  // Marks over the whole run.
  if (marks_ && !marks_->empty()) {
    painter.setPen(QPen(colors::kSelected, 1));
    double last = -1;
    for (uint32_t p : *marks_) {
      const double x = std::floor(o.left() + keyOf(p) / axisEnd() * o.width());
      if (x == last) continue;
      last = x;
      painter.drawLine(QPointF(x + 0.5, o.top()), QPointF(x + 0.5, o.top() + 5));
    }
  }
  painter.setPen(QPen(colors::kBorder, 1));
  painter.setBrush(QColor(60, 110, 200, 40));
  painter.drawRect(overviewWindow());
  if (current_ != kNone && current_ < t_.events.size()) {
    const double x = o.left() + keyOf(current_) / axisEnd() * o.width();
    painter.setPen(QPen(colors::kActiveBorder, 2));
    painter.drawLine(QPointF(x, o.top()), QPointF(x, o.bottom()));
  }
  painter.setBrush(Qt::NoBrush);
}

void SpaceTimeView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QRectF plot = plotRect();
  drawRuler(painter);
  drawOverview(painter);
  const int shown = lanesShown(), rows = static_cast<int>(rows_.size());
  // Lanes and their names.
  for (int r = first_row_; r < std::min(rows, first_row_ + shown); ++r) {
    const Lane& lane = rows_[static_cast<size_t>(r)];
    const double y = rowY(r);
    painter.setPen(colors::kChannelLine);
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    painter.setPen(lane.sub_lane ? colors::kBorder : colors::kText);
    painter.drawText(QRectF(4, y - kLaneHeight / 2, kLabelWidth - 8, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(laneLabel(static_cast<size_t>(r)), Qt::ElideLeft,
                                                      static_cast<int>(kLabelWidth - 8)));
    // The threads of one process: a bracket joins their lanes.
    if (lane.sub_lane) {
      painter.setPen(QPen(colors::kBorder, 1));
      painter.drawLine(QPointF(kLabelWidth - 3, y - kLaneHeight), QPointF(kLabelWidth - 3, y));
    }
  }
  // Lanes scrolled out: where the shown ones are among them.
  if (rows > shown) {
    const double h = plot.height() * shown / rows, top = plot.top() + plot.height() * first_row_ / rows;
    painter.fillRect(QRectF(width() - 5, top, 3, h), colors::kChannelLine);
  }
  painter.save();
  painter.setClipRect(plot.adjusted(-8, 0, 8, 0));
  // A selected range (or one being selected).
  if (drag_ == Drag::Range || range_) {
    const double a = drag_ == Drag::Range ? std::min(range_anchor_, range_to_) : range_->begin;
    const double b = drag_ == Drag::Range ? std::max(range_anchor_, range_to_) : range_->end;
    painter.fillRect(QRectF(QPointF(xOf(a), plot.top()), QPointF(xOf(b), plot.bottom())), QColor(60, 110, 200, 30));
  }
  // Busy lanes: events per column, darker where more.
  uint32_t most = 1;
  for (const Column& c : columns_) most = std::max(most, c.events);
  for (const Column& c : columns_) {
    const double f = std::log1p(c.events) / std::log1p(most);
    const double h = std::max(2.0, c.rect.height() * (0.35 + 0.65 * f));
    QColor col = colors::kQueued;
    col.setAlphaF(0.35 + 0.6 * f);
    painter.fillRect(QRectF(c.rect.left(), c.rect.center().y() - h / 2, c.rect.width() - 0.5, h), col);
  }
  for (const BlockedBar& b : blocked_bars_) {
    painter.setPen(QPen(b.deadlocked ? colors::kDeadlock : colors::kBorder, b.deadlocked ? 1.5 : 0.8));
    painter.setBrush(colors::kBlocked);
    painter.drawRect(b.rect);
    const QString what = tr("blocked in %1").arg(QString::fromLatin1(log::kindName(static_cast<log::Kind>(b.kind))));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    painter.setFont(small);
    if (QFontMetricsF(small).horizontalAdvance(what) + 8 < b.rect.width()) {
      painter.setPen(colors::kText);
      painter.drawText(b.rect.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, what);
    }
    painter.setFont(font());
  }
  painter.setBrush(Qt::NoBrush);
  // Marks (a search's matches): ticks along the top of the lanes.
  painter.setPen(QPen(colors::kSelected, 2));
  for (double x : mark_xs_) painter.drawLine(QPointF(x + 0.5, plot.top() + 1), QPointF(x + 0.5, plot.top() + 7));
  for (const Wait& w : waits_) {
    painter.setPen(QPen(colors::kDeadlock, 2));
    painter.drawLine(w.a, w.b);
    const double dir = w.b.y() > w.a.y() ? 1 : -1;
    QPainterPath head;
    head.moveTo(w.b);
    head.lineTo(w.b + QPointF(-4, -8 * dir));
    head.lineTo(w.b + QPointF(4, -8 * dir));
    head.closeSubpath();
    painter.fillPath(head, colors::kDeadlock);
  }
  if (current_ != kNone && current_ < t_.events.size()) {
    const double x = xOf(keyOf(current_));
    painter.setPen(QPen(colors::kActive, 1.5));
    painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  // Messages solid; creation and exit dimmed; the rest dashed.
  for (const Arrow& a : arrows_) {
    const bool message = a.why == trace::Edge::Why::Message;
    const bool life = a.why == trace::Edge::Why::Create || a.why == trace::Edge::Why::Exit;
    painter.setPen(QPen(message ? colors::kQueued
                        : life  ? colors::kChannelLine
                                : colors::kBorder,
                        message ? 1.2 : 1, message ? Qt::SolidLine : Qt::DashLine));
    painter.drawLine(a.a, a.b);
    const QPointF dir = a.b - a.a;
    const double len = std::max(1.0, std::hypot(dir.x(), dir.y()));
    const QPointF u = dir / len, nrm(-u.y(), u.x());
    QPainterPath head;
    head.moveTo(a.b);
    head.lineTo(a.b - u * 7 + nrm * 3);
    head.lineTo(a.b - u * 7 - nrm * 3);
    head.closeSubpath();
    painter.fillPath(head, painter.pen().color());
  }
  // A critical path: its steps joined, thick, under the dots.
  if (!path_.empty()) {
    painter.setPen(QPen(colors::kPath, 3.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    for (size_t k = 1; k < path_.size(); ++k) {
      const int ra = rowOfEvent(path_[k - 1]), rb = rowOfEvent(path_[k]);
      if (ra < first_row_ || rb < first_row_ || ra >= first_row_ + shown || rb >= first_row_ + shown) continue;
      const double xa = xOf(keyOf(path_[k - 1])), xb = xOf(keyOf(path_[k]));
      if (std::max(xa, xb) < plot.left() || std::min(xa, xb) > plot.right()) continue;
      painter.drawLine(QPointF(xa, rowY(ra)), QPointF(xb, rowY(rb)));
    }
  }
  // Where a process exec'd: a mark across its lane, and the new program.
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  for (const ExecMark& m : exec_marks_) {
    const double y = rowY(static_cast<int>(m.lane));
    painter.setPen(QPen(colors::kBorder, 2));
    painter.drawLine(QPointF(m.x, y - kLaneHeight / 2 + 2), QPointF(m.x, y + kLaneHeight / 2 - 2));
    painter.setFont(small);
    painter.drawText(QPointF(m.x + 3, y - 5), tr("exec %1").arg(m.program));
    painter.setFont(font());
  }
  // Named stretches: a bar with its name; folded, it hides its events.
  for (const Bar& bar : bars_) {
    const Stretch& s = stretches_[bar.stretch];
    painter.setPen(QPen(colors::kBorder, 1));
    painter.setBrush(s.expanded ? QColor(0, 0, 0, 0) : colors::kProcess);
    painter.drawRoundedRect(bar.rect, 5, 5);
    if (!s.expanded) {
      painter.setPen(colors::kText);
      painter.drawText(bar.rect.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       painter.fontMetrics().elidedText(s.label, Qt::ElideRight,
                                                        static_cast<int>(std::max(0.0, bar.rect.width() - 8))));
    }
  }
  const bool causal = selected_ != kNone && dots_.size() <= kCausalColouring;
  for (const Dot& d : dots_) {
    if (d.hidden && d.position != current_) continue;
    QColor c = colors::kProcess.darker(160);
    if (causal && d.position != selected_) {
      if (t_.happensBefore(d.position, selected_))
        c = colors::kPast;
      else if (t_.happensBefore(selected_, d.position))
        c = colors::kFuture;
    }
    const bool now = d.position == current_;
    const bool on_path = std::binary_search(sorted_path_.begin(), sorted_path_.end(), d.position);
    painter.setPen(QPen(d.position == selected_ ? colors::kSelected
                        : on_path               ? colors::kPath
                                                : colors::kBorder,
                        d.position == selected_ || on_path ? 2 : 0.8));
    if (d.dimmed && !now && d.position != selected_) {
      c = colors::kChannelLine;
      painter.setPen(QPen(colors::kChannelLine, 0.8));
    }
    painter.setBrush(now ? colors::kActive : c);
    const double r = now ? 6 : d.dimmed ? 3 : 4;
    painter.drawEllipse(d.at, r, r);
  }
  // The current event in a lane drawn as columns: still a dot.
  const bool current_drawn =
      std::any_of(dots_.begin(), dots_.end(), [&](const Dot& d) { return d.position == current_; });
  if (current_ != kNone && !current_drawn) {
    const int r = rowOfEvent(current_);
    const double x = xOf(keyOf(current_));
    if (r >= first_row_ && r < first_row_ + shown && x >= plot.left() && x <= plot.right()) {
      painter.setPen(QPen(colors::kActiveBorder, 1));
      painter.setBrush(colors::kActive);
      painter.drawEllipse(QPointF(x, rowY(r)), 6, 6);
    }
  }
  painter.restore();
  // A range's statistics, in a box at its top right.
  if (range_ && drag_ != Drag::Range) {
    QStringList lines;
    lines
        << tr("%1 events · %2 messages · %3").arg(range_->events).arg(range_->messages).arg(formatBytes(range_->bytes));
    for (size_t k = 0; k < range_->channels.size() && k < 5; ++k) {
      const ChannelStats& c = range_->channels[k];
      lines << tr("%1: %2 msg, %3, latency mean %4 max %5")
                   .arg(QString::fromStdString(t_.channelLabel(c.channel)))
                   .arg(c.messages)
                   .arg(formatBytes(c.bytes))
                   .arg(formatNs(static_cast<double>(c.total_latency_ns) /
                                 static_cast<double>(std::max<uint64_t>(1, c.messages))))
                   .arg(formatNs(static_cast<double>(c.max_latency_ns)));
    }
    if (range_->channels.size() > 5) lines << tr("… %1 more channels").arg(range_->channels.size() - 5);
    const QFontMetricsF fm(font());
    double w = 0;
    for (const QString& l : lines) w = std::max(w, fm.horizontalAdvance(l));
    w = std::min(w + 12, plot.width());
    const QRectF box(plot.right() - w, plot.top() + 2, w, lines.size() * fm.height() + 8);
    painter.setPen(QPen(colors::kBorder, 1));
    painter.setBrush(QColor(255, 255, 255, 235));
    painter.drawRect(box);
    painter.setPen(colors::kText);
    for (int k = 0; k < lines.size(); ++k)
      painter.drawText(QPointF(box.left() + 6, box.top() + 4 + fm.ascent() + k * fm.height()),
                       fm.elidedText(lines[k], Qt::ElideRight, w - 12));
  }
}

QString SpaceTimeView::threadName(uint32_t root, uint8_t thread) const {
  const auto& threads = t_.processes[root].threads;
  if (thread < threads.size() && thread != 255) return tr("thread %1").arg(threads[thread]);
  return tr("other threads");
}

// ---- a range ------------------------------------------------------------------------------------

void SpaceTimeView::selectRange(double begin, double end) {
  if (!(begin < end)) {
    range_.reset();
    update();
    return;
  }
  computeRange(begin, end);
  update();
}

void SpaceTimeView::computeRange(double begin, double end) {
  RangeStats s;
  s.begin = begin;
  s.end = end;
  std::map<uint32_t, ChannelStats> by_channel;
  for (const Track& tr : tracks_) {
    auto [a, b] = within(tr, begin, end);
    s.events += b - a;
    for (size_t j = a; j < b; ++j) {
      const uint32_t send = tr.events[j];
      for (auto [k, last] = outgoing(send); k != last; ++k) {
        const trace::Edge& e = t_.edges[*k];
        if (e.why != trace::Edge::Why::Message) continue;
        ++s.messages;
        s.bytes += e.bytes;
        ChannelStats& c = by_channel.try_emplace(t_.channelOf(send), ChannelStats{t_.channelOf(send)}).first->second;
        ++c.messages;
        c.bytes += e.bytes;
        const int64_t latency = t_.wallReturnTime(e.to) - t_.wallTime(send);
        c.total_latency_ns += latency;
        c.max_latency_ns = std::max(c.max_latency_ns, latency);
      }
    }
  }
  for (auto& [channel, c] : by_channel) s.channels.push_back(c);
  std::stable_sort(s.channels.begin(), s.channels.end(),
                   [](const ChannelStats& a, const ChannelStats& b) { return a.bytes > b.bytes; });
  range_ = std::move(s);
}

// ---- input --------------------------------------------------------------------------------------

bool SpaceTimeView::event(QEvent* e) {
  // With the diagram focused, its navigation keys win over the window's
  // shortcuts (W and S there toggle wall time and single-step).
  if (e->type() == QEvent::ShortcutOverride) {
    auto* k = static_cast<QKeyEvent*>(e);
    if (!(k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))) switch (k->key()) {
        case Qt::Key_W:
        case Qt::Key_A:
        case Qt::Key_S:
        case Qt::Key_D:
        case Qt::Key_Plus:
        case Qt::Key_Equal:
        case Qt::Key_Minus:
        case Qt::Key_0:
        case Qt::Key_Up:
        case Qt::Key_Down:
        case Qt::Key_PageUp:
        case Qt::Key_PageDown:
          e->accept();
          return true;
        default:
          break;
      }
  }
  return QWidget::event(e);
}

void SpaceTimeView::keyPressEvent(QKeyEvent* e) {
  const double w = plotRect().width();
  // Zoom around the current event where it is in view.
  double anchor = -1;
  if (current_ != kNone && current_ < t_.events.size()) {
    const double k = keyOf(current_);
    if (k >= begin_ && k < end_) anchor = xOf(k);
  }
  switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomBy(1.5, anchor);
      break;
    case Qt::Key_S:
    case Qt::Key_Minus:
      zoomBy(1 / 1.5, anchor);
      break;
    case Qt::Key_A:
      panBy(-w / 5);
      break;
    case Qt::Key_D:
      panBy(w / 5);
      break;
    case Qt::Key_0:
      showWholeRun();
      break;
    case Qt::Key_Up:
      scrollLanes(-1);
      break;
    case Qt::Key_Down:
      scrollLanes(1);
      break;
    case Qt::Key_PageUp:
      scrollLanes(-lanesShown());
      break;
    case Qt::Key_PageDown:
      scrollLanes(lanesShown());
      break;
    default:
      QWidget::keyPressEvent(e);
  }
}

void SpaceTimeView::wheelEvent(QWheelEvent* e) {
  const QPoint a = e->angleDelta();
  if (e->modifiers() & Qt::ShiftModifier) {
    const int d = a.y() ? a.y() : a.x();  // some systems turn a shifted wheel sideways
    scrollLanes(d > 0 ? -1 : d < 0 ? 1 : 0);
  } else if (std::abs(a.x()) > std::abs(a.y())) {
    panBy(-a.x() / 120.0 * plotRect().width() / 10);
  } else if (a.y()) {
    zoomBy(std::pow(1.25, a.y() / 120.0), e->position().x());
  }
  e->accept();
}

void SpaceTimeView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
  const QPointF p = e->position();
  if (overviewRect().adjusted(0, -3, 0, 3).contains(p)) {
    drag_ = Drag::Overview;
    mouseMoveEvent(e);
    return;
  }
  if (!plotRect().contains(p)) return;
  press_at_ = p;
  press_begin_ = begin_;
  press_row_ = first_row_;
  if (e->modifiers() & Qt::ShiftModifier) {
    drag_ = Drag::Range;
    range_anchor_ = range_to_ = keyAt(p.x());
  } else {
    drag_ = Drag::Pending;
  }
}

void SpaceTimeView::mouseMoveEvent(QMouseEvent* e) {
  const QPointF p = e->position();
  switch (drag_) {
    case Drag::Overview: {
      const QRectF o = overviewRect();
      const double key = (p.x() - o.left()) / o.width() * axisEnd(), span = end_ - begin_;
      setView(key - span / 2, key + span / 2);
      break;
    }
    case Drag::Pending:
      if ((p - press_at_).manhattanLength() < 5) break;
      drag_ = Drag::Pan;
      [[fallthrough]];
    case Drag::Pan: {
      const double span = end_ - begin_;
      const double b = press_begin_ - (p.x() - press_at_.x()) / plotRect().width() * span;
      first_row_ = press_row_ - static_cast<int>(std::lround((p.y() - press_at_.y()) / kLaneHeight));
      setView(b, b + span);
      break;
    }
    case Drag::Range:
      range_to_ = keyAt(p.x());
      update();
      break;
    case Drag::None:
      break;
  }
}

void SpaceTimeView::mouseReleaseEvent(QMouseEvent* e) {
  const Drag was = drag_;
  drag_ = Drag::None;
  if (was == Drag::Range) {
    const double a = std::min(range_anchor_, range_to_), b = std::max(range_anchor_, range_to_);
    selectRange(std::abs(xOf(b) - xOf(a)) >= 3 ? a : 0, std::abs(xOf(b) - xOf(a)) >= 3 ? b : 0);
    return;
  }
  if (was != Drag::Pending) return;
  // A click: the event under it.
  const Dot* best = nullptr;
  double best_d = 8 * 8;
  for (const Dot& d : dots_) {
    if (d.hidden) continue;
    const QPointF v = d.at - e->position();
    const double dist = QPointF::dotProduct(v, v);
    if (dist <= best_d) {
      best_d = dist;
      best = &d;
    }
  }
  if (!best) {
    if (range_) selectRange(0, 0);  // a click beside the events clears a range
    return;
  }
  setSelected(best->position);
  emit eventClicked(best->position);
}

void SpaceTimeView::mouseDoubleClickEvent(QMouseEvent* event) {
  for (const Bar& bar : bars_)
    if (bar.rect.contains(event->position())) {
      setExpanded(bar.stretch, !stretches_[bar.stretch].expanded);
      return;
    }
  QWidget::mouseDoubleClickEvent(event);
}

void SpaceTimeView::contextMenuEvent(QContextMenuEvent* e) {
  QMenu menu(this);
  const QRectF plot = plotRect();
  const int row = e->pos().y() >= plot.top() && e->pos().y() < plot.bottom()
                      ? first_row_ + static_cast<int>((e->pos().y() - plot.top()) / kLaneHeight)
                      : -1;
  if (row >= 0 && row < static_cast<int>(rows_.size())) {
    const size_t lane = static_cast<size_t>(row);
    const Lane& l = rows_[lane];
    const bool threaded = l.folded || l.sub_lane || (lane + 1 < rows_.size() && rows_[lane + 1].sub_lane);
    if (threaded)
      menu.addAction(l.folded ? tr("Unfold its threads") : tr("Fold its threads into one lane"),
                     [this, lane, folded = l.folded] { setThreadsFolded(lane, !folded); });
    menu.addAction(tr("Move up"), [this, lane] { moveLane(lane, -1); });
    menu.addAction(tr("Move down"), [this, lane] { moveLane(lane, 1); });
    menu.addAction(tr("Hide %1").arg(laneLabel(lane).trimmed()), [this, lane] { hideLane(lane); });
    menu.addSeparator();
  }
  QAction* all = menu.addAction(tr("Show all lanes"), [this] { showAllLanes(); });
  all->setEnabled(!hidden_.empty() || !filter_.isEmpty());
  menu.addAction(tr("The whole run"), [this] { showWholeRun(); });
  QAction* life = menu.addAction(tr("Hide creation and exit arrows"), [this] { setLifeArrowsHidden(!life_hidden_); });
  life->setCheckable(true);
  life->setChecked(life_hidden_);
  if (range_) menu.addAction(tr("Clear the range"), [this] { selectRange(0, 0); });
  menu.exec(e->globalPos());
}

}  // namespace radar::app
