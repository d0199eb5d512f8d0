// The space-time (Lamport) diagram's model: what the timeline shows and
// where, apart from any widget, so that it is tested without a display.
//
// A lane per process (its images before and after an exec share it, the
// exec marked; several threads that take part are sub-lanes), its events
// as dots left to right, an arrow for each message from its send to its
// receive; by logical order (RADAR's event numbers) or by wall time. The
// time axis has a window (zoomed and panned) and a zoom stack to go back
// by; lanes scroll, fold their threads into one, move, hide and filter by
// name. Where a lane has more events in the window than pixels to show
// them, it is laid out as a density per column (counted by binary search
// in the lane's events), so a layout costs the same at any zoom. It also
// answers hit tests (the event, the lane, the bar at a point) and a
// range's statistics per channel. SpaceTimeView paints it and forwards
// input to it.
#pragma once

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "trace/mpi_collectives.h"
#include "trace/trace.h"

namespace radar::app {

class Timeline {
  Q_DECLARE_TR_FUNCTIONS(Timeline)

 public:
  static constexpr double kLaneHeight = 26, kLabelWidth = 160, kMargin = 12;
  static constexpr double kRulerHeight = 38, kOverviewHeight = 26;

  explicit Timeline(const trace::Trace& trace);
  const trace::Trace& trace() const { return t_; }
  // Called after every change of what is laid out (a view repaints).
  void onChanged(std::function<void()> changed) { changed_ = std::move(changed); }
  // The size of the area it is laid out in.
  void setSize(QSizeF size);
  QSizeF size() const { return size_; }

  // ---- what is shown
  void setCurrent(uint32_t position);  // the event shown (kNone: none yet); brought into view
  uint32_t current() const { return current_; }
  void setSelected(uint32_t position);
  uint32_t selected() const { return selected_; }
  // A critical path's events (positions, in order), drawn joined; empty: none.
  void setPath(std::vector<uint32_t> events);
  const std::vector<uint32_t>& path() const { return path_; }
  bool onPath(uint32_t position) const;
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
  // Creation and exit arrows: dimmed, or hidden on request.
  void setLifeArrowsHidden(bool hidden);
  bool lifeArrowsHidden() const { return life_hidden_; }
  // Events to mark above the lanes and in the overview (a search's
  // matches): positions, ascending; null: none. The vector must outlive
  // the timeline or be replaced; call again when it changed.
  void setMarks(const std::vector<uint32_t>* positions);
  const std::vector<uint32_t>* marks() const { return marks_; }
  // The events the event table's filter keeps (ascending; null: all): the
  // others are dimmed. The same lifetime rule as setMarks().
  void setKept(const std::vector<uint32_t>* positions);

  // ---- the axis: the stretch shown, in event positions (logical) or
  // nanoseconds since the first event (wall time).
  double viewBegin() const { return begin_; }
  double viewEnd() const { return end_; }
  double axisEnd() const;                            // the whole run: [0, axisEnd())
  void setView(double begin, double end);            // clamped to the run, and to a smallest span
  void zoomBy(double factor, double anchor_x = -1);  // > 1 zooms in, around an x (-1: the middle)
  void panBy(double pixels);                         // > 0 moves later in the run
  // The zoom stack: zoomTo() and showWholeRun() keep the window they
  // leave; zoomBack() returns to it (false: none kept).
  void zoomTo(double begin, double end);
  void showWholeRun();
  bool zoomBack();
  size_t zoomDepth() const { return zoom_stack_.size(); }
  void scrollLanes(int rows);                 // > 0 shows later lanes
  void dragTo(double begin, int first_lane);  // a pan by drag: the window's start and the first lane
  // The keys of the diagram (Qt::Key): W/S zoom around the current event,
  // A/D pan, 0 the whole run, Backspace the zoom before, arrows and pages
  // scroll lanes. False for another key.
  static bool isNavigationKey(int key);
  bool navigate(int key);  // a pan by drag: the window's start and the first lane
  int firstLane() const { return first_row_; }
  int lanesShown() const;  // rows that fit

  // ---- lanes
  struct Lane {
    uint32_t process;  // its first image
    uint8_t thread;    // Event::thread
    bool sub_lane;     // a thread of a process drawn on several lanes, not its first
    bool folded;       // all its process's threads on this one lane
  };
  const std::vector<Lane>& lanes() const { return rows_; }  // every lane, scrolled in or not
  QString laneLabel(size_t lane) const;
  // The lane's label, then shorter ones that keep the process's name: the
  // view shows the longest that fits.
  QStringList laneLabels(size_t lane) const;
  bool threaded(size_t lane) const;         // one of several lanes of a process, or its threads folded
  void setLaneFilter(const QString& text);  // lanes whose name has it (empty: all)
  const QString& laneFilter() const { return filter_; }
  void hideLane(size_t lane);  // the process of a lane (index into lanes())
  bool anyHidden() const { return !hidden_.empty() || !filter_.isEmpty(); }
  void moveLane(size_t lane, int by);  // its process, up (< 0) or down
  void setThreadsFolded(size_t lane, bool folded);
  void showAllLanes();

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
  // Its statistics in lines for people: the totals, then the five busiest channels.
  QStringList rangeSummary() const;

