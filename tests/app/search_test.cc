// Search over message contents and the narrative: text (any case), hex
// bytes, regular expressions; next and previous round the run; matches
// marked on the timeline; the window's Find box. Headless.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QTest>
#include <algorithm>
#include <cerrno>

#include "app/content_search.h"
#include "app/main_window.h"
#include "app/message_text.h"
#include "app/message_window.h"
#include "app/models.h"
#include "app/network_view.h"
#include "app/palette.h"
#include "app/spacetime_view.h"
#include "binding/binding.h"
#include "fake_recording.h"
#include "log/kinds.h"
#include "netdesc/decode.h"

namespace radar::app {
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

// The window as a user gets it, off screen.
void showHeadless(MainWindow& window) {
  window.setInteractive(false);
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1280, 860);
  window.show();
  QApplication::processEvents();
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
  analysis::Narrator narrator(*t);
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

// Where the pattern stands in one message's bytes, as the search matched
// it: any case for text, the bytes as they are for hex, each byte one
// character for an expression; nothing once cleared.
TEST(ContentSearch, TheRangesOfAMatchInAMessagesBytes) {
  auto t = colours();
  analysis::Narrator narrator(*t);
  ContentSearch s(*t, narrator);
  using Ranges = std::vector<std::pair<size_t, size_t>>;
  EXPECT_TRUE(s.rangesIn("green GREEN").empty()) << "nothing searched for";
  search(s, QStringLiteral("Green"), ContentSearch::Mode::Text);
  EXPECT_EQ(s.rangesIn("green, GREEN and gReEn"), (Ranges{{0, 5}, {7, 5}, {17, 5}}));
  search(s, QStringLiteral("47 52"), ContentSearch::Mode::Hex);
  EXPECT_EQ(s.rangesIn("green GREEN"), (Ranges{{6, 2}}));
  search(s, QStringLiteral("e+n"), ContentSearch::Mode::Regex);
  EXPECT_EQ(s.rangesIn("green teen"), (Ranges{{2, 3}, {7, 3}}));
  s.clear();
  EXPECT_TRUE(s.rangesIn("green").empty());
}

// Opened after a search, a message shows where the pattern is in its bytes,
// the first match in view; a field picked in the tree is marked beside it.
TEST(WindowFind, TheMatchIsMarkedInTheOpenedMessage) {
  auto trace = colours();
  const auto light = sendsOf(*trace, {"GREEN light"});
  ASSERT_EQ(light.size(), 1u);
  MainWindow window(std::move(trace));
  showHeadless(window);
  ASSERT_TRUE(window.find(QStringLiteral("light"), ContentSearch::Mode::Text));
  window.contentSearch().finish();
  window.setInteractive(true);
  window.showMessage(light[0]);
  auto* message = window.findChild<MessageWindow*>();
  ASSERT_NE(message, nullptr);
  using Ranges = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(message->matchedBytes(), (Ranges{{6, 5}}));
  // In the hex columns and in the text column: what those bytes are there.
  const auto selections = message->hex()->extraSelections();
  ASSERT_EQ(selections.size(), 2);
  EXPECT_EQ(selections[1].cursor.selectedText(), QStringLiteral("light"));
  EXPECT_EQ(selections[0].cursor.selectedText().remove(QLatin1Char(' ')), QStringLiteral("6c69676874"));
  message->close();
  window.setInteractive(false);
}

// Hovering over a message shows its sentence and its first bytes.
TEST(WindowFind, AMessageShowsItsFirstBytesOnHover) {
  auto trace = colours();
  analysis::Narrator narrator(*trace);
  const auto light = sendsOf(*trace, {"GREEN light"});
  ASSERT_EQ(light.size(), 1u);
  const std::string tip = messageTip(*trace, narrator, nullptr, light[0]);
  EXPECT_NE(tip.find(narrator.sentence(light[0])), std::string::npos) << tip;
  EXPECT_NE(tip.find("GREEN light"), std::string::npos) << tip;
}

TEST(ContentSearch, NextAndPreviousGoRoundTheRun) {
  auto t = colours();
  analysis::Narrator narrator(*t);
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
  analysis::Narrator narrator(*t);
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
  showHeadless(window);
  auto* box = window.findChild<QLineEdit*>(QStringLiteral("find"));
  ASSERT_TRUE(box);
  box->setFocus();
  QTest::keyClicks(box, QStringLiteral("green"));
  QTest::keyClick(box, Qt::Key_Return);
  for (int k = 0; k < 100 && window.contentSearch().running(); ++k) QApplication::processEvents();
  ASSERT_EQ(window.contentSearch().matches(), green);
  EXPECT_EQ(window.controller().position(), green[0] + 1) << "on the first match";
  EXPECT_EQ(window.findStatus(), QStringLiteral("match 1 of 3"));
  window.spaceTimeView().timeline().showWholeRun();
  EXPECT_EQ(window.spaceTimeView().timeline().markXs().size(), 3u);
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
  EXPECT_TRUE(window.spaceTimeView().timeline().markXs().empty());
  // Cleared: no marks, no status.
  ASSERT_TRUE(window.find(QStringLiteral("green"), ContentSearch::Mode::Text));
  window.contentSearch().finish();
  box->clear();
  EXPECT_TRUE(window.contentSearch().matches().empty());
  EXPECT_TRUE(window.spaceTimeView().timeline().markXs().empty());
}

// A user's way through the window, by keys and mouse: open, play, pause,
// click a message (the replay freezes while it is open), find "green" and
// go to the next match, follow the channel, drag a box while paused (it
// moves at once).
TEST(WindowJourney, PlayPauseOpenAMessageFindFollowAndDrag) {
  auto trace = colours();
  const auto green = sendsOf(*trace, {"colour=green", "GREEN light"});
  MainWindow window(std::move(trace));
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1280, 860);
  window.show();
  QApplication::processEvents();
  ReplayController& c = window.controller();
  NetworkView& view = window.networkView();
  auto dialogs = [&] { return window.findChildren<QDialog*>(); };
  auto closeDialogs = [&] {
    for (QDialog* d : dialogs()) d->close();
    QApplication::processEvents();
  };

