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
#include "app/timeline.h"
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

double plotLeft(const Timeline& tl) { return tl.xOf(tl.viewBegin()); }
double plotRight(const Timeline& tl) { return tl.xOf(tl.viewEnd()); }

// Events of each lane in the window: its dots, or its columns' counts.
std::map<size_t, uint64_t> shownPerLane(const trace::Trace& t, const Timeline& tl) {
  std::map<uint32_t, size_t> lane_of_process;
  for (size_t k = 0; k < tl.lanes().size(); ++k) lane_of_process[tl.lanes()[k].process] = k;
  std::map<size_t, uint64_t> n;
  for (const auto& d : tl.dots()) ++n[lane_of_process[t.events[d.position].process]];
  for (const auto& c : tl.columns()) n[c.lane] += c.events;
  return n;
}

TEST(Timeline, ZoomsFromTheWholeRunToSingleEventsAndBack) {
  auto t = ring(4, 600);  // 4 800 events and the exits
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  const double whole = tl.axisEnd();
  EXPECT_EQ(whole, static_cast<double>(t->events.size() + 1));  // and the end
  tl.showWholeRun();
  EXPECT_EQ(tl.viewBegin(), 0);
  EXPECT_EQ(tl.viewEnd(), whole);
  // Too many events for the pixels: every lane as columns, and the columns
  // count every event of the lane.
  EXPECT_TRUE(tl.dots().empty());
  ASSERT_FALSE(tl.columns().empty());
  for (const auto& [lane, n] : shownPerLane(*t, tl)) EXPECT_EQ(n, t->processes[tl.lanes()[lane].process].event_count);

  // The wheel zooms around the mouse: the point under it stays.
  const QPointF at(plotLeft(tl) + 0.3 * (plotRight(tl) - plotLeft(tl)), 100);
  const double under = tl.keyAt(at.x());
  int turns = 0;
  while (tl.viewEnd() - tl.viewBegin() > 6 && turns < 100) {
    wheel(view, at, 120);
    ++turns;
    EXPECT_NEAR(tl.keyAt(at.x()), under, 1e-6 * whole);
  }
  EXPECT_LT(turns, 100);
  EXPECT_LE(tl.viewEnd() - tl.viewBegin(), 6.0);
  // Down to single events: dots, each where its number puts it.
  EXPECT_TRUE(tl.columns().empty());
  ASSERT_FALSE(tl.dots().empty());
  EXPECT_LE(tl.dots().size(), 6u);
  for (const auto& d : tl.dots()) EXPECT_DOUBLE_EQ(d.at.x(), tl.xOf(d.position + 0.5));
  // And back, by keys, to the whole run.
  for (int k = 0; k < 40 && tl.viewEnd() - tl.viewBegin() < whole; ++k) key(view, Qt::Key_S);
  EXPECT_EQ(tl.viewBegin(), 0);
  EXPECT_EQ(tl.viewEnd(), whole);
  key(view, Qt::Key_W);
  EXPECT_NEAR(tl.viewEnd() - tl.viewBegin(), whole / 1.5, 1e-6);
  key(view, Qt::Key_0);
  EXPECT_EQ(tl.viewEnd() - tl.viewBegin(), whole);
  // Backspace: back to the window before the whole run.
  key(view, Qt::Key_Backspace);
  EXPECT_NEAR(tl.viewEnd() - tl.viewBegin(), whole / 1.5, 1e-6);
}

TEST(Timeline, PansByDragAndKeysAndTheOverviewFollows) {
  auto t = ring(3, 200);
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.setView(100, 200);
  const double width = plotRight(tl) - plotLeft(tl);
  const QRectF before = tl.overviewWindow();
  EXPECT_NEAR(before.width(), tl.overviewRect().width() * 100 / tl.axisEnd(), 0.5);
  // Dragging left by a fifth of the width moves 20 events later.
  const QPointF from(plotLeft(tl) + width / 2, 120);
  drag(view, from, from - QPointF(width / 5, 0));
  EXPECT_NEAR(tl.viewBegin(), 120, 1e-6);
  EXPECT_NEAR(tl.viewEnd(), 220, 1e-6);
  EXPECT_GT(tl.overviewWindow().left(), before.left());
  key(view, Qt::Key_D);
  EXPECT_NEAR(tl.viewBegin(), 140, 1e-6);
  key(view, Qt::Key_A);
  key(view, Qt::Key_A);
  EXPECT_NEAR(tl.viewBegin(), 100, 1e-6);
  // Not past the ends.
  tl.panBy(-1e6);
  EXPECT_EQ(tl.viewBegin(), 0);
  tl.panBy(1e9);
  EXPECT_EQ(tl.viewEnd(), tl.axisEnd());
  // A press in the overview centres the window there.
  const QRectF o = tl.overviewRect();
  QTest::mouseClick(&view, Qt::LeftButton, {},
                    QPoint(static_cast<int>(o.left() + 0.25 * o.width()), static_cast<int>(o.center().y())));
  EXPECT_NEAR((tl.viewBegin() + tl.viewEnd()) / 2, 0.25 * tl.axisEnd(), tl.axisEnd() / o.width() + 1);
  EXPECT_NEAR(tl.viewEnd() - tl.viewBegin(), 100, 1e-6);
}

