#include "app/network_view.h"

#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "app/palette.h"

namespace radar::app {

NetworkView::NetworkView(SceneBuilder& builder, QWidget* parent) : QWidget(parent), builder_(builder) {
  setMouseTracking(true);
  setFocusPolicy(Qt::ClickFocus);
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, colors::kBackground);
  setPalette(pal);
  // Names are mostly ASCII: their characters' advances summed (kerning
  // only narrows them) cost a fraction of shaping each name.
  const QFontMetricsF metrics(labelFont(1));
  std::array<double, 128> advance{};
  for (int c = 32; c < 127; ++c) advance[size_t(c)] = metrics.horizontalAdvance(QChar(c));
  builder_.setLabelMetrics(
      [metrics, advance](const std::string& text) {
        double w = 0;
        for (unsigned char c : text) {
          if (c >= 128 || advance[c] == 0) return metrics.horizontalAdvance(QString::fromStdString(text));
          w += advance[c];
        }
        return w;
      },
      metrics.height());
}

void NetworkView::setScene(Scene scene) {
  scene_ = std::move(scene);
  bringActiveIntoView();
  update();
}

// The process doing the event is always in view: when its box is outside
// the widget (zoomed in, panned away), the view pans to centre it.
void NetworkView::bringActiveIntoView() {
  if (drag_ != Drag::None || width() <= 0 || height() <= 0) return;
  for (const ProcessBox& b : scene_.processes) {
    if (!b.active) continue;
    const QRectF r(toWidget({b.box.x, b.box.y}), QSizeF(b.box.w * zoom_, b.box.h * zoom_));
    if (QRectF(rect()).contains(r)) return;
    pan_ += QPointF(width() / 2.0, height() / 2.0) - r.center();
    return;
  }
}

void NetworkView::setShowChannels(bool on) {
  show_channels_ = on;
  update();
}

void NetworkView::setSelectedMessage(uint32_t send) {
  selected_message_ = send;
  update();
}

QPointF NetworkView::toWidget(Point p) const { return {pan_.x() + p.x * zoom_, pan_.y() + p.y * zoom_}; }

Point NetworkView::toScene(QPointF p) const { return {(p.x() - pan_.x()) / zoom_, (p.y() - pan_.y()) / zoom_}; }

// The layout's bounds, and the lines bent around boxes beyond them (a line
// along the top row bends above it): their furthest point is mid-way.
Rect NetworkView::contentBounds() const {
  Rect r = builder_.bounds();
  auto take = [&r](Rect p) {
    const double x1 = std::max(r.x + r.w, p.x + p.w), y1 = std::max(r.y + r.h, p.y + p.h);
    r.x = std::min(r.x, p.x);
    r.y = std::min(r.y, p.y);
    r.w = x1 - r.x;
    r.h = y1 - r.y;
  };
  for (const ChannelBundle& line : scene_.bundles) {
    if (isStraight(line.a, line.control, line.b)) continue;
    const Point p = onCurve(line.a, line.control, line.b, 0.5);
    take({p.x - 8, p.y - 8, 16, 16});
  }
  for (const ChannelLabel& l : scene_.labels) take(l.box);
  return r;
}

void NetworkView::fitToView() {
  const Rect b = contentBounds();
  // Beside the legend, which would cover what is under it.
  // Beside the legend open, above it folded: it never covers a box.
  const bool folded = legendFolded();
  const double left = show_legend_ && !folded ? legendFrame().right() + 6 : 0, w = width() - left;
  const double h = height() - (show_legend_ && folded ? legendFrame().height() + 8 : 0);
  if (b.w <= 0 || b.h <= 0 || w <= 0 || h <= 0) return;
  zoom_ = std::clamp(std::min(w / b.w, h / b.h), 0.05, 2.0);
  pan_ = {left + (w - b.w * zoom_) / 2 - b.x * zoom_, (h - b.h * zoom_) / 2 - b.y * zoom_};
  user_moved_ = false;
  update();
}

void NetworkView::zoomBy(double factor) {
  const QPointF c(width() / 2.0, height() / 2.0);
  const Point at = toScene(c);
  zoom_ = std::clamp(zoom_ * factor, 0.02, 8.0);
  pan_ = {c.x() - at.x * zoom_, c.y() - at.y * zoom_};
  user_moved_ = true;
  update();
}