  // Play with Space, then pause with Space.
  window.activateWindow();
  QApplication::setActiveWindow(&window);  // its shortcuts work in the active window
  QTest::keyClick(&window, Qt::Key_Space);
  ASSERT_TRUE(c.playing());
  for (int k = 0; k < 40 && c.position() < 3; ++k) c.advance(0.5);
  EXPECT_GE(c.position(), 3u);
  QTest::keyClick(&window, Qt::Key_Space);
  EXPECT_FALSE(c.playing());

  // A message waiting in front of the server: clicked while playing, it
  // opens and the replay freezes; closed, it plays on.
  uint32_t queued = kNone;
  for (uint32_t p = 1; p <= window.trace().events.size() && queued == kNone; ++p) {
    c.skipTo(p);
    QApplication::processEvents();
    if (!view.scene().messages.empty() && view.scene().messages[0].state == MessageBox::State::Queued)
      queued = view.scene().messages[0].send;
  }
  ASSERT_NE(queued, kNone);
  QTest::keyClick(&window, Qt::Key_Space);
  ASSERT_TRUE(c.playing());
  // Picked by a click 15 px off its centre (beside the square, not on it).
  const QPoint at = view.toWidget(view.scene().messages[0].box.center()).toPoint() + QPoint(0, -15);
  const Rect square = view.scene().messages[0].box;
  const QPointF top_left = view.toWidget({square.x, square.y});
  const QPointF bottom_right = view.toWidget({square.x + square.w, square.y + square.h});
  ASSERT_FALSE(QRectF(top_left, bottom_right).contains(at)) << "a click beside the square";
  QTest::mouseClick(&view, Qt::LeftButton, {}, at);
  EXPECT_FALSE(c.playing()) << "frozen while the message is open";
  ASSERT_EQ(window.findChildren<MessageWindow*>().size(), 1u);
  EXPECT_EQ(window.findChildren<MessageWindow*>()[0]->windowTitle(),
            QStringLiteral("Message of event %1").arg(queued + 1));
  const uint32_t frozen = c.position();
  c.advance(5);
  EXPECT_EQ(c.position(), frozen);
  closeDialogs();
  EXPECT_TRUE(c.playing()) << "plays on once it is closed";
  QTest::keyClick(&window, Qt::Key_Space);
  EXPECT_FALSE(c.playing());

