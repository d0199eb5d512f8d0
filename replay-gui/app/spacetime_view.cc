#include "app/spacetime_view.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <map>

#include "app/palette.h"
#include "log/kinds.h"

namespace radar::app {

using trace::kNone;

namespace {
constexpr double kLaneHeight = Timeline::kLaneHeight, kLabelWidth = Timeline::kLabelWidth;
constexpr double kRulerHeight = Timeline::kRulerHeight, kOverviewHeight = Timeline::kOverviewHeight;
constexpr size_t kCausalColouring = 6000;  // dots coloured by their relation to the selected event, at most

// An arrowhead at `tip`, pointing along `dir`.
void arrowHead(QPainter& painter, QPointF tip, QPointF dir, QColor color) {
  const double len = std::max(1.0, std::hypot(dir.x(), dir.y()));
  const QPointF u = dir / len, nrm(-u.y(), u.x());
  QPainterPath head;
  head.moveTo(tip);
  head.lineTo(tip - u * 7 + nrm * 3);
  head.lineTo(tip - u * 7 - nrm * 3);
  head.closeSubpath();
  painter.fillPath(head, color);
}
}  // namespace

SpaceTimeView::SpaceTimeView(const trace::Trace& trace, QWidget* parent) : QWidget(parent), tl_(trace), t_(trace) {
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  setPalette(pal);
  setMinimumHeight(static_cast<int>(kRulerHeight + kOverviewHeight + 4 * kLaneHeight));
  setFocusPolicy(Qt::StrongFocus);
  setToolTip(
      tr("Wheel: zoom · drag: pan · Shift+wheel: scroll lanes · Shift+drag: a range's statistics\n"
         "With the diagram focused: W/S zoom, A/D pan, 0 the whole run, Backspace the zoom before, "
         "↑/↓ lanes · right-click: lanes"));
  filter_edit_ = new QLineEdit(this);
  filter_edit_->setPlaceholderText(tr("Filter lanes"));
  filter_edit_->setClearButtonEnabled(true);
  filter_edit_->setToolTip(tr("Only the lanes whose name has this"));
  connect(filter_edit_, &QLineEdit::textChanged, this, [this](const QString& text) { tl_.setLaneFilter(text); });
  tl_.onChanged([this] {
    if (filter_edit_->text().trimmed() != tl_.laneFilter()) {
      const QSignalBlocker quiet(filter_edit_);
      filter_edit_->setText(tl_.laneFilter());
    }
    update();
  });
  tl_.setSize(size());
}

void SpaceTimeView::resizeEvent(QResizeEvent*) {
  // The lane filter sits beside the overview, under the lanes' names.
  filter_edit_->setGeometry(4, static_cast<int>(height() - kOverviewHeight + 1), static_cast<int>(kLabelWidth) - 10,
                            static_cast<int>(kOverviewHeight) - 2);
  tl_.setSize(size());
}

// ---- drawing ------------------------------------------------------------------------------------

void SpaceTimeView::drawRuler(QPainter& painter) {
  const QRectF plot = tl_.plotRect();
  painter.fillRect(QRectF(0, 0, width(), kRulerHeight - 2), colors::kBackground);
  painter.setPen(colors::kChannelLine);
  painter.drawLine(QPointF(0, kRulerHeight - 2), QPointF(width(), kRulerHeight - 2));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  painter.setFont(small);
  const QFontMetricsF fm(small);
  // Logical on top, wall time below, whichever the axis is.
  for (const Timeline::Tick& tick : tl_.ticks()) {
    if (tick.x < plot.left() - 1 || tick.x > plot.right() + 1) continue;
    const double y = tick.wall ? kRulerHeight - 6 : kRulerHeight / 2 - 4;
    const bool primary = tick.wall == tl_.wallTime();
    painter.setPen(primary ? colors::kText : colors::kBorder);
    painter.drawLine(QPointF(tick.x, primary ? kRulerHeight - 8 : kRulerHeight - 5), QPointF(tick.x, kRulerHeight - 2));
    if (tick.x + 3 + fm.horizontalAdvance(tick.label) <= width() - 2)
      painter.drawText(QPointF(tick.x + 3, y), tick.label);
  }
  // What each row tells, beside it.
  painter.setPen(colors::kBorder);
  const QRectF top(4, 2, kLabelWidth - 10, kRulerHeight / 2 - 2),
      bottom(4, kRulerHeight / 2, kLabelWidth - 10, kRulerHeight / 2 - 4);
  painter.drawText(tl_.wallTime() ? bottom : top, Qt::AlignRight | Qt::AlignVCenter, tr("event number"));
  painter.drawText(tl_.wallTime() ? top : bottom, Qt::AlignRight | Qt::AlignVCenter, tr("time since the first event"));
  painter.setFont(font());
}

void SpaceTimeView::drawOverview(QPainter& painter) {
  const QRectF o = tl_.overviewRect();
  painter.fillRect(QRectF(0, o.top() - 3, width(), kOverviewHeight), colors::kBackground);
  const auto& bins = tl_.overviewBins();
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
  if (tl_.marks() && !tl_.marks()->empty()) {
    painter.setPen(QPen(colors::kSelected, 1));
    double last = -1;
    for (uint32_t p : *tl_.marks()) {
      const double x = std::floor(o.left() + tl_.keyOf(p) / tl_.axisEnd() * o.width());
      if (x == last) continue;
      last = x;
      painter.drawLine(QPointF(x + 0.5, o.top()), QPointF(x + 0.5, o.top() + 5));
    }
  }
  painter.setPen(QPen(colors::kBorder, 1));
  painter.setBrush(QColor(60, 110, 200, 40));
  painter.drawRect(tl_.overviewWindow());
  if (tl_.current() != kNone && tl_.current() < t_.events.size()) {
    const double x = o.left() + tl_.keyOf(tl_.current()) / tl_.axisEnd() * o.width();
    painter.setPen(QPen(colors::kActiveBorder, 2));
    painter.drawLine(QPointF(x, o.top()), QPointF(x, o.bottom()));
  }
  painter.setBrush(Qt::NoBrush);
}

void SpaceTimeView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  drawRuler(painter);
  drawOverview(painter);
  drawLanes(painter);
  painter.save();
  painter.setClipRect(tl_.plotRect().adjusted(-8, 0, 8, 0));
  drawBusyAndBlocked(painter);
  drawWaitsAndArrows(painter);
  drawPathExecsAndBars(painter);
  drawDots(painter);
  painter.restore();
  drawRangeBox(painter);
}

