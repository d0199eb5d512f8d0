#include "app/timeline.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <limits>
#include <map>

#include "app/story_time.h"
#include "log/kinds.h"

namespace radar::app {

using trace::kNone;

namespace {
constexpr double kDotSpacing = 3;  // fewer pixels an event than this: a lane drawn as columns
constexpr double kColumn = 3;      // a column's width
constexpr size_t kOverviewBins = 512;

// 1, 2 or 5 times a power of ten, at least `x`.
double niceStep(double x) {
  const double p = std::pow(10.0, std::floor(std::log10(std::max(x, 1e-9))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= x) return m * p;
  return 10 * p;
}

}  // namespace

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

Timeline::Timeline(const trace::Trace& trace) : t_(trace) {
  findLanes();
  makeTracks();
  measureRun();
  findBlocks();
  foldLibraryThreads();
  collectives_ = trace::mpiCollectives(t_);
  for (uint32_t k = 0; k < collectives_.size(); ++k)
    for (const uint32_t member : collectives_[k].members) collective_of_.push_back({member, k});
  std::sort(collective_of_.begin(), collective_of_.end());
  rebuildRows();
  // A small run whole; a long one from its start, a few hundred events wide.
  begin_ = 0;
  end_ = t_.events.size() <= 2000 ? axisEnd() : 400;
  relayout();
}

void Timeline::changed() {
  if (changed_) changed_();
}

void Timeline::setSize(QSizeF size) {
  size_ = size;
  relayout();
}

// Lanes: a process's images after exec join the lane of its first.
void Timeline::findLanes() {
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
}

// Tracks: one per thread of each lane's process, its events in order.
// A process of one image and one thread (most) uses the trace's list of
// its events; the others get lists of their own.
void Timeline::makeTracks() {
  const uint32_t np = static_cast<uint32_t>(t_.processes.size());
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
  std::vector<uint32_t> order(tracks_.size());
  sortTracks(order);
}

// In lane order: by process, then thread; the lanes' processes in order.
void Timeline::sortTracks(std::vector<uint32_t>& order) {
  const uint32_t np = static_cast<uint32_t>(t_.processes.size());
  std::vector<uint32_t> rank(tracks_.size());
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
  ranksFirst();
  root_tracks_.assign(np, {0, 0});
  for (uint32_t k = 0; k < tracks_.size(); ++k) {
    auto& r = root_tracks_[tracks_[k].root];
    if (r.first == r.second) r.first = k;
    r.second = k + 1;
  }
}

// A rank whose other threads are the MPI library's only (its progress
// threads) starts folded: one lane, the library's events dimmed on it.
void Timeline::foldLibraryThreads() {
  if (t_.mpi_library.empty()) return;
  for (uint32_t root = 0; root < root_tracks_.size(); ++root) {
    const auto [a, b] = root_tracks_[root];
    if (b - a < 2) continue;
    bool library_only = true;
    for (uint32_t k = a; k < b && library_only; ++k)
      if (tracks_[k].thread != 0)
        for (const uint32_t position : tracks_[k].events)
          if (!t_.byMpiLibrary(position)) {
            library_only = false;
            break;
          }
    if (library_only) folded_.insert(root);
  }
}

// In an MPI job, the ranks' lanes first, in rank order: the launcher's
// (and its threads') after them.
void Timeline::ranksFirst() {
  auto rankOf = [&](uint32_t root) {
    int32_t rank = t_.processes[root].mpi_rank;
    for (const auto& e : execs_[root]) rank = std::max(rank, t_.processes[e.second].mpi_rank);
    return rank < 0 ? std::numeric_limits<int32_t>::max() : rank;
  };
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) { return rankOf(a) < rankOf(b); });
}

// The run in wall time, and the messages sent over it for the overview.
void Timeline::measureRun() {
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
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
}

// Threads in a call when the recording ended: blocked from their entry
// (in logical order, from their last event on, else from when the time
// of their entry falls among the others' events).
void Timeline::findBlocks() {
  const uint32_t np = static_cast<uint32_t>(t_.processes.size());
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
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
}