  // From the start, find "green" (Ctrl+F), Enter for the first match after
  // the current event, and Enter again for the next.
  c.skipTo(0);
  auto* box = window.findChild<QLineEdit*>(QStringLiteral("find"));
  ASSERT_TRUE(box);
  QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
  box->setFocus();  // offscreen, no window manager gives it focus
  QTest::keyClicks(box, QStringLiteral("green"));
  QTest::keyClick(box, Qt::Key_Return);
  for (int k = 0; k < 100 && window.contentSearch().running(); ++k) QApplication::processEvents();
  QTest::keyClick(box, Qt::Key_Return);
  EXPECT_EQ(window.findStatus(), QStringLiteral("match 2 of 3"));
  EXPECT_EQ(c.position(), green[1] + 1);

  // Follow the channel of that match: its whole stream, both ways.
  window.followChannel(green[1]);
  bool followed = false;
  for (QDialog* d : dialogs())
    if (d->windowTitle().startsWith(QStringLiteral("Follow channel"))) {
      const auto* text = d->findChild<QPlainTextEdit*>();
      ASSERT_TRUE(text);
      EXPECT_TRUE(text->toPlainText().contains(QStringLiteral("GREEN light")));
      EXPECT_TRUE(text->toPlainText().contains(QStringLiteral("get")));
      followed = true;
    }
  EXPECT_TRUE(followed);
  closeDialogs();

