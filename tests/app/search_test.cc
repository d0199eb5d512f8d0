// Search over message contents and the narrative: text (any case), hex
// bytes, regular expressions; next and previous round the run; matches
// marked on the timeline; the window's Find box. Headless.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QLineEdit>
#include <QTest>
#include <algorithm>

#include "app/content_search.h"
#include "app/main_window.h"
#include "app/message_text.h"
#include "app/models.h"
#include "app/spacetime_view.h"
#include "fake_recording.h"
#include "log/kinds.h"

namespace radar::gui {
namespace {

using radar::testing::FakeRecording;
using trace::kNone;

// client[100] asks server[200] for four colours over a socket pair; the
// server answers each. Three answers name green, in two cases.
std::unique_ptr<trace::Trace> colours() {
  FakeRecording rec;
  auto& client = rec.process("client", 100).socketEnd(1, 1, 2);
  auto& server = rec.process("server", 200).socketEnd(1, 2, 1);
  const char* answers[] = {"colour=green", "colour=red", "GREEN light", "colour=green"};
  int64_t now = 10;
  for (const char* a : answers) {
    client.send(1, "get", now, now + 1);
    server.receive(1, "get", now + 2, now + 3);
    server.send(1, a, now + 4, now + 5);
    client.receiveKeeping(1, a, now + 6, now + 7);  // found once, at the send
    now += 10;
  }
  client.exit(0, now);
  server.exit(0, now + 1);
  return rec.load();
}

// The sends whose bytes are one of `texts`, by position.
std::vector<uint32_t> sendsOf(const trace::Trace& t, std::initializer_list<const char*> texts) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    if (log::categoryOf(t.events[i].eventKind()) != log::Category::Send) continue;
    std::string bytes, error;
    if (!t.payload(i, &bytes, &error)) continue;
    for (const char* x : texts)
      if (bytes == x) out.push_back(i);
  }
  return out;
}

std::vector<uint32_t> search(ContentSearch& s, const QString& pattern, ContentSearch::Mode mode) {
  QString error;
  EXPECT_TRUE(s.start(pattern, mode, &error)) << error.toStdString();
  s.finish();
  EXPECT_FALSE(s.running());
  return s.matches();
}

TEST(ContentSearch, TextHexAndExpressionsFindTheMessagesThatHoldThem) {
  auto t = colours();
  trace::Narrator narrator(*t);
  ContentSearch s(*t, narrator);
  const auto green = sendsOf(*t, {"colour=green", "GREEN light"});
  ASSERT_EQ(green.size(), 3u);
  EXPECT_EQ(search(s, QStringLiteral("green"), ContentSearch::Mode::Text), green);  // any case
  EXPECT_EQ(search(s, QStringLiteral("67 72 65 65 6e"), ContentSearch::Mode::Hex),
            sendsOf(*t, {"colour=green"}));  // the bytes as they are
  EXPECT_EQ(search(s, QStringLiteral("0x47524545"), ContentSearch::Mode::Hex), sendsOf(*t, {"GREEN light"}));
  EXPECT_EQ(search(s, QStringLiteral("colour=(gr|r)e+[nd]$"), ContentSearch::Mode::Regex),
            sendsOf(*t, {"colour=green", "colour=red"}));
  EXPECT_TRUE(search(s, QStringLiteral("purple"), ContentSearch::Mode::Text).empty());
  // The narrative too: every event that names the server.
  const auto named = search(s, QStringLiteral("server[200]"), ContentSearch::Mode::Text);
  ASSERT_EQ(named.size(), t->events.size() - 1) << "all but the client's exit";
  for (uint32_t i = 0; i < t->events.size(); ++i)
    if (!std::binary_search(named.begin(), named.end(), i)) {
      EXPECT_EQ(t->events[i].eventKind(), log::Kind::Exit);
    }
  // Bad patterns are refused with a reason.
  QString error;
  EXPECT_FALSE(s.start(QStringLiteral("abc"), ContentSearch::Mode::Hex, &error));
  EXPECT_TRUE(error.contains(QStringLiteral("hex"))) << error.toStdString();
  EXPECT_FALSE(s.start(QStringLiteral("colour=("), ContentSearch::Mode::Regex, &error));
  EXPECT_TRUE(error.contains(QStringLiteral("regular expression"))) << error.toStdString();
  EXPECT_TRUE(s.matches().empty());
}

TEST(ContentSearch, NextAndPreviousGoRoundTheRun) {
  auto t = colours();
  trace::Narrator narrator(*t);
  ContentSearch s(*t, narrator);
  const auto m = search(s, QStringLiteral("green"), ContentSearch::Mode::Text);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(s.nextAfter(kNone), m[0]);
  EXPECT_EQ(s.nextAfter(m[0]), m[1]);
  EXPECT_EQ(s.nextAfter(m[1] - 1), m[1]);
  EXPECT_EQ(s.nextAfter(m[2]), m[0]);  // round
  EXPECT_EQ(s.previousBefore(m[1]), m[0]);
  EXPECT_EQ(s.previousBefore(m[0]), m[2]);  // round
  s.clear();
  EXPECT_EQ(s.nextAfter(0), kNone);
}