// ---- state --------------------------------------------------------------------------------------

void Timeline::setCurrent(uint32_t position) {
  if (position == current_) return;
  current_ = position;
  followCurrent();
  relayout();
}

void Timeline::setPath(std::vector<uint32_t> events) {
  path_ = std::move(events);
  sorted_path_ = path_;
  std::sort(sorted_path_.begin(), sorted_path_.end());
  changed();
}

void Timeline::setSelected(uint32_t position) {
  selected_ = position;
  changed();
}

void Timeline::setStretches(std::vector<Stretch> stretches) {
  stretches_ = std::move(stretches);
  relayout();
}

void Timeline::setExpanded(size_t stretch, bool on) {
  if (stretch >= stretches_.size()) return;
  stretches_[stretch].expanded = on;
  relayout();
}

uint32_t Timeline::foldedStretchOf(uint32_t position) const {
  if (position >= t_.events.size()) return kNone;
  const uint32_t process = t_.events[position].process;
  for (size_t k = 0; k < stretches_.size(); ++k) {
    const Stretch& s = stretches_[k];
    if (!s.expanded && s.process == process && position >= s.first && position <= s.last)
      return static_cast<uint32_t>(k);
  }
  return kNone;
}

void Timeline::setWallTime(bool on) {
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

double Timeline::axisEnd() const {
  // In logical order, one more place: the end, where calls that never
  // returned go on.
  return wall_time_ ? static_cast<double>(wall_span_) : static_cast<double>(t_.events.size()) + 1;
}

double Timeline::keyOf(uint32_t position) const {
  return wall_time_ ? static_cast<double>(t_.wallTime(position) - wall0_) : position + 0.5;
}

void Timeline::setView(double begin, double end) {
  const double whole = axisEnd();
  const double smallest = wall_time_ ? 1000.0 : 4.0;  // 1 µs, or a few events
  double span = std::clamp(end - begin, std::min(smallest, whole), whole);
  begin = std::clamp(begin, 0.0, whole - span);
  begin_ = begin;
  end_ = begin + span;
  relayout();
}

void Timeline::zoomBy(double factor, double anchor_x) {
  if (factor <= 0) return;
  const double span = end_ - begin_;
  const double anchor = anchor_x < 0 ? (begin_ + end_) / 2 : keyAt(anchor_x);
  const double fraction = (anchor - begin_) / span;
  const double next = span / factor;
  setView(anchor - fraction * next, anchor - fraction * next + next);
}

void Timeline::panBy(double pixels) {
  const double dk = pixels / std::max(1.0, plotRect().width()) * (end_ - begin_);
  setView(begin_ + dk, end_ + dk);
}

void Timeline::zoomTo(double begin, double end) {
  if (zoom_stack_.empty() || zoom_stack_wall_ != wall_time_) {
    zoom_stack_.clear();
    zoom_stack_wall_ = wall_time_;
  }
  if (zoom_stack_.size() == 100) zoom_stack_.erase(zoom_stack_.begin());  // the oldest goes
  zoom_stack_.push_back({begin_, end_});
  setView(begin, end);
}

void Timeline::showWholeRun() {
  if (begin_ > 0 || end_ < axisEnd())
    zoomTo(0, axisEnd());
  else
    setView(0, axisEnd());
}

bool Timeline::zoomBack() {
  if (zoom_stack_.empty() || zoom_stack_wall_ != wall_time_) return false;
  const auto [begin, end] = zoom_stack_.back();
  zoom_stack_.pop_back();
  setView(begin, end);
  return true;
}

bool Timeline::isNavigationKey(int key) {
  static constexpr int kKeys[] = {Qt::Key_W,      Qt::Key_A,        Qt::Key_S,        Qt::Key_D,  Qt::Key_Plus,
                                  Qt::Key_Equal,  Qt::Key_Minus,    Qt::Key_0,        Qt::Key_Up, Qt::Key_Down,
                                  Qt::Key_PageUp, Qt::Key_PageDown, Qt::Key_Backspace};
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

bool Timeline::navigate(int key) {
  // Zoom around the current event where it is in view.
  double anchor = -1;
  if (current_ != kNone && current_ < t_.events.size()) {
    const double k = keyOf(current_);
    if (k >= begin_ && k < end_) anchor = xOf(k);
  }
  const double w = plotRect().width();
  switch (key) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomBy(1.5, anchor);
      return true;
    case Qt::Key_S:
    case Qt::Key_Minus:
      zoomBy(1 / 1.5, anchor);
      return true;
    case Qt::Key_A:
    case Qt::Key_D:
      panBy(key == Qt::Key_A ? -w / 5 : w / 5);
      return true;
    case Qt::Key_0:
      showWholeRun();
      return true;
    case Qt::Key_Backspace:
      zoomBack();
      return true;
    case Qt::Key_Up:
    case Qt::Key_Down:
      scrollLanes(key == Qt::Key_Up ? -1 : 1);
      return true;
    case Qt::Key_PageUp:
    case Qt::Key_PageDown:
      scrollLanes(key == Qt::Key_PageUp ? -lanesShown() : lanesShown());
      return true;
    default:
      return false;
  }
}

void Timeline::dragTo(double begin, int first_lane) {
  first_row_ = first_lane;
  setView(begin, begin + (end_ - begin_));
}

int Timeline::lanesShown() const { return std::max(1, static_cast<int>(plotRect().height() / kLaneHeight)); }

void Timeline::scrollLanes(int rows) {
  first_row_ += rows;
  relayout();
}

void Timeline::setLaneFilter(const QString& text) {
  filter_ = text.trimmed();
  rebuildRows();
  relayout();
}

void Timeline::hideLane(size_t lane) {
  if (lane >= rows_.size()) return;
  hidden_.insert(rows_[lane].process);
  rebuildRows();
  relayout();
}

void Timeline::moveLane(size_t lane, int by) {
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

void Timeline::setThreadsFolded(size_t lane, bool folded) {
  if (lane >= rows_.size()) return;
  if (folded)
    folded_.insert(rows_[lane].process);
  else
    folded_.erase(rows_[lane].process);
  rebuildRows();
  relayout();
}

void Timeline::showAllLanes() {
  hidden_.clear();
  setLaneFilter(QString());
}

void Timeline::setMarks(const std::vector<uint32_t>* positions) {
  marks_ = positions;
  relayout();
}

void Timeline::setKept(const std::vector<uint32_t>* positions) {
  kept_ = positions;
  relayout();
}

void Timeline::setLifeArrowsHidden(bool hidden) {
  life_hidden_ = hidden;
  relayout();
}

QString Timeline::laneLabel(size_t lane) const {
  const QStringList choices = laneLabels(lane);
  return choices.isEmpty() ? QString() : choices.front();
}

// Longest first; each drops what matters least: the names the process had
// before its last exec, then its thread, then its pid (never its name).
QStringList Timeline::laneLabels(size_t lane) const {
  if (lane >= rows_.size()) return {};
  const Lane& l = rows_[lane];
  if (l.sub_lane) return {QStringLiteral("  ") + threadName(l.process, l.thread)};
  // The names of its images, in turn: "sh → nginx[12]".
  QStringList names;
  auto add = [&](uint32_t p) {
    const QString part = QString::fromStdString(t_.processName(p));
    if (names.isEmpty() || part != names.back()) names.push_back(part);
  };
  add(l.process);
  for (const auto& e : execs_[l.process]) add(e.second);
  const trace::Process& p = t_.processes[l.process];
  const QString pid = t_.several_hosts ? QStringLiteral("[%1@%2]").arg(p.pid).arg(QString::fromStdString(p.host))
                                       : QStringLiteral("[%1]").arg(p.pid);
  const bool threaded = lane + 1 < rows_.size() && rows_[lane + 1].sub_lane;
  const QString thread = threaded   ? QLatin1Char(' ') + threadName(l.process, l.thread)
                         : l.folded ? tr(" (threads)")
                                    : QString();
  QStringList choices{names.join(QStringLiteral(" → ")) + pid + thread};
  if (names.size() > 1) choices.push_back(names.back() + pid + thread);
  if (!thread.isEmpty()) choices.push_back(names.back() + pid);
  choices.push_back(names.back());
  return choices;
}

void Timeline::rebuildRows() {
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

void Timeline::makeWallKeys() {
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
size_t Timeline::wallLowerBound(const Track& track, double v, size_t from) const {
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

std::pair<size_t, size_t> Timeline::within(const Track& track, double lo, double hi) const {
  if (wall_time_) {
    const size_t a = wallLowerBound(track, lo, 0);
    return {a, wallLowerBound(track, hi, a)};
  }
  auto key = [](uint32_t p, double v) { return p + 0.5 < v; };
  auto a = std::lower_bound(track.events.begin(), track.events.end(), lo, key);
  auto b = std::lower_bound(a, track.events.end(), hi, key);
  return {static_cast<size_t>(a - track.events.begin()), static_cast<size_t>(b - track.events.begin())};
}

int Timeline::rowOfEvent(uint32_t position) const {
  if (position >= t_.events.size()) return -1;
  const trace::Event& ev = t_.events[position];
  const auto& by_thread = track_of_[ev.process];
  if (ev.thread >= by_thread.size() || by_thread[ev.thread] == kNone) return -1;
  return row_of_track_[by_thread[ev.thread]];
}

int Timeline::rowOfProcess(uint32_t process, uint8_t thread) const {
  if (process >= track_of_.size()) return -1;
  const auto& by_thread = track_of_[process];
  if (thread < by_thread.size() && by_thread[thread] != kNone) return row_of_track_[by_thread[thread]];
  // An image with no event of that thread: its process's lane (a process
  // shown has all its tracks shown).
  const auto [a, b] = root_tracks_[root_of_[process]];
  return a == b ? -1 : row_of_track_[a];
}

QRectF Timeline::plotRect() const {
  return QRectF(kLabelWidth, kRulerHeight, std::max(50.0, size_.width() - kLabelWidth - kMargin),
                std::max(kLaneHeight, size_.height() - kRulerHeight - kOverviewHeight));
}

double Timeline::rowY(int row) const { return plotRect().top() + (row - first_row_) * kLaneHeight + kLaneHeight / 2; }

double Timeline::xOf(double key) const {
  const QRectF plot = plotRect();
  return plot.left() + (key - begin_) / (end_ - begin_) * plot.width();
}

double Timeline::keyAt(double x) const {
  const QRectF plot = plotRect();
  return begin_ + (x - plot.left()) / plot.width() * (end_ - begin_);
}

QRectF Timeline::overviewRect() const {
  return QRectF(kLabelWidth, size_.height() - kOverviewHeight + 3, plotRect().width(), kOverviewHeight - 6);
}

QRectF Timeline::overviewWindow() const {
  const QRectF o = overviewRect();
  const double whole = axisEnd();
  const double left = o.left() + begin_ / whole * o.width(), right = o.left() + end_ / whole * o.width();
  return QRectF(left, o.top(), std::max(2.0, right - left), o.height());
}

void Timeline::followCurrent() {
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

std::pair<const uint32_t*, const uint32_t*> Timeline::outgoing(uint32_t position) {
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

void Timeline::relayout() {
  dots_.clear();
  bars_.clear();
  columns_.clear();
  ticks_.clear();
  exec_marks_.clear();
  arrows_.clear();
  bands_.clear();
  blocked_bars_.clear();
  waits_.clear();
  mark_xs_.clear();
  if (wall_time_) makeWallKeys();
  const int shown = lanesShown(), rows = static_cast<int>(rows_.size());
  first_row_ = std::clamp(first_row_, 0, std::max(0, rows - shown));
  for (int r = first_row_; r < std::min(rows, first_row_ + shown); ++r) layOutLane(r);
  layOutArrows();
  layOutCollectives();
  layOutBlocks();
  layOutStretches();
  if (kept_) {
    auto left_out = [&](uint32_t position) { return !std::binary_search(kept_->begin(), kept_->end(), position); };
    for (Dot& d : dots_) d.dimmed = left_out(d.position);
    for (Arrow& a : arrows_) a.dimmed = left_out(a.from) || left_out(a.to);
  }
  if (!stretches_.empty())
    for (Dot& d : dots_) d.hidden = foldedStretchOf(d.position) != kNone;
  layOutMarks();
  layOutRuler();
  changed();
}

// A lane's events in the window: dots, or columns where there are more
// than pixels to tell them apart; and where its process exec'd.
void Timeline::layOutLane(int r) {
  const QRectF plot = plotRect();
  const double y = rowY(r);
  std::vector<std::pair<size_t, size_t>> spans;  // per track of the row: its events in the window
  size_t count = 0;
  for (uint32_t k : row_tracks_[r]) {
    spans.push_back(within(tracks_[k], begin_, end_));
    count += spans.back().second - spans.back().first;
  }
  if (count <= plot.width() / kDotSpacing) {
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
void Timeline::layOutArrows() {
  if (dots_.empty()) return;
  std::vector<uint32_t> drawn;
  drawn.reserve(dots_.size());
  for (const Dot& d : dots_) drawn.push_back(d.position);
  std::sort(drawn.begin(), drawn.end());
  auto arrow = [&](const trace::Edge& e) {
    const bool life = e.why == trace::Edge::Why::Create || e.why == trace::Edge::Why::Exit;
    if ((life && life_hidden_) || e.why == trace::Edge::Why::Collective) return;  // collectives: bands
    const int rf = rowOfEvent(e.from), rt = rowOfEvent(e.to);
    if (!rowShown(rf) || !rowShown(rt)) return;
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

// Each collective with a dot drawn: a band through its ranks' shown dots.
void Timeline::layOutCollectives() {
  if (collective_of_.empty()) return;
  std::set<uint32_t> drawn;
  for (const Dot& d : dots_) {
    auto it = std::lower_bound(collective_of_.begin(), collective_of_.end(), std::make_pair(d.position, 0u));
    if (it != collective_of_.end() && it->first == d.position) drawn.insert(it->second);
  }
  for (const uint32_t k : drawn) {
    CollectiveBand band{k, QString::fromLatin1(trace::mpiCollectiveName(collectives_[k].operation)), {}};
    for (const uint32_t member : collectives_[k].members) {
      const int row = rowOfEvent(member);
      if (rowShown(row)) band.points.push_back(QPointF(xOf(keyOf(member)), rowY(row)));
    }
    std::sort(band.points.begin(), band.points.end(), [](QPointF a, QPointF b) { return a.y() < b.y(); });
    if (band.points.size() >= 2) bands_.push_back(std::move(band));
  }
}

// Blocked to the end, and where a deadlock formed, who waits for whom.
void Timeline::layOutBlocks() {
  const QRectF plot = plotRect();
  for (const Block& b : blocks_) {
    const int r = rowOfProcess(b.process, b.thread);
    const double from = wall_time_ ? b.wall : b.logical;
    if (!rowShown(r) || from >= end_) continue;
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
      if (!rowShown(ra) || !rowShown(rb)) continue;
      const double x = xOf(formed) + 10 + 7.0 * static_cast<double>(k);
      waits_.push_back({from, to, QPointF(x, rowY(ra)), QPointF(x, rowY(rb))});
    }
  }
}

// Named stretches: a bar from their first to their last event, hiding
// the events of their process between, when folded.
void Timeline::layOutStretches() {
  const QRectF plot = plotRect();
  for (size_t k = 0; k < stretches_.size(); ++k) {
    const Stretch& s = stretches_[k];
    if (s.first >= t_.events.size() || s.last >= t_.events.size()) continue;
    const double a = keyOf(s.first), b = keyOf(s.last);
    if (b < begin_ || a >= end_) continue;
    const int r = rowOfEvent(s.first);
    if (!rowShown(r)) continue;
    const double left = std::max(plot.left() - 6, xOf(a)), right = std::min(plot.right() + 6, xOf(b));
    bars_.push_back({k, QRectF(left - 6, rowY(r) - 8, right - left + 12, 16)});
  }
}

// Marks: those in the window, one per pixel.
void Timeline::layOutMarks() {
  if (!marks_ || marks_->empty()) return;
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
    auto a = std::lower_bound(marks_->begin(), marks_->end(), begin_, [](uint32_t p, double v) { return p + 0.5 < v; });
    for (; a != marks_->end() && *a + 0.5 < end_; ++a) add(*a);
  }
}

// The ruler: event numbers (or wall time), and the other axis below.
void Timeline::layOutRuler() {
  const QRectF plot = plotRect();
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
      // When the event happened in the story, as the event table says:
      // a receive that waited is told at its return, not where it began.
      ticks_.push_back(
          {xOf(key), formatNs(static_cast<double>(storyTime(t_, static_cast<uint32_t>(v) - 1) - wall0_)), true});
    }
  }
}

QStringList Timeline::rangeSummary() const {
  QStringList lines;
  if (!range_) return lines;
  lines << tr("%1 events · %2 messages · %3").arg(range_->events).arg(range_->messages).arg(formatBytes(range_->bytes));
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
  return lines;
}

// ---- hit tests ----------------------------------------------------------------------------------

uint32_t Timeline::eventAt(QPointF at, double radius) const {
  uint32_t best = kNone;
  double best_d = radius * radius;
  for (const Dot& d : dots_) {
    if (d.hidden) continue;
    const QPointF v = d.at - at;
    const double dist = QPointF::dotProduct(v, v);
    if (dist <= best_d) {
      best_d = dist;
      best = d.position;
    }
  }
  return best;
}

std::optional<size_t> Timeline::barAt(QPointF at) const {
  for (const Bar& bar : bars_)
    if (bar.rect.contains(at)) return bar.stretch;
  return std::nullopt;
}

int Timeline::laneAt(double y) const {
  const QRectF plot = plotRect();
  if (y < plot.top() || y >= plot.bottom()) return -1;
  const int row = first_row_ + static_cast<int>((y - plot.top()) / kLaneHeight);
  return row < static_cast<int>(rows_.size()) ? row : -1;
}

double Timeline::overviewKeyAt(double x) const {
  const QRectF o = overviewRect();
  return (x - o.left()) / o.width() * axisEnd();
}

bool Timeline::onPath(uint32_t position) const {
  return std::binary_search(sorted_path_.begin(), sorted_path_.end(), position);
}

bool Timeline::threaded(size_t lane) const {
  if (lane >= rows_.size()) return false;
  const Lane& l = rows_[lane];
  return l.folded || l.sub_lane || (lane + 1 < rows_.size() && rows_[lane + 1].sub_lane);
}

QString Timeline::threadName(uint32_t root, uint8_t thread) const {
  const auto& threads = t_.processes[root].threads;
  if (thread < threads.size() && thread != 255) return tr("thread %1").arg(threads[thread]);
  return tr("other threads");
}

// ---- a range ------------------------------------------------------------------------------------

void Timeline::selectRange(double begin, double end) {
  if (!(begin < end)) {
    range_.reset();
    changed();
    return;
  }
  computeRange(begin, end);
  changed();
}

void Timeline::computeRange(double begin, double end) {
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

QRectF Timeline::execLabelBox(const ExecMark& mark, double lane_y, const QFontMetricsF& metrics) {
  const double bottom = lane_y - kLargestDot - 1;
  const double width = metrics.horizontalAdvance(QStringLiteral("exec %1").arg(mark.program));
  return {mark.x + 3, bottom - metrics.height(), width, metrics.height()};
}

}  // namespace radar::app
