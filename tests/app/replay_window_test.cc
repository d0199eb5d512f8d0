// The replay over hand-made recordings with known answers: the scene (what
// is drawn where), the item models, the window's actions, and a rendering
// test that checks the grabbed image against the display state.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QIcon>
#include <QProcessEnvironment>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProcess>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <set>

#include "app/debug_launch.h"
#include "app/help_window.h"
#include "app/main_window.h"
#include "app/message_text.h"
#include "app/message_window.h"
#include "app/palette.h"
#include "app/replay_options.h"
#include "app/runs_window.h"
#include "app/scene.h"
#include "app/spacetime_view.h"
#include "binding/binding.h"
#include "fake_recording.h"
#include "netdesc/decode.h"

namespace radar::app {
namespace {

using radar::testing::FakeRecording;

// producer[100] writes "hello" then "world!" into a pipe; consumer[200],
// started first, reads "hello", later "world!", and both exit.
std::unique_ptr<trace::Trace> producerConsumer() {
  FakeRecording rec;
  auto& p = rec.process("producer", 100);
  auto& c = rec.process("consumer", 200);
  p.pipeEnd(1, 7, true).send(1, "hello", 10, 11).send(1, "world!", 20, 21).exit(0, 60);
  c.user("ready", 5).pipeEnd(1, 7, false).receive(1, "hello", 30, 31).receive(1, "world!", 40, 41).exit(0, 70);
  return rec.load();
}

uint32_t positionOf(const trace::Trace& t, int32_t pid, uint32_t counter) {
  for (const auto& p : t.processes)
    if (p.pid == pid) return t.counter_events[p.index].at(counter - 1);
  ADD_FAILURE() << "no process " << pid;
  return 0;
}

uint32_t processOf(const trace::Trace& t, int32_t pid) {
  for (const auto& p : t.processes)
    if (p.pid == pid) return p.index;
  return kNone;
}

// A program radar could not record has its box from the exec on, saying
// so (dashed, grey, "not recorded: why"), with its ports on the channels it
// holds.
TEST(Scene, AProgramRadarCouldNotRecordHasABoxThatSaysSo) {
  FakeRecording rec;
  auto& writer = rec.process("writer", 2);
  auto& shell = rec.process("sh", 3);
  writer.pipeEnd(1, 7, true).send(1, "hello", 10, 11).exit(0, 12);
  shell.pipeEnd(1, 7, false).user("about to exec", 15).exec("/opt/bin/upper", 20);
  rec.notRecorded(3, "/opt/bin/upper", "not recorded: statically linked");
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t exec = positionOf(*t, 3, 2);
  uint32_t unrecorded = kNone;
  for (const auto& p : t->processes)
    if (!p.not_recorded.empty()) unrecorded = p.index;
  ASSERT_NE(unrecorded, kNone);
  EXPECT_EQ(builder.build(exec, 1).box(unrecorded), nullptr);  // before the exec
  const Scene s = builder.build(static_cast<uint32_t>(t->events.size()), 1);
  const ProcessBox* box = s.box(unrecorded);
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->name, "upper");
  EXPECT_EQ(box->pid, 3);
  EXPECT_EQ(box->not_recorded, "not recorded: statically linked");
  EXPECT_EQ(box->inputs, 1u);  // the pipe it was given
  // Drawn grey, as the legend says.
  const auto legend = NetworkView::legend();
  EXPECT_TRUE(std::any_of(legend.begin(), legend.end(),
                          [](const NetworkView::LegendEntry& e) { return e.color == colors::kUnrecorded; }));
}

// A message for a program a shell has not exec'd yet (the reader of a
// pipeline before its exec) waits at the shell's box, which the program
// will take: not beside its sender.
TEST(Scene, AMessageForAnImageNotYetExecdWaitsAtItsChainsBox) {
  FakeRecording rec;
  auto& writer = rec.process("writer", 2);
  auto& shell = rec.process("sh", 3);
  writer.pipeEnd(1, 7, true).send(1, "hello", 10, 11).exit(0, 12);
  shell.user("about to exec", 5).exec("/usr/bin/cat", 20);
  rec.execed(shell, "cat").pipeEnd(1, 7, false).receive(1, "hello", 30, 31).exit(0, 32);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t send = positionOf(*t, 2, 1);
  const Scene s = builder.build(send + 1, 1);  // sent, the shell not exec'd yet
  ASSERT_EQ(s.messages.size(), 1u);
  uint32_t shell_image = kNone;
  for (const auto& p : t->processes)
    if (p.recorded_name == "sh") shell_image = p.index;
  const ProcessBox* sh = s.box(builder.boxProcess(shell_image));
  const ProcessBox* from = s.box(builder.boxProcess(processOf(*t, 2)));
  ASSERT_TRUE(sh && from);
  const Point m = s.messages[0].box.center(), a = from->box.center(), b = sh->box.center();
  const double to_writer = std::hypot(m.x - a.x, m.y - a.y), to_reader = std::hypot(m.x - b.x, m.y - b.y);
  EXPECT_LT(to_reader, to_writer) << "the message waits beside its sender";
}

TEST(Scene, QueuedMessagesWaitInFrontOfTheReceiversInputPortInSendOrder) {
  auto t = producerConsumer();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t second_send = positionOf(*t, 100, 2);
  const Scene s = builder.build(second_send + 1, 1);
  ASSERT_EQ(s.messages.size(), 2u);
  const uint32_t consumer = processOf(*t, 200);
  const ProcessBox* box = s.box(consumer);
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(s.messages[0].send, positionOf(*t, 100, 1));
  EXPECT_EQ(s.messages[1].send, second_send);
  const ProcessBox* producer = s.box(processOf(*t, 100));
  ASSERT_NE(producer, nullptr);
  auto outside = [](const Rect& m, const Rect& b) {
    return m.x + m.w <= b.x + 0.001 || b.x + b.w <= m.x + 0.001 || m.y + m.h <= b.y + 0.001 || b.y + b.h <= m.y + 0.001;
  };
  for (const auto& m : s.messages) {
    EXPECT_EQ(m.state, MessageBox::State::Queued);
    EXPECT_EQ(m.to_process, consumer);
    EXPECT_TRUE(outside(m.box, box->box) && outside(m.box, producer->box)) << "between the boxes";
  }
  // One input port on the consumer's border facing the producer, one
  // output port on the producer's facing the consumer; the head (sent
  // first, received next) nearest the input port.
  int inputs = 0, outputs = 0;
  Point input_at;
  for (const auto& port : s.ports) {
    const Point want =
        port.input ? borderToward(box->box, producer->box.center()) : borderToward(producer->box, box->box.center());
    EXPECT_NEAR(port.at.x, want.x, 1e-6);
    EXPECT_NEAR(port.at.y, want.y, 1e-6);
    if (port.input) {
      ++inputs;
      EXPECT_EQ(port.process, consumer);
      input_at = port.at;
    } else {
      ++outputs;
    }
  }
  auto distance = [&](const MessageBox& m) {
    return std::hypot(m.box.center().x - input_at.x, m.box.center().y - input_at.y);
  };
  EXPECT_LT(distance(s.messages[0]), distance(s.messages[1]));
  EXPECT_EQ(inputs, 1);
  EXPECT_EQ(outputs, 1);
  EXPECT_EQ(s.messageAt(s.messages[0].box.center()), s.messages[0].send);
  EXPECT_EQ(s.processAt(box->box.center()), consumer);
}

TEST(Scene, TheMessageBeingSentTravelsAndItsSenderIsHighlighted) {
  auto t = producerConsumer();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t send = positionOf(*t, 100, 1);
  const Scene start = builder.build(send + 1, 0), half = builder.build(send + 1, 0.5), end = builder.build(send + 1, 1);
  ASSERT_EQ(half.messages.size(), 1u);
  EXPECT_EQ(half.messages[0].state, MessageBox::State::Travelling);
  EXPECT_EQ(end.messages[0].state, MessageBox::State::Queued);
  // Half way between where it left and where it queues.
  EXPECT_NEAR(half.messages[0].box.x, (start.messages[0].box.x + end.messages[0].box.x) / 2, 0.001);
  EXPECT_TRUE(half.box(processOf(*t, 100))->active);
  EXPECT_FALSE(half.box(processOf(*t, 200))->active);
  // At rest after its event, the process that did it stays lit (a skip
  // lands there too), until the next event.
  EXPECT_TRUE(end.box(processOf(*t, 100))->active);
  EXPECT_FALSE(end.box(processOf(*t, 200))->active);
  const Scene after_receive = builder.build(positionOf(*t, 200, 2) + 1, 1);
  EXPECT_FALSE(after_receive.box(processOf(*t, 100))->active);
  EXPECT_TRUE(after_receive.box(processOf(*t, 200))->active);
}

TEST(Scene, AReceiveTakesTheHeadOfTheQueue) {
  auto t = producerConsumer();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t receive = positionOf(*t, 200, 2);
  const Scene during = builder.build(receive + 1, 0.5), after = builder.build(receive + 1, 1);
  int consumed = 0;
  for (const auto& m : during.messages) consumed += m.state == MessageBox::State::Consumed;
  EXPECT_EQ(consumed, 1);
  ASSERT_EQ(after.messages.size(), 1u);
  EXPECT_EQ(after.messages[0].send, positionOf(*t, 100, 2));
  EXPECT_TRUE(during.box(processOf(*t, 200))->active);
}

TEST(Scene, EndedProcessesLeaveAndTheSameSceneComesFromAnyPath) {
  auto t = producerConsumer();
  trace::DisplayModel display(*t, 2);
  SceneBuilder builder(*t, display);
  const Scene end = builder.build(static_cast<uint32_t>(t->events.size()), 1);
  EXPECT_TRUE(end.processes.empty());
  EXPECT_TRUE(end.messages.empty());
  // Built fresh at each position: the same whatever came before.
  for (uint32_t n = 0; n <= t->events.size(); ++n) {
    const Scene a = builder.build(n, 1);
    builder.build(static_cast<uint32_t>(t->events.size()) - n, 0.3);
    const Scene b = builder.build(n, 1);
    ASSERT_EQ(a.processes.size(), b.processes.size());
    ASSERT_EQ(a.messages.size(), b.messages.size());
    for (size_t k = 0; k < a.messages.size(); ++k) EXPECT_EQ(a.messages[k].box, b.messages[k].box);
  }
}

TEST(Models, EventTableAndFindingsPassQtsModelTester) {
  auto t = producerConsumer();
  analysis::Narrator narrator(*t);
  EventTableModel events(*t, narrator);
  QAbstractItemModelTester tester(&events, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_EQ(events.rowCount(), static_cast<int>(t->events.size()));
  EXPECT_EQ(events.data(events.index(0, EventTableModel::Number)).toInt(), 1);
  events.setFilter(QStringLiteral("consumer kind:read"));
  EXPECT_EQ(events.rowCount(), 2);
  for (int r = 0; r < events.rowCount(); ++r) {
    EXPECT_EQ(events.data(events.index(r, EventTableModel::Process)).toString(), QStringLiteral("consumer[200]"));
    EXPECT_EQ(events.rowOf(events.positionOf(r)), r);
  }
  events.setFilter(QStringLiteral("no-such-thing"));
  EXPECT_EQ(events.rowCount(), 0);
  EXPECT_EQ(events.rowOf(0), -1);
  events.setFilter(QString());
  EXPECT_EQ(events.rowCount(), static_cast<int>(t->events.size()));

  FindingsModel findings(*t);
  QAbstractItemModelTester tester2(&findings, QAbstractItemModelTester::FailureReportingMode::Fatal);
  EXPECT_EQ(findings.rowCount(), static_cast<int>(t->findings.size()));
}

TEST(Models, FindingsLeadToTheirEvent) {
  // A message never received: the finding points at its send.
  FakeRecording rec;
  rec.process("talker", 100).pipeEnd(1, 9, true).send(1, "anyone?", 10, 11).exit(0, 20);
  rec.process("sleeper", 200).pipeEnd(1, 9, false).exit(0, 30);
  auto t = rec.load();
  FindingsModel findings(*t);
  int row = -1;
  for (int r = 0; r < findings.rowCount(); ++r)
    if (t->findings[r].kind == trace::Finding::Kind::NeverReceived) row = r;
  ASSERT_GE(row, 0);
  EXPECT_EQ(findings.eventOf(row), positionOf(*t, 100, 1));
}

TEST(MessageText, TextAsTextBinaryAsHex) {
  EXPECT_TRUE(netdesc::looksLikeText("hello\n\tworld"));
  EXPECT_TRUE(netdesc::looksLikeText("caf\xc3\xa9"));
  EXPECT_FALSE(netdesc::looksLikeText(std::string("a\0b", 3)));
  EXPECT_FALSE(netdesc::looksLikeText("\xc3"));  // cut UTF-8
  const std::string dump = netdesc::hexDump(std::string("\x01\x02hello", 7));
  EXPECT_NE(dump.find("00000000  01 02 68 65 6c 6c 6f"), std::string::npos) << dump;
  EXPECT_NE(dump.find("|..hello|"), std::string::npos) << dump;

  auto t = producerConsumer();
  analysis::Narrator narrator(*t);
  const std::string text = describeMessage(*t, narrator, nullptr, positionOf(*t, 100, 2));
  EXPECT_NE(text.find("world!"), std::string::npos) << text;
  EXPECT_NE(text.find("consumer[200]"), std::string::npos) << text;
}

TEST(ReplayOptions, BadCommandLinesGetClearErrors) {
  auto parse = [](std::vector<const char*> args, std::string* error) {
    args.insert(args.begin(), "radar-replay");
    ReplayOptions o;
    return parseReplayOptions(static_cast<int>(args.size()), const_cast<char**>(args.data()), &o, error)
               ? o
               : ReplayOptions{};
  };
  std::string error;
  EXPECT_TRUE(parse({}, &error).dirs.empty());
  EXPECT_NE(error.find("which recording"), std::string::npos);
  error.clear();
  EXPECT_TRUE(parse({"--choose"}, &error).choose) << error;  // the dialog asks for it
  EXPECT_EQ(parse({"r", "--snapshot", "n.svg", "--view", "network"}, &error).view, "network") << error;
  parse({"r", "--snapshot", "n.svg", "--view", "table"}, &error);
  EXPECT_NE(error.find("--view wants window, network or timeline"), std::string::npos) << error;
  error.clear();
  parse({"a", "b", "--diff", "--snapshot", "d.svg", "--view", "network"}, &error);
  EXPECT_NE(error.find("--diff draws both runs' windows"), std::string::npos) << error;
  error.clear();
  parse({"r", "--view", "timeline"}, &error);
  EXPECT_NE(error.find("--view is what --snapshot draws"), std::string::npos) << error;
  error.clear();
  parse({"--choose", "--snapshot", "x.png"}, &error);
  EXPECT_NE(error.find("--choose opens the window"), std::string::npos) << error;
  error.clear();
  parse({"dir", "--at-event", "-3"}, &error);
  EXPECT_NE(error.find("--at-event"), std::string::npos);
  error.clear();
  parse({"dir", "--size", "10x10"}, &error);
  EXPECT_NE(error.find("--size"), std::string::npos);
  error.clear();
  parse({"dir", "--snapshot"}, &error);
  EXPECT_NE(error.find("needs a value"), std::string::npos);
  error.clear();
  parse({"dir", "--bogus"}, &error);
  EXPECT_NE(error.find("unknown option"), std::string::npos);
  error.clear();
  const ReplayOptions ok = parse({"a", "b", "--snapshot", "x.png", "--at-event", "7", "--size", "800x600"}, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(ok.dirs.size(), 2u);
  EXPECT_EQ(ok.at_event, 7u);
  EXPECT_EQ(ok.width, 800);
  const ReplayOptions net = parse({"a", "--net", "calc.netdesc"}, &error);
  EXPECT_EQ(net.net, "calc.netdesc");
  EXPECT_FALSE(net.no_net);
  EXPECT_TRUE(parse({"a", "--no-net"}, &error).no_net);
  EXPECT_TRUE(parse({"a", "--net"}, &error).dirs.empty());
  EXPECT_NE(error.find("--net needs a value"), std::string::npos) << error;
  error.clear();
  EXPECT_EQ(parse({"a", "--snapshot", "x.SVG"}, &error).snapshot, "x.SVG");
  EXPECT_EQ(error, "");
  parse({"a", "--snapshot", "x.jpg"}, &error);
  EXPECT_NE(error.find("should end in .png or .svg"), std::string::npos) << error;
  error.clear();
  const ReplayOptions diff = parse({"--diff", "run1", "run2"}, &error);
  EXPECT_EQ(error, "");
  EXPECT_TRUE(diff.diff);
  parse({"--diff", "run1"}, &error);
  EXPECT_NE(error.find("--diff compares two runs"), std::string::npos) << error;
  error.clear();
  parse({"--diff", "run1", "run2", "--at-event", "4"}, &error);
  EXPECT_NE(error.find("no --at-event"), std::string::npos) << error;
}

// The window, headless: the controller drives every view.
// A window laid out as on a screen, without one, its events handled.
void showOffscreen(MainWindow& window) {
  window.setInteractive(false);
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1100, 760);
  window.show();
  QApplication::processEvents();
}

class Window : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>(producerConsumer());
    showOffscreen(*window);
    window->networkView().fitToView();
  }
  std::unique_ptr<MainWindow> window;
};

