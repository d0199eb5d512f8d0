#include "app/geometry.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>

namespace radar::app {

std::vector<uint32_t> assignSlots(const std::vector<Lifetime>& lifetimes) {
  std::vector<uint32_t> order(lifetimes.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return lifetimes[a].first < lifetimes[b].first; });
  std::vector<uint32_t> slot(lifetimes.size(), 0);
  // Slots in use, by the last event of their holder; free slots, lowest first.
  using Busy = std::pair<uint32_t, uint32_t>;  // (last event, slot)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> free_slots;
  uint32_t used = 0;
  for (uint32_t p : order) {
    // A slot is free once its holder's last event is before this start.
    while (!busy.empty() && busy.top().first < lifetimes[p].first) {
      free_slots.push(busy.top().second);
      busy.pop();
    }
    uint32_t s;
    if (!free_slots.empty()) {
      s = free_slots.top();
      free_slots.pop();
    } else {
      s = used++;
    }
    slot[p] = s;
    busy.push({lifetimes[p].last, s});
  }
  return slot;
}

std::vector<uint32_t> assignCells(const std::vector<Lifetime>& lifetimes, const Neighbours& neighbours,
                                  uint32_t columns) {
  using namespace geometry;
  const size_t n = lifetimes.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return lifetimes[a].first < lifetimes[b].first; });
  columns = std::max(columns, 1u);
  // As many cells as first fit needs (in start order a free one is always
  // among them), in whole rows, and one row more: room beside a process
  // for one that comes later to talk to it.
  uint32_t needed = 0;
  for (uint32_t s : assignSlots(lifetimes)) needed = std::max(needed, s + 1);
  const uint32_t cells = ((needed + columns - 1) / columns + 1) * columns;
  std::vector<uint32_t> busy_until(cells, 0);  // the last event of the cell's holder
  std::vector<bool> used(cells, false);
  std::vector<uint32_t> cell(n, ~0u);
  const double w = kBoxWidth + kGapX, h = kBoxHeight + kGapY;
  auto distance = [&](uint32_t a, uint32_t b) {
    // Rows count nearly double: the view is wide, and side by side reads best.
    return std::hypot((double(a % columns) - double(b % columns)) * w,
                      (double(a / columns) - double(b / columns)) * 1.8 * h);
  };
  for (uint32_t p : order) {
    const Lifetime life = lifetimes[p];
    uint32_t best = ~0u;
    double best_cost = 0;
    bool connected = false;
    if (p < neighbours.size())
      for (const auto& [q, weight] : neighbours[p]) connected |= q < n && cell[q] != ~0u && weight > 0;
    for (uint32_t c = 0; c < cells; ++c) {
      if (used[c] && busy_until[c] >= life.first) continue;
      if (!connected) {  // the first free cell, as first fit
        best = c;
        break;
      }
      double cost = 0;
      for (const auto& [q, weight] : neighbours[p])
        if (q < n && cell[q] != ~0u) cost += weight * distance(c, cell[q]);
      if (best == ~0u || cost < best_cost) best = c, best_cost = cost;
    }
    if (best == ~0u) {  // cannot happen (see above); a new row all the same rather than an overlap
      best = static_cast<uint32_t>(busy_until.size());
      busy_until.resize(busy_until.size() + columns, 0);
      used.resize(used.size() + columns, false);
    }
    cell[p] = best;
    used[best] = true;
    busy_until[best] = life.last;
  }
  return cell;
}

GridLayout::GridLayout(uint32_t slots, uint32_t columns)
    : slots_(std::max(slots, 1u)), columns_(std::clamp(columns, 1u, slots_)) {}

GridLayout::GridLayout(uint32_t slots) : slots_(std::max(slots, 1u)) {
  using namespace geometry;
  // Columns so that the grid's width is about 2.2 times its height: the
  // view is wide, with the diagram and the tables below it.
  const double cell_w = kBoxWidth + kGapX, cell_h = kBoxHeight + kGapY;
  columns_ = std::max(1u, static_cast<uint32_t>(std::lround(std::sqrt(slots_ * 2.2 * cell_h / cell_w))));
  columns_ = std::min(columns_, slots_);
}

