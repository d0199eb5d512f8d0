// Where the network view writes channel names: beside their lines, clear of
// the boxes, queues, counts and names already placed, or not at all (the
// name is then shown on hover). Plain code (no Qt), tested on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/geometry.h"

namespace radar::app {

// Rectangles taken on the scene, kept in square buckets so that a label is
// tested against the few near it, not against every box of a thousand.
// What is added before the first question (boxes, queues: thousands) goes
// into one flat grid; what is added after (the names placed) into a map.
class Occupied {
 public:
  explicit Occupied(double bucket = 96) : bucket_(bucket) {}
  void add(const Rect& r);
  bool overlaps(const Rect& r);  // the insides meet (touching edges do not)

 private:
  struct Cells {
    int32_t x0 = 0, y0 = 0, x1 = -1, y1 = -1;  // bucket numbers, inclusive
  };
  Cells cellsOf(const Rect& r) const;
  void freeze();
  double bucket_;
  std::vector<Rect> rects_;
  bool frozen_ = false;
  Cells grid_;                                  // what the flat grid covers
  std::vector<uint32_t> cell_begin_, in_cell_;  // by cell (row-major): rects_ indices
  std::unordered_map<uint64_t, std::vector<uint32_t>> late_;
};

// Whether the insides of two rectangles meet.
bool meet(const Rect& a, const Rect& b);

// A rectangle of `w` × `h` beside the curve from a to b by `control`, at
// `t` of the way along it, on its left (in the direction a to b) or right,
// with its nearest corner or edge `gap` from the line.
Rect besideCurve(Point a, Point control, Point b, double t, double w, double h, double gap, bool left);

// The first place beside the curve that nothing occupies: near the middle
// first, close to the line before further out, either side. Taken in
// `occupied` when found.
std::optional<Rect> placeBesideCurve(Occupied& occupied, Point a, Point control, Point b, double w, double h);

// A channel's name shortened for a label: a TCP connection by its ports
// (":40924 → :80"), a socket or FIFO by its file's name; others as they are.
std::string shortChannelName(const std::string& name);

}  // namespace radar::app