// A picture at a small size (--snapshot --size 640x400) still shows the
// network: the docks, laid out for a larger window, used to leave it no
// height.
TEST_F(Window, ASmallPictureLeavesTheNetworkViewRoom) {
  window->resize(640, 400);
  QApplication::processEvents();
  window->shareTheWindow();
  EXPECT_GE(window->networkView().height(), 400 / 4) << window->networkView().height();
  EXPECT_GE(window->networkView().width(), 640 * 3 / 4) << window->networkView().width();
  // A larger one keeps the docks, and the network view most of the height.
  window->resize(1400, 900);
  QApplication::processEvents();
  window->shareTheWindow();
  EXPECT_GE(window->networkView().height(), 900 / 3) << window->networkView().height();
}

TEST_F(Window, NarrativeFollowsTheController) {
  const auto& t = window->trace();
  analysis::Narrator narrator(t);
  window->controller().skipTo(3);
  EXPECT_EQ(window->narrative(), QString::fromStdString(narrator.sentence(2)));
  EXPECT_TRUE(window->narrative().endsWith(QStringLiteral("Event 3.")));
  window->controller().stepBack();
  EXPECT_TRUE(window->narrative().endsWith(QStringLiteral("Event 2.")));
  window->controller().restart();
  EXPECT_TRUE(window->narrative().startsWith(QStringLiteral("Before the first event")));
}

TEST_F(Window, FollowingAMessageGoesToItsReceive) {
  const auto& t = window->trace();
  const uint32_t send = positionOf(t, 100, 2), receive = positionOf(t, 200, 3);
  window->showMessage(send);
  EXPECT_TRUE(window->lastMessageText().contains(QStringLiteral("world!")));
  ASSERT_TRUE(window->followMessage(send));
  EXPECT_EQ(window->controller().position(), receive + 1);
  EXPECT_EQ(window->spaceTimeView().timeline().selected(), receive);
}

// With a network description, processes and channels carry its names and
// the message window shows the message field by field; a message that does
// not fit its type says so.
TEST(WindowWithNetwork, NamesAndDecodesByTheDescription) {
  auto trace = producerConsumer();
  std::vector<netdesc::Problem> problems;
  std::shared_ptr<const netdesc::Description> d = netdesc::Description::parse(R"(
    process { name: "writer" match { program: "producer" } port { name: "out" direction: OUT fd: 3 type: "Word" } }
    process { name: "reader" match { program: "consumer" } port { name: "in" direction: IN fd: 3 type: "Word" } }
    connect { from: "writer.out" to: "reader.in" name: "words" }
    type { name: "Word" template { field { name: "word" chars: 6 } } }
  )",
                                                                              "/tmp/words.netdesc", &problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  std::vector<std::string> unmatched;
  auto net = netdesc::Binding::apply(d, *trace, &unmatched);
  trace->described = net->names();
  ASSERT_TRUE(unmatched.empty()) << unmatched[0];
  MainWindow window(std::move(trace), std::move(net));
  window.setInteractive(false);
  const auto& t = window.trace();
  window.showMessage(positionOf(t, 100, 2));
  const std::string second = window.lastMessageText().toStdString();
  EXPECT_NE(second.find("Process writer[100] sends a message to reader[200] on words"), std::string::npos) << second;
  EXPECT_NE(second.find("word = \"world!\""), std::string::npos) << second;
  window.showMessage(positionOf(t, 100, 1));  // "hello": 5 bytes of a 6-byte Word
  const std::string first = window.lastMessageText().toStdString();
  EXPECT_NE(first.find("6 bytes"), std::string::npos) << first;
  EXPECT_NE(first.find("68 65 6c 6c 6f"), std::string::npos) << first;
}

// The message window as Wireshark's details and bytes: the decoded fields
// as a tree; selecting one marks its bytes in the hex and ASCII columns.
TEST(WindowWithNetwork, SelectingAFieldMarksItsBytes) {
  auto trace = producerConsumer();
  std::vector<netdesc::Problem> problems;
  std::shared_ptr<const netdesc::Description> d = netdesc::Description::parse(R"(
    process { name: "writer" match { program: "producer" } port { name: "out" direction: OUT fd: 3 type: "Word" } }
    type { name: "Word" template { field { name: "head" chars: 2 } field { name: "tail" chars: 4 } } }
  )",
                                                                              "/tmp/split.netdesc", &problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  std::vector<std::string> unmatched;
  auto net = netdesc::Binding::apply(d, *trace, &unmatched);
  trace->described = net->names();
  MainWindow window(std::move(trace), std::move(net));
  window.showMessage(positionOf(window.trace(), 100, 2));  // "world!"
  auto dialogs = window.findChildren<MessageWindow*>();
  ASSERT_EQ(dialogs.size(), 1u);
  MessageWindow& w = *dialogs[0];
  QTreeWidget* tree = w.tree();
  ASSERT_EQ(tree->topLevelItemCount(), 1);
  QTreeWidgetItem* word = tree->topLevelItem(0);
  EXPECT_EQ(word->text(0), QStringLiteral("Word"));
  ASSERT_EQ(word->childCount(), 2);
  EXPECT_EQ(word->child(1)->text(0), QStringLiteral("tail = \"rld!\""));
  tree->setCurrentItem(word->child(1));
  EXPECT_EQ(w.markedBytes(), (std::pair<size_t, size_t>{2, 4}));
  const auto marks = w.hex()->extraSelections();
  ASSERT_EQ(marks.size(), 2);
  EXPECT_EQ(marks[0].cursor.selectedText(), QStringLiteral("72 6c 64 21"));
  EXPECT_EQ(marks[1].cursor.selectedText(), QStringLiteral("rld!"));
  tree->setCurrentItem(word);  // the whole message
  EXPECT_EQ(w.markedBytes(), (std::pair<size_t, size_t>{0, 6}));
  EXPECT_EQ(w.hex()->extraSelections()[1].cursor.selectedText(), QStringLiteral("world!"));
  w.close();
}

// A description's named pattern: each stretch of it is one bar on the
// timeline with its name, its events hidden under it, and the narrative
// tells the higher-level event; a double-click on the bar expands it.
TEST(WindowWithNetwork, ANamedPatternIsOneEventUntilExpanded) {
  FakeRecording rec;
  radar::testing::clientAndServer(rec, 40);
  auto trace = rec.load();
  std::vector<netdesc::Problem> problems;
  std::shared_ptr<const netdesc::Description> d = netdesc::Description::parse(R"(
    pattern { name: "lookup" process: "server" step: "receives from client" step: "sends to client" }
  )",
                                                                              "/tmp/lookup.netdesc", &problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  std::vector<std::string> unmatched;
  auto net = netdesc::Binding::apply(d, *trace, &unmatched);
  trace->described = net->names();
  MainWindow window(std::move(trace), std::move(net));
  window.setInteractive(false);
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1280, 800);
  window.show();  // the timeline's lanes are those that fit
  const auto& t = window.trace();
  SpaceTimeView& view = window.spaceTimeView();
  const Timeline& tl = view.timeline();
  ASSERT_EQ(tl.stretches().size(), 1u);
  EXPECT_EQ(tl.stretches()[0].label, QStringLiteral("lookup × 40"));
  EXPECT_EQ(tl.stretches()[0].first, positionOf(t, 200, 1));
  EXPECT_EQ(tl.stretches()[0].last, positionOf(t, 200, 80));

  const uint32_t inside = positionOf(t, 200, 41);
  window.controller().skipTo(inside + 1);
  QApplication::processEvents();
  EXPECT_TRUE(window.narrative().startsWith(QStringLiteral("Process server[200] does lookup × 40 (events ")))
      << window.narrative().toStdString();
  ASSERT_EQ(tl.bars().size(), 1u);
  int hidden = 0, shown_server = 0;
  for (const auto& dot : tl.dots()) {
    if (t.events[dot.position].process != processOf(t, 200)) continue;
    (dot.hidden ? hidden : shown_server)++;
  }
  EXPECT_EQ(hidden, 80);       // the 40 receives and 40 sends
  EXPECT_EQ(shown_server, 1);  // its exit
  QTest::mouseDClick(&view, Qt::LeftButton, {}, tl.bars()[0].rect.center().toPoint());
  EXPECT_TRUE(tl.stretches()[0].expanded);
  for (const auto& dot : tl.dots()) EXPECT_FALSE(dot.hidden);
  window.controller().skipTo(inside);
  QApplication::processEvents();
  EXPECT_TRUE(window.narrative().startsWith(QStringLiteral("Process ")));
  EXPECT_EQ(window.narrative().indexOf(QStringLiteral("does lookup")), -1) << window.narrative().toStdString();
  // And folded again.
  QTest::mouseDClick(&view, Qt::LeftButton, {}, tl.bars()[0].rect.center().toPoint());
  EXPECT_FALSE(tl.stretches()[0].expanded);
}

