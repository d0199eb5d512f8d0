// The space-time (Lamport) diagram, as a navigable timeline: a lane per
// process (its images before and after an exec share it, the exec marked;
// several threads that take part are sub-lanes), its events as dots left to
// right, an arrow for each message from its send to its receive; by logical
// order (RADAR's event numbers) or by wall time.
//
// It covers the whole recording: the wheel and keys zoom from the whole run
// down to single events, dragging and keys pan, a ruler tells event numbers
// and wall time, and an overview strip shows where the window is in the
// run. Where a lane has more events in the window than pixels to show them,
// it is drawn as a density per column (counted by binary search in the
// lane's events), so a frame costs the same at any zoom. Lanes scroll, fold
// their threads into one, move, hide and filter by name. Shift-dragging
// selects a range and shows its statistics per channel. Clicking an event
// selects it and highlights its causal past and future. A named pattern's
// stretch (a description's `pattern`) is one bar on its lane, its events
// hidden under it; double-clicking the bar expands it, and again folds it.
#pragma once

#include <QLineEdit>
#include <QWidget>
#include <optional>
#include <set>
#include <vector>

#include "trace/trace.h"

namespace radar::app {

class SpaceTimeView : public QWidget {
  Q_OBJECT

 public:
  explicit SpaceTimeView(const trace::Trace& trace, QWidget* parent = nullptr);

  void setCurrent(uint32_t position);  // the event shown (kNone: none yet); brought into view
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

  // ---- navigation: the stretch of the axis shown, in event positions
  // (logical) or nanoseconds since the first event (wall time).
  double viewBegin() const { return begin_; }
  double viewEnd() const { return end_; }
  double axisEnd() const;                            // the whole run: [0, axisEnd())
  void setView(double begin, double end);            // clamped to the run, and to a smallest span
  void zoomBy(double factor, double anchor_x = -1);  // > 1 zooms in, around a widget x (-1: the middle)
  void panBy(double pixels);                         // > 0 moves later in the run
  void showWholeRun();
  void scrollLanes(int rows);  // > 0 shows later lanes
  int firstLane() const { return first_row_; }
  int lanesShown() const;  // rows that fit

  // ---- lanes
  void setLaneFilter(const QString& text);  // lanes whose name has it (empty: all)
  void hideLane(size_t lane);               // the process of a lane (index into lanes())
  void moveLane(size_t lane, int by);       // its process, up (< 0) or down
  void setThreadsFolded(size_t lane, bool folded);
  void showAllLanes();
  // Creation and exit arrows: dimmed, or hidden on request.
  void setLifeArrowsHidden(bool hidden);
  bool lifeArrowsHidden() const { return life_hidden_; }

  // Events to mark above the lanes and in the overview (a search's
  // matches): positions, ascending; null: none. The vector must outlive
  // the view or be replaced; call again when it changed.
  void setMarks(const std::vector<uint32_t>* positions);
  // The events the event table's filter keeps (ascending; null: all): the
  // others are dimmed. The same lifetime rule as setMarks().
  void setKept(const std::vector<uint32_t>* positions);
  const std::vector<double>& markXs() const { return mark_xs_; }  // drawn, one per pixel at most

  // ---- a selected range and its statistics
  struct ChannelStats {
    uint32_t channel;
    uint64_t messages = 0, bytes = 0;
    int64_t total_latency_ns = 0, max_latency_ns = 0;  // send entry to receive return
  };
  struct RangeStats {
    double begin = 0, end = 0;  // axis units
    uint64_t events = 0, messages = 0, bytes = 0;
    std::vector<ChannelStats> channels;  // most bytes first
  };
  void selectRange(double begin, double end);  // begin >= end: none
  const std::optional<RangeStats>& range() const { return range_; }