  // ---- what is laid out
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
    bool dimmed = false;  // an end left out by the event filter
  };
  // A thread in a call when the recording ended, blocked from its entry
  // on; a deadlock's part where it is one.
  struct BlockedBar {
    uint32_t process;  // the image
    uint8_t thread;
    uint16_t kind;  // log::Kind of the call
    bool deadlocked;
    QRectF rect;
  };
  // An MPI collective, one event across its ranks: a line through the
  // dots of its ranks' calls (shown ones, top to bottom), in place of the
  // waits between them.
  struct CollectiveBand {
    uint32_t instance;  // index into collectiveInstances()
    QString operation;  // "MPI_Allreduce"
    std::vector<QPointF> points;
  };
  // A deadlock's wait-for edge, where the cycle formed.
  struct Wait {
    uint32_t from, to;  // processes (images)
    QPointF a, b;
  };
  const std::vector<Dot>& dots() const { return dots_; }
  const std::vector<Bar>& bars() const { return bars_; }
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<Tick>& ticks() const { return ticks_; }
  const std::vector<ExecMark>& execMarks() const { return exec_marks_; }
  // Where an exec mark's words ("exec parser") are written: beside its
  // tick, above the dots of its lane (the largest, the current event's, 6
  // pixels across from the lane's line), descenders and all.
  static constexpr double kLargestDot = 6;
  static QRectF execLabelBox(const ExecMark& mark, double lane_y, const QFontMetricsF& metrics);
  const std::vector<Arrow>& arrows() const { return arrows_; }
  const std::vector<CollectiveBand>& collectiveBands() const { return bands_; }
  const std::vector<trace::CollectiveInstance>& collectiveInstances() const { return collectives_; }
  const std::vector<BlockedBar>& blockedBars() const { return blocked_bars_; }
  const std::vector<Wait>& waits() const { return waits_; }
  const std::vector<double>& markXs() const { return mark_xs_; }  // one per pixel at most
  // Messages sent per bin of the whole run, on the current axis.
  const std::vector<uint32_t>& overviewBins() const { return overview_[wall_time_ ? 1 : 0]; }

  // ---- geometry and hit tests
  QRectF plotRect() const;  // the lanes' area
  QRectF overviewRect() const;
  QRectF overviewWindow() const;  // the mark of the view in the overview strip
  double overviewKeyAt(double x) const;
  double xOf(double key) const;
  double keyAt(double x) const;
  double keyOf(uint32_t position) const;    // on the current axis
  double rowY(int row) const;               // centre of a lane
  int rowOfEvent(uint32_t position) const;  // -1: not laid out
  bool rowShown(int row) const { return row >= first_row_ && row < first_row_ + lanesShown(); }
  int laneAt(double y) const;                              // -1: none
  uint32_t eventAt(QPointF at, double radius = 12) const;  // the nearest dot not hidden, or kNone (24 px target)
  std::optional<size_t> barAt(QPointF at) const;           // a stretch's bar

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
  // Threads blocked at the end: from where (logical and wall keys).
  struct Block {
    uint32_t process;
    uint8_t thread;
    uint16_t kind;
    double logical, wall;
    bool deadlocked;
  };

  void findLanes();
  void makeTracks();
  void sortTracks(std::vector<uint32_t>& order);
  void ranksFirst();
  void foldLibraryThreads();
  void measureRun();
  void findBlocks();
  size_t wallLowerBound(const Track& track, double v, size_t from) const;
  void rebuildRows();
  void relayout();
  void layOutLane(int row);
  void layOutArrows();
  void layOutCollectives();
  void layOutBlocks();
  void layOutStretches();
  void layOutMarks();
  void layOutRuler();
  void makeWallKeys();
  // The events of a track whose key is in [lo, hi): index range.
  std::pair<size_t, size_t> within(const Track& track, double lo, double hi) const;
  int rowOfProcess(uint32_t process, uint8_t thread) const;  // -1: not shown
  void followCurrent();
  void computeRange(double begin, double end);
  std::pair<const uint32_t*, const uint32_t*> outgoing(uint32_t position);  // edge indices, by sender
  QString threadName(uint32_t root, uint8_t thread) const;
  void changed();

  const trace::Trace& t_;
  std::function<void()> changed_;
  QSizeF size_{900, 260};
  uint32_t current_ = trace::kNone;
  uint32_t selected_ = trace::kNone;
  bool wall_time_ = false;
  bool life_hidden_ = false;
  double begin_ = 0, end_ = 1;
  std::vector<std::pair<double, double>> zoom_stack_;  // windows left by zoomTo, in axis units
  bool zoom_stack_wall_ = false;                       // the axis those are on
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
  std::vector<Block> blocks_;
  const std::vector<uint32_t>* marks_ = nullptr;
  const std::vector<uint32_t>* kept_ = nullptr;
  std::vector<Stretch> stretches_;
  std::vector<uint32_t> path_, sorted_path_;
  std::optional<RangeStats> range_;
  // What relayout() placed.
  std::vector<Dot> dots_;
  std::vector<Bar> bars_;
  std::vector<Column> columns_;
  std::vector<Tick> ticks_;
  std::vector<ExecMark> exec_marks_;
  std::vector<Arrow> arrows_;
  std::vector<CollectiveBand> bands_;
  std::vector<trace::CollectiveInstance> collectives_;
  std::vector<std::pair<uint32_t, uint32_t>> collective_of_;  // (position, instance), by position
  std::vector<BlockedBar> blocked_bars_;
  std::vector<Wait> waits_;
  std::vector<double> mark_xs_;
};

// "1.5 ms", "12 KiB": times and sizes as the ruler and a range tell them.
QString formatNs(double ns);
QString formatBytes(uint64_t bytes);

}  // namespace radar::app