// A description's positions: the box where it says, the others below.
TEST(WindowWithNetwork, PlacesProcessesWhereTheDescriptionSays) {
  auto trace = producerConsumer();
  std::vector<netdesc::Problem> problems;
  std::shared_ptr<const netdesc::Description> d = netdesc::Description::parse(R"(
    process { name: "reader" match { program: "consumer" } position { column: 2 row: 1.5 } }
  )",
                                                                              "/tmp/placed.netdesc", &problems);
  ASSERT_TRUE(d) << (problems.empty() ? "" : problems[0].toString());
  std::vector<std::string> unmatched;
  auto net = netdesc::Binding::apply(d, *trace, &unmatched);
  trace->described = net->names();
  MainWindow window(std::move(trace), std::move(net));
  window.setInteractive(false);
  const auto& t = window.trace();
  window.controller().skipTo(positionOf(t, 100, 1) + 1);
  QApplication::processEvents();
  const Scene& scene = window.networkView().scene();
  const ProcessBox* reader = scene.box(processOf(t, 200));
  const ProcessBox* writer = scene.box(processOf(t, 100));
  ASSERT_TRUE(reader && writer);
  EXPECT_EQ(reader->box, GridLayout::cellRect(2, 1.5));
  // Row 1.5 is the description's last: the automatic layout starts at row 3.
  EXPECT_GE(writer->box.y, GridLayout::cellRect(0, 3).y);
  EXPECT_FALSE(writer->box.x < reader->box.x + reader->box.w && reader->box.x < writer->box.x + writer->box.w &&
               writer->box.y < reader->box.y + reader->box.h && reader->box.y < writer->box.y + writer->box.h);
}

// "Debug this process from here": radar debug for the clicked process (or
// the current event's), stopped before its first event from here on.
TEST_F(Window, DebugFromHereGivesTheCommandForTheProcessAtThisEvent) {
  const auto& t = window->trace();
  const uint32_t consumer = t.events[positionOf(t, 200, 1)].process;
  window->controller().skipTo(positionOf(t, 100, 2) + 1);  // the producer's second event is current
  const QString producer_line = window->debugFromHere();
  EXPECT_TRUE(producer_line.contains(QStringLiteral(" debug ")));
  EXPECT_TRUE(producer_line.contains(QStringLiteral(" 100.0 --at-event %1").arg(positionOf(t, 100, 2) + 1)))
      << producer_line.toStdString();
  window->selectProcess(consumer);
  const QString consumer_line = window->debugFromHere();
  uint32_t next = 0;
  for (uint32_t pos : t.process_events[consumer])
    if (pos >= positionOf(t, 100, 2)) {
      next = pos + 1;
      break;
    }
  EXPECT_TRUE(consumer_line.endsWith(QStringLiteral(" 200.0 --at-event %1").arg(next))) << consumer_line.toStdString();
  for (const auto& dir : t.directories) EXPECT_TRUE(consumer_line.contains(QString::fromStdString(dir)));
}

// The command runs in a terminal that may start in another directory than
// the window's: a recording opened by a relative path is given whole.
TEST(DebugLaunch, TheRecordingsDirectoryIsGivenWhole) {
  testing::FakeRecording rec;
  rec.process("solo", 7).user("x", 1).exit(0, 2);
  auto t = rec.load();
  t->directories = {"relative/rec"};
  const DebugCommand command = debugCommand(*t, 0, 0, QStringLiteral("radar"));
  EXPECT_TRUE(command.arguments.contains(QDir::current().absoluteFilePath(QStringLiteral("relative/rec"))))
      << command.commandLine().toStdString();
  EXPECT_FALSE(command.arguments.contains(QStringLiteral("relative/rec")));
}

TEST(DebugLaunch, TerminalFromTheEnvironmentOrTheUsualOnes) {
  const QString dir = QDir::tempPath() + QStringLiteral("/radar-terminal-test");
  QDir(dir).removeRecursively();
  ASSERT_TRUE(QDir().mkpath(dir));
  auto tool = [&](const QString& name) {
    QFile f(dir + QLatin1Char('/') + name);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner);
  };
  QProcessEnvironment env;
  env.insert(QStringLiteral("PATH"), dir);
  EXPECT_EQ(findTerminal(env), QString());  // none: the window shows the command to copy
  tool(QStringLiteral("xterm"));
  EXPECT_EQ(findTerminal(env), dir + QStringLiteral("/xterm"));
  tool(QStringLiteral("x-terminal-emulator"));
  EXPECT_EQ(findTerminal(env), dir + QStringLiteral("/x-terminal-emulator"));
  tool(QStringLiteral("myterm"));
  env.insert(QStringLiteral("TERMINAL"), QStringLiteral("myterm"));
  EXPECT_EQ(findTerminal(env), dir + QStringLiteral("/myterm"));
  DebugCommand c;
  c.program = QStringLiteral("/opt/my radar/radar");
  c.arguments = {QStringLiteral("debug"), QStringLiteral("rec"), QStringLiteral("4.0")};
  EXPECT_EQ(c.commandLine(), QStringLiteral("'/opt/my radar/radar' debug rec 4.0"));
  EXPECT_EQ(terminalArguments(QStringLiteral("/usr/bin/xterm"), c).first(), QStringLiteral("-e"));
  EXPECT_EQ(terminalArguments(QStringLiteral("/usr/bin/gnome-terminal"), c).first(), QStringLiteral("--"));
  QDir(dir).removeRecursively();
}

TEST_F(Window, SpaceTimeDiagramHasALanePerProcessAndMarksCausality) {
  const auto& t = window->trace();
  window->controller().skipTo(static_cast<uint32_t>(t.events.size()));
  QApplication::processEvents();
  EXPECT_EQ(window->spaceTimeView().timeline().lanes().size(), 2u);
  // In logical order, a receive is right of its send.
  const uint32_t send = positionOf(t, 100, 1), receive = positionOf(t, 200, 2);
  QPointF s, r;
  for (const auto& d : window->spaceTimeView().timeline().dots()) {
    if (d.position == send) s = d.at;
    if (d.position == receive) r = d.at;
  }
  EXPECT_LT(s.x(), r.x());
  EXPECT_NE(s.y(), r.y());
}

// Threads: a process whose threads take part gets a sub-lane for each.
TEST(SpaceTime, ThreadsOfAProcessHaveSubLanes) {
  FakeRecording rec;
  auto& server = rec.process("server", 100);
  auto& client = rec.process("client", 200);
  server.pipeEnd(1, 7, true).send(1, "from main", 10, 11, 100).send(1, "from worker", 20, 21, 101).exit(0, 60);
  client.pipeEnd(1, 7, false).receive(1, "from main", 30, 31).receive(1, "from worker", 40, 41).exit(0, 70);
  auto t = rec.load();
  SpaceTimeView view(*t);
  view.resize(900, 300);
  view.timeline().setCurrent(static_cast<uint32_t>(t->events.size() - 1));
  const auto& lanes = view.timeline().lanes();
  ASSERT_EQ(lanes.size(), 3u);
  const uint32_t server_index = processOf(*t, 100), client_index = processOf(*t, 200);
  int server_lanes = 0, sub_lanes = 0;
  for (const auto& lane : lanes) {
    server_lanes += lane.process == server_index;
    sub_lanes += lane.sub_lane;
    if (lane.process == client_index) {
      EXPECT_FALSE(lane.sub_lane);
    }
  }
  EXPECT_EQ(server_lanes, 2);
  EXPECT_EQ(sub_lanes, 1);
  auto yOf = [&](uint32_t position) {
    for (const auto& dot : view.timeline().dots())
      if (dot.position == position) return dot.at.y();
    ADD_FAILURE() << "no dot for " << position;
    return -1.0;
  };
  const double main_y = yOf(positionOf(*t, 100, 1)), worker_y = yOf(positionOf(*t, 100, 2));
  EXPECT_NE(main_y, worker_y);
  EXPECT_NE(yOf(positionOf(*t, 200, 1)), main_y);
  EXPECT_NE(yOf(positionOf(*t, 200, 1)), worker_y);
  EXPECT_FALSE(view.grab().isNull());
}

// ---- every view in step ------------------------------------------------------------------------

const QTableView* eventTable(const MainWindow& window) {
  for (const QTableView* v : window.findChildren<QTableView*>())
    if (v->model() == &const_cast<MainWindow&>(window).eventModel()) return v;
  return nullptr;
}

// While playing, the event table is on the current event, and scrolled to it.
TEST_F(Window, TheEventTableFollowsTheReplayWhilePlaying) {
  const QTableView* table = eventTable(*window);
  ASSERT_TRUE(table);
  window->controller().setSecondsPerEvent(0.1);
  window->controller().play();
  for (int frame = 0; frame < 40 && window->controller().playing(); ++frame) {
    window->controller().advance(0.016);
    const uint32_t pos = window->controller().position();
    ASSERT_GT(pos, 0u);
    const auto rows = table->selectionModel()->selectedRows();
    ASSERT_EQ(rows.size(), 1);
    EXPECT_EQ(window->eventModel().positionOf(rows[0].row()), pos - 1);
    EXPECT_TRUE(table->viewport()->rect().intersects(table->visualRect(rows[0])));
  }
}

// Clicking an event in the diagram takes the replay, the table and the
// narrative there.
TEST_F(Window, ClickingAnEventInTheDiagramMovesEveryView) {
  const auto& t = window->trace();
  const uint32_t target = positionOf(t, 200, 3);
  emit window->spaceTimeView().eventClicked(target);
  EXPECT_EQ(window->controller().position(), target + 1);
  EXPECT_TRUE(window->narrative().endsWith(QStringLiteral("Event %1.").arg(target + 1)));
  EXPECT_EQ(window->spaceTimeView().timeline().selected(), target);
  const auto rows = eventTable(*window)->selectionModel()->selectedRows();
  ASSERT_EQ(rows.size(), 1);
  EXPECT_EQ(window->eventModel().positionOf(rows[0].row()), target);
}

// The causal colouring of a selection goes with Esc.
TEST_F(Window, TheCausalHighlightCanBeCleared) {
  const auto& t = window->trace();
  window->showMessage(positionOf(t, 100, 2));
  EXPECT_NE(window->spaceTimeView().timeline().selected(), kNone);
  window->clearHighlight();
  EXPECT_EQ(window->spaceTimeView().timeline().selected(), kNone);
  window->showMessage(positionOf(t, 100, 2));
  window->activateWindow();
  QApplication::setActiveWindow(window.get());
  QTest::keyClick(window.get(), Qt::Key_Escape);
  EXPECT_EQ(window->spaceTimeView().timeline().selected(), kNone);
}

// RADAR's freeze frame: a message's contents open, the replay waits; closed, it goes on.
TEST_F(Window, OpeningAMessageFreezesTheReplayUntilItIsClosed) {
  const auto& t = window->trace();
  window->setInteractive(true);
  window->controller().play();
  ASSERT_TRUE(window->controller().playing());
  window->showMessage(positionOf(t, 100, 1));
  EXPECT_FALSE(window->controller().playing());
  const uint32_t frozen = window->controller().position();
  window->controller().advance(100);
  EXPECT_EQ(window->controller().position(), frozen);
  auto dialogs = window->findChildren<QDialog*>();
  ASSERT_EQ(dialogs.size(), 1);
  dialogs[0]->close();
  EXPECT_TRUE(window->controller().playing());
  window->setInteractive(false);
}

// The process doing the event is always in view, however the view was zoomed and panned.
TEST_F(Window, TheActingProcessIsAlwaysInView) {
  NetworkView& view = window->networkView();
  view.zoomBy(6);
  const auto& t = window->trace();
  for (uint32_t pos = 0; pos < t.events.size(); ++pos) {
    window->controller().skipTo(pos + 1);
    const ProcessBox* acting = view.scene().box(t.events[pos].process);
    if (!acting || !acting->active) continue;
    const QRectF r(view.toWidget({acting->box.x, acting->box.y}),
                   QSizeF(acting->box.w * view.zoom(), acting->box.h * view.zoom()));
    EXPECT_TRUE(QRectF(view.rect()).intersects(r)) << "event " << pos + 1;
  }
}

// The critical path to the current event: a panel of its segments that
// add up to its time, its events joined in the diagram, double-click to go.
TEST_F(Window, TheCriticalPathToAnEventIsListedAndDrawn) {
  const auto& t = window->trace();
  const uint32_t last = positionOf(t, 200, 3);  // the consumer's receive of "world!"
  window->controller().skipTo(last + 1);
  ASSERT_TRUE(window->showCriticalPath());
  CriticalPathModel& model = window->criticalPathModel();
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  ASSERT_GT(model.rowCount(), 0);
  const analysis::CriticalPath& path = model.path();
  EXPECT_EQ(path.events.back(), last);
  int64_t sum = 0;
  for (const auto& s : path.segments) sum += s.ns();
  EXPECT_EQ(sum, path.end_ns - path.begin_ns);
  EXPECT_EQ(window->spaceTimeView().timeline().path(), path.events);
  // The consumer never waited: "world!" was there before it called
  // receive (sent at 21, asked for at 40); its own past decided, from its
  // first event.
  for (uint32_t e : path.events) EXPECT_EQ(t.processes[t.events[e].process].pid, 200);
  EXPECT_EQ(path.events.front(), positionOf(t, 200, 1));
  // A row leads to its event.
  const uint32_t to = model.eventOf(0);
  ASSERT_NE(to, kNone);
  window->goToEvent(to);
  EXPECT_EQ(window->controller().position(), to + 1);
  // Esc clears it.
  window->clearHighlight();
  EXPECT_TRUE(window->spaceTimeView().timeline().path().empty());
  EXPECT_EQ(model.rowCount(), 0);
}

