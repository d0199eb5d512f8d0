// The network view: process boxes, their ports and the messages between
// them, drawn from a Scene. Zoom with the wheel, pan by dragging the
// background, rearrange by dragging boxes, fit with fitToView().
#pragma once

#include <QColor>
#include <QPointF>
#include <QWidget>
#include <functional>
#include <vector>

#include "app/scene.h"

namespace radar::app {

class NetworkView : public QWidget {
  Q_OBJECT

 public:
  explicit NetworkView(SceneBuilder& builder, QWidget* parent = nullptr);

  void setScene(Scene scene);
  const Scene& scene() const { return scene_; }
  // Shows the whole layout.
  void fitToView();
  void zoomBy(double factor);
  void setShowChannels(bool on);
  bool showChannels() const { return show_channels_; }
  void setSelectedMessage(uint32_t send);
  // The events a filter keeps (ascending; null: all): the messages of the
  // others, and the acting process during them, drawn faded.
  void setKept(const std::vector<uint32_t>* positions);
  bool kept(uint32_t position) const;
  // Processes on a critical path: their boxes outlined.
  void setPathProcesses(std::vector<uint32_t> processes);
  // Processes where two runs part (radar diff): ringed.
  void setPartedProcesses(std::vector<uint32_t> processes);
  const std::vector<uint32_t>& partedProcesses() const { return parted_processes_; }
  // The legend of colours, in a corner (on by default).
  void setShowLegend(bool on);
  bool showLegend() const { return show_legend_; }
  // What each colour means, as the legend shows it.
  struct LegendEntry {
    QString text;
    QColor color;
  };
  static std::vector<LegendEntry> legend();
  std::vector<LegendEntry> shownLegend() const;
  // Folded to its title (a click on it folds or opens it); folded too where
  // the view is too short for it.
  bool legendFolded() const;
  void setLegendFolded(bool folded);
  QRect legendFrame() const;  // where the legend is drawn
  // Between the scene's coordinates and the widget's.
  QPointF toWidget(Point p) const;
  Point toScene(QPointF p) const;
  double zoom() const { return zoom_; }
  // The message under a point of the widget, within 12 pixels of it.
  uint32_t messageAt(QPointF widget_point) const;
  // Below this zoom, boxes and messages are drawn plainer (no smoothing,
  // no rounded corners, messages without outlines).
  static constexpr double kCoarseZoom = 0.4;
  // The siblings of `process` (the processes its creator started that run
  // its program) drawn as one box, or one by one again (also by a right
  // click on a box).
  void setGrouped(uint32_t process, bool grouped);

  // Channels' names: their size at zoom 1, and the zoom below which they
  // are too small to read.
  static constexpr double kLabelPoints = 7.5, kLabelZoom = 0.7;

  // What hovering over a message shows (its first bytes decoded).
  void setMessageTip(std::function<QString(uint32_t send)> tip) { message_tip_ = std::move(tip); }

  QSize sizeHint() const override { return {900, 560}; }

 signals:
  void messageClicked(uint32_t send);
  void processClicked(uint32_t process);
  void boxMoved();         // while a box is dragged: the scene must be built again
  void groupingChanged();  // processes grouped or shown one by one: laid out again
  void layoutChanged();    // a box was dropped somewhere new

 protected:
  bool event(QEvent* e) override;
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void contextMenuEvent(QContextMenuEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void resizeEvent(QResizeEvent*) override;

 private:
  void drawHosts(class QPainter& painter);
  void drawChannels(class QPainter& painter);
  void bringActiveIntoView();
  void drawLegend(class QPainter& painter);
  void drawProcesses(class QPainter& painter, bool coarse);
  void drawPorts(class QPainter& painter);
  void drawWaits(class QPainter& painter);
  void drawMessages(class QPainter& painter, bool coarse);
  QFont smallFont() const;
  QFont labelFont(double zoom) const;
  Rect contentBounds() const;
  QString bundleTip(size_t bundle) const;
  QFont legendFont() const;
  QString legendTitle() const;
  bool legendTooTall() const;  // for the view's height, open

  SceneBuilder& builder_;
  Scene scene_;
  double zoom_ = 1;
  QPointF pan_;              // widget position of the scene's origin
  bool user_moved_ = false;  // zoomed or panned since the last fit: a new size keeps the view
  bool show_channels_ = true;
  bool show_legend_ = true;
  enum class LegendState { Auto, Folded, Open } legend_ = LegendState::Auto;
  uint32_t selected_message_ = kNone;
  std::vector<uint32_t> path_processes_;    // sorted
  std::vector<uint32_t> parted_processes_;  // sorted
  const std::vector<uint32_t>* kept_ = nullptr;
  std::function<QString(uint32_t)> message_tip_;
  // Dragging: the background (pan) or a box.
  enum class Drag { None, Pan, Box } drag_ = Drag::None;
  QPointF drag_start_;
  QPointF drag_origin_;
  uint32_t drag_process_ = kNone;
  bool dragged_ = false;
};

}  // namespace radar::app