// The longest of the lane's labels that fits its column; else the
// shortest (the process's name) cut at its end.
QString SpaceTimeView::fittedLaneLabel(const QFontMetrics& metrics, size_t lane) const {
  const int room = static_cast<int>(kLabelWidth - 8);
  const QStringList choices = tl_.laneLabels(lane);
  for (const QString& label : choices)
    if (metrics.horizontalAdvance(label) <= room) return label;
  return choices.isEmpty() ? QString() : metrics.elidedText(choices.back(), Qt::ElideRight, room);
}

// Lanes and their names; where the shown ones are among those scrolled out.
void SpaceTimeView::drawLanes(QPainter& painter) {
  const QRectF plot = tl_.plotRect();
  const int first = tl_.firstLane(), shown = tl_.lanesShown(), rows = static_cast<int>(tl_.lanes().size());
  for (int r = first; r < std::min(rows, first + shown); ++r) {
    const Timeline::Lane& lane = tl_.lanes()[static_cast<size_t>(r)];
    const double y = tl_.rowY(r);
    painter.setPen(colors::kChannelLine);
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    painter.setPen(lane.sub_lane ? colors::kBorder : colors::kText);
    painter.drawText(QRectF(4, y - kLaneHeight / 2, kLabelWidth - 8, kLaneHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     fittedLaneLabel(painter.fontMetrics(), static_cast<size_t>(r)));
    // The threads of one process: a bracket joins their lanes.
    if (lane.sub_lane) {
      painter.setPen(QPen(colors::kBorder, 1));
      painter.drawLine(QPointF(kLabelWidth - 3, y - kLaneHeight), QPointF(kLabelWidth - 3, y));
    }
  }
  if (rows > shown) {
    const double h = plot.height() * shown / rows, top = plot.top() + plot.height() * first / rows;
    painter.fillRect(QRectF(width() - 5, top, 3, h), colors::kChannelLine);
  }
}

// A selected range (or one being selected), busy lanes' columns, threads
// blocked to the end, and a search's marks.
void SpaceTimeView::drawBusyAndBlocked(QPainter& painter) {
  const QRectF plot = tl_.plotRect();
  if (drag_ == Drag::Range || tl_.range()) {
    const double a = drag_ == Drag::Range ? std::min(range_anchor_, range_to_) : tl_.range()->begin;
    const double b = drag_ == Drag::Range ? std::max(range_anchor_, range_to_) : tl_.range()->end;
    painter.fillRect(QRectF(QPointF(tl_.xOf(a), plot.top()), QPointF(tl_.xOf(b), plot.bottom())),
                     QColor(60, 110, 200, 30));
  }
  // Events per column, darker where more.
  uint32_t most = 1;
  for (const Timeline::Column& c : tl_.columns()) most = std::max(most, c.events);
  for (const Timeline::Column& c : tl_.columns()) {
    const double f = std::log1p(c.events) / std::log1p(most);
    const double h = std::max(2.0, c.rect.height() * (0.35 + 0.65 * f));
    QColor col = colors::kQueued;
    col.setAlphaF(0.35 + 0.6 * f);
    painter.fillRect(QRectF(c.rect.left(), c.rect.center().y() - h / 2, c.rect.width() - 0.5, h), col);
  }
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  for (const Timeline::BlockedBar& b : tl_.blockedBars()) {
    painter.setPen(QPen(b.deadlocked ? colors::kDeadlock : colors::kBorder, b.deadlocked ? 1.5 : 0.8));
    painter.setBrush(colors::kBlocked);
    painter.drawRect(b.rect);
    const QString what = tr("blocked in %1").arg(QString::fromLatin1(log::kindName(static_cast<log::Kind>(b.kind))));
    painter.setFont(small);
    if (QFontMetricsF(small).horizontalAdvance(what) + 8 < b.rect.width()) {
      painter.setPen(colors::kText);
      painter.drawText(b.rect.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, what);
    }
    painter.setFont(font());
  }
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(colors::kSelected, 2));
  for (double x : tl_.markXs()) painter.drawLine(QPointF(x + 0.5, plot.top() + 1), QPointF(x + 0.5, plot.top() + 7));
}