// client[100] asks server[200] three times (times in ms): a quick answer,
// one the server took 470 ms over, one that waited 99 ms in the socket.
std::unique_ptr<trace::Trace> threeRequests() {
  auto rec = std::make_unique<testing::FakeRecording>();
  constexpr int64_t ms = 1'000'000;
  testing::FakeProcess& client = rec->process("client", 100).socketEnd(1, 1, 2);
  testing::FakeProcess& server = rec->process("server", 200).socketEnd(1, 2, 1);
  client.send(1, "q1", 10 * ms, 11 * ms).receive(1, "a1", 12 * ms, 16 * ms);
  server.receive(1, "q1", 11 * ms, 12 * ms).send(1, "a1", 14 * ms, 15 * ms);
  client.send(1, "q2", 30 * ms, 31 * ms).receive(1, "a2", 32 * ms, 502 * ms);
  server.receive(1, "q2", 31 * ms, 32 * ms).send(1, "a2", 500 * ms, 501 * ms);
  client.send(1, "q3", 600 * ms, 601 * ms).receive(1, "a3", 602 * ms, 704 * ms);
  server.receive(1, "q3", 700 * ms, 701 * ms).send(1, "a3", 702 * ms, 703 * ms);
  client.exit(0, 800 * ms);
  server.exit(0, 801 * ms);
  return rec->load();
}

// The Requests pane lists every request a server answered, slowest first
// and sortable by each part of its time; a click on one takes every view
// to its reply and draws that request's own critical path, not the run's.
TEST(Requests, ARequestPickedInThePaneIsShownWithItsOwnCriticalPath) {
  MainWindow window(threeRequests());
  showOffscreen(window);
  const trace::Trace& t = window.trace();
  RequestsModel* model = window.requestsModel();
  ASSERT_TRUE(model) << "no Requests pane";
  QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  ASSERT_EQ(model->rowCount(), 3);
  QTableView* view = window.requestsView();
  auto cell = [&](int row, int column) { return view->model()->index(row, column).data().toString(); };
  EXPECT_EQ(cell(0, RequestsModel::AnsweredBy), QStringLiteral("server[200]"));
  EXPECT_EQ(cell(0, RequestsModel::AskedBy), QStringLiteral("client[100]"));
  EXPECT_EQ(cell(0, RequestsModel::Total), QStringLiteral("472.000")) << "slowest first";
  EXPECT_EQ(cell(0, RequestsModel::partColumn(analysis::Interaction::Server)), QStringLiteral("469.000"));
  view->sortByColumn(RequestsModel::partColumn(analysis::Interaction::Queued), Qt::DescendingOrder);
  EXPECT_EQ(cell(0, RequestsModel::partColumn(analysis::Interaction::Queued)), QStringLiteral("99.000"));
  EXPECT_EQ(cell(0, RequestsModel::Total), QStringLiteral("104.000"));
  view->sortByColumn(RequestsModel::Total, Qt::DescendingOrder);

  // A click on the slowest: every view goes to its reply's receive.
  const QRect row = view->visualRect(view->model()->index(0, RequestsModel::Total));
  QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, row.center());
  const uint32_t asked = positionOf(t, 100, 3), answered = positionOf(t, 100, 4);
  EXPECT_EQ(window.controller().position(), answered + 1);
  const analysis::CriticalPath& path = window.criticalPathModel().path();
  ASSERT_FALSE(path.events.empty());
  EXPECT_EQ(path.events.front(), asked) << "the request's own path starts at its send";
  EXPECT_EQ(path.events.back(), answered);
  EXPECT_EQ(window.spaceTimeView().timeline().path(), path.events);
  int64_t server_ns = 0;
  for (const auto& s : path.segments)
    if (s.process != kNone && t.processes[s.process].pid == 200) server_ns += s.ns();
  EXPECT_GE(server_ns, 469 * 1'000'000) << "the server's time is on the path";
  // The arrow keys go on to the next request.
  QTest::keyClick(view, Qt::Key_Down);
  EXPECT_EQ(window.controller().position(), positionOf(t, 100, 6) + 1);
  EXPECT_EQ(window.criticalPathModel().path().events.front(), positionOf(t, 100, 5));
}

// A small picture of a server's recording (--snapshot --size 640x400)
// leaves the Requests pane out with the findings: the network keeps the width.
TEST(Requests, ASmallPictureLeavesThePaneOut) {
  MainWindow window(threeRequests());
  showOffscreen(window);
  auto* pane = window.findChild<QDockWidget*>(QStringLiteral("requests"));
  ASSERT_TRUE(pane);
  window.resize(640, 400);
  QApplication::processEvents();
  window.shareTheWindow();
  EXPECT_FALSE(pane->isVisible());
  EXPECT_GE(window.networkView().width(), 640 * 3 / 4) << window.networkView().width();
}

// The window starts at the speed that plays its recording in about a
// minute, and its speed box says so.
TEST(Speed, TheWindowPlaysTheRecordingInAboutAMinute) {
  testing::FakeRecording rec;
  testing::clientAndServer(rec, 30);  // 122 events
  MainWindow window(rec.load());
  showOffscreen(window);
  const double expected = ReplayController::secondsPerEventFor(static_cast<uint32_t>(window.trace().events.size()));
  EXPECT_LT(expected, 3.0);
  EXPECT_DOUBLE_EQ(window.controller().secondsPerEvent(), expected);
  auto* box = window.findChild<QDoubleSpinBox*>();
  ASSERT_TRUE(box);
  EXPECT_EQ(box->value(), expected);
  EXPECT_TRUE(box->toolTip().contains(QStringLiteral("about a minute")));
}

// With Hide polls ticked, playing passes over the polls: a reader's failed
// non-blocking reads take no time in the animation, as in the table.
TEST(HidePolls, PlayingPassesOverThePolls) {
  testing::FakeRecording rec;
  auto& writer = rec.process("writer", 100).pipeEnd(1, 7, true);
  auto& reader = rec.process("reader", 200).pipeEnd(1, 7, false);
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 4; ++j) reader.failedReceive(1, EAGAIN, 100 * k + 10 * j, 100 * k + 10 * j + 1);
    writer.send(1, "m" + std::to_string(k), 100 * k + 50, 100 * k + 51);
    reader.receive(1, "m" + std::to_string(k), 100 * k + 60, 100 * k + 61);
  }
  MainWindow window(rec.load());
  showOffscreen(window);
  auto* hide = window.findChild<QCheckBox*>(QStringLiteral("hide-polls"));
  ASSERT_TRUE(hide);
  hide->setChecked(true);
  auto& c = window.controller();
  c.setSecondsPerEvent(1);
  std::vector<uint32_t> played;
  QObject::connect(&c, &ReplayController::changed, [&] {
    if (c.animating() && c.progress() == 0) played.push_back(c.position() - 1);
  });
  c.play();
  for (int k = 0; k < 40 && c.playing(); ++k) c.advance(1);
  const auto& t = window.trace();
  EXPECT_EQ(played.size(), t.events.size() - 12) << "the twelve polls take no time";
  for (uint32_t e : played) EXPECT_FALSE(t.events[e].flags & trace::kEventFailed) << "event " << e + 1;
  EXPECT_EQ(c.position(), t.events.size());
}

// The replay's one-key shortcuts work whatever widget has the focus (the
// speed box after a skip, the event table), but not where text is typed:
// in the filter, P is a letter.
TEST_F(Window, OneKeyShortcutsWorkWhateverHasTheFocus) {
  QApplication::setActiveWindow(window.get());
  const auto& t = window->trace();
  window->controller().skipTo(positionOf(t, 200, 3) + 1);
  auto* speed = window->findChild<QDoubleSpinBox*>();
  auto* table = window->findChild<QTableView*>();
  ASSERT_TRUE(speed && table);
  for (QWidget* focus : {static_cast<QWidget*>(speed), static_cast<QWidget*>(table)}) {
    SCOPED_TRACE(focus->metaObject()->className());
    window->clearHighlight();
    focus->setFocus();
    QApplication::processEvents();
    ASSERT_EQ(QApplication::focusWidget(), focus->focusProxy() ? focus->focusProxy() : focus);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_P);
    EXPECT_GT(window->criticalPathModel().rowCount(), 0) << "P did nothing";
  }
  QLineEdit* filter = nullptr;
  for (auto* edit : window->findChildren<QLineEdit*>())
    if (edit->placeholderText().startsWith(QStringLiteral("Filter:"))) filter = edit;
  ASSERT_TRUE(filter);
  window->clearHighlight();
  filter->setFocus();
  QTest::keyClick(filter, Qt::Key_P);
  EXPECT_EQ(filter->text(), QStringLiteral("p"));
  EXPECT_EQ(window->criticalPathModel().rowCount(), 0);
  // The focused timeline keeps its navigation keys: W zooms it, and does
  // not switch the window's diagram to wall time.
  SpaceTimeView& diagram = window->spaceTimeView();
  const bool wall = diagram.timeline().wallTime();
  diagram.setFocus();
  QTest::keyClick(&diagram, Qt::Key_W);
  EXPECT_EQ(diagram.timeline().wallTime(), wall);
}

// A recording where no server answered has no Requests pane.
TEST_F(Window, NoServerNoRequestsPane) { EXPECT_EQ(window->requestsModel(), nullptr); }

// ---- defects of the window, each fixed -----------------------------------------------------

// A box dragged while the replay is paused moves at once, not at the next step.
TEST_F(Window, DraggingABoxWhilePausedMovesItAtOnce) {
  window->controller().skipTo(3);
  QApplication::processEvents();
  NetworkView& view = window->networkView();
  ASSERT_FALSE(window->controller().playing());
  const ProcessBox* before = view.scene().box(0);
  ASSERT_TRUE(before);
  const Rect was = before->box;
  const QPointF grab = view.toWidget({was.x + was.w / 2, was.y + was.h / 2});
  auto send = [&](QEvent::Type type, QPointF at, Qt::MouseButtons buttons) {
    QMouseEvent e(type, at, view.mapToGlobal(at), Qt::LeftButton, buttons, Qt::NoModifier);
    QApplication::sendEvent(&view, &e);
  };
  send(QEvent::MouseButtonPress, grab, Qt::LeftButton);
  send(QEvent::MouseMove, grab + QPointF(60, 40), Qt::LeftButton);
  // Still pressed, still paused: the scene already has the box where it is.
  const ProcessBox* during = view.scene().box(0);
  ASSERT_TRUE(during);
  EXPECT_NEAR(during->box.x, was.x + 60 / view.zoom(), 0.01);
  EXPECT_NEAR(during->box.y, was.y + 40 / view.zoom(), 0.01);
  send(QEvent::MouseButtonRelease, grab + QPointF(60, 40), Qt::NoButton);
  EXPECT_EQ(window->controller().position(), 3u);
}

// In single-step mode, Space shows the next event: the first press too.
TEST_F(Window, SpaceInSingleStepShowsTheNextEvent) {
  window->controller().setMode(ReplayController::Mode::SingleStep);
  window->activateWindow();
  QApplication::setActiveWindow(window.get());
  for (uint32_t expected = 1; expected <= 3; ++expected) {
    QTest::keyClick(window.get(), Qt::Key_Space);
    EXPECT_EQ(window->controller().position(), expected);
    window->controller().advance(10);  // the event's whole time
    EXPECT_FALSE(window->controller().playing());
  }
}

// The narrative is one line whatever the sentence: nothing below it moves.
TEST_F(Window, ALongNarrativeDoesNotMoveTheViews) {
  auto* narrative = window->findChild<QLabel*>(QStringLiteral("narrative"));
  ASSERT_TRUE(narrative);
  EXPECT_FALSE(narrative->wordWrap());
  const int network_top = window->networkView().mapTo(window.get(), QPoint(0, 0)).y();
  const int height = narrative->height();
  for (uint32_t n = 1; n <= window->trace().events.size(); ++n) {
    window->controller().skipTo(n);
    QApplication::processEvents();
    EXPECT_EQ(narrative->height(), height);
    EXPECT_EQ(window->networkView().mapTo(window.get(), QPoint(0, 0)).y(), network_top);
    EXPECT_EQ(narrative->toolTip(), narrative->text());  // the whole sentence, wherever it is cut
  }
}