// A receive that waited is told after the send it waited for, and the
// ruler under its number says when it returned, as the event table does:
// not when it began, which would run the ruler's times backwards.
TEST(Timeline, TheRulerTellsAWaitedReceiveAtItsReturn) {
  FakeRecording rec;
  auto& reader = rec.process("reader", 100).pipeEnd(1, 7, false);
  auto& writer = rec.process("writer", 200).pipeEnd(1, 7, true);
  writer.send(1, "x", 500, 510).exit(0, 600);
  reader.receive(1, "x", 10, 800).exit(0, 900);
  auto t = rec.load();
  uint32_t receive = kNone, send = kNone;
  for (uint32_t i = 0; i < t->events.size(); ++i) {
    const auto category = log::categoryOf(t->events[i].eventKind());
    if (category == log::Category::Receive) receive = i;
    if (category == log::Category::Send) send = i;
  }
  ASSERT_NE(receive, kNone);
  ASSERT_LT(send, receive) << "the receive is told after its send";
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.setView(0, static_cast<double>(t->events.size()));
  std::map<double, QString> number_at, time_at;
  for (const auto& tick : tl.ticks()) (tick.wall ? time_at : number_at)[tick.x] = tick.label;
  QString receive_time, send_time;
  for (const auto& [x, number] : number_at) {
    if (number.toUInt() == receive + 1) receive_time = time_at[x];
    if (number.toUInt() == send + 1) send_time = time_at[x];
  }
  // The first event began at 10 ns: the send at 490 ns, the receive's return at 790 ns.
  EXPECT_EQ(send_time, formatNs(490));
  EXPECT_EQ(receive_time, formatNs(790));
}