  // Drag a box while paused: it moves at once, no step needed.
  ASSERT_FALSE(c.playing());
  const uint32_t position = c.position();
  ASSERT_FALSE(view.scene().processes.empty());
  const ProcessBox moved = view.scene().processes[0];
  const QPoint from = view.toWidget({moved.box.x + 10, moved.box.y + moved.box.h - 8}).toPoint();
  const QPoint to = from + QPoint(60, 40);
  QTest::mousePress(&view, Qt::LeftButton, {}, from);
  QMouseEvent move(QEvent::MouseMove, QPointF(to), view.mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
                   Qt::NoModifier);
  QApplication::sendEvent(&view, &move);
  QTest::mouseRelease(&view, Qt::LeftButton, {}, to);
  const ProcessBox* now = view.scene().box(moved.process);
  ASSERT_TRUE(now);
  EXPECT_NEAR(now->box.x, moved.box.x + 60 / view.zoom(), 1e-6);
  EXPECT_NEAR(now->box.y, moved.box.y + 40 / view.zoom(), 1e-6);
  EXPECT_EQ(c.position(), position);
  window.networkView().fitToView();
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

// Where bytes stand in the hex dump: every range of hexDumpRanges() holds
// exactly those bytes, in hex and as ASCII, whatever line they start on.
TEST(MessageWindow, HexRangesHoldTheirBytes) {
  std::string bytes;
  for (int i = 0; i < 100; ++i) bytes += static_cast<char>(i * 37 + 5);
  const std::string dump = netdesc::hexDump(bytes);
  for (size_t offset : {0u, 5u, 7u, 8u, 15u, 16u, 31u, 90u})
    for (size_t length : {1u, 2u, 9u, 17u, 40u}) {
      if (offset + length > bytes.size()) continue;
      const auto ranges = hexDumpRanges(offset, length, 1 << 16);
      ASSERT_EQ(ranges.size() % 2, 0u);
      std::string hex_seen, ascii_seen, hex_want, ascii_want;
      for (size_t k = 0; k < ranges.size(); k += 2) {
        hex_seen += dump.substr(ranges[k].first, ranges[k].second) + " ";
        ascii_seen += dump.substr(ranges[k + 1].first, ranges[k + 1].second);
      }
      char b[4];
      for (size_t k = offset; k < offset + length; ++k) {
        const unsigned char c = static_cast<unsigned char>(bytes[k]);
        std::snprintf(b, sizeof(b), "%02x", c);
        hex_want += b;
        ascii_want += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '.';
      }
      // The hex columns: the bytes' hex with the dump's spaces between.
      std::string packed;
      for (char c : hex_seen)
        if (c != ' ') packed += c;
      EXPECT_EQ(packed, hex_want) << offset << "+" << length;
      EXPECT_EQ(ascii_seen, ascii_want) << offset << "+" << length;
      EXPECT_EQ(ranges.size(), 2 * ((offset + length - 1) / 16 - offset / 16 + 1));
    }
  EXPECT_TRUE(hexDumpRanges(10, 0, 1 << 16).empty());
  EXPECT_TRUE(hexDumpRanges(70, 10, 64).empty());  // past what the dump shows
}

// The event filter: what a call is (kind:receive) and the bytes it moved
// (bytes>5) keep rows of the table, and the timeline dims the others.
TEST(EventFilter, WhatACallIsAndItsBytesFilterTheTableAndDimTheTimeline) {
  auto trace = colours();
  MainWindow window(std::move(trace));
  showHeadless(window);
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
  window.spaceTimeView().timeline().showWholeRun();
  size_t dimmed = 0;
  for (const auto& d : window.spaceTimeView().timeline().dots()) dimmed += d.dimmed;
  EXPECT_EQ(dimmed, t.events.size() - 4);
  // An arrow with an end left out is faded as its dots are: here every one
  // (the sends are left out).
  ASSERT_FALSE(window.spaceTimeView().timeline().arrows().empty());
  for (const auto& a : window.spaceTimeView().timeline().arrows()) EXPECT_TRUE(a.dimmed) << a.from << " -> " << a.to;
  window.eventModel().setFilter(QStringLiteral("bytes=3"));
  EXPECT_EQ(window.eventModel().rowCount(), 8) << "each get, sent and received (3 bytes)";
  window.eventModel().setFilter(QStringLiteral("bytes<=3 kind:send"));
  EXPECT_EQ(window.eventModel().rowCount(), 4);
  // Cleared: nothing dimmed.
  box->clear();
  for (const auto& d : window.spaceTimeView().timeline().dots()) EXPECT_FALSE(d.dimmed);
  for (const auto& a : window.spaceTimeView().timeline().arrows()) EXPECT_FALSE(a.dimmed);
}

// "-word" leaves out what a word keeps, "or" keeps what either side
// keeps; the window says how many events the filter keeps, or why none.
TEST(EventFilter, NegationOrTheCountAndWhyNothingMatches) {
  MainWindow window(colours());
  showHeadless(window);
  const auto& t = window.trace();
  ASSERT_EQ(t.events.size(), 18u);
  auto* box = window.findChild<QLineEdit*>(QStringLiteral("filter"));
  auto* status = window.findChild<QLabel*>(QStringLiteral("filter-status"));
  ASSERT_TRUE(box && status);
  auto filter = [&](const QString& text) {
    box->setText(text);
    QTest::keyClick(box, Qt::Key_Return);
    std::vector<uint32_t> rows;
    for (int r = 0; r < window.eventModel().rowCount(); ++r) rows.push_back(window.eventModel().positionOf(r));
    return rows;
  };
  const auto client_sends = filter(QStringLiteral("kind:send -process:server"));
  ASSERT_EQ(client_sends.size(), 4u);
  for (uint32_t p : client_sends) EXPECT_EQ(t.processes[t.events[p].process].pid, 100);
  EXPECT_EQ(status->text(), QStringLiteral("4 of 18 events"));
  // The two exits, and the three answers longer than 10 bytes, each sent and received.
  EXPECT_EQ(filter(QStringLiteral("kind:exit OR bytes>10")).size(), 8u);
  EXPECT_EQ(filter(QStringLiteral("-kind:exit")).size(), 16u);
  EXPECT_EQ(filter(QStringLiteral("kind:exit or")).size(), 2u) << "a trailing or is no alternative";
  // Nothing kept: why.
  EXPECT_TRUE(filter(QStringLiteral("kind:send kind:waitt")).empty());
  EXPECT_EQ(status->text(), QStringLiteral("no event matches kind:waitt"));
  EXPECT_TRUE(filter(QStringLiteral("-e")).empty());
  EXPECT_EQ(status->text(), QStringLiteral("every event matches e"));
  EXPECT_TRUE(filter(QStringLiteral("process:client process:server")).empty());
  EXPECT_EQ(status->text(), QStringLiteral("each word matches events, but no event matches them together"));
  box->clear();
  EXPECT_EQ(window.eventModel().rowCount(), 18);
  EXPECT_TRUE(status->text().isEmpty());
}

// "Hide polls" leaves out the receives that found nothing and the waits
// for a child that found none ended, with the filter and the MPI library's
// box alike; the rest stays.
TEST(EventFilter, HidePollsLeavesOutWhatFoundNothing) {
  FakeRecording rec;
  auto& parent = rec.process("parent", 100).pipeEnd(1, 9, false);
  for (int k = 0; k < 3; ++k) parent.failedReceive(1, EAGAIN, 10 + k, 11 + k).wait(0, 0, 20 + k, 21 + k);
  parent.receive(1, "done", 40, 41).wait(200, 0, 50, 51).exit(0, 60);
  rec.process("child", 200).pipeEnd(1, 9, true).send(1, "done", 30, 31).exit(0, 35);
  MainWindow window(rec.load());
  showHeadless(window);
  const auto& t = window.trace();
  auto* hide = window.findChild<QCheckBox*>(QStringLiteral("hide-polls"));
  ASSERT_TRUE(hide);
  EXPECT_FALSE(hide->isChecked());
  ASSERT_EQ(window.eventModel().rowCount(), static_cast<int>(t.events.size()));
  hide->setChecked(true);
  ASSERT_EQ(window.eventModel().rowCount(), static_cast<int>(t.events.size()) - 6);
  for (int r = 0; r < window.eventModel().rowCount(); ++r)
    EXPECT_FALSE(EventTableModel::isPoll(t.events[window.eventModel().positionOf(r)])) << r;
  auto* status = window.findChild<QLabel*>(QStringLiteral("filter-status"));
  EXPECT_EQ(status->text(), QStringLiteral("%1 of %2 events").arg(t.events.size() - 6).arg(t.events.size()));
  size_t dimmed = 0;
  window.spaceTimeView().timeline().showWholeRun();
  for (const auto& d : window.spaceTimeView().timeline().dots()) dimmed += d.dimmed;
  EXPECT_EQ(dimmed, 6u);
  hide->setChecked(false);
  EXPECT_EQ(window.eventModel().rowCount(), static_cast<int>(t.events.size()));
}

// A writer sends four readings (a name, a count, three values) down a pipe;
// the reader reads each. A description types them.
struct Readings {
  std::unique_ptr<trace::Trace> trace;
  std::unique_ptr<netdesc::Binding> net;
};
Readings readings(bool described = true) {
  FakeRecording rec;
  auto& writer = rec.process("writer", 100);
  auto& reader = rec.process("reader", 200);
  writer.pipeEnd(1, 7, true);
  reader.pipeEnd(1, 7, false);
  struct R {
    const char* name;
    uint16_t count;
    uint8_t values[3];
  } const rs[] = {{"temp", 2, {1, 2, 3}}, {"rain", 5, {0, 0, 9}}, {"temp", 7, {4, 4, 4}}, {"wind", 3, {8, 1, 1}}};
  auto bytes = [](const R& r) {  // as the description's Reading: little-endian count
    std::string b(r.name, 4);
    b += static_cast<char>(r.count & 0xff);
    b += static_cast<char>(r.count >> 8);
    return b.append(reinterpret_cast<const char*>(r.values), 3);
  };
  int64_t now = 10;
  for (const R& r : rs) {
    writer.send(1, bytes(r), now, now + 1);
    now += 10;
  }
  for (const R& r : rs) {
    reader.receive(1, bytes(r), now, now + 1);
    now += 10;
  }
  writer.exit(0, now);
  reader.exit(0, now + 1);
  Readings out{rec.load(), nullptr};
  if (!described) return out;
  std::vector<netdesc::Problem> problems;
  std::shared_ptr<const netdesc::Description> d = netdesc::Description::parse(R"(
    process { name: "writer" match { program: "writer" } port { name: "out" direction: OUT fd: 3 type: "Reading" } }
    type { name: "Reading" template {
      field { name: "name" chars: 4 } field { name: "count" scalar: U16 } field { name: "values" scalar: U8 count: 3 } } }
  )",
                                                                              "/tmp/readings.netdesc", &problems);
  EXPECT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  std::vector<std::string> unmatched;
  out.net = netdesc::Binding::apply(d, *out.trace, &unmatched);
  out.trace->described = out.net->names();
  return out;
}