// Three machines, the third joined to the others by no message: below the
// findings, the window says its clock is not lined up with theirs; the
// network view frames each host's boxes; each lane names its host.
TEST_F(Window, AHostWhoseClockIsNotLinedUpIsSaidBelowTheFindings) {
  EXPECT_FALSE(window->findChild<QLabel*>(QStringLiteral("recording-notes")));
  FakeRecording rec;
  const std::string a = radar::testing::inet4("10.0.0.1", 80), b = radar::testing::inet4("10.0.0.2", 5000);
  rec.process("server", 1).onHost("a", "boot-a", 0).tcpEnd(1, 11, a, b).receive(1, "q", 50, 60).exit(0, 70);
  rec.process("client", 2).onHost("b", "boot-b", 0).tcpEnd(1, 12, b, a).send(1, "q", 0, 1).exit(0, 80);
  rec.process("idle", 3).onHost("c", "boot-c", 0).user("tick", 10).exit(0, 90);
  MainWindow with(rec.load());
  showOffscreen(with);
  auto* notes = with.findChild<QLabel*>(QStringLiteral("recording-notes"));
  ASSERT_TRUE(notes);
  EXPECT_TRUE(notes->isVisible());
  EXPECT_TRUE(notes->text().contains(QStringLiteral("c's clock: not lined up with the others'")))
      << notes->text().toStdString();
  // The network view frames each host's boxes: three frames, apart, once
  // all three are on screen.
  for (uint32_t n = 1; n <= with.trace().events.size() && with.networkView().scene().hosts.size() < 3; ++n) {
    with.controller().skipTo(n);
    QApplication::processEvents();
  }
  const Scene scene = with.networkView().scene();
  ASSERT_EQ(scene.hosts.size(), 3u);
  for (const auto& box : scene.processes) {
    const auto& host = with.trace().processes[box.process].host;
    for (const auto& frame : scene.hosts) {
      const bool inside = box.box.x >= frame.box.x && box.box.y >= frame.box.y &&
                          box.box.x + box.box.w <= frame.box.x + frame.box.w &&
                          box.box.y + box.box.h <= frame.box.y + frame.box.h;
      EXPECT_EQ(inside, frame.host == host) << box.name << " and host " << frame.host;
    }
  }
  SpaceTimeView view(with.trace());
  std::set<QString> lanes;
  for (size_t lane = 0; lane < view.timeline().lanes().size(); ++lane) lanes.insert(view.timeline().laneLabel(lane));
  EXPECT_EQ(lanes, (std::set<QString>{"server[1@a]", "client[2@b]", "idle[3@c]"}));
}

// An MPI rank's library calls (inside its MPI calls) are left out of the
// table and dimmed on the timeline until "MPI library" is ticked; a
// recording with no rank has no such box.
TEST_F(Window, TheMpiLibrarysOwnCallsAreShownOnlyWhenAsked) {
  EXPECT_FALSE(window->findChild<QCheckBox*>(QStringLiteral("show-mpi-library")));
  FakeRecording rec;
  rec.process("r", 40)
      .mpiCommunicator(1, "job/w", 0, 1)
      .pipeEnd(2, 900, true)
      .mpiInit(1, 0, 1, 1)
      .send(2, "mine", 10, 11)
      .send(2, "lib", 21, 22)
      .send(2, "lib", 23, 24)
      .mpiCollective(1, "MPI_Barrier", -1, 20, 40)
      .exit(0, 90);
  MainWindow with(rec.load());
  showOffscreen(with);
  const auto& t = with.trace();
  auto* box = with.findChild<QCheckBox*>(QStringLiteral("show-mpi-library"));
  ASSERT_TRUE(box);
  EXPECT_FALSE(box->isChecked());
  ASSERT_EQ(with.eventModel().rowCount(), static_cast<int>(t.events.size()) - 2);
  for (int row = 0; row < with.eventModel().rowCount(); ++row)
    EXPECT_FALSE(t.byMpiLibrary(with.eventModel().positionOf(row))) << row;
  // The same with a filter typed: what it keeps, less the library's.
  auto* filter = with.findChild<QLineEdit*>(QStringLiteral("filter"));
  QTest::keyClicks(filter, QStringLiteral("kind:write"));
  QTest::keyClick(filter, Qt::Key_Return);
  EXPECT_EQ(with.eventModel().rowCount(), 1);
  box->setChecked(true);
  EXPECT_EQ(with.eventModel().rowCount(), 3);
  filter->clear();
  EXPECT_EQ(with.eventModel().rowCount(), static_cast<int>(t.events.size()));
  box->setChecked(false);
  EXPECT_EQ(with.eventModel().rowCount(), static_cast<int>(t.events.size()) - 2);
  // A collective by its operation.
  QTest::keyClicks(filter, QStringLiteral("kind:mpi_barrier"));
  QTest::keyClick(filter, Qt::Key_Return);
  ASSERT_EQ(with.eventModel().rowCount(), 1);
  EXPECT_EQ(t.events[with.eventModel().positionOf(0)].eventKind(), log::Kind::MpiCollective);
}

// The timeline opens as tall as its lanes need, up to 15 and half the
// centre: many processes get many lanes, two leave the network the room.
TEST_F(Window, TheTimelineOpensWithTheLanesItNeeds) {
  FakeRecording many;
  for (int32_t k = 0; k < 20; ++k) many.process("p" + std::to_string(k), 100 + k).user("tick", k).exit(0, 100 + k);
  MainWindow with(many.load());
  showOffscreen(with);
  const Timeline& tl = with.spaceTimeView().timeline();
  EXPECT_GE(tl.lanesShown(), 6) << "of 20, in a window 760 pixels high (4 before)";
  EXPECT_GE(with.networkView().height(), with.spaceTimeView().height() * 9 / 10) << "half the centre at most";
  FakeRecording two;
  two.process("a", 1).user("tick", 1).exit(0, 2);
  two.process("b", 2).user("tick", 1).exit(0, 3);
  MainWindow small(two.load());
  showOffscreen(small);
  EXPECT_GE(small.spaceTimeView().timeline().lanesShown(), 2);
  EXPECT_GT(small.networkView().height(), small.spaceTimeView().height());
  EXPECT_LT(small.spaceTimeView().height(), with.spaceTimeView().height());
}

// No findings: the pane says so; findings: wrapped whole in their rows.
TEST_F(Window, AnEmptyFindingsPaneSaysNoProblemsWereFound) {
  ASSERT_TRUE(window->trace().findings.empty());
  auto* none = window->findChild<QLabel*>(QStringLiteral("no-findings"));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->isVisible());
  EXPECT_TRUE(none->text().startsWith(QStringLiteral("No problems found")));

  FakeRecording rec;
  rec.process("talker", 100).pipeEnd(1, 9, true).send(1, "anyone?", 10, 11).exit(0, 20);
  rec.process("sleeper", 200).pipeEnd(1, 9, false).exit(0, 30);
  MainWindow with(rec.load());
  showOffscreen(with);
  ASSERT_FALSE(with.trace().findings.empty());
  EXPECT_FALSE(with.findChild<QLabel*>(QStringLiteral("no-findings"))->isVisible());
  const auto tables = with.findChildren<QTableView*>();
  const QTableView* findings = nullptr;
  for (const QTableView* v : tables)
    if (v->model() == &with.findingsModel()) findings = v;
  ASSERT_TRUE(findings);
  EXPECT_TRUE(findings->isVisible());
  EXPECT_TRUE(findings->wordWrap());
  // Its whole text on hover, after its severity; the severity's icon by
  // the kind.
  const QModelIndex what = with.findingsModel().index(0, FindingsModel::Description);
  EXPECT_EQ(with.findingsModel().data(what, Qt::ToolTipRole).toString(),
            QStringLiteral("warning: ") + with.findingsModel().data(what).toString());
  const QModelIndex kind = with.findingsModel().index(0, FindingsModel::Kind);
  EXPECT_FALSE(with.findingsModel().data(kind, Qt::DecorationRole).value<QIcon>().isNull());
  EXPECT_EQ(with.findingsModel().data(kind, FindingsModel::SeverityRole).toString(), QStringLiteral("warning"));
}

// Closed with its panels full (rows sized to their contents as they hide),
// a window reads nothing it has already let go of.
TEST(WindowLifetime, AWindowWithFindingsClosesCleanly) {
  FakeRecording rec;
  rec.process("talker", 100).pipeEnd(1, 9, true).send(1, "anyone?", 10, 11).exit(0, 20);
  rec.process("sleeper", 200).pipeEnd(1, 9, false).exit(0, 30);
  auto window = std::make_unique<MainWindow>(rec.load());
  window->setInteractive(false);
  window->resize(900, 600);
  window->show();
  QApplication::processEvents();
  window->controller().skipTo(3);
  ASSERT_TRUE(window->showCriticalPath());
  QApplication::processEvents();
  window.reset();  // under AddressSanitizer, a read of the freed trace fails here
  SUCCEED();
}

// A legend names every colour the network view draws with, and is drawn.
TEST_F(Window, TheLegendNamesTheColours) {
  NetworkView& view = window->networkView();
  EXPECT_TRUE(view.showLegend());
  const auto legend = NetworkView::legend();
  for (const QColor& c : {colors::kProcess, colors::kActive, colors::kBlocked, colors::kInputPort, colors::kOutputPort,
                          colors::kTravelling, colors::kQueued, colors::kConsumed, colors::kUndelivered,
                          colors::kSelected, colors::kDeadlock}) {
    const bool named = std::any_of(legend.begin(), legend.end(), [&](const auto& e) { return e.color == c; });
    EXPECT_TRUE(named) << c.name().toStdString();
  }
  // The "process doing the event" swatch, on the left (before the first
  // event no process is doing one).
  auto count = [&](const QImage& image) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < 220 && x < image.width(); ++x) n += QColor(image.pixel(x, y)) == colors::kActive;
    return n;
  };
  window->controller().skipTo(0);
  view.setLegendFolded(false);  // open, however short the view
  QApplication::processEvents();
  EXPECT_GT(count(view.grab().toImage()), 20);
  view.setShowLegend(false);
  EXPECT_EQ(count(view.grab().toImage()), 0);
  view.setShowLegend(true);
}

// Zoomed far out, the view draws plainer (plain boxes, messages without
// outlines) but still what the scene says, where it says: the boxes' and
// the messages' colours at their places.
TEST_F(Window, ZoomedFarOutTheViewIsPlainerButTheSame) {
  const auto& t = window->trace();
  window->controller().skipTo(positionOf(t, 100, 2) + 1);
  QApplication::processEvents();
  NetworkView& view = window->networkView();
  view.zoomBy(NetworkView::kCoarseZoom / 2 / view.zoom());
  ASSERT_LT(view.zoom(), NetworkView::kCoarseZoom);
  const QImage image = view.grab().toImage();
  auto colourAt = [&](Point p) {
    const QPointF at = view.toWidget(p);
    return image.pixelColor(static_cast<int>(at.x()), static_cast<int>(at.y()));
  };
  const Scene& scene = view.scene();
  ASSERT_EQ(scene.messages.size(), 2u);
  for (const auto& m : scene.messages) EXPECT_EQ(colourAt(m.box.center()), colors::kQueued) << "filled, unsmoothed";
  for (const auto& b : scene.processes) {
    const QColor c = colourAt(b.box.center());
    EXPECT_TRUE(b.active ? c == colors::kActive : c == colors::kProcess || c == colors::kBlocked)
        << c.name().toStdString();
    // A plain rectangle: its corner is the box's, not the background of a rounded one.
    EXPECT_NE(colourAt({b.box.x + 1.5 / view.zoom(), b.box.y + 1.5 / view.zoom()}), colors::kBackground);
  }
  view.fitToView();
}

// Messages and events are 24-pixel targets: a click 10 pixels off a
// message's edge (15 off its centre) picks it, at any zoom; one far from
// every message picks none. The same for a dot on the timeline.
TEST_F(Window, AMessageOrEventIsPickedByAClickNearIt) {
  const auto& t = window->trace();
  window->controller().skipTo(positionOf(t, 100, 2) + 1);
  QApplication::processEvents();
  NetworkView& view = window->networkView();
  for (const double zoom : {1.0, 0.5}) {
    view.zoomBy(zoom / view.zoom());
    const Scene& scene = view.scene();
    ASSERT_EQ(scene.messages.size(), 2u);
    for (const MessageBox& m : scene.messages) {
      const QPointF centre = view.toWidget(m.box.center());
      // Straight up from it, clear of the other message (the two queue side by side).
      EXPECT_EQ(view.messageAt(centre), m.send);
      EXPECT_EQ(view.messageAt(centre - QPointF(0, m.box.h * view.zoom() / 2 + 10)), m.send) << "zoom " << zoom;
      EXPECT_EQ(view.messageAt(centre - QPointF(0, m.box.h * view.zoom() / 2 + 40)), kNone) << "zoom " << zoom;
    }
  }
  view.fitToView();
  SpaceTimeView& st = window->spaceTimeView();
  st.timeline().showWholeRun();
  const auto& dot = st.timeline().dots().front();
  EXPECT_EQ(st.timeline().eventAt(dot.at + QPointF(0, 11)), dot.position);
}