// Fitted again at each new size until the user zooms or pans.
void NetworkView::resizeEvent(QResizeEvent*) {
  if (!user_moved_) fitToView();
}

// Each host's boxes framed, its name at the frame's top left.
void NetworkView::drawHosts(QPainter& painter) {
  if (scene_.hosts.empty()) return;
  QFont host_font = font();
  host_font.setPointSizeF(std::max(4.0, 9 * std::min(zoom_, 1.5)));
  painter.setFont(host_font);
  for (const Scene::HostFrame& h : scene_.hosts) {
    const QRectF r(toWidget({h.box.x, h.box.y}), QSizeF(h.box.w * zoom_, h.box.h * zoom_));
    painter.setPen(QPen(colors::kHostFrame, 1, Qt::DashLine));
    painter.setBrush(colors::kHostFill);
    painter.drawRoundedRect(r, 8 * zoom_, 8 * zoom_);
    painter.setPen(colors::kHostFrame);
    painter.drawText(r.adjusted(6, 3, -6, -3), Qt::AlignLeft | Qt::AlignTop,
                     tr("host %1").arg(QString::fromStdString(h.host)));
  }
}

// The font of channels' names at a zoom: the scene places them measured
// by it at zoom 1.
QFont NetworkView::labelFont(double zoom) const {
  QFont f = font();
  f.setPointSizeF(kLabelPoints * zoom);
  return f;
}

void NetworkView::drawChannels(QPainter& painter) {
  // One line a pair of boxes, from output side to input side, thicker the
  // more channels it bundles; its name where the scene found room for it,
  // when the view is big enough to read it.
  for (const ChannelBundle& bundle : scene_.bundles) {
    painter.setPen(QPen(colors::kChannelLine, 1.4 + 0.6 * std::log2(double(bundle.channels.size()))));
    painter.setBrush(Qt::NoBrush);
    const QPointF a = toWidget(bundle.a), b = toWidget(bundle.b);
    if (isStraight(bundle.a, bundle.control, bundle.b)) {
      painter.drawLine(a, b);  // straight: the common case, and much cheaper than a curve
    } else {
      QPainterPath path(a);
      path.quadTo(toWidget(bundle.control), b);
      painter.drawPath(path);
    }
  }
  if (zoom_ < kLabelZoom) return;
  if (!scene_.named) builder_.placeLabels(scene_);  // only when they can be read: a thousand cost a frame
  painter.setFont(labelFont(zoom_));
  painter.setPen(colors::kBorder);
  for (const ChannelLabel& l : scene_.labels)
    painter.drawText(QRectF(toWidget({l.box.x, l.box.y}), QSizeF(l.box.w * zoom_, l.box.h * zoom_)), Qt::AlignCenter,
                     QString::fromStdString(l.text));
}

// A bundle's channels by their full names, on hover over its line or name.
QString NetworkView::bundleTip(size_t bundle) const {
  const auto& t = builder_.trace();
  const auto& channels = scene_.bundles[bundle].channels;
  constexpr size_t kMostNamed = 12;
  QStringList lines;
  for (size_t k = 0; k < channels.size() && k < kMostNamed; ++k)
    lines << QString::fromStdString(t.channelName(channels[k]));
  if (channels.size() > kMostNamed) lines << tr("and %n more", nullptr, static_cast<int>(channels.size() - kMostNamed));
  return lines.join(QLatin1Char('\n'));
}

bool NetworkView::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  const auto* help = static_cast<QHelpEvent*>(e);
  if (const uint32_t m = messageAt(help->pos()); m != kNone && message_tip_) {
    QToolTip::showText(help->globalPos(), message_tip_(m), this);
    return true;
  }
  constexpr double kPickPixels = 6;
  const size_t bundle = show_channels_ ? scene_.bundleAt(toScene(help->pos()), kPickPixels / zoom_, zoom_ >= kLabelZoom)
                                       : Scene::kNoBundle;
  if (bundle == Scene::kNoBundle || messageAt(help->pos()) != kNone || scene_.processAt(toScene(help->pos())) != kNone)
    QToolTip::hideText();
  else
    QToolTip::showText(help->globalPos(), bundleTip(bundle), this);
  return true;
}