// field: words filter by decoded fields, sends and receives alike: by name
// and value, as numbers, any element of an array; the network view fades
// the messages of the events filtered out.
TEST(EventFilter, DecodedFieldsFilterTheTableAndFadeTheNetwork) {
  auto r = readings();
  MainWindow window(std::move(r.trace), std::move(r.net));
  showHeadless(window);
  EventTableModel& model = window.eventModel();
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  const auto& t = window.trace();
  auto rows = [&](const char* filter) {
    model.setFilter(QString::fromLatin1(filter));
    return model.rowCount();
  };
  EXPECT_EQ(rows("field:count>3"), 4);  // rain and the second temp, sent and received
  EXPECT_EQ(rows("field:name=temp"), 4);
  EXPECT_EQ(rows("field:NAME=TEMP kind:send"), 2);
  EXPECT_EQ(rows("field:values>=8"), 4);  // rain (9) and wind (8)
  EXPECT_EQ(rows("field:values=9 kind:send"), 1);
  EXPECT_EQ(rows("field:count!=3"), 6);
  EXPECT_EQ(rows("field:count"), 8);
  EXPECT_EQ(rows("field:Reading.count"), 0) << "a type's name is not a field";
  EXPECT_EQ(rows("field:unt>0"), 0) << "the end of a path is a whole name";
  EXPECT_EQ(rows("field:nothing"), 0);
  EXPECT_EQ(rows("field:name>1"), 0) << "text is not a number";
  // The filter box: the table, the timeline and the network view follow it.
  auto* box = window.findChild<QLineEdit*>(QStringLiteral("filter"));
  ASSERT_TRUE(box);
  box->clear();
  QTest::keyClicks(box, QStringLiteral("field:count>3"));
  QTest::keyClick(box, Qt::Key_Return);
  ASSERT_EQ(model.rowCount(), 4);
  const uint32_t writer = t.events[model.positionOf(0)].process;
  window.controller().skipTo(t.counter_events[writer].at(3) + 1);  // the four sends
  QApplication::processEvents();
  NetworkView& view = window.networkView();
  ASSERT_EQ(view.scene().messages.size(), 4u);
  const QImage image = view.grab().toImage();
  int kept = 0;
  for (const MessageBox& m : view.scene().messages) {
    const QPoint at = view.toWidget(m.box.center()).toPoint();
    const QColor seen = image.pixelColor(at * image.devicePixelRatio());
    const bool faded = seen != colors::kQueued;
    EXPECT_EQ(faded, !model.kept() || !std::binary_search(model.kept()->begin(), model.kept()->end(), m.send))
        << "message of event " << m.send + 1;
    kept += !faded;
  }
  EXPECT_EQ(kept, 2);
  // Without a description there are no fields to match.
  auto plain = readings(false);
  analysis::Narrator narrator(*plain.trace);
  EventTableModel undescribed(*plain.trace, narrator);
  undescribed.setFilter(QStringLiteral("field:count"));
  EXPECT_EQ(undescribed.rowCount(), 0);
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
  analysis::Narrator narrator(*t);
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
}  // namespace radar::app
