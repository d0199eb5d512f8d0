// What the network view shows at a point of the replay: process boxes with
// their port counts, the ports in use, messages queued or on their way,
// who is taking part in the current event. Built from the merge's display
// state (exact at every event, however it was reached) and an animation
// progress; plain code, drawn by NetworkView and checked by tests.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/geometry.h"
#include "trace/display.h"
#include "trace/trace.h"

namespace radar::netdesc {
class Binding;
}

namespace radar::app {

using trace::kNone;

struct ProcessBox {
  uint32_t process = kNone;
  Rect box;
  std::string name;
  int32_t pid = 0;
  uint32_t inputs = 0, outputs = 0;  // ports: channels open for reading / writing (however many descriptors)
  bool active = false;               // takes part in the event being shown
  bool blocked = false;              // a thread waits in a call (in a group: every member)
  bool ending = false;               // leaves during the event being shown
  std::string not_recorded;          // a program radar could not record: why ("not recorded: statically linked")
  // A group of sibling processes of one program drawn as one box: how many
  // are on screen and how many of them are blocked (1 and 0 or 1 alone).
  uint32_t members = 1, blocked_members = 0;
};

struct PortMark {
  uint32_t process = kNone;
  uint32_t endpoint = kNone;
  bool input = false;
  Point at;
  Point toward;       // away from the box, toward the channel's other end: where its queue lines up
  Point queue_at;     // where its queue starts: beside the line, so that the other way's queue passes
  uint32_t room = 0;  // messages its queue shows before the count: as many as fit before the other end
  double first = geometry::kMessageGap + geometry::kMessageSize / 2;  // from queue_at to its head's centre
  uint32_t hidden = 0;  // queued messages not drawn (the queue is longer than shown)
};

// Place `index` of a port's queue (0 the head).
inline Rect queueSlot(const PortMark& port, uint32_t index) {
  return queueSlotToward(port.queue_at, port.toward, index, port.first);
}

struct MessageBox {
  uint32_t send = kNone;  // the send event (position)
  Rect box;
  uint32_t to_process = kNone;
  enum class State : uint8_t { Queued, Travelling, Consumed } state = State::Queued;
};

// A channel between two processes on screen, from the writer to the
// reader (both ways: a socket both use), between their boxes' borders on
// the line between their centres.
struct ChannelLine {
  uint32_t channel = kNone;
  uint32_t from = kNone, to = kNone;  // processes
  Point a, b;
  // Bent around the boxes between (a quadratic curve through this control
  // point); the midpoint of a and b when straight.
  Point control;
  bool both_ways = false;
};

// The channels between two boxes, either way, drawn as one line with a
// count: a worker's pipes to its parent are one line, not four.
struct ChannelBundle {
  uint32_t from = kNone, to = kNone;  // processes (their boxes)
  Point a, b, control;                // as the first of its lines
  std::vector<uint32_t> channels;     // ascending
};

// A bundle's name where it is written (in scene units, as the view's font
// at zoom 1 measures it): beside its line, clear of every box, queue, count
// and other name. A bundle with no room has none; its name shows on hover.
struct ChannelLabel {
  size_t bundle = 0;
  Rect box;
  std::string text;
};

// A deadlock's wait-for edge: `from` waits for `to`.
struct WaitEdge {
  uint32_t from = kNone, to = kNone;
};

struct Scene {
  uint32_t position = 0;   // events applied
  uint32_t event = kNone;  // the event being shown (position - 1)
  double progress = 1;     // of its animation, 0 to 1
  std::vector<ProcessBox> processes;
  std::vector<PortMark> ports;
  std::vector<MessageBox> messages;
  // The wait-for cycles of deadlocks formed by now (each from the event by
  // which its last process had blocked).
  std::vector<WaitEdge> waits;
  std::vector<ChannelLine> channels;   // open between processes on screen
  std::vector<ChannelBundle> bundles;  // the same, one a pair of boxes
  std::vector<ChannelLabel> labels;
  bool named = false;  // the labels placed (SceneBuilder::placeLabels)
  // Where the story spans hosts: each host's boxes on screen, framed.
  struct HostFrame {
    std::string host;
    Rect box;  // around its process boxes
  };
  std::vector<HostFrame> hosts;
  Rect bounds;  // of everything that can be drawn

