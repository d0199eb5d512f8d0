#include "app/geometry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace radar::app {
namespace {

TEST(Geometry, SlotsAreReusedOnlyOnceFree) {
  // 0 lives throughout; 1 ends before 2 starts, so 2 takes 1's place; 3
  // overlaps 2 and needs a new one.
  const std::vector<Lifetime> life{{0, 100}, {1, 10}, {11, 50}, {12, 60}};
  const auto slots = assignSlots(life);
  EXPECT_EQ(slots[0], 0u);
  EXPECT_EQ(slots[1], 1u);
  EXPECT_EQ(slots[2], 1u);
  EXPECT_EQ(slots[3], 2u);
}

TEST(Geometry, ProcessesAliveTogetherNeverShareASlot) {
  std::mt19937 rng(5);
  std::vector<Lifetime> life;
  for (int i = 0; i < 300; ++i) {
    const uint32_t a = rng() % 10000, b = a + rng() % 500;
    life.push_back({a, b});
  }
  const auto slots = assignSlots(life);
  uint32_t most = 0;
  for (size_t i = 0; i < life.size(); ++i)
    for (size_t j = i + 1; j < life.size(); ++j) {
      const bool overlap = life[i].first <= life[j].last && life[j].first <= life[i].last;
      if (overlap) {
        EXPECT_NE(slots[i], slots[j]) << i << " and " << j;
      }
    }
  // As few slots as processes alive at once at the busiest moment.
  for (uint32_t t = 0; t < 10500; t += 7) {
    uint32_t alive = 0;
    for (const auto& l : life) alive += l.first <= t && t <= l.last;
    most = std::max(most, alive);
  }
  uint32_t used = 0;
  for (uint32_t s : slots) used = std::max(used, s + 1);
  EXPECT_LE(used, most + 1);
}

// Connected processes are placed near each other: a pipeline of six stages
// started between six idle processes has each stage beside the one it
// talks to, where first fit would scatter them.
TEST(Geometry, ConnectedProcessesAreNeighbours) {
  std::vector<Lifetime> life;
  Neighbours talk(12);
  for (uint32_t i = 0; i < 12; ++i) life.push_back({i, 1000});  // stages even, idle ones odd
  for (uint32_t stage = 0; stage + 2 < 12; stage += 2) {
    talk[stage].push_back({stage + 2, 1});
    talk[stage + 2].push_back({stage, 1});
  }
  const uint32_t columns = GridLayout(12).columns();
  ASSERT_EQ(columns, 4u);
  auto adjacent = [&](uint32_t a, uint32_t b) {
    const int dc = int(a % columns) - int(b % columns), dr = int(a / columns) - int(b / columns);
    return std::abs(dc) <= 1 && std::abs(dr) <= 1;
  };
  const auto cells = assignCells(life, talk, columns);
  const auto first_fit = assignSlots(life);
  int near = 0, near_first_fit = 0;
  for (uint32_t stage = 0; stage + 2 < 12; stage += 2) {
    EXPECT_TRUE(adjacent(cells[stage], cells[stage + 2])) << "stage " << stage / 2;
    near += adjacent(cells[stage], cells[stage + 2]);
    near_first_fit += adjacent(first_fit[stage], first_fit[stage + 2]);
  }
  EXPECT_EQ(near, 5);
  EXPECT_LT(near_first_fit, 3) << "the test means something: first fit scatters them";
  // Without connections: first fit exactly.
  EXPECT_EQ(assignCells(life, Neighbours(12), columns), first_fit);
}

// However they are connected, processes alive at once never share a cell,
// and at most one row more is used than first fit needs.
TEST(Geometry, ConnectedCellsNeverOverlapInTime) {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    std::vector<Lifetime> life;
    const uint32_t n = 20 + static_cast<uint32_t>(rng() % 200);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t a = static_cast<uint32_t>(rng() % 5000);
      life.push_back({a, a + static_cast<uint32_t>(rng() % 800)});
    }
    Neighbours talk(n);
    for (uint32_t k = 0; k < n * 2; ++k) {
      const uint32_t a = static_cast<uint32_t>(rng() % n), b = static_cast<uint32_t>(rng() % n);
      if (a == b) continue;
      talk[a].push_back({b, 1.0 + static_cast<double>(rng() % 3)});
      talk[b].push_back({a, talk[a].back().second});
    }
    uint32_t needed = 0;
    for (uint32_t s : assignSlots(life)) needed = std::max(needed, s + 1);
    const uint32_t columns = GridLayout(needed).columns();
    const auto cells = assignCells(life, talk, columns);
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_LT(cells[i], ((needed + columns - 1) / columns + 1) * columns);
      for (uint32_t j = i + 1; j < n; ++j)
        if (life[i].first <= life[j].last && life[j].first <= life[i].last) {
          ASSERT_NE(cells[i], cells[j]) << "round " << round << ": " << i << " and " << j;
        }
    }
  }
}

