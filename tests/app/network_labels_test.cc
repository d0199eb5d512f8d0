// A network legible at every size: channels bundled a line a pair of
// boxes, a channel every worker inherited drawn only where it carried
// messages, names placed where they cover nothing, and a view that shows
// every box from the first frame.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <string>

#include "app/labels.h"
#include "app/main_window.h"
#include "app/network_view.h"
#include "app/scene.h"
#include "fake_recording.h"

namespace radar::app {
namespace {

using radar::testing::FakeProcess;
using radar::testing::FakeRecording;
using radar::testing::processOfPid;

// A pool as Python's multiprocessing makes one: every worker inherits both
// ends of the task pipe and of the result pipe, and the read ends of the
// sentinel pipes of the workers forked before it (here the last three).
// The parent sends each worker a task on the shared pipe and gets its
// result back; worker 0 also gets a long queue on a pipe of its own.
struct Pool {
  static constexpr int64_t kTasksSent = 20'000'000, kResultsReceived = 80'000'000;
  std::unique_ptr<trace::Trace> trace;
};

Pool makePool(int workers) {
  FakeRecording rec;
  FakeProcess& parent = rec.process("pool", 10);
  parent.pipeEnd(1, 1000, true).pipeEnd(2, 1000, false).pipeEnd(3, 1001, true).pipeEnd(4, 1001, false);
  parent.pipeEnd(5, 3000, true);
  std::vector<FakeProcess*> w;
  for (int k = 0; k < workers; ++k) {
    const int32_t pid = 100 + k;
    parent.pipeEnd(6 + k, 2000 + k, false).fork(pid, 1000 + 4 * k, 1001 + 4 * k);
    FakeProcess& child = rec.child(parent, "worker", pid);
    child.inheritedPipeEnd(1, 1000, false).inheritedPipeEnd(2, 1000, true);
    child.inheritedPipeEnd(3, 1001, true).inheritedPipeEnd(4, 1001, false);
    child.inheritedPipeEnd(5, 2000 + k, true);
    for (int j = 1; j <= 3 && k - j >= 0; ++j) child.inheritedPipeEnd(5 + j, 2000 + k - j, false);
    if (k == 0) child.inheritedPipeEnd(9, 3000, false);
    w.push_back(&child);
  }
  for (int j = 0; j < 9; ++j) parent.send(5, "early " + std::to_string(j), 5'000'000 + 10 * j, 5'000'001 + 10 * j);
  for (int k = 0; k < workers; ++k)
    parent.send(1, "task " + std::to_string(k) + ";", Pool::kTasksSent + 10 * k, Pool::kTasksSent + 10 * k + 1);
  for (int k = 0; k < workers; ++k) {
    const int64_t at = 40'000'000 + 100 * k;
    w[k]->receive(1, "task " + std::to_string(k) + ";", at, at + 1);
    w[k]->send(3, "result " + std::to_string(k) + ";", at + 10, at + 11);
  }
  for (int k = 0; k < workers; ++k)
    parent.receive(4, "result " + std::to_string(k) + ";", Pool::kResultsReceived + 10 * k,
                   Pool::kResultsReceived + 10 * k + 1);
  for (int j = 0; j < 9; ++j) w[0]->receive(9, "early " + std::to_string(j), 85'000'000 + 10 * j, 85'000'001 + 10 * j);
  for (int k = 0; k < workers; ++k) w[k]->exit(0, 90'000'000 + k);
  parent.exit(0, 99'000'000);
  return {rec.load()};
}

// The position just after the first event at or after `ns` (of any process).
uint32_t positionAtTime(const trace::Trace& t, int64_t ns) {
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].entry_ns >= ns) return i + 1;
  return static_cast<uint32_t>(t.events.size());
}