// A deadlock's waits; the current event's line; messages solid, creation
// and exit dimmed, the rest dashed.
void SpaceTimeView::drawWaitsAndArrows(QPainter& painter) {
  const QRectF plot = tl_.plotRect();
  for (const Timeline::Wait& w : tl_.waits()) {
    painter.setPen(QPen(colors::kDeadlock, 2));
    painter.drawLine(w.a, w.b);
    arrowHead(painter, w.b, w.b - w.a, colors::kDeadlock);
  }
  const uint32_t current = tl_.current();
  if (current != kNone && current < t_.events.size()) {
    const double x = tl_.xOf(tl_.keyOf(current));
    painter.setPen(QPen(colors::kActive, 1.5));
    painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
  }
  drawCollectives(painter);
  for (const Timeline::Arrow& a : tl_.arrows()) {
    const bool message = a.why == trace::Edge::Why::Message, sync = a.why == trace::Edge::Why::Sync;
    const bool life = a.why == trace::Edge::Why::Create || a.why == trace::Edge::Why::Exit;
    QColor colour = message ? colors::kQueued : sync ? colors::kSync : life ? colors::kChannelLine : colors::kBorder;
    if (a.dimmed) colour.setAlpha(60);  // as its dots: left out by the filter
    // A lock handed on, a semaphore posted: dotted, no bytes travelled.
    const Qt::PenStyle style = message ? Qt::SolidLine : sync ? Qt::DotLine : Qt::DashLine;
    painter.setPen(QPen(colour, message || sync ? 1.4 : 1, style));
    painter.drawLine(a.a, a.b);
    arrowHead(painter, a.b, a.b - a.a, painter.pen().color());
  }
}

