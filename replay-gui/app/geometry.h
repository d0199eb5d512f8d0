// Where things are drawn in the network view: process boxes in slots,
// ports on their borders, messages queued in front of input ports or on
// their way. Plain code (no Qt), so that it is tested on its own.
#pragma once

#include <cstdint>
#include <vector>

namespace radar::app {

struct Point {
  double x = 0, y = 0;
  bool operator==(const Point&) const = default;
};

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  Point center() const { return {x + w / 2, y + h / 2}; }
  bool contains(Point p) const { return p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h; }
  bool operator==(const Rect&) const = default;
};

namespace geometry {
inline constexpr double kBoxWidth = 170, kBoxHeight = 70;
inline constexpr double kGapX = 130, kGapY = 100;  // room for queues and arrows, across and down
inline constexpr double kMessageSize = 12, kMessageGap = 3;
}  // namespace geometry

// A lifetime: the positions of a process's first and last events.
struct Lifetime {
  uint32_t first = 0, last = 0;
};

// Gives each process a slot that no process alive at the same time has:
// a new process is drawn into the first free place, and the place of one
// that ended is free again. Lifetimes are known for the whole recording, so
// the layout at any event is the same however the user got there.
std::vector<uint32_t> assignSlots(const std::vector<Lifetime>& lifetimes);

// The processes each process is connected to, with a weight (how many
// channels they share).
using Neighbours = std::vector<std::vector<std::pair<uint32_t, double>>>;

// Cells of a grid of `columns` columns for processes with these lifetimes:
// in order of their start, each takes, of the cells free during its life,
// the one nearest the processes placed before it that it is connected to
// (the sum of the weighted distances least), else the first free cell. No
// two processes alive at once share a cell; cells past those assignSlots()
// needs (in whole rows, and a row more) are taken only to be nearer. Like assignSlots(), it
// depends on the whole recording only, so every event shows the same place.
std::vector<uint32_t> assignCells(const std::vector<Lifetime>& lifetimes, const Neighbours& neighbours,
                                  uint32_t columns);
// The same, each group (`group_of`: by process, groups numbered from 0) in
// a band of whole rows of its own, bands in the groups' order: a host's
// processes drawn together.
std::vector<uint32_t> assignCellsByGroup(const std::vector<Lifetime>& lifetimes, const Neighbours& neighbours,
                                         const std::vector<uint32_t>& group_of, uint32_t columns);

// Slots on a grid, left to right and top to bottom, about as wide as high
// on screen for `slots` boxes (or in `columns` columns).
class GridLayout {
 public:
  explicit GridLayout(uint32_t slots);
  GridLayout(uint32_t slots, uint32_t columns);
  uint32_t columns() const { return columns_; }
  Rect slotRect(uint32_t slot) const;
  // The box at a cell given by column and row (fractions allowed), as a
  // network description places it.
  static Rect cellRect(double column, double row);
  // The whole grid.
  Rect bounds() const;

 private:
  uint32_t slots_, columns_;
};

// Port `index` of `count` on the box's left (input) or right (output)
// border, spread evenly.
Point portPosition(const Rect& box, bool input, uint32_t index, uint32_t count);
// Place `index` (0 is the head, received next) of a queue in front of a
// port, lined up from it along `toward` (a unit vector away from its box).
// `first`: how far from the port the head's centre stands.
Rect queueSlotToward(Point port, Point toward, uint32_t index,
                     double first = geometry::kMessageGap + geometry::kMessageSize / 2);
// How far along `toward` from `from` a message's centre must stand for the
// message to be clear of `box` (a queue leaving a border at a slant must
// start further out than one leaving it square).
double clearOf(const Rect& box, Point from, Point toward);
// The same for a port on a box's left border: leftwards.
Rect queueSlot(Point input_port, uint32_t index);
// Place `index` of the messages waiting at an output port for a receiver
// not on screen (none recorded, or not started yet): rightwards from it.
Rect waitingSlot(Point output_port, uint32_t index);
// The unit vector from a to b ({0, 0} when they are one point).
Point direction(Point a, Point b);
// Where the segment from a box's centre to `toward` leaves the box.
Point borderToward(const Rect& box, Point toward);
// Whether the segment from a to b passes through the inside of a box.
bool crosses(Point a, Point b, const Rect& box);
// Whether the curve from a to b by `control` is a straight line (the
// control is their midpoint).
bool isStraight(Point a, Point control, Point b);
// A point of the quadratic curve from a to b bent toward `control`.
Point onCurve(Point a, Point control, Point b, double t);
// A control point that bends the line from a to b around `boxes` (none of
// them crossed by the curve), as little as will do; the midpoint when the
// straight line crosses none, and when no bend tried clears them all.
Point bendAround(Point a, Point b, const std::vector<Rect>& boxes);
// How far `p` is from the segment from a to b.
double distanceToSegment(Point p, Point a, Point b);
// Ease in and out: a message starts and stops gently.
double ease(double t);
// A message on its way: at t = 0 leaving `from`, at t = 1 arrived at `to`.
Point along(Point from, Point to, double t);

}  // namespace radar::app
