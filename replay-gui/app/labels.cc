#include "app/labels.h"

#include <algorithm>
#include <cmath>

namespace radar::app {

bool meet(const Rect& a, const Rect& b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

Occupied::Cells Occupied::cellsOf(const Rect& r) const {
  return {static_cast<int32_t>(std::floor(r.x / bucket_)), static_cast<int32_t>(std::floor(r.y / bucket_)),
          static_cast<int32_t>(std::floor((r.x + r.w) / bucket_)),
          static_cast<int32_t>(std::floor((r.y + r.h) / bucket_))};
}

void Occupied::add(const Rect& r) {
  if (!(r.w > 0 && r.h > 0)) return;
  const auto index = static_cast<uint32_t>(rects_.size());
  rects_.push_back(r);
  if (!frozen_) return;
  const Cells c = cellsOf(r);
  for (int32_t y = c.y0; y <= c.y1; ++y)
    for (int32_t x = c.x0; x <= c.x1; ++x)
      late_[uint64_t{static_cast<uint32_t>(x)} << 32 | static_cast<uint32_t>(y)].push_back(index);
}

// Counted, then filled: one allocation for thousands of rectangles.
void Occupied::freeze() {
  frozen_ = true;
  if (rects_.empty()) return;
  Rect all = rects_[0];
  for (const Rect& r : rects_) {
    const double x1 = std::max(all.x + all.w, r.x + r.w), y1 = std::max(all.y + all.h, r.y + r.h);
    all = {std::min(all.x, r.x), std::min(all.y, r.y), 0, 0};
    all.w = x1 - all.x;
    all.h = y1 - all.y;
  }
  // Boxes dragged far apart make a wide grid: its buckets grow with it
  // (at most about a million, and 4 096 a side).
  constexpr double kMostCells = 1 << 20, kMostASide = 4096;
  bucket_ = std::max({bucket_, std::sqrt(all.w * all.h / kMostCells), std::max(all.w, all.h) / kMostASide});
  // Each rectangle's own buckets: rounding cannot put one outside.
  grid_ = cellsOf(rects_[0]);
  for (const Rect& r : rects_) {
    const Cells c = cellsOf(r);
    grid_ = {std::min(grid_.x0, c.x0), std::min(grid_.y0, c.y0), std::max(grid_.x1, c.x1), std::max(grid_.y1, c.y1)};
  }
  const size_t columns = size_t(grid_.x1 - grid_.x0 + 1), cells = columns * size_t(grid_.y1 - grid_.y0 + 1);
  cell_begin_.assign(cells + 1, 0);
  auto each = [&](auto visit) {
    for (uint32_t k = 0; k < rects_.size(); ++k) {
      const Cells c = cellsOf(rects_[k]);
      for (int32_t y = c.y0; y <= c.y1; ++y)
        for (int32_t x = c.x0; x <= c.x1; ++x) visit(size_t(y - grid_.y0) * columns + size_t(x - grid_.x0), k);
    }
  };
  each([&](size_t cell, uint32_t) { ++cell_begin_[cell + 1]; });
  for (size_t k = 0; k < cells; ++k) cell_begin_[k + 1] += cell_begin_[k];
  in_cell_.resize(cell_begin_[cells]);
  std::vector<uint32_t> fill(cell_begin_.begin(), cell_begin_.end() - 1);
  each([&](size_t cell, uint32_t k) { in_cell_[fill[cell]++] = k; });
}

bool Occupied::overlaps(const Rect& r) {
  if (!frozen_) freeze();
  const Cells c = cellsOf(r);
  const size_t columns = size_t(grid_.x1 - grid_.x0 + 1);
  for (int32_t y = std::max(c.y0, grid_.y0); y <= std::min(c.y1, grid_.y1); ++y)
    for (int32_t x = std::max(c.x0, grid_.x0); x <= std::min(c.x1, grid_.x1); ++x) {
      const size_t cell = size_t(y - grid_.y0) * columns + size_t(x - grid_.x0);
      for (uint32_t k = cell_begin_[cell]; k < cell_begin_[cell + 1]; ++k)
        if (meet(rects_[in_cell_[k]], r)) return true;
    }
  if (late_.empty()) return false;
  for (int32_t y = c.y0; y <= c.y1; ++y)
    for (int32_t x = c.x0; x <= c.x1; ++x) {
      const auto it = late_.find(uint64_t{static_cast<uint32_t>(x)} << 32 | static_cast<uint32_t>(y));
      if (it == late_.end()) continue;
      for (uint32_t k : it->second)
        if (meet(rects_[k], r)) return true;
    }
  return false;
}

Rect besideCurve(Point a, Point control, Point b, double t, double w, double h, double gap, bool left) {
  const Point at = onCurve(a, control, b, t);
  // The curve's direction there: the derivative of the quadratic.
  const Point tangent = direction({0, 0}, {2 * (1 - t) * (control.x - a.x) + 2 * t * (b.x - control.x),
                                           2 * (1 - t) * (control.y - a.y) + 2 * t * (b.y - control.y)});
  Point normal{tangent.y, -tangent.x};  // left of the way from a to b, y growing downwards
  if (!left) normal = {-normal.x, -normal.y};
  if (normal.x == 0 && normal.y == 0) normal = {0, left ? -1.0 : 1.0};
  // Out along the normal until the rectangle's nearest corner is `gap` away.
  const double reach = gap + std::abs(normal.x) * w / 2 + std::abs(normal.y) * h / 2;
  const Point centre{at.x + normal.x * reach, at.y + normal.y * reach};
  return {centre.x - w / 2, centre.y - h / 2, w, h};
}

std::optional<Rect> placeBesideCurve(Occupied& occupied, Point a, Point control, Point b, double w, double h) {
  // Just clear of the line, then further out: past the queues that keep to
  // either side of it (several where its channels' ports stand side by side).
  constexpr double kAlong[] = {0.5, 0.38, 0.62, 0.26, 0.74, 0.15, 0.85};
  constexpr double kFirstGap = 3, kStep = 7, kFarthest = 80;
  for (double gap = kFirstGap; gap <= kFarthest; gap += kStep)
    for (double t : kAlong)
      for (bool left : {true, false}) {
        const Rect r = besideCurve(a, control, b, t, w, h, gap, left);
        if (occupied.overlaps(r)) continue;
        occupied.add(r);
        return r;
      }
  return std::nullopt;
}

namespace {
// What follows the last ':' of an address ("127.0.0.1:80", "[::1]:80").
std::string portOf(const std::string& address) {
  const size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(colon);
}

std::string afterLastSlash(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos || slash + 1 == path.size() ? path : path.substr(slash + 1);
}
}  // namespace

std::string shortChannelName(const std::string& name) {
  if (name.rfind("tcp ", 0) == 0) {
    const std::string ends = name.substr(4);
    const size_t dash = ends.find(" - ");
    if (dash == std::string::npos) return "tcp " + portOf(ends);
    return portOf(ends.substr(0, dash)) + " \u2192 " + portOf(ends.substr(dash + 3));
  }
  if (name.rfind("udp ", 0) == 0) return "udp " + portOf(name.substr(4));
  for (const char* kind : {"unix socket ", "fifo "}) {
    const std::string prefix = kind;
    if (name.rfind(prefix, 0) != 0) continue;
    std::string rest = name.substr(prefix.size());
    const size_t arrow = rest.find(" \u2190 ");  // "unix socket /run/s ← client[12]": the path alone
    if (arrow != std::string::npos) rest.resize(arrow);
    return prefix + afterLastSlash(rest);
  }
  return name;
}

}  // namespace radar::app