  const ProcessBox* box(uint32_t process) const;
  // The message drawn under a point, or kNone.
  // The message at `p`, or else the nearest within `slack` (scene units):
  // the views give a target of 24 pixels whatever the zoom.
  uint32_t messageAt(Point p, double slack = 2) const;
  uint32_t processAt(Point p) const;
  // The bundle whose name (when drawn) or line is at `p` (within `slack`
  // of the line), or kNoBundle.
  static constexpr size_t kNoBundle = ~size_t{0};
  size_t bundleAt(Point p, double slack, bool with_labels = true) const;
};

class SceneBuilder {
 public:
  // Queues longer than this are drawn shortened, with a count: as many
  // as fit in the gap between two boxes, the count beside them.
  static constexpr uint32_t kMaxQueueDrawn =
      static_cast<uint32_t>((geometry::kGapX - 32) / (geometry::kMessageSize + geometry::kMessageGap));

  // Channel lines are bent around the boxes between their ends on screens
  // of at most this many boxes.
  static constexpr size_t kMostBoxesForBends = 100;

  SceneBuilder(const trace::Trace& trace, const trace::DisplayModel& display);

  // The scene after `position` events, the last of them `progress` of the
  // way through its animation; its channels named unless `names` is false
  // (a view too small to show them names it when it is not).
  Scene build(uint32_t position, double progress, bool names = true) const;

  Rect boxOf(uint32_t process) const;
  // How wide a label's text is and how high, in scene units: the view's
  // font at zoom 1 (an estimate until it says).
  using TextWidth = std::function<double(const std::string&)>;
  void setLabelMetrics(TextWidth width, double height);
  // The text of a bundle's label: the channel's short name, and how many
  // more it has.
  std::string bundleText(const std::vector<uint32_t>& channels) const;
  // Names the scene's bundles where they cover nothing (build() does).
  void placeLabels(Scene& scene) const;
  // Boxes placed by a network description, at (column, row) cells of the
  // grid; the other processes are laid out below them. A box the user drags
  // goes where it is dragged all the same.
  void placeDescribed(const std::vector<std::pair<uint32_t, Point>>& cells);
  // The cells a description gives its processes: the images of one process
  // (before and after exec) share one, and several processes one
  // description matches cascade from it.
  void placeDescribed(const netdesc::Binding& net);
  // A box dragged by the user (top left corner).
  void moveBox(uint32_t process, Point top_left);
  std::vector<std::pair<uint32_t, Point>> movedBoxes() const;
  void resetLayout() { moved_.clear(); }

  // Groups: the processes one process created that run one program
  // (siblings), drawn as one box with a count, their messages and
  // channels its own. A process's siblings (itself included, by first image):
  std::vector<uint32_t> siblingsOf(uint32_t process) const;
  bool grouped(uint32_t process) const;
  void setGrouped(uint32_t process, bool grouped);
  // Groups every set of at least `at_least` siblings; how many new groups.
  uint32_t groupSiblings(uint32_t at_least);
  void ungroupAll();
  // Processes drawn apart, a process and the images it exec's into as one.
  size_t chainCount() const { return chains_.size(); }
  // The process whose box stands for `process` (itself, or its group's).
  uint32_t boxProcess(uint32_t process) const {
    return process < box_process_.size() ? box_process_[process] : process;
  }
  Rect bounds() const;
  const trace::Trace& trace() const { return t_; }

 private:
  class Assembly;  // one scene being put together (scene.cc)
  uint32_t receivingEnd(uint32_t process, uint32_t channel) const;
  bool reads(uint32_t endpoint) const;
  bool writes(uint32_t endpoint) const;

  void findChains();
  void findTalks();
  void place();

  const trace::Trace& t_;
  const trace::DisplayModel& display_;
  // A process and the images it exec's into: one chain, one place.
  struct Chain {
    uint32_t first_image = kNone, last_image = kNone;
    Lifetime life;
  };
  std::vector<Chain> chains_;
  std::vector<uint32_t> chain_;          // by process image
  std::vector<uint32_t> sibling_set_;    // by chain: same creator, same program
  std::vector<uint32_t> sibling_count_;  // by sibling set
  std::set<uint32_t> grouped_;           // sibling sets drawn as one box
  std::vector<uint32_t> box_process_;    // by process image
  std::vector<double> channel_weight_;   // by channel: how much it ties its holders
  std::vector<uint32_t> slot_;
  GridLayout grid_;
  std::unordered_map<uint32_t, Point> moved_;
  std::unordered_map<uint32_t, Point> described_;                  // top left corners
  double automatic_y_ = 0;                                         // where the automatic layout starts
  std::unordered_map<uint64_t, uint32_t> end_by_process_channel_;  // the end a process reads a channel by
  // Channels more than two boxes hold open (a pipe every worker of a pool
  // inherited) are drawn only between those that passed a message on
  // them: who sent to whom on each, from which event on.
  struct Talk {
    uint32_t from, to, first;
  };
  std::unordered_map<uint32_t, std::vector<Talk>> talks_;
  TextWidth text_width_;
  double text_height_ = 11;
};

}  // namespace radar::app