void NetworkView::setPathProcesses(std::vector<uint32_t> processes) {
  std::sort(processes.begin(), processes.end());
  path_processes_ = std::move(processes);
  update();
}

void NetworkView::setPartedProcesses(std::vector<uint32_t> processes) {
  std::sort(processes.begin(), processes.end());
  parted_processes_ = std::move(processes);
  update();
}

void NetworkView::setShowLegend(bool on) {
  show_legend_ = on;
  if (!user_moved_) fitToView();  // beside it, or the room it left
  update();
}

std::vector<NetworkView::LegendEntry> NetworkView::legend() {
  return {{tr("process"), colors::kProcess},
          {tr("process not recorded"), colors::kUnrecorded},
          {tr("process doing the event"), colors::kActive},
          {tr("process blocked"), colors::kBlocked},
          {tr("input port"), colors::kInputPort},
          {tr("output port"), colors::kOutputPort},
          {tr("message travelling"), colors::kTravelling},
          {tr("message queued"), colors::kQueued},
          {tr("message being received"), colors::kConsumed},
          {tr("message nobody receives"), colors::kUndelivered},
          {tr("message selected"), colors::kSelected},
          {tr("on the critical path"), colors::kPath},
          {tr("waits for (deadlock)"), colors::kDeadlock},
          {tr("where two runs part (diff)"), colors::kParted}};
}

// The legend as drawn: the diff's colour only beside another run.
std::vector<NetworkView::LegendEntry> NetworkView::shownLegend() const {
  auto entries = legend();
  if (parted_processes_.empty())
    std::erase_if(entries, [](const LegendEntry& e) { return e.color == colors::kParted; });
  return entries;
}

// Bottom left, over the scene: a swatch and a word for each colour.
QFont NetworkView::legendFont() const {
  QFont f = font();
  f.setPointSizeF(8);
  return f;
}

// Open, a line for each colour under its title; folded (by a click on its
// title, or where the view is too short for it), the title alone.
bool NetworkView::legendTooTall() const {
  const QFontMetrics m(legendFont());
  const int open = (m.height() + 2) * static_cast<int>(shownLegend().size() + 1) + 20;
  return height() < open + 8;
}

bool NetworkView::legendFolded() const {
  return legend_ == LegendState::Folded || (legend_ == LegendState::Auto && legendTooTall());
}

// Folded by the user; unfolded, open where there is room (Auto), or open
// all the same when the user opens it in a view too short for it.
void NetworkView::setLegendFolded(bool folded) {
  legend_ = folded ? LegendState::Folded : legendTooTall() ? LegendState::Open : LegendState::Auto;
  if (!user_moved_) fitToView();
  update();
}

QRect NetworkView::legendFrame() const {
  const auto entries = shownLegend();
  const QFontMetrics m(legendFont());
  int text_width = m.horizontalAdvance(legendTitle());
  for (const auto& e : entries) text_width = std::max(text_width, m.horizontalAdvance(e.text));
  const int line = m.height() + 2, swatch = m.height() - 4;
  const int lines = legendFolded() ? 1 : static_cast<int>(entries.size()) + 1;
  const int width = legendFolded() ? m.horizontalAdvance(legendTitle()) + 16 : text_width + swatch + 20;
  return {6, height() - 6 - line * lines - 8, width, line * lines + 8};
}

QString NetworkView::legendTitle() const { return legendFolded() ? tr("\u25B8 Colours") : tr("\u25BE Colours"); }

void NetworkView::drawLegend(QPainter& painter) {
  const QFont f = legendFont();
  painter.setFont(f);
  const QFontMetrics m(f);
  const int line = m.height() + 2, swatch = m.height() - 4;
  const QRect frame = legendFrame();
  painter.setPen(QPen(colors::kBorder, 0.8));
  painter.setBrush(QColor(255, 255, 255, 225));
  painter.drawRect(frame);
  int y = frame.y() + 4;
  painter.setPen(colors::kText);
  painter.drawText(QRect(frame.x() + 6, y, frame.width() - 8, line), Qt::AlignVCenter | Qt::AlignLeft, legendTitle());
  if (legendFolded()) return;
  y += line;
  for (const auto& e : shownLegend()) {
    painter.setPen(QPen(colors::kBorder, 0.8));
    painter.setBrush(e.color);
    painter.drawRect(QRect(frame.x() + 6, y + (line - swatch) / 2, swatch, swatch));
    painter.setPen(colors::kText);
    painter.drawText(QRect(frame.x() + 12 + swatch, y, frame.width() - 12 - swatch, line),
                     Qt::AlignVCenter | Qt::AlignLeft, e.text);
    y += line;
  }
}