TEST(Timeline, TheRulerTellsEventNumbersAndWallTime) {
  auto t = ring(2, 50);  // an event every 10 ns or so
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.setView(10, 60);
  std::vector<Timeline::Tick> logical, wall;
  for (const auto& tick : tl.ticks()) (tick.wall ? wall : logical).push_back(tick);
  ASSERT_GE(logical.size(), 3u);
  ASSERT_EQ(wall.size(), logical.size());  // each event number with its time
  for (size_t k = 0; k < logical.size(); ++k) {
    const uint32_t number = logical[k].label.toUInt();
    ASSERT_GT(number, 0u) << logical[k].label.toStdString();
    // The tick is on its event's dot.
    EXPECT_DOUBLE_EQ(logical[k].x, tl.xOf(tl.keyOf(number - 1)));
    EXPECT_TRUE(wall[k].label.endsWith(QStringLiteral(" ns")) || wall[k].label.endsWith(QStringLiteral(" µs")))
        << wall[k].label.toStdString();
    if (k) {
      EXPECT_GT(logical[k].x, logical[k - 1].x);
      EXPECT_GT(number, logical[k - 1].label.toUInt());
    }
  }
  // In wall time: times along the top, and the event at each below.
  tl.setWallTime(true);
  tl.showWholeRun();
  EXPECT_GE(tl.axisEnd(), 1000.0);
  std::vector<Timeline::Tick> times, numbers;
  for (const auto& tick : tl.ticks()) (tick.wall ? times : numbers).push_back(tick);
  ASSERT_GE(times.size(), 3u);
  ASSERT_FALSE(numbers.empty());
  for (size_t k = 1; k < times.size(); ++k) EXPECT_GT(times[k].x, times[k - 1].x);
  for (const auto& n : numbers) EXPECT_TRUE(n.label.startsWith(QLatin1Char('#'))) << n.label.toStdString();
  // Every event whose time is in the window is drawn, as a dot or in a
  // column, whatever the window.
  for (double b : {0.0, 13.0, 170.0, 333.0})
    for (double span : {40.0, 95.0, 1000.0}) {
      tl.setView(b, b + span);
      uint64_t expected = 0, shown = 0;
      for (uint32_t i = 0; i < t->events.size(); ++i) {
        const double k = static_cast<double>(t->wallTime(i) - t->wallTime(0));
        expected += k >= tl.viewBegin() && k < tl.viewEnd();
      }
      for (const auto& [lane, n] : shownPerLane(*t, tl)) shown += n;
      EXPECT_EQ(shown, expected) << "window " << tl.viewBegin() << " to " << tl.viewEnd();
    }
  // Dots stand at their wall time.
  tl.setView(0, 300);
  ASSERT_FALSE(tl.dots().empty());
  for (const auto& d : tl.dots())
    EXPECT_DOUBLE_EQ(d.at.x(), tl.xOf(static_cast<double>(t->wallTime(d.position) - t->wallTime(0))));
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
  Timeline& tl = view.timeline();
  show(view);
  tl.showWholeRun();
  ASSERT_EQ(tl.lanes().size(), 2u);
  uint32_t sh_image = kNone;
  for (const auto& p : t->processes)
    if (p.recorded_name == "sh") sh_image = p.index;
  size_t lane = 0;
  while (lane < 2 && tl.lanes()[lane].process != sh_image) ++lane;
  ASSERT_LT(lane, 2u);
  EXPECT_EQ(tl.laneLabel(lane), QStringLiteral("sh → server[10]"));
  std::set<double> ys;
  for (const auto& d : tl.dots())
    if (t->processes[t->events[d.position].process].pid == 10) ys.insert(d.at.y());
  EXPECT_EQ(ys.size(), 1u);
  ASSERT_EQ(tl.execMarks().size(), 1u);
  EXPECT_EQ(tl.execMarks()[0].program, QStringLiteral("server"));
  uint32_t first_of_server = kNone;
  for (const auto& p : t->processes)
    if (p.recorded_name == "server") first_of_server = p.first_event;
  EXPECT_DOUBLE_EQ(tl.execMarks()[0].x, tl.xOf(tl.keyOf(first_of_server)));
  // Its words above the lane's dots (the current event's, the largest, too),
  // descenders and all: they never overprint one.
  QFont small = view.font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  const QRectF words = Timeline::execLabelBox(tl.execMarks()[0], *ys.begin(), QFontMetricsF(small));
  for (const auto& d : tl.dots()) {
    const QRectF dot(d.at - QPointF(Timeline::kLargestDot, Timeline::kLargestDot),
                     QSizeF(2 * Timeline::kLargestDot, 2 * Timeline::kLargestDot));
    EXPECT_FALSE(words.intersects(dot)) << "event " << d.position + 1;
  }
  EXPECT_LE(words.bottom(), *ys.begin() - Timeline::kLargestDot);
  // The fork's arrow, dimmed; hidden on request; the message stays.
  auto count = [&](trace::Edge::Why why) {
    return std::count_if(tl.arrows().begin(), tl.arrows().end(), [&](const auto& a) { return a.why == why; });
  };
  EXPECT_EQ(count(trace::Edge::Why::Message), 1);
  EXPECT_GE(count(trace::Edge::Why::Create), 1);
  tl.setLifeArrowsHidden(true);
  EXPECT_EQ(count(trace::Edge::Why::Create), 0);
  EXPECT_EQ(count(trace::Edge::Why::Exit), 0);
  EXPECT_EQ(count(trace::Edge::Why::Message), 1);
}

