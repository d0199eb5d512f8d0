// The space-time diagram as a timeline: zoom from the whole run to single
// events and back, pan, the ruler, the overview, busy lanes as columns,
// lanes across exec, lane scrolling, folding, moving, hiding and
// filtering, a range's statistics. Headless (QT_QPA_PLATFORM=offscreen).
#include <gtest/gtest.h>

#include <QApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QTest>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "app/spacetime_view.h"
#include "fake_recording.h"
#include "log/kinds.h"

namespace radar::app {
namespace {

using radar::testing::FakeProcess;
using radar::testing::FakeRecording;
using trace::kNone;

uint32_t processOf(const trace::Trace& t, int32_t pid) {
  for (const auto& p : t.processes)
    if (p.pid == pid) return p.index;
  return kNone;
}

// `count` processes in a ring of pipes, each passing `rounds` tokens on.
std::unique_ptr<trace::Trace> ring(int count, int rounds) {
  FakeRecording rec;
  std::vector<FakeProcess*> ps;
  for (int k = 0; k < count; ++k) {
    FakeProcess& p = rec.process("p" + std::to_string(k), 100 + k);
    p.pipeEnd(1, 1000 + static_cast<uint64_t>(k), true)
        .pipeEnd(2, 1000 + static_cast<uint64_t>((k + count - 1) % count), false);
    ps.push_back(&p);
  }
  int64_t now = 10;
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < count; ++k) {
      ps[static_cast<size_t>(k)]->send(1, "t", now, now + 2);
      ps[static_cast<size_t>((k + 1) % count)]->receive(2, "t", now + 1, now + 5);
      now += 10;
    }
  for (int k = 0; k < count; ++k) ps[static_cast<size_t>(k)]->exit(0, now + k);
  return rec.load();
}

void show(SpaceTimeView& view, int w = 900, int h = 300) {
  view.setAttribute(Qt::WA_DontShowOnScreen);
  view.resize(w, h);
  view.show();
  QApplication::processEvents();
}

void wheel(SpaceTimeView& view, QPointF at, int dy, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QWheelEvent e(at, view.mapToGlobal(at), QPoint(), QPoint(0, dy), Qt::NoButton, mods, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &e);
}

void key(SpaceTimeView& view, Qt::Key k) {
  // As a focused widget gets it: a shortcut override first, then the key.
  QKeyEvent override(QEvent::ShortcutOverride, k, Qt::NoModifier);
  QApplication::sendEvent(&view, &override);
  EXPECT_TRUE(override.isAccepted()) << "the window's shortcut would take key " << k;
  QTest::keyClick(&view, k);
}

void drag(SpaceTimeView& view, QPointF from, QPointF to, Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QMouseEvent press(QEvent::MouseButtonPress, from, view.mapToGlobal(from), Qt::LeftButton, Qt::LeftButton, mods);
  QApplication::sendEvent(&view, &press);
  for (int k = 1; k <= 4; ++k) {
    const QPointF at = from + (to - from) * k / 4.0;
    QMouseEvent move(QEvent::MouseMove, at, view.mapToGlobal(at), Qt::NoButton, Qt::LeftButton, mods);
    QApplication::sendEvent(&view, &move);
  }
  QMouseEvent release(QEvent::MouseButtonRelease, to, view.mapToGlobal(to), Qt::LeftButton, Qt::NoButton, mods);
  QApplication::sendEvent(&view, &release);
}

double plotLeft(const SpaceTimeView& view) { return view.xOf(view.viewBegin()); }
double plotRight(const SpaceTimeView& view) { return view.xOf(view.viewEnd()); }

// Events of each lane in the window: its dots, or its columns' counts.
std::map<size_t, uint64_t> shownPerLane(const trace::Trace& t, const SpaceTimeView& view) {
  std::map<uint32_t, size_t> lane_of_process;
  for (size_t k = 0; k < view.lanes().size(); ++k) lane_of_process[view.lanes()[k].process] = k;
  std::map<size_t, uint64_t> n;
  for (const auto& d : view.dots()) ++n[lane_of_process[t.events[d.position].process]];
  for (const auto& c : view.columns()) n[c.lane] += c.events;
  return n;
}

TEST(Timeline, ZoomsFromTheWholeRunToSingleEventsAndBack) {
  auto t = ring(4, 600);  // 4 800 events and the exits
  SpaceTimeView view(*t);
  show(view);
  const double whole = view.axisEnd();
  EXPECT_EQ(whole, static_cast<double>(t->events.size() + 1));  // and the end
  view.showWholeRun();
  EXPECT_EQ(view.viewBegin(), 0);
  EXPECT_EQ(view.viewEnd(), whole);
  // Too many events for the pixels: every lane as columns, and the columns
  // count every event of the lane.
  EXPECT_TRUE(view.dots().empty());
  ASSERT_FALSE(view.columns().empty());
  for (const auto& [lane, n] : shownPerLane(*t, view))
    EXPECT_EQ(n, t->processes[view.lanes()[lane].process].event_count);

  // The wheel zooms around the mouse: the point under it stays.
  const QPointF at(plotLeft(view) + 0.3 * (plotRight(view) - plotLeft(view)), 100);
  const double under = view.keyAt(at.x());
  int turns = 0;
  while (view.viewEnd() - view.viewBegin() > 6 && turns < 100) {
    wheel(view, at, 120);
    ++turns;
    EXPECT_NEAR(view.keyAt(at.x()), under, 1e-6 * whole);
  }
  EXPECT_LT(turns, 100);
  EXPECT_LE(view.viewEnd() - view.viewBegin(), 6.0);
  // Down to single events: dots, each where its number puts it.
  EXPECT_TRUE(view.columns().empty());
  ASSERT_FALSE(view.dots().empty());
  EXPECT_LE(view.dots().size(), 6u);
  for (const auto& d : view.dots()) EXPECT_DOUBLE_EQ(d.at.x(), view.xOf(d.position + 0.5));
  // And back, by keys, to the whole run.
  for (int k = 0; k < 40 && view.viewEnd() - view.viewBegin() < whole; ++k) key(view, Qt::Key_S);
  EXPECT_EQ(view.viewBegin(), 0);
  EXPECT_EQ(view.viewEnd(), whole);
  key(view, Qt::Key_W);
  EXPECT_NEAR(view.viewEnd() - view.viewBegin(), whole / 1.5, 1e-6);
  key(view, Qt::Key_0);
  EXPECT_EQ(view.viewEnd() - view.viewBegin(), whole);
}

TEST(Timeline, PansByDragAndKeysAndTheOverviewFollows) {
  auto t = ring(3, 200);
  SpaceTimeView view(*t);
  show(view);
  view.setView(100, 200);
  const double width = plotRight(view) - plotLeft(view);
  const QRectF before = view.overviewWindow();
  EXPECT_NEAR(before.width(), view.overviewRect().width() * 100 / view.axisEnd(), 0.5);
  // Dragging left by a fifth of the width moves 20 events later.
  const QPointF from(plotLeft(view) + width / 2, 120);
  drag(view, from, from - QPointF(width / 5, 0));
  EXPECT_NEAR(view.viewBegin(), 120, 1e-6);
  EXPECT_NEAR(view.viewEnd(), 220, 1e-6);
  EXPECT_GT(view.overviewWindow().left(), before.left());
  key(view, Qt::Key_D);
  EXPECT_NEAR(view.viewBegin(), 140, 1e-6);
  key(view, Qt::Key_A);
  key(view, Qt::Key_A);
  EXPECT_NEAR(view.viewBegin(), 100, 1e-6);
  // Not past the ends.
  view.panBy(-1e6);
  EXPECT_EQ(view.viewBegin(), 0);
  view.panBy(1e9);
  EXPECT_EQ(view.viewEnd(), view.axisEnd());
  // A press in the overview centres the window there.
  const QRectF o = view.overviewRect();
  QTest::mouseClick(&view, Qt::LeftButton, {},
                    QPoint(static_cast<int>(o.left() + 0.25 * o.width()), static_cast<int>(o.center().y())));
  EXPECT_NEAR((view.viewBegin() + view.viewEnd()) / 2, 0.25 * view.axisEnd(), view.axisEnd() / o.width() + 1);
  EXPECT_NEAR(view.viewEnd() - view.viewBegin(), 100, 1e-6);
}

TEST(Timeline, TheRulerTellsEventNumbersAndWallTime) {
  auto t = ring(2, 50);  // an event every 10 ns or so
  SpaceTimeView view(*t);
  show(view);
  view.setView(10, 60);
  std::vector<SpaceTimeView::Tick> logical, wall;
  for (const auto& tick : view.ticks()) (tick.wall ? wall : logical).push_back(tick);
  ASSERT_GE(logical.size(), 3u);
  ASSERT_EQ(wall.size(), logical.size());  // each event number with its time
  for (size_t k = 0; k < logical.size(); ++k) {
    const uint32_t number = logical[k].label.toUInt();
    ASSERT_GT(number, 0u) << logical[k].label.toStdString();
    // The tick is on its event's dot.
    EXPECT_DOUBLE_EQ(logical[k].x, view.xOf(view.keyOf(number - 1)));
    EXPECT_TRUE(wall[k].label.endsWith(QStringLiteral(" ns")) || wall[k].label.endsWith(QStringLiteral(" µs")))
        << wall[k].label.toStdString();
    if (k) {
      EXPECT_GT(logical[k].x, logical[k - 1].x);
      EXPECT_GT(number, logical[k - 1].label.toUInt());
    }
  }
  // In wall time: times along the top, and the event at each below.
  view.setWallTime(true);
  view.showWholeRun();
  EXPECT_GE(view.axisEnd(), 1000.0);
  std::vector<SpaceTimeView::Tick> times, numbers;
  for (const auto& tick : view.ticks()) (tick.wall ? times : numbers).push_back(tick);
  ASSERT_GE(times.size(), 3u);
  ASSERT_FALSE(numbers.empty());
  for (size_t k = 1; k < times.size(); ++k) EXPECT_GT(times[k].x, times[k - 1].x);
  for (const auto& n : numbers) EXPECT_TRUE(n.label.startsWith(QLatin1Char('#'))) << n.label.toStdString();
  // Every event whose time is in the window is drawn, as a dot or in a
  // column, whatever the window.
  for (double b : {0.0, 13.0, 170.0, 333.0})
    for (double span : {40.0, 95.0, 1000.0}) {
      view.setView(b, b + span);
      uint64_t expected = 0, shown = 0;
      for (uint32_t i = 0; i < t->events.size(); ++i) {
        const double k = static_cast<double>(t->wallTime(i) - t->wallTime(0));
        expected += k >= view.viewBegin() && k < view.viewEnd();
      }
      for (const auto& [lane, n] : shownPerLane(*t, view)) shown += n;
      EXPECT_EQ(shown, expected) << "window " << view.viewBegin() << " to " << view.viewEnd();
    }
  // Dots stand at their wall time.
  view.setView(0, 300);
  ASSERT_FALSE(view.dots().empty());
  for (const auto& d : view.dots())
    EXPECT_DOUBLE_EQ(d.at.x(), view.xOf(static_cast<double>(t->wallTime(d.position) - t->wallTime(0))));
}

// sh[10] forks a writer and execs a server that reads it: one lane for
// sh and the server, the exec marked; creation arrows on request hidden.
TEST(Timeline, AProcessAndTheProgramItExecsShareOneLane) {
  FakeRecording rec;
  FakeProcess& sh = rec.process("sh", 10);
  sh.pipeEnd(1, 7, false).fork(11, 10, 12);
  FakeProcess& writer = rec.child(sh, "writer", 11);
  writer.pipeEnd(1, 7, true).send(1, "hello", 20, 21).exit(0, 30);
  FakeProcess& server = rec.execed(sh, "server");
  server.pipeEnd(1, 7, false).receive(1, "hello", 40, 41).exit(0, 50);
  auto t = rec.load();
  SpaceTimeView view(*t);
  show(view);
  view.showWholeRun();
  ASSERT_EQ(view.lanes().size(), 2u);
  uint32_t sh_image = kNone;
  for (const auto& p : t->processes)
    if (p.recorded_name == "sh") sh_image = p.index;
  size_t lane = 0;
  while (lane < 2 && view.lanes()[lane].process != sh_image) ++lane;
  ASSERT_LT(lane, 2u);
  EXPECT_EQ(view.laneLabel(lane), QStringLiteral("sh → server[10]"));
  std::set<double> ys;
  for (const auto& d : view.dots())
    if (t->processes[t->events[d.position].process].pid == 10) ys.insert(d.at.y());
  EXPECT_EQ(ys.size(), 1u);
  ASSERT_EQ(view.execMarks().size(), 1u);
  EXPECT_EQ(view.execMarks()[0].program, QStringLiteral("server"));
  uint32_t first_of_server = kNone;
  for (const auto& p : t->processes)
    if (p.recorded_name == "server") first_of_server = p.first_event;
  EXPECT_DOUBLE_EQ(view.execMarks()[0].x, view.xOf(view.keyOf(first_of_server)));
  // The fork's arrow, dimmed; hidden on request; the message stays.
  auto count = [&](trace::Edge::Why why) {
    return std::count_if(view.arrows().begin(), view.arrows().end(), [&](const auto& a) { return a.why == why; });
  };
  EXPECT_EQ(count(trace::Edge::Why::Message), 1);
  EXPECT_GE(count(trace::Edge::Why::Create), 1);
  view.setLifeArrowsHidden(true);
  EXPECT_EQ(count(trace::Edge::Why::Create), 0);
  EXPECT_EQ(count(trace::Edge::Why::Exit), 0);
  EXPECT_EQ(count(trace::Edge::Why::Message), 1);
}

TEST(Timeline, LanesScrollFilterHideAndMove) {
  auto t = ring(30, 3);
  SpaceTimeView view(*t);
  show(view, 900, 300);
  view.showWholeRun();
  ASSERT_EQ(view.lanes().size(), 30u);
  const int shown = view.lanesShown();
  ASSERT_LT(shown, 30);
  auto lanesWithDots = [&] {
    std::set<uint32_t> ps;
    for (const auto& d : view.dots()) ps.insert(t->events[d.position].process);
    return ps;
  };
  EXPECT_EQ(lanesWithDots().size(), static_cast<size_t>(shown));
  view.scrollLanes(5);
  EXPECT_EQ(view.firstLane(), 5);
  EXPECT_EQ(*lanesWithDots().begin(), view.lanes()[5].process);
  key(view, Qt::Key_Down);
  EXPECT_EQ(view.firstLane(), 6);
  view.scrollLanes(1000);
  EXPECT_EQ(view.firstLane(), 30 - shown);
  // Shift+wheel scrolls lanes too.
  wheel(view, QPointF(400, 150), 120, Qt::ShiftModifier);
  EXPECT_EQ(view.firstLane(), 30 - shown - 1);
  view.scrollLanes(-1000);
  // Filter by name.
  view.setLaneFilter(QStringLiteral("p2"));
  std::vector<QString> names;
  for (size_t k = 0; k < view.lanes().size(); ++k) names.push_back(view.laneLabel(k));
  ASSERT_EQ(names.size(), 11u) << "p2 and p20 to p29";
  for (const QString& n : names) EXPECT_TRUE(n.startsWith(QStringLiteral("p2"))) << n.toStdString();
  view.setLaneFilter(QString());
  // Hide one, move one.
  const uint32_t second = view.lanes()[1].process;
  view.hideLane(0);
  EXPECT_EQ(view.lanes().size(), 29u);
  EXPECT_EQ(view.lanes()[0].process, second);
  view.moveLane(0, 2);
  EXPECT_EQ(view.lanes()[2].process, second);
  view.moveLane(2, -1);
  EXPECT_EQ(view.lanes()[1].process, second);
  view.showAllLanes();
  EXPECT_EQ(view.lanes().size(), 30u);
}

TEST(Timeline, AProcessesThreadsFoldIntoOneLane) {
  FakeRecording rec;
  auto& server = rec.process("server", 100);
  auto& client = rec.process("client", 200);
  server.pipeEnd(1, 7, true).send(1, "from main", 10, 11, 100).send(1, "from worker", 20, 21, 101).exit(0, 60);
  client.pipeEnd(1, 7, false).receive(1, "from main", 30, 31).receive(1, "from worker", 40, 41).exit(0, 70);
  auto t = rec.load();
  SpaceTimeView view(*t);
  show(view);
  ASSERT_EQ(view.lanes().size(), 3u);
  size_t lane = 0;
  while (view.lanes()[lane].process != processOf(*t, 100)) ++lane;
  view.setThreadsFolded(lane, true);
  ASSERT_EQ(view.lanes().size(), 2u);
  EXPECT_TRUE(view.lanes()[lane].folded);
  std::set<double> ys;
  for (const auto& d : view.dots())
    if (t->events[d.position].process == processOf(*t, 100)) ys.insert(d.at.y());
  EXPECT_EQ(ys.size(), 1u);
  view.setThreadsFolded(lane, false);
  EXPECT_EQ(view.lanes().size(), 3u);
}

TEST(Timeline, ARangeSelectedShowsItsStatisticsPerChannel) {
  auto t = ring(3, 20);
  SpaceTimeView view(*t);
  show(view);
  view.showWholeRun();
  // Shift-drag over the whole plot: every event, every message.
  drag(view, QPointF(plotLeft(view) + 0.01, 120), QPointF(plotRight(view) - 0.01, 120), Qt::ShiftModifier);
  ASSERT_TRUE(view.range());
  const auto& r = *view.range();
  EXPECT_EQ(r.events, t->events.size());
  uint64_t messages = 0, bytes = 0;
  for (const auto& e : t->edges)
    if (e.why == trace::Edge::Why::Message) {
      ++messages;
      bytes += e.bytes;
    }
  EXPECT_EQ(r.messages, messages);
  EXPECT_EQ(r.bytes, bytes);
  ASSERT_EQ(r.channels.size(), 3u);  // the three pipes
  for (const auto& c : r.channels) {
    EXPECT_EQ(c.messages, 20u);
    EXPECT_GT(c.max_latency_ns, 0);
    EXPECT_LE(c.total_latency_ns, static_cast<int64_t>(c.messages) * c.max_latency_ns);
  }
  // Half of it: the events in it, and the messages sent in it.
  view.selectRange(0, view.axisEnd() / 2);  // positions p with p + 0.5 before the middle
  EXPECT_EQ(view.range()->events, static_cast<uint64_t>(std::ceil(view.axisEnd() / 2 - 0.5)));
  uint64_t sent_in_half = 0;
  for (const auto& e : t->edges)
    if (e.why == trace::Edge::Why::Message && e.from + 0.5 < view.axisEnd() / 2) ++sent_in_half;
  EXPECT_EQ(view.range()->messages, sent_in_half);
  // A click beside the events clears it.
  QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(static_cast<int>(plotRight(view)) - 2, 280 - 40));
  EXPECT_FALSE(view.range());
}