void NetworkView::setKept(const std::vector<uint32_t>* positions) {
  kept_ = positions;
  update();
}

bool NetworkView::kept(uint32_t position) const {
  return !kept_ || std::binary_search(kept_->begin(), kept_->end(), position);
}

namespace {
QColor faded(QColor c) {
  c.setAlpha(55);
  return c;
}
}  // namespace

void NetworkView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  // Level of detail: zoomed far out (hundreds of boxes on screen), plain
  // rectangles without smoothing or outlines, which cost a fraction of the
  // rounded, smoothed ones and look the same a few pixels wide.
  const bool coarse = zoom_ < kCoarseZoom;
  painter.setRenderHint(QPainter::Antialiasing, !coarse);
  drawHosts(painter);
  if (show_channels_) drawChannels(painter);
  drawProcesses(painter, coarse);
  drawPorts(painter);
  drawWaits(painter);
  drawMessages(painter, coarse);
  if (show_legend_) drawLegend(painter);
}

// The text under a process's name, at the zoom.
QFont NetworkView::smallFont() const {
  QFont small_font = font();
  small_font.setPointSizeF(std::max(3.5, 8 * std::min(zoom_, 1.5)));
  return small_font;
}

// Process boxes: their names, and their pids or members and ports.
void NetworkView::drawProcesses(QPainter& painter, bool coarse) {
  QFont name_font = font();
  name_font.setPointSizeF(std::max(4.0, 10 * std::min(zoom_, 1.5)));
  name_font.setBold(true);
  const QFont small_font = smallFont();
  for (const ProcessBox& b : scene_.processes) {
    const QRectF r(toWidget({b.box.x, b.box.y}), QSizeF(b.box.w * zoom_, b.box.h * zoom_));
    const bool active = b.active && kept(scene_.event);  // a filtered-out event does not light its process
    const bool unrecorded = !b.not_recorded.empty();
    QColor fill = active       ? colors::kActive
                  : b.blocked  ? colors::kBlocked
                  : unrecorded ? colors::kUnrecorded
                               : colors::kProcess;
    if (b.ending) fill = fill.lighter(115);
    const bool on_path = std::binary_search(path_processes_.begin(), path_processes_.end(), b.process);
    painter.setPen(QPen(active    ? colors::kActiveBorder
                        : on_path ? colors::kPath
                                  : colors::kBorder,
                        active || on_path ? 2.5 : 1.2, unrecorded ? Qt::DashLine : Qt::SolidLine));
    painter.setBrush(fill);
    if (coarse)
      painter.drawRect(r);
    else
      painter.drawRoundedRect(r, 6 * zoom_, 6 * zoom_);
    if (std::binary_search(parted_processes_.begin(), parted_processes_.end(), b.process)) {
      // Where two runs part (the diff): a ring outside the box, whatever its border says.
      painter.setPen(QPen(colors::kParted, 2.5, Qt::DashLine));
      painter.setBrush(Qt::NoBrush);
      painter.drawRoundedRect(r.adjusted(-5, -5, 5, 5), 8 * zoom_, 8 * zoom_);
    }
    if (zoom_ < 0.25) continue;  // too small to read
    painter.setPen(colors::kText);
    painter.setFont(name_font);
    const QRectF top(r.x(), r.y() + 4 * zoom_, r.width(), r.height() * 0.5);
    painter.drawText(top, Qt::AlignHCenter | Qt::AlignVCenter,
                     painter.fontMetrics().elidedText(QString::fromStdString(b.name), Qt::ElideRight,
                                                      static_cast<int>(r.width() - 8)));
    painter.setFont(small_font);
    const QRectF bottom(r.x(), r.y() + r.height() * 0.5, r.width(), r.height() * 0.45);
    const QString who = !builder_.grouped(b.process) ? tr("pid %1").arg(b.pid)
                        : b.blocked_members ? tr("%1 processes, %2 blocked").arg(b.members).arg(b.blocked_members)
                                            : tr("%1 processes").arg(b.members);
    // A program radar could not record says so, and why, where the others
    // count their ports.
    const QString detail = unrecorded ? tr("%1 · %2").arg(who, QString::fromStdString(b.not_recorded))
                                      : tr("%1 · %2 in · %3 out").arg(who).arg(b.inputs).arg(b.outputs);
    painter.drawText(bottom, Qt::AlignHCenter | Qt::AlignVCenter,
                     painter.fontMetrics().elidedText(detail, Qt::ElideRight, static_cast<int>(r.width() - 8)));
  }
}