// A lane's label too long for its column loses what matters least first
// (the program before the exec, the thread, the pid), never the name.
TEST(Timeline, ALanesLabelShortensFromItsLeastNeededParts) {
  FakeRecording rec;
  FakeProcess& sh = rec.process("sh", 10);
  sh.pipeEnd(1, 7, false).user("start", 5);
  FakeProcess& server = rec.execed(sh, "a-server-with-a-long-name");
  server.pipeEnd(1, 7, false).receive(1, "hi", 40, 41, 10).receive(1, "ho", 42, 43, 11).exit(0, 50);
  rec.process("client", 20).pipeEnd(1, 7, true).send(1, "hi", 30, 31).send(1, "ho", 32, 33).exit(0, 60);
  auto t = rec.load();
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  size_t lane = 0;
  while (lane < tl.lanes().size() && t->processes[tl.lanes()[lane].process].pid != 10) ++lane;
  ASSERT_LT(lane + 1, tl.lanes().size());
  ASSERT_TRUE(tl.lanes()[lane + 1].sub_lane) << "two threads: two lanes";
  const QString main_thread = QStringLiteral(" thread %1").arg(t->processes[tl.lanes()[lane].process].threads[0]);
  EXPECT_EQ(tl.laneLabels(lane), (QStringList{QStringLiteral("sh → a-server-with-a-long-name[10]") + main_thread,
                                              QStringLiteral("a-server-with-a-long-name[10]") + main_thread,
                                              QStringLiteral("a-server-with-a-long-name[10]"),
                                              QStringLiteral("a-server-with-a-long-name")}));
  EXPECT_EQ(tl.laneLabel(lane), tl.laneLabels(lane).front());
  EXPECT_EQ(tl.laneLabels(lane + 1).size(), 1u);
}

TEST(Timeline, LanesScrollFilterHideAndMove) {
  auto t = ring(30, 3);
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view, 900, 300);
  tl.showWholeRun();
  ASSERT_EQ(tl.lanes().size(), 30u);
  const int shown = tl.lanesShown();
  ASSERT_LT(shown, 30);
  auto lanesWithDots = [&] {
    std::set<uint32_t> ps;
    for (const auto& d : tl.dots()) ps.insert(t->events[d.position].process);
    return ps;
  };
  EXPECT_EQ(lanesWithDots().size(), static_cast<size_t>(shown));
  tl.scrollLanes(5);
  EXPECT_EQ(tl.firstLane(), 5);
  EXPECT_EQ(*lanesWithDots().begin(), tl.lanes()[5].process);
  key(view, Qt::Key_Down);
  EXPECT_EQ(tl.firstLane(), 6);
  tl.scrollLanes(1000);
  EXPECT_EQ(tl.firstLane(), 30 - shown);
  // Shift+wheel scrolls lanes too.
  wheel(view, QPointF(400, 150), 120, Qt::ShiftModifier);
  EXPECT_EQ(tl.firstLane(), 30 - shown - 1);
  tl.scrollLanes(-1000);
  // Filter by name.
  tl.setLaneFilter(QStringLiteral("p2"));
  std::vector<QString> names;
  for (size_t k = 0; k < tl.lanes().size(); ++k) names.push_back(tl.laneLabel(k));
  ASSERT_EQ(names.size(), 11u) << "p2 and p20 to p29";
  for (const QString& n : names) EXPECT_TRUE(n.startsWith(QStringLiteral("p2"))) << n.toStdString();
  tl.setLaneFilter(QString());
  // Hide one, move one.
  const uint32_t second = tl.lanes()[1].process;
  tl.hideLane(0);
  EXPECT_EQ(tl.lanes().size(), 29u);
  EXPECT_EQ(tl.lanes()[0].process, second);
  tl.moveLane(0, 2);
  EXPECT_EQ(tl.lanes()[2].process, second);
  tl.moveLane(2, -1);
  EXPECT_EQ(tl.lanes()[1].process, second);
  tl.showAllLanes();
  EXPECT_EQ(tl.lanes().size(), 30u);
}

TEST(Timeline, AProcessesThreadsFoldIntoOneLane) {
  FakeRecording rec;
  auto& server = rec.process("server", 100);
  auto& client = rec.process("client", 200);
  server.pipeEnd(1, 7, true).send(1, "from main", 10, 11, 100).send(1, "from worker", 20, 21, 101).exit(0, 60);
  client.pipeEnd(1, 7, false).receive(1, "from main", 30, 31).receive(1, "from worker", 40, 41).exit(0, 70);
  auto t = rec.load();
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  ASSERT_EQ(tl.lanes().size(), 3u);
  size_t lane = 0;
  while (tl.lanes()[lane].process != processOf(*t, 100)) ++lane;
  tl.setThreadsFolded(lane, true);
  ASSERT_EQ(tl.lanes().size(), 2u);
  EXPECT_TRUE(tl.lanes()[lane].folded);
  std::set<double> ys;
  for (const auto& d : tl.dots())
    if (t->events[d.position].process == processOf(*t, 100)) ys.insert(d.at.y());
  EXPECT_EQ(ys.size(), 1u);
  tl.setThreadsFolded(lane, false);
  EXPECT_EQ(tl.lanes().size(), 3u);
}