// Rendering: grab the network view and look where the scene says things are.
TEST_F(Window, GrabbedViewShowsProcessesAndQueuedMessagesWhereTheStateSaysTheyAre) {
  const auto& t = window->trace();
  const uint32_t second_send = positionOf(t, 100, 2);
  window->controller().skipTo(second_send + 1);
  QApplication::processEvents();
  NetworkView& view = window->networkView();
  const QImage image = view.grab().toImage();
  const Scene& scene = view.scene();
  ASSERT_EQ(scene.processes.size(), 2u);
  ASSERT_EQ(scene.messages.size(), 2u);
  auto colourAt = [&](Point p) {
    const QPointF at = view.toWidget(p);
    return image.pixelColor(static_cast<int>(at.x()), static_cast<int>(at.y()));
  };
  auto near = [](QColor a, QColor b) {
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 30;
  };
  // A point inside each box, clear of its text.
  for (const auto& b : scene.processes) {
    const QColor c = colourAt({b.box.x + 6, b.box.y + b.box.h - 6});
    EXPECT_TRUE(b.active ? near(c, colors::kActive) : near(c, colors::kProcess) || near(c, colors::kBlocked))
        << c.name().toStdString();
  }
  for (const auto& m : scene.messages)
    EXPECT_TRUE(near(colourAt(m.box.center()), colors::kQueued)) << colourAt(m.box.center()).name().toStdString();
  // Where nothing is drawn: the background.
  EXPECT_TRUE(near(colourAt({scene.processes[0].box.x - 60, scene.processes[0].box.y - 30}), colors::kBackground));

  // Mid-flight: the travelling message is drawn in its colour, between.
  window->controller().skipTo(second_send);
  window->controller().stepForward();
  window->controller().advance(window->controller().secondsPerEvent() / 2);
  QApplication::processEvents();
  const QImage mid = view.grab().toImage();
  const Scene& moving = view.scene();
  const MessageBox* travelling = nullptr;
  for (const auto& m : moving.messages)
    if (m.state == MessageBox::State::Travelling) travelling = &m;
  ASSERT_NE(travelling, nullptr);
  const QPointF at = view.toWidget(travelling->box.center());
  EXPECT_TRUE(near(mid.pixelColor(static_cast<int>(at.x()), static_cast<int>(at.y())), colors::kTravelling));
  // And the sender has changed colour for its event.
  const ProcessBox* sender = moving.box(processOf(t, 100));
  ASSERT_NE(sender, nullptr);
  const QPointF inside = view.toWidget({sender->box.x + 6, sender->box.y + sender->box.h - 6});
  EXPECT_TRUE(near(mid.pixelColor(static_cast<int>(inside.x()), static_cast<int>(inside.y())), colors::kActive));
}

}  // namespace
}  // namespace radar::app

namespace radar::app {
namespace {

// A server that two clients ask; `first` says whose request it takes first.
// With `lost`, two messages nobody receives: a stray process's in both
// runs, and one more from the second client in the run where it goes
// second.
std::unique_ptr<trace::Trace> twoClients(int first, bool lost = false) {
  FakeRecording rec;
  auto& server = rec.process("server", 100).socketEnd(1, 1, 2).socketEnd(2, 3, 4);
  auto& one = rec.process("client", 200).socketEnd(1, 2, 1);
  auto& two = rec.process("client", 300).socketEnd(1, 4, 3);
  if (lost) rec.process("stray", 400).pipeEnd(1, 9, true).send(1, "lost", 10, 11).exit(0, 50);
  one.send(1, "one", 10, 11).receive(1, "ok", 12, 40).exit(0, 50);
  two.send(1, "two", 10, 11).receive(1, "ok", 12, 40);
  if (lost && first == 2) two.send(1, "bye", 41, 42);
  two.exit(0, 50);
  const uint32_t a = first == 1 ? 1 : 2, b = first == 1 ? 2 : 1;
  server.receive(a, a == 1 ? "one" : "two", 20, 21)
      .receive(b, b == 1 ? "one" : "two", 22, 23)
      .send(1, "ok", 24, 25)
      .send(2, "ok", 26, 27)
      .exit(0, 60);
  return rec.load();
}

// Both runs' findings in one pane below them, each marked with the run it
// is found in (the stray's lost message is one row, "both"); the runs'
// own panes are hidden; a double click takes each run that has the
// finding to its event. The differences name processes as radar does.
TEST(RunsWindow, OneFindingsPaneMarksEachRunsFindings) {
  auto second_run = twoClients(2, true);
  second_run->warnings.push_back("host b's clock is not lined up with the others'");
  auto a = std::make_unique<MainWindow>(twoClients(1, true));
  auto b = std::make_unique<MainWindow>(std::move(second_run));
  a->setInteractive(false);
  b->setInteractive(false);
  RunsWindow runs(std::move(a), std::move(b), QStringLiteral("run1"), QStringLiteral("run2"));
  // What the second run's own pane would say about its recording, said below.
  const auto* notes = runs.findChild<QLabel*>(QStringLiteral("recording-notes"));
  ASSERT_TRUE(notes);
  EXPECT_EQ(notes->text(), QStringLiteral("About the second run's recording:\n• host b's clock is not lined up with "
                                          "the others'"));
  runs.setAttribute(Qt::WA_DontShowOnScreen);
  runs.resize(1600, 900);
  runs.show();
  QApplication::processEvents();
  for (MainWindow* w : {&runs.first(), &runs.second()})
    EXPECT_FALSE(w->findChild<QDockWidget*>(QStringLiteral("findings"))->isVisible()) << "one pane for both";
  RunsFindingsModel& model = runs.findings();
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  auto rowsSaying = [&](const QString& run) {
    std::vector<int> rows;
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.index(r, RunsFindingsModel::Run).data().toString() == run) rows.push_back(r);
    return rows;
  };
  const size_t in_first = runs.first().trace().findings.size(), in_second = runs.second().trace().findings.size();
  ASSERT_GE(in_first, 1u) << "the stray's lost message";
  ASSERT_EQ(in_second, in_first + 1) << "the second run has one lost message more";
  const auto both = rowsSaying(QStringLiteral("both")), second = rowsSaying(QStringLiteral("second"));
  EXPECT_EQ(both.size(), in_first);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_TRUE(rowsSaying(QStringLiteral("first")).empty());
  EXPECT_EQ(static_cast<size_t>(model.rowCount()), in_second);
  const QString lost = model.index(second[0], RunsFindingsModel::Description).data().toString();
  EXPECT_TRUE(lost.contains(QStringLiteral("client[300]"))) << lost.toStdString();
  EXPECT_TRUE(model.index(second[0], RunsFindingsModel::Run)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .startsWith(QStringLiteral("Second run")));
  // Picked: the second run to its event, the first stays.
  const uint32_t stays = runs.first().controller().position();
  const uint32_t event = model.eventOf(second[0], 1);
  ASSERT_NE(event, kNone);
  EXPECT_EQ(model.eventOf(second[0], 0), kNone);
  runs.goToFinding(second[0]);
  EXPECT_EQ(runs.second().controller().position(), event + 1);
  EXPECT_EQ(runs.first().controller().position(), stays);
  // A race told with the runs' own names: client[200] and client[300].
  const QString what = QString::fromStdString(runs.diff().differences.at(0).what);
  EXPECT_TRUE(what.contains(QStringLiteral("client[200]")) && what.contains(QStringLiteral("client[300]")))
      << what.toStdString();
  EXPECT_FALSE(what.contains(QLatin1Char('>'))) << what.toStdString();
}

// Two runs side by side: each at the first event where they part,
// selected, with the difference said above them; the list of differences
// moves both.
TEST(RunsWindow, BothRunsAtTheirFirstDifference) {
  auto a = std::make_unique<MainWindow>(twoClients(1));
  auto b = std::make_unique<MainWindow>(twoClients(2));
  a->setInteractive(false);
  b->setInteractive(false);
  RunsWindow runs(std::move(a), std::move(b), QStringLiteral("run1"), QStringLiteral("run2"));
  const analysis::RunDiff& diff = runs.diff();
  ASSERT_FALSE(diff.differences.empty());
  const analysis::RunDifference& first = diff.differences[0];
  EXPECT_EQ(first.kind, analysis::RunDifference::Kind::Race);
  ASSERT_NE(first.a, kNone);
  ASSERT_NE(first.b, kNone);
  EXPECT_EQ(runs.first().controller().position(), first.a + 1);
  EXPECT_EQ(runs.second().controller().position(), first.b + 1);
  EXPECT_EQ(runs.first().spaceTimeView().timeline().selected(), first.a);
  EXPECT_EQ(runs.second().spaceTimeView().timeline().selected(), first.b);
  EXPECT_EQ(runs.first().trace().events[first.a].process, positionOf(runs.first().trace(), 100, 1) == first.a
                                                              ? runs.first().trace().events[first.a].process
                                                              : processOf(runs.first().trace(), 100));
  EXPECT_TRUE(runs.summary().startsWith(QStringLiteral("First, the runs part here (a race, in ")))
      << runs.summary().toStdString();
  if (diff.differences.size() > 1) {
    runs.goToDifference(1);
    const auto& second = diff.differences[1];
    if (second.a != kNone) {
      EXPECT_EQ(runs.first().controller().position(), second.a + 1);
    }
    EXPECT_TRUE(runs.summary().startsWith(QStringLiteral("Then the runs part here"))) << runs.summary().toStdString();
  }
  // Named as radar names processes everywhere, not by their place in the tree.
  EXPECT_FALSE(runs.summary().contains(QLatin1Char('>'))) << runs.summary().toStdString();
  // The same run twice: no difference, said.
  RunsWindow same(std::make_unique<MainWindow>(twoClients(1)), std::make_unique<MainWindow>(twoClients(1)),
                  QStringLiteral("run1"), QStringLiteral("run1"));
  EXPECT_TRUE(same.diff().differences.empty());
  EXPECT_TRUE(same.summary().startsWith(QStringLiteral("No causal difference"))) << same.summary().toStdString();
}

// A journey through the diff: from the start, the arrow keys step both runs
// in lock step (the second always where the first stands in the program)
// up to the first difference, where each is at its own side of it; unlocked,
// a step moves the first run alone.
TEST(RunsWindow, TheArrowKeysStepBothRunsInLockStepToTheFirstDifference) {
  auto a = std::make_unique<MainWindow>(twoClients(1));
  auto b = std::make_unique<MainWindow>(twoClients(2));
  a->setInteractive(false);
  b->setInteractive(false);
  RunsWindow runs(std::move(a), std::move(b), QStringLiteral("run1"), QStringLiteral("run2"));
  runs.setAttribute(Qt::WA_DontShowOnScreen);
  runs.resize(1400, 800);
  runs.show();
  QApplication::setActiveWindow(&runs);
  QApplication::processEvents();
  const analysis::RunDifference first = runs.diff().differences.at(0);
  const analysis::RunAlignment alignment(runs.first().trace(), runs.second().trace(), runs.diff());
  EXPECT_EQ(alignment.inSecond(first.a), first.b) << "the difference's two sides stand for each other";
  runs.first().controller().skipTo(0);
  runs.second().controller().skipTo(0);
  int steps = 0;
  while (runs.first().controller().position() != first.a + 1 && steps++ < 50) {
    QTest::keyClick(&runs, Qt::Key_Right);
    const uint32_t at = runs.first().controller().position() - 1;
    const uint32_t there = alignment.inSecond(at);
    if (there != kNone) {
      EXPECT_EQ(runs.second().controller().position(), there + 1) << "after step " << steps;
    }
  }
  ASSERT_EQ(runs.first().controller().position(), first.a + 1) << "the arrow keys did not get there";
  EXPECT_GT(steps, 1);
  EXPECT_EQ(runs.second().controller().position(), first.b + 1);
  QTest::keyClick(&runs, Qt::Key_Left);
  EXPECT_EQ(runs.first().controller().position(), first.a);
  EXPECT_EQ(runs.second().controller().position(), alignment.inSecond(first.a - 1) + 1) << "back in lock step too";
  // Unlocked: the second stays.
  runs.findChild<QAction*>(QStringLiteral("lock-step"))->setChecked(false);
  const uint32_t stays = runs.second().controller().position(), from = runs.first().controller().position();
  QTest::keyClick(&runs, Qt::Key_Right);
  QTest::keyClick(&runs, Qt::Key_Right);
  EXPECT_EQ(runs.first().controller().position(), from + 2);
  EXPECT_EQ(runs.second().controller().position(), stays);
  QTest::keyClick(&runs, Qt::Key_Right, Qt::ShiftModifier);  // the second on its own
  EXPECT_EQ(runs.second().controller().position(), stays + 1);
  EXPECT_EQ(runs.first().controller().position(), from + 2);
  EXPECT_FALSE(runs.second().networkView().showLegend()) << "one legend for both";
  // Every difference marked in both: its events on each timeline, its
  // processes ringed in each network.
  for (const auto& d : runs.diff().differences) {
    if (d.a != kNone) {
      const auto* marks = runs.first().spaceTimeView().timeline().marks();
      ASSERT_TRUE(marks);
      EXPECT_TRUE(std::binary_search(marks->begin(), marks->end(), d.a));
    }
    if (d.b != kNone) {
      const auto* marks = runs.second().spaceTimeView().timeline().marks();
      ASSERT_TRUE(marks);
      EXPECT_TRUE(std::binary_search(marks->begin(), marks->end(), d.b));
    }
  }
  const auto& ringed = runs.first().networkView().partedProcesses();
  EXPECT_TRUE(std::binary_search(ringed.begin(), ringed.end(), first.process_a));
  const auto& ringed2 = runs.second().networkView().partedProcesses();
  EXPECT_TRUE(std::binary_search(ringed2.begin(), ringed2.end(), first.process_b));
}

}  // namespace
}  // namespace radar::app