TEST(Timeline, TheCurrentEventIsBroughtIntoView) {
  auto t = ring(30, 10);
  SpaceTimeView view(*t);
  show(view);
  view.setView(0, 50);
  const uint32_t last = static_cast<uint32_t>(t->events.size() - 1);
  view.setCurrent(last);
  EXPECT_LE(view.viewBegin(), view.keyOf(last));
  EXPECT_GT(view.viewEnd(), view.keyOf(last));
  EXPECT_NEAR(view.viewEnd() - view.viewBegin(), 50, 1e-6);
  bool drawn = false;
  for (const auto& d : view.dots()) drawn |= d.position == last;
  EXPECT_TRUE(drawn) << "its lane scrolled into view";
  // Keys zoom around it.
  key(view, Qt::Key_W);
  EXPECT_LE(view.viewBegin(), view.keyOf(last));
  EXPECT_GT(view.viewEnd(), view.keyOf(last));
}

// A ring of three processes each blocked reading from the one before:
// each lane blocked from its last event to the end, and the wait-for
// cycle drawn where the last of them blocked.
TEST(Timeline, BlockedThreadsAndADeadlocksCycleAreDrawn) {
  FakeRecording rec;
  rec.process("a", 1).pipeEnd(1, 201, true).pipeEnd(3, 203, false).user("start", 5).blockedIn(log::Kind::Read, 3);
  rec.process("b", 2).pipeEnd(1, 201, false).pipeEnd(2, 202, true).user("start", 10).blockedIn(log::Kind::Read, 1);
  rec.process("c", 3).pipeEnd(2, 202, false).pipeEnd(3, 203, true).user("start", 15).blockedIn(log::Kind::Read, 2);
  FakeProcess& idle = rec.process("idle", 4);  // busy before the others start
  for (int k = 0; k < 10; ++k) idle.user("tick", k);
  auto t = rec.load();
  SpaceTimeView view(*t);
  show(view);
  view.showWholeRun();
  ASSERT_EQ(view.blockedBars().size(), 3u);
  double last_block = 0;
  for (const auto& b : view.blockedBars()) {
    EXPECT_TRUE(b.deadlocked);
    EXPECT_EQ(b.kind, static_cast<uint16_t>(log::Kind::Read));
    const uint32_t last = t->processes[b.process].last_event;  // its "start"
    EXPECT_DOUBLE_EQ(b.rect.left(), view.xOf(last + 1.0)) << "blocked from after its last event";
    EXPECT_DOUBLE_EQ(b.rect.right(), view.xOf(view.axisEnd()));
    last_block = std::max(last_block, last + 1.0);
  }
  ASSERT_EQ(view.waits().size(), 3u);
  std::set<std::pair<int32_t, int32_t>> edges;
  for (const auto& w : view.waits()) {
    edges.insert({t->processes[w.from].pid, t->processes[w.to].pid});
    EXPECT_EQ(w.a.x(), w.b.x());
    EXPECT_GE(w.a.x(), view.xOf(last_block));
    EXPECT_NE(w.a.y(), w.b.y());
  }
  EXPECT_EQ(edges, (std::set<std::pair<int32_t, int32_t>>{{1, 3}, {2, 1}, {3, 2}}));
  // Before the cycle formed: the two blocked first, no cycle yet.
  view.setView(0, last_block - 0.5);
  EXPECT_TRUE(view.waits().empty());
  ASSERT_EQ(view.blockedBars().size(), 2u);
  for (const auto& b : view.blockedBars()) EXPECT_NE(t->processes[b.process].pid, 3);
}

TEST(Timeline, AnEmptyRecordingDrawsNothingAndSurvivesNavigation) {
  FakeRecording rec;
  rec.process("idle", 1);
  auto t = rec.load();
  SpaceTimeView view(*t);
  show(view);
  view.zoomBy(4);
  view.panBy(100);
  view.showWholeRun();
  view.setWallTime(true);
  view.selectRange(0, 1);
  EXPECT_TRUE(view.dots().empty());
  EXPECT_FALSE(view.grab().isNull());
}

}  // namespace
}  // namespace radar::app