TEST(Timeline, ARangeSelectedShowsItsStatisticsPerChannel) {
  auto t = ring(3, 20);
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.showWholeRun();
  // Shift-drag over the whole plot: every event, every message.
  drag(view, QPointF(plotLeft(tl) + 0.01, 120), QPointF(plotRight(tl) - 0.01, 120), Qt::ShiftModifier);
  ASSERT_TRUE(tl.range());
  const auto& r = *tl.range();
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
  tl.selectRange(0, tl.axisEnd() / 2);  // positions p with p + 0.5 before the middle
  EXPECT_EQ(tl.range()->events, static_cast<uint64_t>(std::ceil(tl.axisEnd() / 2 - 0.5)));
  uint64_t sent_in_half = 0;
  for (const auto& e : t->edges)
    if (e.why == trace::Edge::Why::Message && e.from + 0.5 < tl.axisEnd() / 2) ++sent_in_half;
  EXPECT_EQ(tl.range()->messages, sent_in_half);
  // A click beside the events clears it.
  QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(static_cast<int>(plotRight(tl)) - 2, 280 - 40));
  EXPECT_FALSE(tl.range());
}

TEST(Timeline, TheCurrentEventIsBroughtIntoView) {
  auto t = ring(30, 10);
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.setView(0, 50);
  const uint32_t last = static_cast<uint32_t>(t->events.size() - 1);
  tl.setCurrent(last);
  EXPECT_LE(tl.viewBegin(), tl.keyOf(last));
  EXPECT_GT(tl.viewEnd(), tl.keyOf(last));
  EXPECT_NEAR(tl.viewEnd() - tl.viewBegin(), 50, 1e-6);
  bool drawn = false;
  for (const auto& d : tl.dots()) drawn |= d.position == last;
  EXPECT_TRUE(drawn) << "its lane scrolled into view";
  // Keys zoom around it.
  key(view, Qt::Key_W);
  EXPECT_LE(tl.viewBegin(), tl.keyOf(last));
  EXPECT_GT(tl.viewEnd(), tl.keyOf(last));
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
  Timeline& tl = view.timeline();
  show(view);
  tl.showWholeRun();
  ASSERT_EQ(tl.blockedBars().size(), 3u);
  double last_block = 0;
  for (const auto& b : tl.blockedBars()) {
    EXPECT_TRUE(b.deadlocked);
    EXPECT_EQ(b.kind, static_cast<uint16_t>(log::Kind::Read));
    const uint32_t last = t->processes[b.process].last_event;  // its "start"
    EXPECT_DOUBLE_EQ(b.rect.left(), tl.xOf(last + 1.0)) << "blocked from after its last event";
    EXPECT_DOUBLE_EQ(b.rect.right(), tl.xOf(tl.axisEnd()));
    last_block = std::max(last_block, last + 1.0);
  }
  ASSERT_EQ(tl.waits().size(), 3u);
  std::set<std::pair<int32_t, int32_t>> edges;
  for (const auto& w : tl.waits()) {
    edges.insert({t->processes[w.from].pid, t->processes[w.to].pid});
    EXPECT_EQ(w.a.x(), w.b.x());
    EXPECT_GE(w.a.x(), tl.xOf(last_block));
    EXPECT_NE(w.a.y(), w.b.y());
  }
  EXPECT_EQ(edges, (std::set<std::pair<int32_t, int32_t>>{{1, 3}, {2, 1}, {3, 2}}));
  // Before the cycle formed: the two blocked first, no cycle yet.
  tl.setView(0, last_block - 0.5);
  EXPECT_TRUE(tl.waits().empty());
  ASSERT_EQ(tl.blockedBars().size(), 2u);
  for (const auto& b : tl.blockedBars()) EXPECT_NE(t->processes[b.process].pid, 3);
}