Rect GridLayout::slotRect(uint32_t slot) const { return cellRect(slot % columns_, slot / columns_); }

Rect GridLayout::cellRect(double column, double row) {
  using namespace geometry;
  return {kGapX / 2 + column * (kBoxWidth + kGapX), kGapY / 2 + row * (kBoxHeight + kGapY), kBoxWidth, kBoxHeight};
}

Rect GridLayout::bounds() const {
  using namespace geometry;
  const uint32_t rows = (slots_ + columns_ - 1) / columns_;
  return {0, 0, columns_ * (kBoxWidth + kGapX), rows * (kBoxHeight + kGapY)};
}

Point portPosition(const Rect& box, bool input, uint32_t index, uint32_t count) {
  count = std::max(count, 1u);
  index = std::min(index, count - 1);
  const double y = box.y + box.h * (index + 1) / (count + 1);
  return {input ? box.x : box.x + box.w, y};
}

Rect queueSlotToward(Point port, Point toward, uint32_t index, double first) {
  using namespace geometry;
  const double along = first + index * (kMessageSize + kMessageGap);
  return {port.x + toward.x * along - kMessageSize / 2, port.y + toward.y * along - kMessageSize / 2, kMessageSize,
          kMessageSize};
}

double clearOf(const Rect& box, Point from, Point toward) {
  using namespace geometry;
  const double half = kMessageSize / 2;
  double along = kMessageGap + half;
  for (; along < 4 * (kMessageSize + kMessageGap); along += 1) {
    const Point c{from.x + toward.x * along, from.y + toward.y * along};
    const bool overlaps =
        c.x - half < box.x + box.w && box.x < c.x + half && c.y - half < box.y + box.h && box.y < c.y + half;
    if (!overlaps) break;
  }
  return along + (along > kMessageGap + half ? kMessageGap : 0);  // the gap from a slanted border too
}

Rect queueSlot(Point input_port, uint32_t index) { return queueSlotToward(input_port, {-1, 0}, index); }

Rect waitingSlot(Point output_port, uint32_t index) { return queueSlotToward(output_port, {1, 0}, index); }

Point direction(Point a, Point b) {
  const double dx = b.x - a.x, dy = b.y - a.y, length = std::hypot(dx, dy);
  return length == 0 ? Point{} : Point{dx / length, dy / length};
}

Point borderToward(const Rect& box, Point toward) {
  const Point c = box.center();
  const double dx = toward.x - c.x, dy = toward.y - c.y;
  if (dx == 0 && dy == 0) return c;
  // The smaller of the factors that reach a vertical or a horizontal side.
  const double fx = dx == 0 ? 1e300 : (box.w / 2) / std::abs(dx);
  const double fy = dy == 0 ? 1e300 : (box.h / 2) / std::abs(dy);
  const double f = std::min(fx, fy);
  return {c.x + dx * f, c.y + dy * f};
}

bool crosses(Point a, Point b, const Rect& box) {
  // Liang–Barsky: clip the segment to the box, strictly inside.
  double t0 = 0, t1 = 1;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {a.x - box.x, box.x + box.w - a.x, a.y - box.y, box.y + box.h - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] <= 0) return false;  // parallel and outside (or on the border)
      continue;
    }
    const double r = q[i] / p[i];
    if (p[i] < 0)
      t0 = std::max(t0, r);
    else
      t1 = std::min(t1, r);
    if (t0 >= t1) return false;
  }
  return t1 - t0 > 1e-9;
}

bool isStraight(Point a, Point control, Point b) {
  return std::abs(control.x - (a.x + b.x) / 2) + std::abs(control.y - (a.y + b.y) / 2) < 1e-9;
}