namespace radar::app {
namespace {

// The view saved as an image: a PNG of the window's size, an SVG whose
// text is text (the narrative can be found in it); another name is refused
// and nothing is written.
TEST(WindowImage, TheViewSavesAsPngAndSvg) {
  MainWindow window(producerConsumer());
  window.setInteractive(false);
  window.resize(1000, 700);
  window.controller().skipTo(3);
  QApplication::processEvents();
  const QString dir = QDir::tempPath() + QStringLiteral("/radar-view-%1").arg(QCoreApplication::applicationPid());
  QDir().mkpath(dir);
  QString error;
  ASSERT_TRUE(window.saveView(dir + QStringLiteral("/view.png"), &error)) << error.toStdString();
  const QImage png(dir + QStringLiteral("/view.png"));
  EXPECT_EQ(png.size(), QSize(1000, 700));
  ASSERT_TRUE(window.saveView(dir + QStringLiteral("/view.SVG"), &error)) << error.toStdString();
  QFile svg(dir + QStringLiteral("/view.SVG"));
  ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(svg.readAll());
  EXPECT_TRUE(text.contains(QStringLiteral("<svg"))) << text.left(200).toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("viewBox=\"0 0 1000 700\""))) << text.left(400).toStdString();
  // The narrative, HTML-escaped as SVG text.
  QString narrative = window.narrative().toHtmlEscaped();
  narrative.replace(QLatin1Char('"'), QStringLiteral("&quot;"));
  EXPECT_TRUE(text.contains(narrative.left(30))) << narrative.toStdString();
  EXPECT_FALSE(window.saveView(dir + QStringLiteral("/view.jpg"), &error));
  EXPECT_TRUE(error.contains(QStringLiteral(".png or .svg"))) << error.toStdString();
  EXPECT_FALSE(QFile::exists(dir + QStringLiteral("/view.jpg")));
  EXPECT_FALSE(window.saveView(QStringLiteral("/nonexistent-dir/view.svg"), &error));
  EXPECT_FALSE(QFile::exists(QStringLiteral("/nonexistent-dir/view.svg.radar-partial")));
  QDir(dir).removeRecursively();
}

// F1 opens the guide installed with the program, at the replay's page; its
// links lead to the other pages, rendered, not as Markdown's source.
TEST(Help, F1OpensTheGuideInstalledWithTheProgram) {
  // Installed: beside bin/ or libexec/radar/ under the prefix.
  const QString prefix = QDir::tempPath() + QStringLiteral("/radar-guide-%1").arg(QCoreApplication::applicationPid());
  QDir().mkpath(prefix + QStringLiteral("/libexec/radar"));
  QDir().mkpath(prefix + QStringLiteral("/share/doc/radar"));
  QFile page(prefix + QStringLiteral("/share/doc/radar/replay.md"));
  ASSERT_TRUE(page.open(QIODevice::WriteOnly));
  page.write("# Replaying\n");
  page.close();
  EXPECT_EQ(findGuide(guideCandidates(prefix + QStringLiteral("/libexec/radar"))),
            prefix + QStringLiteral("/share/doc/radar"));
  EXPECT_EQ(findGuide(guideCandidates(prefix + QStringLiteral("/bin"))), prefix + QStringLiteral("/share/doc/radar"));
  EXPECT_EQ(findGuide({prefix + QStringLiteral("/nowhere")}), QString());
  QDir(prefix).removeRecursively();

  // A build not installed finds the sources' guide.
  MainWindow window(producerConsumer());
  window.setInteractive(false);
  window.show();
  QApplication::processEvents();
  QTest::keyClick(&window, Qt::Key_F1);
  HelpWindow* guide = window.findChild<HelpWindow*>();
  ASSERT_NE(guide, nullptr);
  EXPECT_TRUE(guide->isVisible());
  QTextBrowser& browser = guide->browser();
  EXPECT_TRUE(browser.source().path().endsWith(QStringLiteral("/replay.md")))
      << browser.source().toString().toStdString();
  EXPECT_TRUE(browser.toPlainText().contains(QStringLiteral("The network view")));
  EXPECT_FALSE(browser.toPlainText().contains(QStringLiteral("## The network view"))) << "rendered, not its source";
  browser.setSource(browser.source().resolved(QUrl(QStringLiteral("recording.md"))));  // as a click on a link does
  EXPECT_TRUE(browser.source().path().endsWith(QStringLiteral("/recording.md")));
  EXPECT_FALSE(browser.toPlainText().startsWith(QStringLiteral("#"))) << browser.toPlainText().left(80).toStdString();
  EXPECT_FALSE(browser.toPlainText().contains(QStringLiteral("```"))) << "rendered, not its source";
}

// The network or the timeline alone, as an SVG, drawn by another renderer
// (librsvg's rsvg-convert) is the picture the window shows: the same size,
// and block by block the same colours (no part left out, none filled in).
TEST(WindowImage, TheNetworkOrTheTimelineAloneAsSvgIsWhatTheWindowShows) {
  const QString rsvg = QStandardPaths::findExecutable(QStringLiteral("rsvg-convert"));
  if (rsvg.isEmpty()) GTEST_SKIP() << "rsvg-convert is not installed (apt-get install librsvg2-bin)";
  MainWindow window(producerConsumer());
  window.setInteractive(false);
  window.resize(1000, 700);
  window.show();
  window.controller().skipTo(3);
  QApplication::processEvents();
  const QString dir = QDir::tempPath() + QStringLiteral("/radar-part-%1").arg(QCoreApplication::applicationPid());
  QDir().mkpath(dir);
  for (auto part : {MainWindow::Part::Network, MainWindow::Part::Timeline}) {
    const QString name = part == MainWindow::Part::Network ? QStringLiteral("network") : QStringLiteral("timeline");
    QString error;
    ASSERT_TRUE(window.saveView(dir + "/" + name + ".png", &error, part)) << error.toStdString();
    ASSERT_TRUE(window.saveView(dir + "/" + name + ".svg", &error, part)) << error.toStdString();
    QProcess render;
    render.start(rsvg, {dir + "/" + name + ".svg", QStringLiteral("-o"), dir + "/" + name + "-rsvg.png"});
    ASSERT_TRUE(render.waitForFinished(30000) && render.exitCode() == 0) << render.readAllStandardError().toStdString();
    const QImage png = QImage(dir + "/" + name + ".png").convertToFormat(QImage::Format_RGB32);
    QImage drawn = QImage(dir + "/" + name + "-rsvg.png").convertToFormat(QImage::Format_ARGB32);
    EXPECT_EQ(png.size(), window.partWidget(part).size()) << name.toStdString() << ": the part alone";
    ASSERT_EQ(drawn.size(), png.size()) << name.toStdString();
    // rsvg leaves what nothing covers transparent: on the window's background.
    QImage flat(drawn.size(), QImage::Format_RGB32);
    flat.fill(window.partWidget(part).palette().color(QPalette::Window));
    QPainter(&flat).drawImage(0, 0, drawn);
    constexpr int kBlock = 16;
    double worst = 0;
    QPoint where;
    for (int by = 0; by + kBlock <= png.height(); by += kBlock)
      for (int bx = 0; bx + kBlock <= png.width(); bx += kBlock) {
        double a[3] = {}, b[3] = {};
        for (int y = by; y < by + kBlock; ++y)
          for (int x = bx; x < bx + kBlock; ++x) {
            const QRgb p = png.pixel(x, y), q = flat.pixel(x, y);
            a[0] += qRed(p), a[1] += qGreen(p), a[2] += qBlue(p);
            b[0] += qRed(q), b[1] += qGreen(q), b[2] += qBlue(q);
          }
        for (int c = 0; c < 3; ++c)
          if (const double d = std::abs(a[c] - b[c]) / (kBlock * kBlock); d > worst) worst = d, where = {bx, by};
      }
    EXPECT_LT(worst, 48) << name.toStdString() << ": the block at " << where.x() << "," << where.y() << " differs by "
                         << worst << " of 255 on average";
  }
  QDir(dir).removeRecursively();
}

}  // namespace
}  // namespace radar::app