// An MPI collective is one event across its ranks: one band through the
// ranks' calls (not an arrow for each wait between them), named; past the
// place where the ranks call different collectives, none.
TEST(Timeline, MpiCollectivesAreOneBandAcrossTheirRanks) {
  FakeRecording rec;
  rec.process("mpirun", 29).user("start", 0).exit(0, 95);
  for (int32_t rank = 2; rank >= 0; --rank) {
    FakeProcess& p = rec.process("c", 30 + rank)
                         .mpiCommunicator(1, "job/w", rank, 3)
                         .mpiInit(1, rank, 3, 1)
                         .mpiCollective(1, "MPI_Barrier", -1, 10 + rank, 40)
                         .mpiInit(1, rank, 3, 41)
                         .mpiCollective(1, "MPI_Allreduce", -1, 50 + rank, 60);
    p.mpiCollective(1, rank == 2 ? "MPI_Barrier" : "MPI_Bcast", 0, 70, 80).exit(0, 90);
  }
  auto t = rec.load();
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.showWholeRun();
  // The ranks' lanes first, in rank order; the launcher's after them.
  ASSERT_EQ(tl.lanes().size(), 4u);
  for (int32_t rank = 0; rank < 3; ++rank) EXPECT_EQ(t->processes[tl.lanes()[rank].process].mpi_rank, rank);
  EXPECT_EQ(t->processes[tl.lanes()[3].process].pid, 29);
  ASSERT_EQ(tl.collectiveInstances().size(), 2u) << "the third collective parts the ranks";
  ASSERT_EQ(tl.collectiveBands().size(), 2u);
  const char* names[] = {"MPI_Barrier", "MPI_Allreduce"};
  for (size_t k = 0; k < 2; ++k) {
    const auto& band = tl.collectiveBands()[k];
    EXPECT_EQ(band.operation, QString::fromLatin1(names[band.instance]));
    ASSERT_EQ(band.points.size(), 3u);
    const auto& members = tl.collectiveInstances()[band.instance].members;
    std::set<double> ys;
    for (const uint32_t m : members) {
      const QPointF at(tl.xOf(tl.keyOf(m)), tl.rowY(tl.rowOfEvent(m)));
      EXPECT_NE(std::find(band.points.begin(), band.points.end(), at), band.points.end()) << "event " << m;
      ys.insert(at.y());
    }
    EXPECT_EQ(ys.size(), 3u) << "one point per rank's lane";
    EXPECT_TRUE(
        std::is_sorted(band.points.begin(), band.points.end(), [](QPointF a, QPointF b) { return a.y() < b.y(); }));
  }
  for (const auto& a : tl.arrows()) EXPECT_NE(a.why, trace::Edge::Why::Collective);
  // A rank's lane hidden: the band joins the others.
  tl.hideLane(0);
  for (const auto& band : tl.collectiveBands()) EXPECT_EQ(band.points.size(), 2u);
}

// A rank whose other thread is the MPI library's only (begun inside its
// MPI_Init, no MPI call of its own) starts folded; one whose thread calls
// MPI, or does its own work, keeps a lane per thread.
TEST(Timeline, ARanksLibraryThreadsStartFolded) {
  FakeRecording rec;
  for (int32_t rank = 0; rank < 2; ++rank) {
    FakeProcess& p = rec.process("r", 40 + rank)
                         .mpiCommunicator(1, "job/w", rank, 2)
                         .pipeEnd(2, 900 + static_cast<uint64_t>(rank), true)
                         .mpiInit(1, rank, 2, 1);
    if (rank == 0) p.send(2, "lib", 21, 22, 7);  // a thread begun inside its barrier
    p.mpiCollective(1, "MPI_Barrier", -1, 20, 40);
    if (rank == 1) p.send(2, "own", 50, 51, 8);  // a thread of its own, begun after
    p.exit(0, 90);
  }
  auto t = rec.load();
  SpaceTimeView view(*t);
  const Timeline& tl = view.timeline();
  show(view);
  std::map<int32_t, int> lanes;
  for (const auto& lane : tl.lanes()) ++lanes[t->processes[lane.process].pid];
  EXPECT_EQ(lanes[40], 1) << "folded";
  EXPECT_EQ(lanes[41], 2) << "a thread of its own";
}

TEST(Timeline, AnEmptyRecordingDrawsNothingAndSurvivesNavigation) {
  FakeRecording rec;
  rec.process("idle", 1);
  auto t = rec.load();
  SpaceTimeView view(*t);
  Timeline& tl = view.timeline();
  show(view);
  tl.zoomBy(4);
  tl.panBy(100);
  tl.showWholeRun();
  tl.setWallTime(true);
  tl.selectRange(0, 1);
  EXPECT_TRUE(tl.dots().empty());
  EXPECT_FALSE(view.grab().isNull());
}