// No name overlaps another, a box, a queue's place or its count, or a
// queued message.
void expectLegible(const Scene& s, const std::string& where) {
  for (size_t i = 0; i < s.labels.size(); ++i) {
    const Rect& l = s.labels[i].box;
    for (size_t j = i + 1; j < s.labels.size(); ++j)
      ASSERT_FALSE(meet(l, s.labels[j].box)) << where << ": " << s.labels[i].text << " / " << s.labels[j].text;
    for (const ProcessBox& b : s.processes) ASSERT_FALSE(meet(l, b.box)) << where << ": " << s.labels[i].text;
    for (const PortMark& port : s.ports) {
      ASSERT_FALSE(meet(l, {port.at.x - 6, port.at.y - 6, 12, 12}))
          << where << ": " << s.labels[i].text << " on a port";
      for (uint32_t k = 0; k < port.room; ++k)
        ASSERT_FALSE(meet(l, queueSlot(port, k))) << where << ": " << s.labels[i].text << " on a queue";
      const Point count = queueSlot(port, port.room).center();
      ASSERT_FALSE(meet(l, {count.x - 13, count.y - 8, 26, 16})) << where << ": " << s.labels[i].text << " on a count";
    }
    for (const MessageBox& m : s.messages)
      ASSERT_FALSE(m.state == MessageBox::State::Queued && meet(l, m.box)) << where << ": " << s.labels[i].text;
  }
}

class Legible : public ::testing::TestWithParam<int> {};