// Processes of three hosts, interleaved in time and talking across hosts:
// each host's cells are whole rows of their own, in the hosts' order, and
// no two processes alive at once share a cell.
TEST(Geometry, EachGroupTakesRowsOfItsOwn) {
  std::mt19937 rng(5);
  std::vector<Lifetime> life;
  std::vector<uint32_t> host;
  const uint32_t n = 60;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t a = static_cast<uint32_t>(rng() % 1000);
    life.push_back({a, a + static_cast<uint32_t>(rng() % 300)});
    host.push_back(i % 3);
  }
  Neighbours talk(n);
  for (uint32_t i = 0; i + 1 < n; ++i) {
    talk[i].push_back({i + 1, 1.0});
    talk[i + 1].push_back({i, 1.0});
  }
  const uint32_t columns = 4;
  const auto cells = assignCellsByGroup(life, talk, host, columns);
  std::vector<uint32_t> first_row(3, ~0u), last_row(3, 0);
  for (uint32_t i = 0; i < n; ++i) {
    first_row[host[i]] = std::min(first_row[host[i]], cells[i] / columns);
    last_row[host[i]] = std::max(last_row[host[i]], cells[i] / columns);
    for (uint32_t j = i + 1; j < n; ++j)
      if (life[i].first <= life[j].last && life[j].first <= life[i].last) {
        ASSERT_NE(cells[i], cells[j]) << i << " and " << j;
      }
  }
  EXPECT_EQ(first_row[0], 0u);
  EXPECT_EQ(first_row[1], last_row[0] + 1);
  EXPECT_EQ(first_row[2], last_row[1] + 1);
  // One group: the layout without groups.
  EXPECT_EQ(assignCellsByGroup(life, talk, std::vector<uint32_t>(n, 0), columns), assignCells(life, talk, columns));
}

TEST(Geometry, ASegmentCrossesABoxOnlyThroughItsInside) {
  const Rect box{10, 10, 20, 10};
  EXPECT_TRUE(crosses({0, 15}, {40, 15}, box));
  EXPECT_TRUE(crosses({15, 0}, {25, 30}, box));
  EXPECT_TRUE(crosses({12, 12}, {13, 13}, box)) << "wholly inside";
  EXPECT_FALSE(crosses({0, 0}, {40, 0}, box)) << "above";
  EXPECT_FALSE(crosses({0, 10}, {40, 10}, box)) << "along its border";
  EXPECT_FALSE(crosses({0, 0}, {9, 15}, box)) << "stops short";
  EXPECT_FALSE(crosses({0, 30}, {40, 21}, box)) << "passes below";
  const Point c = onCurve({0, 0}, {50, 100}, {100, 0}, 0.5);
  EXPECT_DOUBLE_EQ(c.x, 50);
  EXPECT_DOUBLE_EQ(c.y, 50);
}

TEST(Geometry, GridIsWideAndSlotsDoNotOverlap) {
  GridLayout grid(12);
  const Rect b = grid.bounds();
  EXPECT_GT(b.w, b.h);
  for (uint32_t i = 0; i < 12; ++i)
    for (uint32_t j = i + 1; j < 12; ++j) {
      const Rect r = grid.slotRect(i), s = grid.slotRect(j);
      const bool overlap = r.x < s.x + s.w && s.x < r.x + r.w && r.y < s.y + s.h && s.y < r.y + r.h;
      EXPECT_FALSE(overlap) << i << " " << j;
      EXPECT_TRUE(b.contains(r.center()));
    }
}

TEST(Geometry, PortsSpreadAlongTheirBorder) {
  const Rect box{100, 200, 170, 70};
  const Point in0 = portPosition(box, true, 0, 2), in1 = portPosition(box, true, 1, 2);
  EXPECT_EQ(in0.x, 100);
  EXPECT_EQ(in1.x, 100);
  EXPECT_LT(in0.y, in1.y);
  EXPECT_GT(in0.y, 200);
  EXPECT_LT(in1.y, 270);
  EXPECT_EQ(portPosition(box, false, 0, 1), (Point{270, 235}));
}

TEST(Geometry, QueueLinesUpLeftwardsFromThePort) {
  const Point port{500, 300};
  const Rect head = queueSlot(port, 0), next = queueSlot(port, 1);
  EXPECT_LE(head.x + head.w, port.x);
  EXPECT_LT(next.x + next.w, head.x + 0.001);
  EXPECT_DOUBLE_EQ(head.center().y, port.y);
}

TEST(Geometry, MessagesTravelSmoothlyFromSenderToReceiver) {
  const Point a{0, 0}, b{100, 50};
  EXPECT_EQ(along(a, b, 0), a);
  EXPECT_EQ(along(a, b, 1), b);
  EXPECT_EQ(along(a, b, 0.5), (Point{50, 25}));
  double last = -1;
  for (int k = 0; k <= 20; ++k) {
    const double x = along(a, b, k / 20.0).x;
    EXPECT_GE(x, last);
    last = x;
  }
  // Gentle start and stop: less than linear near the ends.
  EXPECT_LT(along(a, b, 0.1).x, 10);
  EXPECT_GT(along(a, b, 0.9).x, 90);
  EXPECT_EQ(along(a, b, -1), a);
  EXPECT_EQ(along(a, b, 2), b);
}

TEST(Geometry, ALineLeavesABoxOnItsBorderTowardAPoint) {
  const Rect box{100, 50, 170, 70};                                  // centre (185, 85)
  EXPECT_EQ(borderToward(box, {400, 85}), (Point{270, 85}));         // right
  EXPECT_EQ(borderToward(box, {185, -100}), (Point{185, 50}));       // top
  const Point corner_ish = borderToward(box, {185 + 170, 85 + 70});  // along the diagonal: the corner
  EXPECT_NEAR(corner_ish.x, 270, 1e-9);
  EXPECT_NEAR(corner_ish.y, 120, 1e-9);
  const Point steep = borderToward(box, {195, 300});  // leaves by the bottom
  EXPECT_NEAR(steep.y, 120, 1e-9);
  EXPECT_GT(steep.x, 185);
  EXPECT_EQ(borderToward(box, box.center()), box.center());
}

}  // namespace
}  // namespace radar::app