// Open ports: a notch on the border.
void NetworkView::drawPorts(QPainter& painter) {
  const QFont small_font = smallFont();
  for (const PortMark& port : scene_.ports) {
    const QPointF at = toWidget(port.at);
    // A notch across the border: upright on a side, flat on the top or bottom.
    const bool flat = std::abs(port.toward.y) > std::abs(port.toward.x);
    const double w = (flat ? 12 : 7) * zoom_, h = (flat ? 7 : 12) * zoom_;
    painter.setPen(QPen(colors::kBorder, 1));
    painter.setBrush(port.input ? colors::kInputPort : colors::kOutputPort);
    painter.drawRect(QRectF(at.x() - w / 2, at.y() - h / 2, w, h));
    if (port.hidden) {
      painter.setPen(colors::kText);
      painter.setFont(small_font);
      // Beside the last drawn, within the gap between the boxes.
      const Rect next = queueSlot(port, port.room);
      painter.drawText(QRectF(toWidget({next.center().x - 13, next.center().y - 8}), QSizeF(26 * zoom_, 16 * zoom_)),
                       Qt::AlignCenter, QStringLiteral("+%1").arg(port.hidden));
    }
  }
}

// A deadlock's wait-for cycle: red arrows from each waiting box to the
// box it waits for, border to border.
void NetworkView::drawWaits(QPainter& painter) {
  for (const WaitEdge& w : scene_.waits) {
    const ProcessBox* a = scene_.box(w.from);
    const ProcessBox* b = scene_.box(w.to);
    if (!a || !b) continue;
    const QRectF ra(toWidget({a->box.x, a->box.y}), QSizeF(a->box.w * zoom_, a->box.h * zoom_));
    const QRectF rb(toWidget({b->box.x, b->box.y}), QSizeF(b->box.w * zoom_, b->box.h * zoom_));
    const QLineF centres(ra.center(), rb.center());
    // Where the line leaves a box: scaled to its half size.
    auto edge = [](const QRectF& r, QPointF from, QPointF dir) {
      const double sx = dir.x() ? (r.width() / 2) / std::abs(dir.x()) : 1e9;
      const double sy = dir.y() ? (r.height() / 2) / std::abs(dir.y()) : 1e9;
      return from + dir * std::min(sx, sy);
    };
    const QPointF dir = centres.p2() - centres.p1();
    if (dir.isNull()) continue;
    const QPointF start = edge(ra, ra.center(), dir), end = edge(rb, rb.center(), -dir);
    painter.setPen(QPen(colors::kDeadlock, 3 * std::max(zoom_, 0.5), Qt::SolidLine, Qt::RoundCap));
    painter.drawLine(start, end);
    const double len = std::hypot(dir.x(), dir.y());
    const QPointF u = dir / len, nrm(-u.y(), u.x());
    QPainterPath head;
    head.moveTo(end);
    head.lineTo(end - u * 14 * zoom_ + nrm * 6 * zoom_);
    head.lineTo(end - u * 14 * zoom_ - nrm * 6 * zoom_);
    head.closeSubpath();
    painter.fillPath(head, colors::kDeadlock);
  }
}