TEST_P(Legible, NoNameCoversAnotherABoxAQueueOrACountGroupedOrNot) {
  const int workers = GetParam() - 1;
  const Pool pool = makePool(workers);
  const trace::Trace& t = *pool.trace;
  trace::DisplayModel display(t);
  SceneBuilder builder(t, display);
  const uint32_t tasks_queued = positionAtTime(t, Pool::kTasksSent + 10 * workers);
  const uint32_t results_back = positionAtTime(t, Pool::kResultsReceived + 10 * workers);
  for (bool grouped : {false, true}) {
    if (grouped && workers < 2) continue;  // one worker: nothing to group
    if (grouped) {
      ASSERT_EQ(builder.groupSiblings(2), 1u);
    }
    for (uint32_t at : {tasks_queued, results_back}) {
      const Scene s = builder.build(at, 1);
      const std::string where =
          std::to_string(workers + 1) + " processes" + (grouped ? ", grouped" : "") + ", at " + std::to_string(at);
      ASSERT_EQ(s.processes.size(), grouped ? 2u : size_t(workers + 1)) << where;
      ASSERT_FALSE(s.labels.empty()) << where;
      expectLegible(s, where);
      // Few enough lines to read: at most one a pair of boxes, and the
      // shared pipes only where they carried a task or a result.
      EXPECT_LE(s.bundles.size(), grouped ? 1u : size_t(workers) * 2) << where;
      // Where there is room for every name, every line has one.
      if (workers + 1 <= 10) {
        EXPECT_EQ(s.labels.size(), s.bundles.size()) << where;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Processes, Legible, ::testing::Values(2, 10, 30, 100, 1000));

// The channel of the pipe with inode `ino`.
uint32_t channelOf(const trace::Trace& t, uint64_t ino) {
  for (const auto& ep : t.endpoints)
    if (ep.ino == ino && ep.channel != kNone) return ep.channel;
  ADD_FAILURE() << "no pipe " << ino;
  return kNone;
}

// A pipe every worker inherited (open in every box) joins the parent to a
// worker once a task went down it to that worker, not every worker to
// every other; the parent's channels to a worker are one line, named once,
// the others counted.
TEST(Bundles, APipeEveryWorkerHoldsIsDrawnWhereItCarriedMessagesAndOneLineAPair) {
  const Pool pool = makePool(5);
  const trace::Trace& t = *pool.trace;
  trace::DisplayModel display(t);
  SceneBuilder builder(t, display);
  const uint32_t parent = processOfPid(t, 10), tasks = channelOf(t, 1000), results = channelOf(t, 1001);
  auto carries = [](const Scene& s, uint32_t channel) {
    return std::count_if(s.channels.begin(), s.channels.end(),
                         [&](const ChannelLine& line) { return line.channel == channel; });
  };
  // Before any task: every worker holds both pipes open, and no line is
  // drawn for them; a worker's own pipe to the parent is.
  const Scene before = builder.build(positionAtTime(t, Pool::kTasksSent) - 1, 1);
  ASSERT_EQ(before.processes.size(), 6u);
  EXPECT_EQ(carries(before, tasks), 0);
  EXPECT_EQ(carries(before, results), 0);
  EXPECT_EQ(carries(before, channelOf(t, 3000)), 1) << "two holders: a line whatever was sent";
  // Once every result is back: the parent to each worker, each line its
  // tasks and results bundled (worker 0's own pipe too).
  const Scene after = builder.build(positionAtTime(t, Pool::kResultsReceived + 50), 1);
  EXPECT_EQ(carries(after, tasks), 5);
  EXPECT_EQ(carries(after, results), 5);
  size_t to_parent = 0;
  for (const ChannelBundle& b : after.bundles) {
    if (b.from != parent && b.to != parent) {
      // Between workers: only a sentinel two of them hold, never a task or a result.
      EXPECT_TRUE(std::find(b.channels.begin(), b.channels.end(), tasks) == b.channels.end());
      EXPECT_TRUE(std::find(b.channels.begin(), b.channels.end(), results) == b.channels.end());
      continue;
    }
    ++to_parent;
    const int32_t worker = t.processes[b.from == parent ? b.to : b.from].pid;
    EXPECT_EQ(b.channels.size(), 2u + (worker == 100)) << worker;
    // One curve for both ways: each line bundled goes where the bundle is drawn.
    for (const ChannelLine& line : after.channels) {
      if ((line.from == b.from && line.to == b.to) || (line.from == b.to && line.to == b.from)) {
        EXPECT_NEAR(onCurve(line.a, line.control, line.b, 0.5).y, onCurve(b.a, b.control, b.b, 0.5).y, 1e-6);
      }
    }
  }
  EXPECT_EQ(to_parent, 5u);
  for (const ChannelLabel& l : after.labels)
    EXPECT_TRUE(after.bundles[l.bundle].channels.size() == 1 || l.text.find(" +") != std::string::npos)
        << l.text << ": the others counted";
  // Hovering over a name or a line finds its bundle.
  ASSERT_FALSE(after.labels.empty());
  EXPECT_EQ(after.bundleAt(after.labels[0].box.center(), 1), after.labels[0].bundle);
  const ChannelBundle& b = after.bundles[0];
  const Point mid = onCurve(b.a, b.control, b.b, 0.5);
  EXPECT_EQ(after.bundleAt({mid.x + 2, mid.y + 2}, 4), size_t{0});
  EXPECT_EQ(after.bundleAt({mid.x + 200, mid.y + 200}, 4), Scene::kNoBundle);
}

TEST(Labels, ShortNamesKeepWhatTellsChannelsApart) {
  EXPECT_EQ(shortChannelName("tcp 127.0.0.1:40924 - 127.0.0.1:80"), ":40924 \u2192 :80");
  EXPECT_EQ(shortChannelName("tcp [::1]:5432 - [::1]:51000"), ":5432 \u2192 :51000");
  EXPECT_EQ(shortChannelName("tcp 0.0.0.0:80"), "tcp :80");
  EXPECT_EQ(shortChannelName("udp 127.0.0.1:53"), "udp :53");
  EXPECT_EQ(shortChannelName("unix socket /run/postgresql/.s.PGSQL.5432"), "unix socket .s.PGSQL.5432");
  EXPECT_EQ(shortChannelName("unix socket /tmp/s \u2190 client[12]"), "unix socket s");
  EXPECT_EQ(shortChannelName("fifo /tmp/work/requests"), "fifo requests");
  EXPECT_EQ(shortChannelName("pipe 3"), "pipe 3");
  EXPECT_EQ(shortChannelName("socketpair 2"), "socketpair 2");
}

TEST(Labels, APlaceIsTakenOnlyWhereNothingIs) {
  Occupied occupied;
  const Point a{0, 0}, b{200, 0}, control{100, 0};
  occupied.add({60, -40, 80, 80});  // a box over the middle, both sides
  const auto first = placeBesideCurve(occupied, a, control, b, 40, 10);
  ASSERT_TRUE(first);
  EXPECT_FALSE(meet(*first, {60, -40, 80, 80}));
  const auto second = placeBesideCurve(occupied, a, control, b, 40, 10);
  ASSERT_TRUE(second);
  EXPECT_FALSE(meet(*first, *second));
  // Clear of the line: above it or below it, never across.
  for (const Rect& r : {*first, *second}) EXPECT_TRUE(r.y + r.h <= 0 || r.y >= 0);
  occupied.add({-1000, -1000, 2000, 2000});
  EXPECT_FALSE(placeBesideCurve(occupied, a, control, b, 40, 10)) << "no room: no name";
}

// Placing every name of a thousand processes' scene is part of building a
// frame: it must not cost a frame (the benchmark has the figure).
TEST(Labels, AThousandProcessesSceneIsBuiltWithItsNames) {
  const Pool pool = makePool(999);
  trace::DisplayModel display(*pool.trace);
  SceneBuilder builder(*pool.trace, display);
  const Scene s = builder.build(positionAtTime(*pool.trace, Pool::kResultsReceived + 10 * 999), 1);
  EXPECT_EQ(s.processes.size(), 1000u);
  EXPECT_GT(s.labels.size(), 100u);
}

// The view opens fitted on every box, from the first frame, and fits again
// when its size changes, until the user zooms.
TEST(Fit, EveryBoxIsInViewFromTheFirstFrameAndAfterAResize) {
  MainWindow window(makePool(19).trace);
  window.setInteractive(false);
  window.show();
  QApplication::processEvents();
  NetworkView& view = window.networkView();
  EXPECT_FALSE(view.scene().processes.empty()) << "the first frame shows the first process";
  window.controller().skipTo(positionAtTime(window.trace(), Pool::kTasksSent));  // every worker started
  QApplication::processEvents();
  auto everyBoxInView = [&](const char* when) {
    const Scene& s = view.scene();
    ASSERT_EQ(s.processes.size(), 20u) << when;
    for (const ProcessBox& b : s.processes) {
      const QRectF r(view.toWidget({b.box.x, b.box.y}), QSizeF(b.box.w * view.zoom(), b.box.h * view.zoom()));
      EXPECT_TRUE(QRectF(view.rect()).contains(r)) << when << ": " << b.name << " " << b.pid;
    }
  };
  everyBoxInView("on open");
  window.resize(900, 700);
  QApplication::processEvents();
  everyBoxInView("after a resize");
  view.zoomBy(2);
  const double zoomed = view.zoom();
  window.resize(1000, 760);
  QApplication::processEvents();
  EXPECT_DOUBLE_EQ(view.zoom(), zoomed) << "a view the user zoomed is kept";
}

// The legend folds to its title at a click on it, and folds by itself where
// the view is too short for it; open or folded, the fitted view keeps every
// box clear of it.
TEST(Legend, FoldsAtAClickOrWhenShortAndNeverCoversABox) {
  MainWindow window(makePool(9).trace);
  window.setInteractive(false);
  window.show();
  window.controller().skipTo(positionAtTime(window.trace(), Pool::kTasksSent));
  QApplication::processEvents();
  NetworkView& view = window.networkView();
  auto clear = [&](const char* when) {
    const QRect legend = view.legendFrame();
    for (const ProcessBox& b : view.scene().processes) {
      const QRectF r(view.toWidget({b.box.x, b.box.y}), QSizeF(b.box.w * view.zoom(), b.box.h * view.zoom()));
      EXPECT_FALSE(r.intersects(legend)) << when << ": " << b.name << " " << b.pid;
    }
  };
  view.resize(900, 500);
  QApplication::processEvents();
  ASSERT_FALSE(view.legendFolded()) << "room for it open";
  clear("open");
  const int open_height = view.legendFrame().height();
  QTest::mouseClick(&view, Qt::LeftButton, {}, view.legendFrame().topLeft() + QPoint(20, 6));
  EXPECT_TRUE(view.legendFolded());
  EXPECT_LT(view.legendFrame().height(), open_height / 4);
  clear("folded");
  QTest::mouseClick(&view, Qt::LeftButton, {}, view.legendFrame().topLeft() + QPoint(20, 6));
  EXPECT_FALSE(view.legendFolded());
  view.resize(900, 200);
  QApplication::processEvents();
  EXPECT_TRUE(view.legendFolded()) << "too short for it open";
  clear("short");
  // Opened by the user all the same, it stays open; and a click on its
  // title picks nothing under it.
  QSignalSpy picked(&view, &NetworkView::messageClicked);
  QTest::mouseClick(&view, Qt::LeftButton, {}, view.legendFrame().topLeft() + QPoint(20, 6));
  EXPECT_FALSE(view.legendFolded());
  EXPECT_EQ(picked.count(), 0);
}

}  // namespace
}  // namespace radar::app