namespace radar::app {
namespace {

// A deadlock's wait-for cycle: drawn between the boxes, each waiting
// process blocked, once the last of them is in its call; not before.
// A queue of 18: as many as fit in the gap in front of the receiver,
// the rest counted; none drawn over a box.
TEST(Scene, ALongQueueStaysInTheGapInFrontOfItsReceiver) {
  FakeRecording rec;
  auto& p = rec.process("producer", 100).pipeEnd(1, 7, true);
  auto& c = rec.process("consumer", 200).user("ready", 5).pipeEnd(1, 7, false);  // on stage from the start
  for (int k = 0; k < 18; ++k) p.send(1, "m" + std::to_string(k), 10 + k, 11 + k);
  for (int k = 0; k < 18; ++k) c.receive(1, "m" + std::to_string(k), 100 + k, 101 + k);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const Scene s = builder.build(positionOf(*t, 100, 18) + 1, 1);
  const ProcessBox* consumer = s.box(processOf(*t, 200));
  ASSERT_TRUE(consumer);
  const PortMark* in = nullptr;
  for (const auto& port : s.ports)
    if (port.input) in = &port;
  ASSERT_TRUE(in);
  EXPECT_GE(in->room, 1u);
  EXPECT_LE(in->room, SceneBuilder::kMaxQueueDrawn);
  ASSERT_EQ(s.messages.size(), in->room);
  EXPECT_EQ(in->hidden, 18 - in->room);
  auto overlaps = [](const Rect& m, const Rect& b) {
    return m.x < b.x + b.w && b.x < m.x + m.w && m.y < b.y + b.h && b.y < m.y + m.h;
  };
  for (const auto& m : s.messages)
    for (const auto& b : s.processes) EXPECT_FALSE(overlaps(m.box, b.box)) << b.name;
  // The count, beside the last drawn (26 wide), stays in the gap too.
  const Point count = queueSlot(*in, in->room).center();
  for (const auto& b : s.processes) EXPECT_FALSE(overlaps({count.x - 13, count.y - 6, 26, 12}, b.box)) << b.name;
  // Boxes side by side, with the wider gap between: all six, and a count.
  builder.moveBox(processOf(*t, 100), {0, 0});
  builder.moveBox(processOf(*t, 200), {geometry::kBoxWidth + geometry::kGapX, 0});
  const Scene wide = builder.build(positionOf(*t, 100, 18) + 1, 1);
  EXPECT_EQ(wide.messages.size(), SceneBuilder::kMaxQueueDrawn);
  for (const auto& m : wide.messages)
    for (const auto& b : wide.processes) EXPECT_FALSE(overlaps(m.box, b.box)) << b.name;
}

// Messages for a receiver not on screen yet (its first event comes later)
// wait beside their sender in send order, side by side, the rest counted:
// never stacked on one spot.
TEST(Scene, MessagesForAReceiverNotOnScreenWaitInARowBesideTheSender) {
  FakeRecording rec;
  auto& p = rec.process("producer", 100).pipeEnd(1, 7, true);
  auto& c = rec.process("consumer", 200).pipeEnd(1, 7, false);
  for (int k = 0; k < 10; ++k) p.send(1, "m" + std::to_string(k), 10 + k, 11 + k);
  for (int k = 0; k < 10; ++k) c.receive(1, "m" + std::to_string(k), 100 + k, 101 + k);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const Scene s = builder.build(positionOf(*t, 100, 10) + 1, 1);
  ASSERT_EQ(s.box(processOf(*t, 200)), nullptr) << "the consumer has not started";
  const ProcessBox* producer = s.box(processOf(*t, 100));
  ASSERT_TRUE(producer);
  ASSERT_EQ(s.messages.size(), SceneBuilder::kMaxQueueDrawn);
  uint32_t hidden = 0;
  for (const auto& port : s.ports) hidden += port.hidden;
  EXPECT_EQ(hidden, 10 - SceneBuilder::kMaxQueueDrawn);
  for (size_t k = 0; k < s.messages.size(); ++k) {
    const Rect& m = s.messages[k].box;
    EXPECT_GE(m.x, producer->box.x + producer->box.w) << "outside the sender";
    EXPECT_LE(m.x + m.w, producer->box.x + producer->box.w + geometry::kGapX) << "within the gap";
    if (k) {
      EXPECT_GE(m.x, s.messages[k - 1].box.x + s.messages[k - 1].box.w) << "side by side, in send order";
    }
  }
}

// The workers one process started, one program, drawn as one box with a
// count: their messages queue at its input port, their channels join it,
// and shown one by one again, each has its box back.
TEST(Scene, SiblingsOfOneProgramGroupIntoOneBoxAndApartAgain) {
  FakeRecording rec;
  auto& pool = rec.process("pool", 10);
  std::vector<radar::testing::FakeProcess*> workers;
  for (int k = 0; k < 5; ++k) {
    pool.pipeEnd(k + 1, 100 + k, true).fork(20 + k, 10 + k, 10 + k);
    workers.push_back(&rec.child(pool, "worker", 20 + k).pipeEnd(1, 100 + k, false).user("ready", 20 + k));
  }
  for (int k = 0; k < 5; ++k) pool.send(k + 1, "job " + std::to_string(k), 30 + k, 31 + k);
  for (int k = 0; k < 5; ++k) workers[k]->receive(1, "job " + std::to_string(k), 50 + k, 51 + k).exit(0, 60 + k);
  pool.exit(0, 90);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t last_send = positionOf(*t, 10, 10);  // five forks, five sends
  ASSERT_EQ(builder.build(last_send + 1, 1).processes.size(), 6u);
  const uint32_t first_worker = processOf(*t, 20);
  EXPECT_EQ(builder.siblingsOf(first_worker).size(), 5u);
  EXPECT_EQ(builder.siblingsOf(processOf(*t, 10)).size(), 1u);

  builder.setGrouped(processOf(*t, 22), true);  // any member groups them all
  EXPECT_TRUE(builder.grouped(first_worker));
  const Scene s = builder.build(last_send + 1, 1);
  ASSERT_EQ(s.processes.size(), 2u);
  const ProcessBox* group = s.box(builder.boxProcess(processOf(*t, 24)));
  ASSERT_TRUE(group);
  EXPECT_EQ(group->name, "worker × 5");
  EXPECT_EQ(group->members, 5u);
  const ProcessBox* parent = s.box(processOf(*t, 10));
  ASSERT_TRUE(parent);
  EXPECT_FALSE(parent->box.x < group->box.x + group->box.w && group->box.x < parent->box.x + parent->box.w &&
               parent->box.y < group->box.y + group->box.h && group->box.y < parent->box.y + parent->box.h);
  ASSERT_EQ(s.messages.size(), 5u);
  // Queued in front of the group: outside both boxes, nearer the group.
  auto gap = [](Point p, const Rect& r) {
    const double dx = std::max({r.x - p.x, 0.0, p.x - r.x - r.w}), dy = std::max({r.y - p.y, 0.0, p.y - r.y - r.h});
    return std::hypot(dx, dy);
  };
  for (const auto& m : s.messages) {
    EXPECT_GT(gap(m.box.center(), group->box), 0);
    EXPECT_GT(gap(m.box.center(), parent->box), 0);
    EXPECT_LT(gap(m.box.center(), group->box), gap(m.box.center(), parent->box)) << "queued in front of the group";
  }
  // Once each has read its pipe: a port per channel, each channel a line
  // from the parent to the group.
  const Scene read = builder.build(positionOf(*t, 24, 2) + 1, 1);
  ASSERT_EQ(read.processes.size(), 2u);
  EXPECT_EQ(read.box(group->process)->inputs, 5u);
  EXPECT_EQ(read.channels.size(), 5u);
  for (const auto& c : read.channels) {
    EXPECT_EQ(c.from, parent->process);
    EXPECT_EQ(c.to, group->process);
  }

  builder.setGrouped(first_worker, false);
  EXPECT_EQ(builder.build(last_send + 1, 1).processes.size(), 6u);
  EXPECT_EQ(builder.groupSiblings(6), 0u);
  EXPECT_EQ(builder.groupSiblings(5), 1u);
  EXPECT_EQ(builder.build(last_send + 1, 1).processes.size(), 2u);
  builder.ungroupAll();
  EXPECT_EQ(builder.build(last_send + 1, 1).processes.size(), 6u);
}

// Thirty workers of one pool: the window opens with them as one box, and
// shows them one by one when asked.
TEST(WindowGroups, ManySiblingsStartAsOneBox) {
  FakeRecording rec;
  auto& pool = rec.process("pool", 10);
  for (int k = 0; k < 30; ++k) {
    pool.fork(100 + k, 10 + k, 10 + k);
    rec.child(pool, "worker", 100 + k).user("ready", 50 + k).exit(0, 100 + k);
  }
  pool.exit(0, 200);
  MainWindow window(rec.load());
  window.setInteractive(false);
  window.controller().skipTo(positionOf(window.trace(), 129, 1) + 1);  // every worker ready
  QApplication::processEvents();
  const Scene& grouped = window.networkView().scene();
  ASSERT_EQ(grouped.processes.size(), 2u);
  EXPECT_EQ(grouped.processes[1].members + grouped.processes[0].members, 31u);
  window.networkView().setGrouped(processOf(window.trace(), 100), false);
  QApplication::processEvents();
  EXPECT_EQ(window.networkView().scene().processes.size(), 31u);
}

// A channel between two boxes with a third between them is bent around
// it: a straight line would seem to join the third.
TEST(Scene, AChannelLineBendsAroundTheBoxesBetweenItsEnds) {
  FakeRecording rec;
  rec.process("left", 1).pipeEnd(1, 7, true).send(1, "over", 10, 11).exit(0, 60);
  rec.process("middle", 2).user("here", 5).exit(0, 70);
  rec.process("right", 3).pipeEnd(1, 7, false).receive(1, "over", 30, 31).exit(0, 80);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  builder.moveBox(processOf(*t, 1), {0, 0});
  builder.moveBox(processOf(*t, 2), {300, 10});
  builder.moveBox(processOf(*t, 3), {600, 0});
  const Scene s = builder.build(positionOf(*t, 3, 1) + 1, 1);
  ASSERT_EQ(s.channels.size(), 1u);
  const ChannelLine& line = s.channels[0];
  const Rect middle = s.box(processOf(*t, 2))->box;
  ASSERT_TRUE(crosses(line.a, line.b, middle)) << "the test means something: straight, it would cross";
  Point from = line.a;
  for (int k = 1; k <= 64; ++k) {
    const Point to = onCurve(line.a, line.control, line.b, k / 64.0);
    EXPECT_FALSE(crosses(from, to, middle)) << "piece " << k;
    from = to;
  }
  // Nothing between: straight.
  builder.moveBox(processOf(*t, 2), {300, 400});
  const Scene apart = builder.build(positionOf(*t, 3, 1) + 1, 1);
  const ChannelLine& straight = apart.channels[0];
  EXPECT_DOUBLE_EQ(straight.control.x, (straight.a.x + straight.b.x) / 2);
  EXPECT_DOUBLE_EQ(straight.control.y, (straight.a.y + straight.b.y) / 2);
}

// Wherever the boxes stand (the reader left of the writer, above it, below
// it), a message travels and queues between them, never through a box: its
// ports face each other on the line between the boxes.
TEST(Scene, MessagesTravelAndQueueBetweenTheBoxesWhereverTheyStand) {
  FakeRecording rec;
  auto& p = rec.process("producer", 100).pipeEnd(1, 7, true);
  auto& c = rec.process("consumer", 200).user("ready", 5).pipeEnd(1, 7, false);
  for (int k = 0; k < 3; ++k) p.send(1, "m" + std::to_string(k), 10 + k, 11 + k);
  for (int k = 0; k < 3; ++k) c.receive(1, "m" + std::to_string(k), 100 + k, 101 + k);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t producer = processOf(*t, 100), consumer = processOf(*t, 200);
  auto inside = [](const Rect& m, const Rect& b) {
    return m.x + 0.5 < b.x + b.w && b.x < m.x + m.w - 0.5 && m.y + 0.5 < b.y + b.h && b.y < m.y + m.h - 0.5;
  };
  const Point places[] = {{-400, 0}, {0, -250}, {0, 250}, {-350, 220}, {400, 0}};
  for (const Point& at : places) {
    builder.moveBox(producer, {500, 500});
    builder.moveBox(consumer, {500 + at.x, 500 + at.y});
    const Rect from = builder.boxOf(producer), to = builder.boxOf(consumer);
    const uint32_t last_send = positionOf(*t, 100, 3);
    for (double progress = 0; progress <= 1.0; progress += 0.125) {
      const Scene s = builder.build(last_send + 1, progress);
      ASSERT_EQ(s.messages.size(), 3u);
      for (const auto& m : s.messages) {
        EXPECT_FALSE(inside(m.box, from)) << "at " << at.x << "," << at.y << " progress " << progress;
        EXPECT_FALSE(inside(m.box, to)) << "at " << at.x << "," << at.y << " progress " << progress;
      }
    }
    // The consumer's input port faces the producer, on the line between them.
    const Scene s = builder.build(last_send + 1, 1);
    for (const auto& port : s.ports) {
      if (!port.input) continue;
      const Point want = borderToward(to, from.center());
      EXPECT_NEAR(port.at.x, want.x, 1e-6);
      EXPECT_NEAR(port.at.y, want.y, 1e-6);
    }
  }
}

// Ports are channels: a process with two descriptors of one pipe has one
// input port; the channel is a line from the writer's output side to the
// reader's input side; a socket pair's, between the nearest borders.
TEST(Scene, PortsAreChannelsAndChannelsAreLinesBetweenTheirProcesses) {
  FakeRecording rec;
  rec.process("producer", 100).pipeEnd(1, 7, true).send(1, "hello", 10, 11).exit(0, 60);
  rec.process("consumer", 200)
      .pipeEnd(1, 7, false)
      .pipeEnd(2, 7, false)  // dup'd: both read
      .receive(1, "hel", 30, 31)
      .receive(2, "lo", 32, 33)
      .exit(0, 70);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const Scene s = builder.build(positionOf(*t, 200, 2) + 1, 1);
  const ProcessBox* consumer = s.box(processOf(*t, 200));
  const ProcessBox* producer = s.box(processOf(*t, 100));
  ASSERT_TRUE(consumer && producer);
  EXPECT_EQ(consumer->inputs, 1u);
  EXPECT_EQ(producer->outputs, 1u);
  ASSERT_EQ(s.channels.size(), 1u);
  const ChannelLine& line = s.channels[0];
  EXPECT_EQ(line.from, producer->process);
  EXPECT_EQ(line.to, consumer->process);
  EXPECT_FALSE(line.both_ways);
  auto onBorder = [](const Rect& r, Point p) {
    return r.contains(p) && (std::abs(p.x - r.x) < 1e-6 || std::abs(p.x - r.x - r.w) < 1e-6 ||
                             std::abs(p.y - r.y) < 1e-6 || std::abs(p.y - r.y - r.h) < 1e-6);
  };
  EXPECT_TRUE(onBorder(producer->box, line.a));
  EXPECT_TRUE(onBorder(consumer->box, line.b));

  FakeRecording pair;
  radar::testing::clientAndServer(pair, 2);
  auto t2 = pair.load();
  trace::DisplayModel display2(*t2);
  SceneBuilder builder2(*t2, display2);
  const Scene s2 = builder2.build(positionOf(*t2, 200, 2) + 1, 1);  // both have used the pair
  ASSERT_EQ(s2.channels.size(), 1u);
  EXPECT_TRUE(s2.channels[0].both_ways);
  EXPECT_TRUE(onBorder(s2.box(s2.channels[0].from)->box, s2.channels[0].a));
  EXPECT_TRUE(onBorder(s2.box(s2.channels[0].to)->box, s2.channels[0].b));
}

TEST(Scene, ADeadlocksWaitForCycleIsDrawnOnceItForms) {
  FakeRecording rec;
  rec.process("a", 1).pipeEnd(1, 201, true).pipeEnd(3, 203, false).user("start", 5).blockedIn(log::Kind::Read, 3);
  rec.process("b", 2).pipeEnd(1, 201, false).pipeEnd(2, 202, true).user("start", 10).blockedIn(log::Kind::Read, 1);
  rec.process("c", 3).pipeEnd(2, 202, false).pipeEnd(3, 203, true).user("start", 15).blockedIn(log::Kind::Read, 2);
  auto t = rec.load();
  trace::DisplayModel display(*t);
  SceneBuilder builder(*t, display);
  const uint32_t n = static_cast<uint32_t>(t->events.size());
  const Scene end = builder.build(n, 1);
  ASSERT_EQ(end.waits.size(), 3u);
  std::set<std::pair<int32_t, int32_t>> edges;
  for (const WaitEdge& w : end.waits) edges.insert({t->processes[w.from].pid, t->processes[w.to].pid});
  // a reads what c writes, b what a writes, c what b writes.
  EXPECT_EQ(edges, (std::set<std::pair<int32_t, int32_t>>{{1, 3}, {2, 1}, {3, 2}}));
  for (const ProcessBox& b : end.processes) EXPECT_TRUE(b.blocked) << b.name;
  // Before c's last event (then it reads, and never returns), no cycle.
  const uint32_t c_last = positionOf(*t, 3, 1);
  EXPECT_TRUE(builder.build(c_last, 1).waits.empty());
  EXPECT_EQ(builder.build(c_last + 1, 1).waits.size(), 3u);
}

}  // namespace
}  // namespace radar::app