// The model alone: no widget, no display, no event loop.
TEST(TimelineModel, HitTestsFindTheEventAndTheLaneUnderAPoint) {
  auto t = ring(3, 5);
  Timeline tl(*t);
  tl.setSize(QSizeF(900, 300));
  tl.showWholeRun();
  ASSERT_FALSE(tl.dots().empty());
  for (const auto& d : tl.dots()) {
    EXPECT_EQ(tl.eventAt(d.at + QPointF(2, -2)), d.position);
    const int lane = tl.laneAt(d.at.y());
    ASSERT_GE(lane, 0);
    EXPECT_EQ(tl.lanes()[static_cast<size_t>(lane)].process, t->events[d.position].process);
  }
  EXPECT_EQ(tl.eventAt(QPointF(tl.plotRect().right() + 100, 5)), kNone);
  EXPECT_EQ(tl.laneAt(tl.plotRect().top() - 1), -1);
  EXPECT_EQ(tl.laneAt(tl.rowY(static_cast<int>(tl.lanes().size()))), -1) << "below the last lane";
  // A folded stretch hides its events from hit tests, and its bar is hit.
  const uint32_t p0 = processOf(*t, 100);
  const auto& mine = t->process_events[p0];
  tl.setStretches({{p0, mine[1], mine[3], QStringLiteral("round × 2")}});
  ASSERT_EQ(tl.bars().size(), 1u);
  EXPECT_EQ(tl.barAt(tl.bars()[0].rect.center()), std::optional<size_t>(0));
  for (const auto& d : tl.dots()) {
    if (d.position != mine[2]) continue;
    EXPECT_TRUE(d.hidden);
    EXPECT_NE(tl.eventAt(d.at), mine[2]);
  }
}

TEST(TimelineModel, TheZoomStackGoesBackToEachWindowLeft) {
  auto t = ring(3, 200);
  Timeline tl(*t);
  tl.setSize(QSizeF(900, 300));
  int changes = 0;
  tl.onChanged([&] { ++changes; });
  tl.setView(0, 400);
  EXPECT_GT(changes, 0);
  EXPECT_FALSE(tl.zoomBack()) << "nothing kept yet";
  tl.zoomTo(100, 200);
  tl.zoomTo(150, 160);
  EXPECT_EQ(tl.zoomDepth(), 2u);
  tl.panBy(20);  // a pan is not a zoom: going back returns to the window zoomed from
  EXPECT_TRUE(tl.zoomBack());
  EXPECT_EQ(tl.viewBegin(), 100);
  EXPECT_EQ(tl.viewEnd(), 200);
  EXPECT_TRUE(tl.navigate(Qt::Key_Backspace));
  EXPECT_EQ(tl.viewBegin(), 0);
  EXPECT_EQ(tl.viewEnd(), 400);
  EXPECT_FALSE(tl.zoomBack());
  // The whole run is a zoom too; a window on the other axis is not gone back to.
  tl.showWholeRun();
  EXPECT_EQ(tl.zoomDepth(), 1u);
  tl.setWallTime(true);
  EXPECT_FALSE(tl.zoomBack());
  EXPECT_TRUE(Timeline::isNavigationKey(Qt::Key_W));
  EXPECT_FALSE(Timeline::isNavigationKey(Qt::Key_Q));
  EXPECT_FALSE(tl.navigate(Qt::Key_Q));
}

TEST(TimelineModel, ARangesStatisticsAreToldByChannel) {
  auto t = ring(2, 10);
  Timeline tl(*t);
  tl.selectRange(0, tl.axisEnd());
  ASSERT_TRUE(tl.range());
  EXPECT_EQ(tl.range()->events, t->events.size());
  const QStringList lines = tl.rangeSummary();
  ASSERT_EQ(lines.size(), 3);  // the totals and the two pipes
  EXPECT_TRUE(lines[0].startsWith(QStringLiteral("%1 events · 20 messages · 20 B").arg(t->events.size())))
      << lines[0].toStdString();
  EXPECT_TRUE(lines[1].contains(QStringLiteral(": 10 msg, 10 B, latency mean "))) << lines[1].toStdString();
  tl.selectRange(5, 5);
  EXPECT_FALSE(tl.range());
  EXPECT_TRUE(tl.rangeSummary().isEmpty());
}

}  // namespace
}  // namespace radar::app