// Messages: travelling, queued, being received, or never received.
void NetworkView::drawMessages(QPainter& painter, bool coarse) {
  for (const MessageBox& m : scene_.messages) {
    const QRectF r(toWidget({m.box.x, m.box.y}), QSizeF(m.box.w * zoom_, m.box.h * zoom_));
    QColor fill = m.state == MessageBox::State::Travelling ? colors::kTravelling
                  : m.state == MessageBox::State::Consumed ? colors::kConsumed
                  : m.to_process == kNone                  ? colors::kUndelivered
                                                           : colors::kQueued;
    QColor edge = m.send == selected_message_ ? colors::kSelected : colors::kBorder;
    if (!kept(m.send)) fill = faded(fill), edge = faded(edge);
    if (coarse && m.send != selected_message_) {
      painter.fillRect(r, fill);
      continue;
    }
    painter.setPen(QPen(edge, m.send == selected_message_ ? 2.5 : 1));
    painter.setBrush(fill);
    painter.drawRect(r);
  }
}

void NetworkView::contextMenuEvent(QContextMenuEvent* event) {
  const uint32_t p = scene_.processAt(toScene(event->pos()));
  if (p == kNone) return;
  const auto siblings = builder_.siblingsOf(p);
  if (siblings.size() < 2) return;
  const QString name = QString::fromStdString(builder_.trace().processName(p));
  QMenu menu(this);
  const bool grouped = builder_.grouped(p);
  menu.addAction(grouped ? tr("Show the %1 %2 processes one by one").arg(siblings.size()).arg(name)
                         : tr("Group the %1 %2 processes into one box").arg(siblings.size()).arg(name),
                 this, [this, p, grouped] { setGrouped(p, !grouped); });
  menu.exec(event->globalPos());
}

void NetworkView::setGrouped(uint32_t process, bool grouped) {
  builder_.setGrouped(process, grouped);
  emit groupingChanged();
}

void NetworkView::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const QPointF c = event->position();
  const Point at = toScene(c);
  zoom_ = std::clamp(zoom_ * factor, 0.02, 8.0);
  pan_ = {c.x() - at.x * zoom_, c.y() - at.y * zoom_};
  user_moved_ = true;
  update();
}

uint32_t NetworkView::messageAt(QPointF widget_point) const {
  constexpr double kPickPixels = 12;  // a target 24 pixels across
  return scene_.messageAt(toScene(widget_point), kPickPixels / zoom_);
}

void NetworkView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  if (show_legend_) {
    const QRect frame = legendFrame();
    const QRect title(frame.x(), frame.y(), frame.width(), QFontMetrics(legendFont()).height() + 6);
    if (title.contains(event->position().toPoint())) {
      setLegendFolded(!legendFolded());
      drag_ = Drag::None;
      dragged_ = true;  // the release is the click's: it picks nothing under the title
      return;
    }
  }
  const Point at = toScene(event->position());
  drag_start_ = event->position();
  dragged_ = false;
  drag_process_ = messageAt(event->position()) == kNone ? scene_.processAt(at) : kNone;
  if (drag_process_ != kNone) {
    drag_ = Drag::Box;
    const Rect box = builder_.boxOf(drag_process_);
    drag_origin_ = {box.x, box.y};
  } else {
    drag_ = Drag::Pan;
    drag_origin_ = pan_;
  }
}

void NetworkView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_ == Drag::None) {
    setCursor(messageAt(event->position()) != kNone ? Qt::PointingHandCursor : Qt::ArrowCursor);
    return;
  }
  const QPointF d = event->position() - drag_start_;
  if (!dragged_ && d.manhattanLength() < 4) return;
  dragged_ = true;
  if (drag_ == Drag::Pan) {
    pan_ = drag_origin_ + d;
    user_moved_ = true;
  } else {
    builder_.moveBox(drag_process_, {drag_origin_.x() + d.x() / zoom_, drag_origin_.y() + d.y() / zoom_});
    emit boxMoved();  // drawn where it is now, paused or not
  }
  update();
}

void NetworkView::mouseReleaseEvent(QMouseEvent* event) {
  const Drag was = drag_;
  drag_ = Drag::None;
  if (dragged_ && was == Drag::Box) emit layoutChanged();
  if (dragged_ || event->button() != Qt::LeftButton) return;
  if (const uint32_t m = messageAt(event->position()); m != kNone) {
    emit messageClicked(m);
  } else if (was == Drag::Box && drag_process_ != kNone) {
    emit processClicked(drag_process_);
  }
}

}  // namespace radar::app
