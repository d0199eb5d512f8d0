#include "app/spacetime_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <map>

#include "app/palette.h"

namespace radar::gui {

using trace::kNone;

namespace {
constexpr double kLaneHeight = 26, kLabelWidth = 150, kMargin = 12;
}

SpaceTimeView::SpaceTimeView(const trace::Trace& trace, QWidget* parent) : QWidget(parent), t_(trace) {
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
  setMinimumHeight(120);
}

void SpaceTimeView::setCurrent(uint32_t position) {
  if (position == current_) return;
  current_ = position;
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
  wall_time_ = on;
  relayout();
}

void SpaceTimeView::resizeEvent(QResizeEvent*) { relayout(); }

void SpaceTimeView::relayout() {
  lanes_.clear();
  dots_.clear();
  bars_.clear();
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
  if (!n) {
    update();
    return;
  }
  const uint32_t center = current_ == kNone ? 0 : current_;
  const uint32_t lo = center > kWindow ? center - kWindow : 0;
  const uint32_t hi = std::min(n, center + kWindow + 1);
  // A lane per thread that has events in the window, those of one process
  // together (processes by index, threads by their order of appearance).
  std::map<std::pair<uint32_t, uint8_t>, size_t> lane_of;
  for (uint32_t i = lo; i < hi; ++i) lane_of.emplace(std::make_pair(t_.events[i].process, t_.events[i].thread), 0);
  for (auto& [key, lane] : lane_of) {
    lane = lanes_.size();
    const bool sub = !lanes_.empty() && lanes_.back().process == key.first;
    lanes_.push_back({key.first, key.second, sub});
  }
  // x: logical (event number) or wall time, scaled to the width.
  auto key = [&](uint32_t i) -> double {
    return wall_time_ ? static_cast<double>(t_.wallTime(i) - t_.wallTime(lo)) : t_.events[i].number;
  };
  double min_key = key(lo), max_key = key(lo);
  for (uint32_t i = lo; i < hi; ++i) {
    min_key = std::min(min_key, key(i));
    max_key = std::max(max_key, key(i));
  }
  const double span = std::max(max_key - min_key, 1.0);
  const double x0 = kLabelWidth, x1 = std::max(x0 + 50, width() - kMargin);
  for (uint32_t i = lo; i < hi; ++i) {
    const double x = x0 + (key(i) - min_key) / span * (x1 - x0);
    const double y = kMargin + lane_of[{t_.events[i].process, t_.events[i].thread}] * kLaneHeight + kLaneHeight / 2;
    dots_.push_back({i, QPointF(x, y), false});
  }
  // The stretches seen in the window: a bar from their first to their last
  // visible event, over the lane of their first.
  for (size_t k = 0; k < stretches_.size(); ++k) {
    const Stretch& s = stretches_[k];
    if (s.last < lo || s.first >= hi) continue;
    double left = 0, right = 0, y = 0;
    bool any = false;
    for (uint32_t i = std::max(lo, s.first); i <= std::min(hi - 1, s.last); ++i) {
      Dot& d = dots_[i - lo];
      if (t_.events[i].process != s.process) continue;
      d.hidden = !s.expanded;
      if (!any) y = d.at.y();
      left = any ? std::min(left, d.at.x()) : d.at.x();
      right = any ? std::max(right, d.at.x()) : d.at.x();
      any = true;
    }
    if (any) bars_.push_back({k, QRectF(left - 6, y - 8, right - left + 12, 16)});
  }
  setMinimumHeight(static_cast<int>(std::min<size_t>(lanes_.size(), 12) * kLaneHeight + 2 * kMargin));
  update();
}

void SpaceTimeView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  for (size_t k = 0; k < lanes_.size(); ++k) {
    const Lane& lane = lanes_[k];
    const double y = kMargin + k * kLaneHeight + kLaneHeight / 2;
    painter.setPen(colors::kChannelLine);
    painter.drawLine(QPointF(kLabelWidth, y), QPointF(width() - kMargin, y));
    const bool threaded = lane.sub_lane || (k + 1 < lanes_.size() && lanes_[k + 1].sub_lane);
    QString label = QString::fromStdString(t_.processes[lane.process].label());
    if (lane.sub_lane)
      label = QStringLiteral("  ") + threadName(lane);
    else if (threaded)
      label += QLatin1Char(' ') + threadName(lane);
    painter.setPen(lane.sub_lane ? colors::kBorder : colors::kText);
    painter.drawText(QRectF(4, y - kLaneHeight / 2, kLabelWidth - 8, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(label, Qt::ElideRight, static_cast<int>(kLabelWidth - 8)));
    // The threads of one process: a bracket joins their lanes.
    if (lane.sub_lane) {
      painter.setPen(QPen(colors::kBorder, 1));
      painter.drawLine(QPointF(kLabelWidth - 3, y - kLaneHeight), QPointF(kLabelWidth - 3, y));
    }
  }
  if (dots_.empty()) return;
  const uint32_t lo = dots_.front().position;
  auto dotOf = [&](uint32_t position) -> const Dot* {
    if (position < lo || position - lo >= dots_.size()) return nullptr;
    return &dots_[position - lo];
  };
  // Message arrows between visible events.
  for (const Dot& d : dots_) {
    auto [b, e] = t_.incoming(d.position);
    for (; b != e; ++b) {
      const Dot* from = dotOf(b->from);
      if (!from) continue;
      painter.setPen(QPen(b->why == trace::Edge::Why::Message ? colors::kQueued : colors::kBorder, 1.2,
                          b->why == trace::Edge::Why::Message ? Qt::SolidLine : Qt::DashLine));
      painter.drawLine(from->at, d.at);
      // Arrow head.
      const QPointF dir = d.at - from->at;
      const double len = std::max(1.0, std::hypot(dir.x(), dir.y()));
      const QPointF u = dir / len, nrm(-u.y(), u.x());
      QPainterPath head;
      head.moveTo(d.at);
      head.lineTo(d.at - u * 7 + nrm * 3);
      head.lineTo(d.at - u * 7 - nrm * 3);
      head.closeSubpath();
      painter.fillPath(head, painter.pen().color());
    }
  }
  // A critical path: its visible steps joined, thick, under the dots.
  if (!path_.empty()) {
    painter.setPen(QPen(colors::kPath, 3.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    for (size_t k = 1; k < path_.size(); ++k) {
      const Dot* a = dotOf(path_[k - 1]);
      const Dot* b = dotOf(path_[k]);
      if (a && b) painter.drawLine(a->at, b->at);
    }
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
  for (const Dot& d : dots_) {
    if (d.hidden && d.position != current_) continue;
    QColor c = colors::kProcess.darker(160);
    if (selected_ != kNone && d.position != selected_) {
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
    painter.setBrush(now ? colors::kActive : c);
    const double r = now ? 6 : 4;
    painter.drawEllipse(d.at, r, r);
  }
}

QString SpaceTimeView::threadName(const Lane& lane) const {
  const auto& threads = t_.processes[lane.process].threads;
  if (lane.thread < threads.size() && lane.thread != 255) return tr("thread %1").arg(threads[lane.thread]);
  return tr("other threads");
}

void SpaceTimeView::mouseDoubleClickEvent(QMouseEvent* event) {
  for (const Bar& bar : bars_)
    if (bar.rect.contains(event->position())) {
      setExpanded(bar.stretch, !stretches_[bar.stretch].expanded);
      return;
    }
  QWidget::mouseDoubleClickEvent(event);
}

void SpaceTimeView::mousePressEvent(QMouseEvent* event) {
  const Dot* best = nullptr;
  double best_d = 8 * 8;
  for (const Dot& d : dots_) {
    if (d.hidden) continue;
    const QPointF v = d.at - event->position();
    const double dist = QPointF::dotProduct(v, v);
    if (dist <= best_d) {
      best_d = dist;
      best = &d;
    }
  }
  if (!best) return;
  setSelected(best->position);
  emit eventClicked(best->position);
}

}  // namespace radar::gui