// It runs in slices on the event loop: matches come as they are found,
// then it ends.
TEST(ContentSearch, RunsOnTheEventLoopAndSaysWhenItEnds) {
  auto t = colours();
  trace::Narrator narrator(*t);
  ContentSearch s(*t, narrator);
  int changes = 0, ends = 0;
  QObject::connect(&s, &ContentSearch::matchesChanged, [&] { ++changes; });
  QObject::connect(&s, &ContentSearch::finished, [&] { ++ends; });
  ASSERT_TRUE(s.start(QStringLiteral("green"), ContentSearch::Mode::Text, nullptr));
  EXPECT_TRUE(s.running());
  for (int k = 0; k < 100 && s.running(); ++k) QApplication::processEvents();
  EXPECT_FALSE(s.running());
  EXPECT_EQ(s.matches().size(), 3u);
  EXPECT_GE(changes, 1);
  EXPECT_EQ(ends, 1);
  EXPECT_DOUBLE_EQ(s.progress(), 1.0);
}

// The window: typing in the Find box and Enter goes to the first match;
// Enter again to the next; Shift+Enter back; the matches are marked on
// the timeline; a bad expression is said in red.
TEST(WindowFind, TheFindBoxGoesFromMatchToMatchAndMarksThemOnTheTimeline) {
  auto trace = colours();
  const auto green = sendsOf(*trace, {"colour=green", "GREEN light"});
  MainWindow window(std::move(trace));
  window.setInteractive(false);
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1280, 860);
  window.show();
  QApplication::processEvents();
  auto* box = window.findChild<QLineEdit*>(QStringLiteral("find"));
  ASSERT_TRUE(box);
  box->setFocus();
  QTest::keyClicks(box, QStringLiteral("green"));
  QTest::keyClick(box, Qt::Key_Return);
  for (int k = 0; k < 100 && window.contentSearch().running(); ++k) QApplication::processEvents();
  ASSERT_EQ(window.contentSearch().matches(), green);
  EXPECT_EQ(window.controller().position(), green[0] + 1) << "on the first match";
  EXPECT_EQ(window.findStatus(), QStringLiteral("match 1 of 3"));
  window.spaceTimeView().showWholeRun();
  EXPECT_EQ(window.spaceTimeView().markXs().size(), 3u);
  QTest::keyClick(box, Qt::Key_Return);
  EXPECT_EQ(window.controller().position(), green[1] + 1);
  QTest::keyClick(box, Qt::Key_Return, Qt::ShiftModifier);
  EXPECT_EQ(window.controller().position(), green[0] + 1);
  window.findPrevious();  // round to the last
  EXPECT_EQ(window.controller().position(), green[2] + 1);
  EXPECT_EQ(window.findStatus(), QStringLiteral("match 3 of 3"));
  QString error;
  EXPECT_FALSE(window.find(QStringLiteral("gr(een"), ContentSearch::Mode::Regex, &error));
  EXPECT_EQ(window.findStatus(), error);
  EXPECT_TRUE(window.spaceTimeView().markXs().empty());
  // Cleared: no marks, no status.
  ASSERT_TRUE(window.find(QStringLiteral("green"), ContentSearch::Mode::Text));
  window.contentSearch().finish();
  box->clear();
  EXPECT_TRUE(window.contentSearch().matches().empty());
  EXPECT_TRUE(window.spaceTimeView().markXs().empty());
}

// Wireshark's Follow Stream: the channel's messages, both ways, in order.
TEST(WindowFollow, AChannelsWholeStreamBothWaysInOrder) {
  auto trace = colours();
  const auto& t = *trace;
  const uint32_t first_get = sendsOf(t, {"get"}).front();
  MainWindow window(std::move(trace));
  window.setInteractive(false);
  const QString text = window.followChannel(first_get);
  EXPECT_TRUE(text.contains(QStringLiteral("8 messages, 57 bytes"))) << text.toStdString();
  EXPECT_EQ(text.count(QStringLiteral("── event ")), 8);
  EXPECT_EQ(text.count(QStringLiteral("client[100] → server[200], 3 bytes")), 4);
  EXPECT_EQ(text.count(QStringLiteral("server[200] → client[100]")), 4);
  // In the story's order: each answer after the question it answers.
  qsizetype at = 0;
  for (const char* x : {"get", "colour=green", "get", "colour=red", "get", "GREEN light", "get", "colour=green"}) {
    const qsizetype next = text.indexOf(QString::fromLatin1(x), at);
    ASSERT_GE(next, 0) << x;
    at = next + 1;
  }
  EXPECT_TRUE(window.followChannel(kNone).isEmpty());
}

