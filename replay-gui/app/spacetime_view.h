// The space-time (Lamport) diagram: a lane per process (and per thread, as
// sub-lanes, where several threads of a process take part), its events as dots
// left to right, an arrow for each message from its send to its receive;
// by logical order (RADAR's event numbers) or by wall time. It shows a
// window of events around the current one. Clicking an event selects it
// and highlights its causal past and future. A named pattern's stretch (a
// description's `pattern`) is one bar on its lane, its events hidden under
// it; double-clicking the bar expands it, and again folds it.
#pragma once

#include <QWidget>
#include <vector>

#include "trace/trace.h"

namespace radar::gui {

class SpaceTimeView : public QWidget {
  Q_OBJECT

 public:
  explicit SpaceTimeView(const trace::Trace& trace, QWidget* parent = nullptr);

  void setCurrent(uint32_t position);  // the event shown (kNone: none yet)
  void setSelected(uint32_t position);
  uint32_t selected() const { return selected_; }
  // A critical path's events (positions, in order), drawn joined; empty: none.
  void setPath(std::vector<uint32_t> events);
  const std::vector<uint32_t>& path() const { return path_; }
  // Named patterns' stretches: each a higher-level event, folded at first.
  struct Stretch {
    uint32_t process, first, last;  // event positions
    QString label;                  // "lookup × 40"
    bool expanded = false;
  };
  void setStretches(std::vector<Stretch> stretches);
  const std::vector<Stretch>& stretches() const { return stretches_; }
  void setExpanded(size_t stretch, bool on);
  // The folded stretch an event is hidden in, or kNone.
  uint32_t foldedStretchOf(uint32_t position) const;
  void setWallTime(bool on);
  bool wallTime() const { return wall_time_; }
  // Events drawn either side of the current one.
  static constexpr uint32_t kWindow = 150;

  // What is drawn (for tests): the lanes, and each visible event's position
  // with its place.
  struct Lane {
    uint32_t process;
    uint8_t thread;  // Event::thread
    bool sub_lane;   // a thread of a process drawn on several lanes, not its first
  };
  struct Dot {
    uint32_t position;
    QPointF at;
    bool hidden;  // under a folded stretch's bar
  };
  struct Bar {
    size_t stretch;
    QRectF rect;
  };
  const std::vector<Lane>& lanes() const { return lanes_; }
  const std::vector<Dot>& dots() const { return dots_; }
  const std::vector<Bar>& bars() const { return bars_; }
  QSize sizeHint() const override { return {900, 220}; }

 signals:
  void eventClicked(uint32_t position);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;
  void resizeEvent(QResizeEvent*) override;

 private:
  void relayout();
  QString threadName(const Lane& lane) const;  // "thread 4125"

  const trace::Trace& t_;
  uint32_t current_ = trace::kNone;
  uint32_t selected_ = trace::kNone;
  bool wall_time_ = false;
  std::vector<Lane> lanes_;
  std::vector<Dot> dots_;
  std::vector<Stretch> stretches_;
  std::vector<Bar> bars_;
  std::vector<uint32_t> path_, sorted_path_;
};

}  // namespace radar::gui