  // ---- what is drawn (for tests)
  struct Lane {
    uint32_t process;  // its first image
    uint8_t thread;    // Event::thread
    bool sub_lane;     // a thread of a process drawn on several lanes, not its first
    bool folded;       // all its process's threads on this one lane
  };
  struct Dot {
    uint32_t position;
    QPointF at;
    bool hidden;          // under a folded stretch's bar
    bool dimmed = false;  // left out by the event filter
  };
  struct Bar {
    size_t stretch;
    QRectF rect;
  };
  // A column of a lane with too many events to draw one by one.
  struct Column {
    size_t lane;
    QRectF rect;
    uint32_t events;
  };
  struct Tick {
    double x;
    QString label;
    bool wall;  // on the wall-time row
  };
  struct ExecMark {
    size_t lane;
    double x;
    QString program;
  };
  struct Arrow {
    uint32_t from, to;  // event positions
    trace::Edge::Why why;
    QPointF a, b;
  };
  // A thread in a call when the recording ended, blocked from its entry on;
  // red where it is part of a deadlock.
  struct BlockedBar {
    uint32_t process;  // the image
    uint8_t thread;
    uint16_t kind;  // log::Kind of the call
    bool deadlocked;
    QRectF rect;
  };
  // A deadlock's wait-for edge, drawn where the cycle formed.
  struct Wait {
    uint32_t from, to;  // processes (images)
    QPointF a, b;
  };
  const std::vector<BlockedBar>& blockedBars() const { return blocked_bars_; }
  const std::vector<Wait>& waits() const { return waits_; }
  const std::vector<Lane>& lanes() const { return rows_; }  // every lane, scrolled in or not
  const std::vector<Arrow>& arrows() const { return arrows_; }
  const std::vector<Dot>& dots() const { return dots_; }
  const std::vector<Bar>& bars() const { return bars_; }
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<Tick>& ticks() const { return ticks_; }
  const std::vector<ExecMark>& execMarks() const { return exec_marks_; }
  QRectF overviewWindow() const;  // the mark of the view in the overview strip
  QRectF overviewRect() const;
  QString laneLabel(size_t lane) const;
  double xOf(double key) const;
  double keyAt(double x) const;
  double keyOf(uint32_t position) const;  // on the current axis
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
  // One thread of one process (all its images): its events in order.
  struct Track {
    uint32_t root;  // the process's first image
    uint8_t thread;
    trace::EventList events;    // positions, ascending: the trace's list for a process of one thread
    std::vector<uint32_t> own;  // or a list of its own
    // Wall time: the latest time so far at the end of each block of
    // kWallBlock events (made when wall time is first shown). A binary
    // search over these, then a scan of one block, finds where a time
    // falls, in a sixteenth of the memory of a key per event.
    std::vector<int64_t> wall_blocks;
  };
  static constexpr size_t kWallBlock = 16;
  size_t wallLowerBound(const Track& track, double v, size_t from) const;
  void rebuildRows();
  void relayout();
  void makeWallKeys();
  // The events of a track whose key is in [lo, hi): index range.
  std::pair<size_t, size_t> within(const Track& track, double lo, double hi) const;
  int rowOfEvent(uint32_t position) const;  // -1: not shown
  double rowY(int row) const;               // centre of a row on screen
  QRectF plotRect() const;                  // the lanes' area
  void followCurrent();
  void computeRange(double begin, double end);
  std::pair<const uint32_t*, const uint32_t*> outgoing(uint32_t position);  // edge indices, by sender
  QString threadName(uint32_t root, uint8_t thread) const;
  void drawRuler(QPainter& painter);
  void drawOverview(QPainter& painter);

  const trace::Trace& t_;
  uint32_t current_ = trace::kNone;
  uint32_t selected_ = trace::kNone;
  bool wall_time_ = false;
  bool life_hidden_ = false;
  double begin_ = 0, end_ = 1;
  int first_row_ = 0;
  int64_t wall0_ = 0, wall_span_ = 1;  // the run in wall time
  std::vector<Track> tracks_;
  std::vector<uint32_t> root_of_;                // by process image
  std::vector<std::vector<uint32_t>> track_of_;  // by process image, then Event::thread: index into tracks_
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> execs_;  // by root: (first event of a later image, image)
  // Lanes: processes (roots) in their order, those hidden, those folded.
  std::vector<uint32_t> order_;
  std::vector<std::pair<uint32_t, uint32_t>> root_tracks_;  // by process (a lane's first image): its tracks [a, b)
  std::set<uint32_t> hidden_, folded_;
  QString filter_;
  std::vector<Lane> rows_;
  std::vector<std::vector<uint32_t>> row_tracks_;  // per row: its tracks
  std::vector<int> row_of_track_;                  // -1: not shown
  std::vector<uint32_t> by_sender_;                // edge indices sorted by sender, made on first use
  bool wall_keys_ = false;
  std::vector<uint32_t> overview_[2];  // messages sent per overview bin, logical and wall
  // What relayout() placed.
  std::vector<Dot> dots_;
  std::vector<Bar> bars_;
  std::vector<Column> columns_;
  std::vector<Tick> ticks_;
  std::vector<ExecMark> exec_marks_;
  std::vector<Arrow> arrows_;
  std::vector<BlockedBar> blocked_bars_;
  std::vector<Wait> waits_;
  // Threads blocked at the end: from where (logical and wall keys).
  struct Block {
    uint32_t process;
    uint8_t thread;
    uint16_t kind;
    double logical, wall;
    bool deadlocked;
  };
  std::vector<Block> blocks_;
  const std::vector<uint32_t>* marks_ = nullptr;
  const std::vector<uint32_t>* kept_ = nullptr;
  std::vector<double> mark_xs_;
  int rowOfProcess(uint32_t process, uint8_t thread) const;  // -1: not shown
  std::vector<Stretch> stretches_;
  std::vector<uint32_t> path_, sorted_path_;
  std::optional<RangeStats> range_;
  // A drag: panning, selecting a range, or moving the overview's window.
  enum class Drag { None, Pending, Pan, Range, Overview } drag_ = Drag::None;
  QPointF press_at_;
  double press_begin_ = 0, range_anchor_ = 0, range_to_ = 0;
  int press_row_ = 0;
  QLineEdit* filter_edit_ = nullptr;
};

}  // namespace radar::app
