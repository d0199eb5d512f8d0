// The space-time (Lamport) diagram, as a navigable timeline: it paints a
// Timeline (app/timeline.h: the lanes, the axis, the layout) and turns
// input into its calls.
//
// The wheel and keys zoom from the whole run down to single events,
// dragging and keys pan, a ruler tells event numbers and wall time, and
// an overview strip shows where the window is in the run. Lanes scroll,
// fold their threads into one, move, hide and filter by name.
// Shift-dragging selects a range and shows its statistics per channel;
// the context menu zooms in on it, and Backspace goes back to the window
// before. Clicking an event selects it and highlights its causal past and
// future. A named pattern's stretch is one bar on its lane; double-clicking
// it expands it, and again folds it.
#pragma once

#include <QFontMetrics>
#include <QLineEdit>
#include <QWidget>

#include "app/timeline.h"

namespace radar::app {

class SpaceTimeView : public QWidget {
  Q_OBJECT

 public:
  explicit SpaceTimeView(const trace::Trace& trace, QWidget* parent = nullptr);

  // What is shown and where: every change repaints the view.
  Timeline& timeline() { return tl_; }
  const Timeline& timeline() const { return tl_; }
  QSize sizeHint() const override { return {900, 260}; }

 signals:
  void eventClicked(uint32_t position);

 protected:
  bool event(QEvent*) override;
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void keyPressEvent(QKeyEvent*) override;
  void contextMenuEvent(QContextMenuEvent*) override;
  void resizeEvent(QResizeEvent*) override;

 private:
  void drawRuler(QPainter& painter);
  void drawOverview(QPainter& painter);
  void drawLanes(QPainter& painter);
  void drawBusyAndBlocked(QPainter& painter);
  void drawWaitsAndArrows(QPainter& painter);
  void drawPathExecsAndBars(QPainter& painter);
  void drawCollectives(QPainter& painter);
  QString fittedLaneLabel(const QFontMetrics& metrics, size_t lane) const;
  void drawDots(QPainter& painter);
  void drawRangeBox(QPainter& painter);
  void addLaneActions(QMenu& menu, int row);

  Timeline tl_;
  const trace::Trace& t_;
  // A drag: panning, selecting a range, or moving the overview's window.
  enum class Drag { None, Pending, Pan, Range, Overview } drag_ = Drag::None;
  QPointF press_at_;
  double press_begin_ = 0, range_anchor_ = 0, range_to_ = 0;
  int press_row_ = 0;
  QLineEdit* filter_edit_ = nullptr;
};

}  // namespace radar::app