// A user event's data is shown as a message's contents are.
TEST(WindowFollow, AUserEventsDataIsShown) {
  FakeRecording rec;
  rec.process("worker", 7).user("progress", 10, "step=3 of 9").exit(0, 20);
  auto trace = rec.load();
  MainWindow window(std::move(trace));
  window.setInteractive(false);
  window.showMessage(0);
  const QString text = window.lastMessageText();
  EXPECT_TRUE(text.contains(QStringLiteral("announces progress (11 bytes)"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("step=3 of 9"))) << text.toStdString();
  EXPECT_FALSE(text.contains(QStringLiteral("received"))) << text.toStdString();
}

// The message window's tree: decoded lines nested by their indentation.
TEST(MessageTree, DecodedLinesNestByIndentation) {
  const auto tree = indentTree(
      "length 20, Request\n  put:\n    key = \"c2.colour\"\n    value = \"green\"\n"
      "  sequence = 4\n\nlength 2, Response\n  ok = true\n}\n");
  ASSERT_EQ(tree.size(), 2u);
  EXPECT_EQ(tree[0].text, "length 20, Request");
  ASSERT_EQ(tree[0].children.size(), 2u);
  EXPECT_EQ(tree[0].children[0].text, "put:");
  ASSERT_EQ(tree[0].children[0].children.size(), 2u);
  EXPECT_EQ(tree[0].children[0].children[1].text, "value = \"green\"");
  EXPECT_EQ(tree[0].children[1].text, "sequence = 4");
  EXPECT_EQ(tree[1].text, "length 2, Response");
  ASSERT_EQ(tree[1].children.size(), 1u);
  EXPECT_TRUE(indentTree("").empty());
  // Deeper then shallower but not to the top: a sibling of the deeper one's parent's child.
  const auto odd = indentTree("a\n      b\n  c\n");
  ASSERT_EQ(odd.size(), 1u);
  ASSERT_EQ(odd[0].children.size(), 2u);
  EXPECT_EQ(odd[0].children[1].text, "c");
}

// The event filter: what a call is (kind:receive) and the bytes it moved
// (bytes>5) keep rows of the table, and the timeline dims the others.
TEST(EventFilter, WhatACallIsAndItsBytesFilterTheTableAndDimTheTimeline) {
  auto trace = colours();
  MainWindow window(std::move(trace));
  window.setInteractive(false);
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1280, 860);
  window.show();
  QApplication::processEvents();
  const auto& t = window.trace();
  QAbstractItemModelTester tester(&window.eventModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  auto* box = window.findChild<QLineEdit*>(QStringLiteral("filter"));
  ASSERT_TRUE(box);
  QTest::keyClicks(box, QStringLiteral("kind:receive bytes>5"));
  QTest::keyClick(box, Qt::Key_Return);
  // The client's four answers; not the server's "get"s.
  ASSERT_EQ(window.eventModel().rowCount(), 4);
  for (int row = 0; row < 4; ++row) {
    const auto& e = t.events[window.eventModel().positionOf(row)];
    EXPECT_EQ(log::categoryOf(e.eventKind()), log::Category::Receive);
    EXPECT_GT(e.value, 5u);
  }
  window.spaceTimeView().showWholeRun();
  size_t dimmed = 0;
  for (const auto& d : window.spaceTimeView().dots()) dimmed += d.dimmed;
  EXPECT_EQ(dimmed, t.events.size() - 4);
  window.eventModel().setFilter(QStringLiteral("bytes=3"));
  EXPECT_EQ(window.eventModel().rowCount(), 8) << "each get, sent and received (3 bytes)";
  window.eventModel().setFilter(QStringLiteral("bytes<=3 kind:send"));
  EXPECT_EQ(window.eventModel().rowCount(), 4);
  // Cleared: nothing dimmed.
  box->clear();
  for (const auto& d : window.spaceTimeView().dots()) EXPECT_FALSE(d.dimmed);
}

// The Time column follows the story: a call that waited for another
// process (a wait for a child, a read of a pipe) is told when it returned,
// after what it waited for, so the column never goes back.
TEST(EventTable, TheTimeColumnNeverGoesBack) {
  FakeRecording rec;
  auto& parent = rec.process("parent", 1);
  parent.pipeEnd(1, 7, false).fork(2, 10, 11);
  auto& child = rec.child(parent, "child", 2);
  child.pipeEnd(1, 7, true).send(1, "late", 50, 51).exit(0, 90);
  parent.receive(1, "late", 20, 60).wait(2, 0, 61, 100).exit(0, 110);
  auto t = rec.load();
  trace::Narrator narrator(*t);
  EventTableModel model(*t, narrator);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  double last = -1;
  for (int row = 0; row < model.rowCount(); ++row) {
    const double time = model.index(row, EventTableModel::Time).data().toString().toDouble();
    EXPECT_GE(time, last) << "row " << row;
    last = time;
  }
  // The read is told at its return (60 ns after the fork's start), not its entry.
  uint32_t read = kNone;
  for (uint32_t i = 0; i < t->events.size(); ++i)
    if (t->events[i].eventKind() == log::Kind::Read) read = i;
  ASSERT_NE(read, kNone);
  const int row = model.rowOf(read);
  EXPECT_EQ(model.index(row, EventTableModel::Time).data().toString(),
            QString::number(static_cast<double>(t->wallReturnTime(read) - t->wallTime(0)) / 1e9, 'f', 6));
  EXPECT_TRUE(
      model.index(row, EventTableModel::Time).data(Qt::ToolTipRole).toString().contains(QStringLiteral("began")));
}

}  // namespace
}  // namespace radar::gui