// Each MPI collective: one thick line through its ranks' calls, named at
// its top.
void SpaceTimeView::drawCollectives(QPainter& painter) {
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  painter.setFont(small);
  const QFontMetricsF metrics(small);
  std::map<double, double> label_ends;  // per top lane (y): where the last name drawn there ends
  std::vector<const Timeline::CollectiveBand*> bands;
  for (const Timeline::CollectiveBand& band : tl_.collectiveBands()) bands.push_back(&band);
  std::sort(bands.begin(), bands.end(), [](auto* a, auto* b) { return a->points.front().x() < b->points.front().x(); });
  for (const Timeline::CollectiveBand* b : bands) {
    const Timeline::CollectiveBand& band = *b;
    painter.setPen(QPen(colors::kCollective, 5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter.drawPolyline(band.points.data(), static_cast<int>(band.points.size()));
    // Named where the name has room: not over the name of the one before.
    const QPointF at = band.points.front() + QPointF(6, -7);
    auto [end, fresh] = label_ends.try_emplace(at.y(), -1e9);
    if (at.x() < end->second + 4) continue;
    painter.setPen(colors::kText);
    painter.drawText(at, band.operation);
    end->second = at.x() + metrics.horizontalAdvance(band.operation);
  }
}

// A critical path's steps joined, thick, under the dots; where a process
// exec'd; named stretches' bars.
void SpaceTimeView::drawPathExecsAndBars(QPainter& painter) {
  const QRectF plot = tl_.plotRect();
  const std::vector<uint32_t>& path = tl_.path();
  painter.setPen(QPen(colors::kPath, 3.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  for (size_t k = 1; k < path.size(); ++k) {
    const int ra = tl_.rowOfEvent(path[k - 1]), rb = tl_.rowOfEvent(path[k]);
    if (!tl_.rowShown(ra) || !tl_.rowShown(rb)) continue;
    const double xa = tl_.xOf(tl_.keyOf(path[k - 1])), xb = tl_.xOf(tl_.keyOf(path[k]));
    if (std::max(xa, xb) < plot.left() || std::min(xa, xb) > plot.right()) continue;
    painter.drawLine(QPointF(xa, tl_.rowY(ra)), QPointF(xb, tl_.rowY(rb)));
  }
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  for (const Timeline::ExecMark& m : tl_.execMarks()) {
    const double y = tl_.rowY(static_cast<int>(m.lane));
    painter.setPen(QPen(colors::kBorder, 2));
    painter.drawLine(QPointF(m.x, y - kLaneHeight / 2 + 2), QPointF(m.x, y + kLaneHeight / 2 - 2));
    painter.setFont(small);
    painter.drawText(Timeline::execLabelBox(m, y, QFontMetricsF(small)), Qt::AlignLeft | Qt::AlignBottom,
                     tr("exec %1").arg(m.program));
    painter.setFont(font());
  }
  for (const Timeline::Bar& bar : tl_.bars()) {
    const Timeline::Stretch& s = tl_.stretches()[bar.stretch];
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
}

// The events: coloured by their relation to the selected one; the current
// one larger, also in a lane drawn as columns.
void SpaceTimeView::drawDots(QPainter& painter) {
  const uint32_t current = tl_.current(), selected = tl_.selected();
  const bool causal = selected != kNone && tl_.dots().size() <= kCausalColouring;
  bool current_drawn = false;
  for (const Timeline::Dot& d : tl_.dots()) {
    const bool now = d.position == current;
    current_drawn |= now;
    if (d.hidden && !now) continue;
    QColor c = colors::kProcess.darker(160);
    if (causal && d.position != selected) {
      if (t_.happensBefore(d.position, selected))
        c = colors::kPast;
      else if (t_.happensBefore(selected, d.position))
        c = colors::kFuture;
    }
    const bool on_path = tl_.onPath(d.position);
    painter.setPen(QPen(d.position == selected ? colors::kSelected
                        : on_path              ? colors::kPath
                                               : colors::kBorder,
                        d.position == selected || on_path ? 2 : 0.8));
    if (d.dimmed && !now && d.position != selected) {
      c = colors::kChannelLine;
      painter.setPen(QPen(colors::kChannelLine, 0.8));
    }
    painter.setBrush(now ? colors::kActive : c);
    const double r = now ? 6 : d.dimmed ? 3 : 4;
    painter.drawEllipse(d.at, r, r);
  }
  if (current == kNone || current_drawn) return;
  const int r = tl_.rowOfEvent(current);
  const double x = tl_.xOf(tl_.keyOf(current));
  const QRectF plot = tl_.plotRect();
  if (tl_.rowShown(r) && x >= plot.left() && x <= plot.right()) {
    painter.setPen(QPen(colors::kActiveBorder, 1));
    painter.setBrush(colors::kActive);
    painter.drawEllipse(QPointF(x, tl_.rowY(r)), 6, 6);
  }
}

// A range's statistics, in a box at its top right.
void SpaceTimeView::drawRangeBox(QPainter& painter) {
  if (!tl_.range() || drag_ == Drag::Range) return;
  const QStringList lines = tl_.rangeSummary();
  const QRectF plot = tl_.plotRect();
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

// ---- input --------------------------------------------------------------------------------------

bool SpaceTimeView::event(QEvent* e) {
  // With the diagram focused, its navigation keys win over the window's
  // shortcuts (W and S there toggle wall time and single-step).
  if (e->type() == QEvent::ShortcutOverride) {
    auto* k = static_cast<QKeyEvent*>(e);
    if (!(k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) &&
        Timeline::isNavigationKey(k->key())) {
      e->accept();
      return true;
    }
  }
  return QWidget::event(e);
}

void SpaceTimeView::keyPressEvent(QKeyEvent* e) {
  if (!tl_.navigate(e->key())) QWidget::keyPressEvent(e);
}

void SpaceTimeView::wheelEvent(QWheelEvent* e) {
  const QPoint a = e->angleDelta();
  if (e->modifiers() & Qt::ShiftModifier) {
    const int d = a.y() ? a.y() : a.x();  // some systems turn a shifted wheel sideways
    tl_.scrollLanes(d > 0 ? -1 : d < 0 ? 1 : 0);
  } else if (std::abs(a.x()) > std::abs(a.y())) {
    tl_.panBy(-a.x() / 120.0 * tl_.plotRect().width() / 10);
  } else if (a.y()) {
    tl_.zoomBy(std::pow(1.25, a.y() / 120.0), e->position().x());
  }
  e->accept();
}

void SpaceTimeView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
  const QPointF p = e->position();
  if (tl_.overviewRect().adjusted(0, -3, 0, 3).contains(p)) {
    drag_ = Drag::Overview;
    mouseMoveEvent(e);
    return;
  }
  if (!tl_.plotRect().contains(p)) return;
  press_at_ = p;
  press_begin_ = tl_.viewBegin();
  press_row_ = tl_.firstLane();
  if (e->modifiers() & Qt::ShiftModifier) {
    drag_ = Drag::Range;
    range_anchor_ = range_to_ = tl_.keyAt(p.x());
  } else {
    drag_ = Drag::Pending;
  }
}

void SpaceTimeView::mouseMoveEvent(QMouseEvent* e) {
  const QPointF p = e->position();
  const double span = tl_.viewEnd() - tl_.viewBegin();
  switch (drag_) {
    case Drag::Overview: {
      const double key = tl_.overviewKeyAt(p.x());
      tl_.setView(key - span / 2, key + span / 2);
      break;
    }
    case Drag::Pending:
      if ((p - press_at_).manhattanLength() < 5) break;
      drag_ = Drag::Pan;
      [[fallthrough]];
    case Drag::Pan:
      tl_.dragTo(press_begin_ - (p.x() - press_at_.x()) / tl_.plotRect().width() * span,
                 press_row_ - static_cast<int>(std::lround((p.y() - press_at_.y()) / kLaneHeight)));
      break;
    case Drag::Range:
      range_to_ = tl_.keyAt(p.x());
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
    const bool wide = std::abs(tl_.xOf(b) - tl_.xOf(a)) >= 3;
    tl_.selectRange(wide ? a : 0, wide ? b : 0);
    return;
  }
  if (was != Drag::Pending) return;
  // A click: the event under it; beside the events, it clears a range.
  const uint32_t hit = tl_.eventAt(e->position());
  if (hit == kNone) {
    if (tl_.range()) tl_.selectRange(0, 0);
    return;
  }
  tl_.setSelected(hit);
  emit eventClicked(hit);
}

void SpaceTimeView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (const auto bar = tl_.barAt(event->position())) return tl_.setExpanded(*bar, !tl_.stretches()[*bar].expanded);
  QWidget::mouseDoubleClickEvent(event);
}

void SpaceTimeView::addLaneActions(QMenu& menu, int row) {
  const size_t lane = static_cast<size_t>(row);
  const bool folded = tl_.lanes()[lane].folded;
  if (tl_.threaded(lane))
    menu.addAction(folded ? tr("Unfold its threads") : tr("Fold its threads into one lane"),
                   [this, lane, folded] { tl_.setThreadsFolded(lane, !folded); });
  menu.addAction(tr("Move up"), [this, lane] { tl_.moveLane(lane, -1); });
  menu.addAction(tr("Move down"), [this, lane] { tl_.moveLane(lane, 1); });
  menu.addAction(tr("Hide %1").arg(tl_.laneLabel(lane).trimmed()), [this, lane] { tl_.hideLane(lane); });
  menu.addSeparator();
}

void SpaceTimeView::contextMenuEvent(QContextMenuEvent* e) {
  QMenu menu(this);
  if (const int row = tl_.laneAt(e->pos().y()); row >= 0) addLaneActions(menu, row);
  QAction* all = menu.addAction(tr("Show all lanes"), [this] { tl_.showAllLanes(); });
  all->setEnabled(tl_.anyHidden());
  menu.addAction(tr("The whole run"), [this] { tl_.showWholeRun(); });
  QAction* back = menu.addAction(tr("Back to the zoom before"), [this] { tl_.zoomBack(); });
  back->setEnabled(tl_.zoomDepth() > 0);
  QAction* life =
      menu.addAction(tr("Hide creation and exit arrows"), [this] { tl_.setLifeArrowsHidden(!tl_.lifeArrowsHidden()); });
  life->setCheckable(true);
  life->setChecked(tl_.lifeArrowsHidden());
  if (const auto& range = tl_.range()) {
    menu.addAction(tr("Zoom in on the range"), [this, b = range->begin, e = range->end] { tl_.zoomTo(b, e); });
    menu.addAction(tr("Clear the range"), [this] { tl_.selectRange(0, 0); });
  }
  menu.exec(e->globalPos());
}

}  // namespace radar::app
