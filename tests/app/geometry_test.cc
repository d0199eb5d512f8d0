#include "app/geometry.h"

#include <gtest/gtest.h>

#include <random>

namespace radar::gui {
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
}  // namespace radar::gui