Point onCurve(Point a, Point control, Point b, double t) {
  const double u = 1 - t;
  return {u * u * a.x + 2 * u * t * control.x + t * t * b.x, u * u * a.y + 2 * u * t * control.y + t * t * b.y};
}

Point bendAround(Point a, Point b, const std::vector<Rect>& boxes) {
  const Point mid{(a.x + b.x) / 2, (a.y + b.y) / 2};
  bool crossed = false;
  for (const Rect& r : boxes) crossed = crossed || crosses(a, b, r);
  if (!crossed) return mid;  // straight: the common case, one test a box
  const double dx = b.x - a.x, dy = b.y - a.y, length = std::hypot(dx, dy);
  if (length == 0) return mid;
  const Point normal{-dy / length, dx / length};
  auto clear = [&](Point control) {
    // The curve lies within the triangle of its three points: only the
    // boxes that meet that triangle's bounds can be in its way.
    const double x0 = std::min({a.x, b.x, control.x}), x1 = std::max({a.x, b.x, control.x});
    const double y0 = std::min({a.y, b.y, control.y}), y1 = std::max({a.y, b.y, control.y});
    std::vector<const Rect*> near;
    for (const Rect& r : boxes)
      if (r.x < x1 && x0 < r.x + r.w && r.y < y1 && y0 < r.y + r.h) near.push_back(&r);
    constexpr int kPieces = 16;
    Point from = a;
    for (int k = 1; k <= kPieces; ++k) {
      const Point to = onCurve(a, control, b, double(k) / kPieces);
      for (const Rect* r : near)
        if (crosses(from, to, *r)) return false;
      from = to;
    }
    return true;
  };
  for (double bend : {0.3, 0.6, 0.9, 1.3, 1.8})
    for (double side : {1.0, -1.0}) {
      const Point control{mid.x + normal.x * bend * length * side, mid.y + normal.y * bend * length * side};
      if (clear(control)) return control;
    }
  return mid;
}

double ease(double t) {
  t = std::clamp(t, 0.0, 1.0);
  return t * t * (3 - 2 * t);
}

Point along(Point from, Point to, double t) {
  const double e = ease(t);
  return {from.x + (to.x - from.x) * e, from.y + (to.y - from.y) * e};
}

std::vector<uint32_t> assignCellsByGroup(const std::vector<Lifetime>& lifetimes, const Neighbours& neighbours,
                                         const std::vector<uint32_t>& group_of, uint32_t columns) {
  uint32_t groups = 0;
  for (uint32_t g : group_of) groups = std::max(groups, g + 1);
  if (groups < 2) return assignCells(lifetimes, neighbours, columns);
  std::vector<uint32_t> out(lifetimes.size(), 0), local(lifetimes.size());
  uint32_t first_row = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    std::vector<uint32_t> members;
    for (uint32_t p = 0; p < lifetimes.size(); ++p)
      if (group_of[p] == g) {
        local[p] = static_cast<uint32_t>(members.size());
        members.push_back(p);
      }
    if (members.empty()) continue;
    // The group alone: its lifetimes, its ties within it.
    std::vector<Lifetime> life;
    Neighbours near(members.size());
    for (uint32_t p : members) {
      life.push_back(lifetimes[p]);
      for (const auto& [q, weight] : neighbours[p])
        if (group_of[q] == g) near[local[p]].push_back({local[q], weight});
    }
    const std::vector<uint32_t> cells = assignCells(life, near, columns);
    uint32_t rows = 0;
    for (size_t k = 0; k < members.size(); ++k) {
      out[members[k]] = cells[k] + first_row * columns;
      rows = std::max(rows, cells[k] / columns + 1);
    }
    first_row += rows;
  }
  return out;
}

double distanceToSegment(Point p, Point a, Point b) {
  const double dx = b.x - a.x, dy = b.y - a.y, length2 = dx * dx + dy * dy;
  const double t = length2 > 0 ? std::clamp(((p.x - a.x) * dx + (p.y - a.y) * dy) / length2, 0.0, 1.0) : 0;
  return std::hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

}  // namespace radar::app
