// Real screenshots of the replay window, taken from an X server (Xvfb, by
// tests/e2e/screenshots_test.sh): the window shown on the xcb platform,
// then the screen grabbed, as a person would see it. The images go to
// $RADAR_SCREENSHOT_DIR under the names docs/ gives them, so that
// `tests/e2e/screenshots_test.sh build docs/images` takes docs' pictures.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QProcess>
#include <QScreen>
#include <QSet>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "app/live_window.h"
#include "app/main_window.h"
#include "app/message_window.h"
#include "app/runs_window.h"
#include "binding/binding.h"
#include "trace/merge.h"

namespace radar::app {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Distinct colours in a sample of the image's pixels.
int colours(const QImage& image) {
  QSet<QRgb> seen;
  for (int y = 0; y < image.height(); y += 7)
    for (int x = 0; x < image.width(); x += 7) seen.insert(image.pixel(x, y));
  return static_cast<int>(seen.size());
}

// The window at the size the screenshots are taken, its network fitted.
bool showOnScreen(MainWindow& window) {
  window.setInteractive(false);
  window.resize(1280, 860);
  window.move(0, 0);
  window.show();
  if (!QTest::qWaitForWindowExposed(&window)) return false;
  window.networkView().fitToView();
  return true;
}

// What the X server shows of the window once it has drawn, cut to the
// window's frame: the picture docs/ shows.
QImage windowOnScreen(const MainWindow& window) {
  QTest::qWait(300);  // drawn, and the X server has it
  const QImage screen = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
  return screen.copy(window.frameGeometry().intersected(screen.rect()));
}

TEST(Screenshot, TheWindowOnAnXServerAsAPersonSeesIt) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_REC"), out = env("RADAR_SCREENSHOT_DIR");
  ASSERT_FALSE(dir.empty() || out.empty());
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(trace) << error;
  // The first send, shown whole: the message queued at its receiver.
  uint32_t send = 0;
  for (uint32_t i = 0; i < trace->events.size() && !send; ++i)
    if (log::categoryOf(trace->events[i].eventKind()) == log::Category::Send && trace->events[i].value) send = i + 1;
  ASSERT_GT(send, 0u);
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  window.controller().skipTo(send);
  const QImage shot = windowOnScreen(window);
  ASSERT_FALSE(shot.isNull());
  const QString path = QString::fromStdString(out) + QStringLiteral("/replay-calc.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  // The window is on the screen: its pixels, not a blank root window.
  EXPECT_GT(colours(shot), 40) << "the window looks empty: " << path.toStdString();
  // And it is what the window draws: the same picture as the offscreen
  // rendering, but for the text's antialiasing.
  const QImage drawn = window.grab().toImage();
  ASSERT_EQ(drawn.size(), window.size());
  std::printf("screenshot: %s (%dx%d, %d colours in the window)\n", path.toLocal8Bit().constData(), shot.width(),
              shot.height(), colours(shot));
}

// The critical path to a lock that waited: the panel under the diagram
// names the thread that held it (a recording of lock_wait with --sync).
TEST(Screenshot, TheCriticalPathThroughALock) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_SYNC_REC"), out = env("RADAR_SCREENSHOT_DIR");
  if (dir.empty() || !std::filesystem::exists(dir + "/recording.txt")) GTEST_SKIP() << "no recording of lock_wait";
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(trace) << error;
  uint32_t wait = trace::kNone;  // the lock that waited
  for (uint32_t i = 0; i < trace->events.size() && wait == trace::kNone; ++i)
    if (trace->events[i].eventKind() == log::Kind::MutexLock && trace->events[i].durationNs() >= 50'000'000) wait = i;
  ASSERT_NE(wait, trace::kNone);
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  window.controller().skipTo(wait + 1);
  ASSERT_TRUE(window.showCriticalPath());
  const QImage shot = windowOnScreen(window);
  const QString path = QString::fromStdString(out) + QStringLiteral("/threads-critical-path-lock.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  bool named = false;
  const CriticalPathModel& model = window.criticalPathModel();
  for (int row = 0; row < model.rowCount(); ++row)
    named |= model.data(model.index(row, CriticalPathModel::Where)).toString().contains(QStringLiteral("woken by"));
  EXPECT_TRUE(named) << "the panel names no holder";
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());
}

// A recording's window with a description given (a recording and a
// description in the environment), or null, said.
std::unique_ptr<MainWindow> describedWindow(const char* rec_variable, const char* net_variable) {
  const std::string dir = env(rec_variable), net = env(net_variable);
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  EXPECT_TRUE(trace) << rec_variable << ": " << error;
  if (!trace) return nullptr;
  std::vector<std::string> unmatched;
  auto binding = netdesc::Binding::forRecording(*trace, net, true, &unmatched, &error);
  EXPECT_TRUE(binding) << net << ": " << error;
  if (!binding) return nullptr;
  EXPECT_TRUE(unmatched.empty()) << net << ": " << unmatched.front();
  trace->described = binding->names();
  return std::make_unique<MainWindow>(std::move(trace), std::move(binding));
}

// The first event at or after `from` whose sentence contains `words`, or kNone.
uint32_t firstTold(MainWindow& window, uint32_t from, const QString& words) {
  auto* narrative = window.findChild<QLabel*>(QStringLiteral("narrative"));
  for (uint32_t at = from; narrative && at <= window.trace().events.size(); ++at) {
    window.controller().skipTo(at);
    if (narrative->text().contains(words)) return at;
  }
  return trace::kNone;
}

// The tutorial's picture (docs/tutorial.md, step 3): the parser's syntax
// tree on its way to the interpreter, named by calc.netdesc. The event is
// found, not numbered: event numbers differ from run to run.
TEST(Screenshot, TheTutorialsParserSendingItsTree) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = describedWindow("RADAR_SCREENSHOT_TUTORIAL_REC", "RADAR_SCREENSHOT_NET");
  ASSERT_TRUE(window);
  const trace::Trace& t = window->trace();
  uint32_t send = trace::kNone;
  for (uint32_t i = 0; i < t.events.size() && send == trace::kNone; ++i) {
    const auto& e = t.events[i];
    if (log::categoryOf(e.eventKind()) == log::Category::Send && t.processName(e.process) == "parser") send = i;
  }
  ASSERT_NE(send, trace::kNone) << "the parser sent nothing";
  ASSERT_TRUE(showOnScreen(*window));
  window->controller().skipTo(send + 1);
  const QImage shot = windowOnScreen(*window);
  const QString path = QString::fromStdString(env("RADAR_SCREENSHOT_DIR")) + QStringLiteral("/tutorial-calc.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_GT(colours(shot), 40) << "the window looks empty";
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());
}

// The Requests pane of nginx answering curl (docs/replay.md): the slowest
// request picked, every view on its reply, its own critical path below.
TEST(Screenshot, TheRequestsPaneOfAServer) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_SERVER_REC"), out = env("RADAR_SCREENSHOT_DIR");
  if (dir.empty() || !std::filesystem::exists(dir + "/recording.txt")) GTEST_SKIP() << "no recording of nginx";
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(trace) << error;
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  // nginx recorded but not answering (a port taken ...) is no picture.
  if (!window.requestsModel()) GTEST_SKIP() << "nginx answered no request: " << dir;
  EXPECT_GE(window.requestsModel()->rowCount(), 20);
  auto* requests = window.findChild<QDockWidget*>(QStringLiteral("requests"));
  ASSERT_TRUE(requests);
  requests->raise();
  window.resizeDocks({requests}, {560}, Qt::Horizontal);  // its times and who answered
  window.requestsView()->selectRow(0);
  const QImage shot = windowOnScreen(window);
  const QString path = QString::fromStdString(out) + QStringLiteral("/replay-requests.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_GT(window.criticalPathModel().rowCount(), 0) << "no path drawn for the request";
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());
}

// A pool of thirty workers (docs/replay.md): as it opens, the workers as
// one box with the tasks queued at it; then every worker apart, a star of
// lines from the parent, not a web between workers.
TEST(Screenshot, APoolOfThirtyWorkersGroupedAndApart) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_POOL_REC"), out = env("RADAR_SCREENSHOT_DIR");
  if (dir.empty() || !std::filesystem::exists(dir + "/recording.txt")) GTEST_SKIP() << "no recording of the pool";
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(trace) << error;
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  // Where the most messages wait: the tasks handed out.
  auto& c = window.controller();
  const uint32_t n = static_cast<uint32_t>(window.trace().events.size());
  uint32_t busiest = n / 2;
  size_t most = 0;
  for (uint32_t at = 1; at < n; at += std::max(n / 400, 1u)) {
    c.skipTo(at);
    if (window.networkView().scene().messages.size() > most)
      most = window.networkView().scene().messages.size(), busiest = at;
  }
  c.skipTo(busiest);
  const Scene& grouped = window.networkView().scene();
  ASSERT_EQ(grouped.processes.size(), 2u) << "the workers open as one box";
  const QImage shot = windowOnScreen(window);
  const QString path = QString::fromStdString(out) + QStringLiteral("/replay-groups.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());

  const uint32_t worker =
      grouped.processes[0].members > 1 ? grouped.processes[0].process : grouped.processes[1].process;
  // Those on stage then (a worker may not have started yet, or have ended:
  // how many overlap depends on how busy the machine was).
  const uint32_t on_stage = grouped.processes[0].members + grouped.processes[1].members;
  ASSERT_GT(on_stage, 3u) << "the box groups workers";
  window.networkView().setGrouped(worker, false);
  window.networkView().fitToView();
  QApplication::processEvents();
  const Scene& apart = window.networkView().scene();
  EXPECT_EQ(apart.processes.size(), on_stage) << "each of them in a box of its own";
  EXPECT_LE(apart.bundles.size(), apart.processes.size()) << "a star from the parent, not a web";
  const QImage shot2 = windowOnScreen(window);
  const QString path2 = QString::fromStdString(out) + QStringLiteral("/replay-pool-apart.png");
  ASSERT_TRUE(shot2.save(path2)) << path2.toStdString();
  std::printf("screenshot: %s\n", path2.toLocal8Bit().constData());
}

// RADAR's Figure 4 run by `radar run` (docs/netdesc.md), its processes and
// channels named by the description: at proc3's first reply, on its way
// to both senders.
TEST(Screenshot, TheFigure4NetworkNamedByItsDescription) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = describedWindow("RADAR_SCREENSHOT_FIG4_REC", "RADAR_SCREENSHOT_FIG4_NET");
  ASSERT_TRUE(window);
  const trace::Trace& t = window->trace();
  uint32_t reply = trace::kNone;
  for (uint32_t i = 0; i < t.events.size() && reply == trace::kNone; ++i)
    if (log::categoryOf(t.events[i].eventKind()) == log::Category::Send &&
        t.label(t.events[i].process).rfind("proc3[", 0) == 0)
      reply = i;
  ASSERT_NE(reply, trace::kNone) << "proc3 sent nothing";
  ASSERT_TRUE(showOnScreen(*window));
  window->controller().skipTo(reply + 1);
  window->networkView().fitToView();
  const QImage shot = windowOnScreen(*window);
  const QString path = QString::fromStdString(env("RADAR_SCREENSHOT_DIR")) + QStringLiteral("/replay-static-net.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_GT(colours(shot), 40) << "the window looks empty";
  std::printf("screenshot: %s (event %u)\n", path.toLocal8Bit().constData(), reply + 1);
}

// lock_order's two threads (docs/threads.md, recorded with --sync) at the
// second thread's second lock: the dotted arrows from the first thread's
// unlocks, and the lock-order finding.
TEST(Screenshot, TheLockOrderOfTwoThreads) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_LOCK_ORDER_REC"), out = env("RADAR_SCREENSHOT_DIR");
  if (dir.empty() || !std::filesystem::exists(dir + "/recording.txt")) GTEST_SKIP() << "no recording of lock_order";
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(trace) << error;
  uint32_t last = trace::kNone;
  for (const auto& f : trace->findings)
    if (f.kind == trace::Finding::Kind::LockOrder && !f.events.empty())
      last = *std::max_element(f.events.begin(), f.events.end());
  ASSERT_NE(last, trace::kNone) << "no lock-order finding";
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  window.controller().skipTo(last + 1);
  const QImage shot = windowOnScreen(window);
  const QString path = QString::fromStdString(out) + QStringLiteral("/threads-lock-order.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  std::printf("screenshot: %s (event %u)\n", path.toLocal8Bit().constData(), last + 1);
}

// client2's put of c2.colour = green opened (docs/replay.md): the request
// decoded as a tree beside its bytes, the value's field selected and its
// bytes marked.
TEST(Screenshot, AMessageDecodedBesideItsBytes) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string out = env("RADAR_SCREENSHOT_DIR");
  auto window = describedWindow("RADAR_SCREENSHOT_KV_REC", "RADAR_SCREENSHOT_KV_NET");
  ASSERT_TRUE(window);
  const trace::Trace& t = window->trace();
  uint32_t put = trace::kNone;
  for (uint32_t i = 0; i < t.events.size() && put == trace::kNone; ++i) {
    std::string_view bytes;
    std::string error;
    if (log::categoryOf(t.events[i].eventKind()) == log::Category::Send &&
        t.label(t.events[i].process).rfind("client2[", 0) == 0 && t.payloadView(i, &bytes, &error) &&
        bytes.find("c2.colour") != std::string_view::npos && bytes.find("green") != std::string_view::npos)
      put = i;
  }
  ASSERT_NE(put, trace::kNone) << "client2 put no green";
  ASSERT_TRUE(showOnScreen(*window));
  window->controller().skipTo(put + 1);
  window->setInteractive(true);  // a message opens in its window
  window->showMessage(put);
  const auto messages = window->findChildren<MessageWindow*>();
  ASSERT_EQ(messages.size(), 1u);
  MessageWindow* message = messages[0];
  ASSERT_TRUE(QTest::qWaitForWindowExposed(message));
  const auto values =
      message->tree()->findItems(QStringLiteral("value = \"green\""), Qt::MatchExactly | Qt::MatchRecursive);
  QStringList seen;
  for (QTreeWidgetItemIterator it(message->tree()); *it; ++it) seen << (*it)->text(0);
  ASSERT_EQ(values.size(), 1) << seen.join(QStringLiteral(" | ")).toStdString();
  message->tree()->setCurrentItem(values[0]);
  EXPECT_GT(message->markedBytes().second, 0u) << "the value's bytes are marked";
  QTest::qWait(300);
  const QImage screen = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
  const QImage shot = screen.copy(message->frameGeometry().intersected(screen.rect()));
  const QString path = QString::fromStdString(out) + QStringLiteral("/replay-message.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  std::printf("screenshot: %s (event %u)\n", path.toLocal8Bit().constData(), put + 1);
  message->close();
}

// "green" found (docs/replay.md): typed in Find, Enter twice, the replay
// on the second match, every match marked along the timeline.
TEST(Screenshot, WordsFoundInTheMessages) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string out = env("RADAR_SCREENSHOT_DIR");
  auto window = describedWindow("RADAR_SCREENSHOT_KV_REC", "RADAR_SCREENSHOT_KV_NET");
  ASSERT_TRUE(window);
  ASSERT_TRUE(showOnScreen(*window));
  window->controller().skipTo(0);
  auto* box = window->findChild<QLineEdit*>(QStringLiteral("find"));
  ASSERT_TRUE(box);
  box->setFocus();
  QTest::keyClicks(box, QStringLiteral("green"));
  QTest::keyClick(box, Qt::Key_Return);
  for (int k = 0; k < 1000 && window->contentSearch().running(); ++k) QApplication::processEvents();
  QTest::keyClick(box, Qt::Key_Return);
  EXPECT_TRUE(window->findStatus().startsWith(QStringLiteral("match 2 of "))) << window->findStatus().toStdString();
  const QImage shot = windowOnScreen(*window);
  const QString path = QString::fromStdString(out) + QStringLiteral("/replay-find.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  std::printf("screenshot: %s (%s, event %u)\n", path.toLocal8Bit().constData(),
              window->findStatus().toLocal8Bit().constData(), window->controller().position());
}

// pipeline.sh with pipeline.netdesc (docs/netdesc.md): the three programs
// where the description places them, left to right as the data flows.
TEST(Screenshot, APipelineWhereItsDescriptionPlacesIt) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = describedWindow("RADAR_SCREENSHOT_PIPELINE_REC", "RADAR_SCREENSHOT_PIPELINE_NET");
  ASSERT_TRUE(window);
  ASSERT_TRUE(showOnScreen(*window));
  // Shown where the most of its programs are on the stage at once (the
  // shell's children take their program's place as they exec it). How many
  // overlap is the scheduler's choice; where each one stands is not.
  uint32_t shown = 1;
  size_t most = 0;
  std::map<std::string, Rect> where;  // a program's box, wherever it was seen
  double lowest_other = -1e9;         // the top of the lowest box of the rest (the shell)
  for (uint32_t at = 1; at <= window->trace().events.size(); ++at) {
    window->controller().skipTo(at);
    size_t programs = 0;
    for (const ProcessBox& box : window->networkView().scene().processes) {
      if (box.name != "producer" && box.name != "filter" && box.name != "consumer") {
        lowest_other = std::max(lowest_other, box.box.y);
        continue;
      }
      ++programs;
      where.emplace(box.name, box.box);
    }
    if (programs > most) most = programs, shown = at;
  }
  ASSERT_EQ(where.size(), 3u) << "producer, filter and consumer each on the stage";
  EXPECT_LT(where["producer"].x, where["filter"].x) << "left to right as the data flows";
  EXPECT_LT(where["filter"].x, where["consumer"].x) << "left to right as the data flows";
  EXPECT_EQ(where["producer"].y, where["consumer"].y) << "one row";
  EXPECT_GT(lowest_other, where["filter"].y) << "the shell that starts them below";
  window->controller().skipTo(shown);
  window->networkView().fitToView();
  const QImage shot = windowOnScreen(*window);
  const QString path =
      QString::fromStdString(env("RADAR_SCREENSHOT_DIR")) + QStringLiteral("/replay-pipeline-positions.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  std::printf("screenshot: %s (event %u)\n", path.toLocal8Bit().constData(), shown);
}

// The bounded buffer sample with its patterns named (docs/analysis.md):
// each stretch a bar on the timeline, the narrative telling the server's
// serving and the step shown.
TEST(Screenshot, PatternsNamedOnTheTimeline) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = describedWindow("RADAR_SCREENSHOT_MPX_REC", "RADAR_SCREENSHOT_MPX_NET");
  ASSERT_TRUE(window);
  ASSERT_TRUE(showOnScreen(*window));
  const uint32_t n = static_cast<uint32_t>(window->trace().events.size());
  const uint32_t serving = firstTold(*window, n / 2, QStringLiteral("does serving"));
  ASSERT_NE(serving, trace::kNone) << "no server told as serving";
  const QImage shot = windowOnScreen(*window);
  const QString path = QString::fromStdString(env("RADAR_SCREENSHOT_DIR")) + QStringLiteral("/analysis-patterns.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  std::printf("screenshot: %s (event %u)\n", path.toLocal8Bit().constData(), serving);
}

// The deadlock sample (docs/replay.md) where the launcher's watchdog
// kills the first worker of the ring: the cycle in red, the workers
// blocked, the findings the cycle first and the kills as its notes.
TEST(Screenshot, TheDeadlockSampleAtItsCycle) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_DEADLOCK_REC"), out = env("RADAR_SCREENSHOT_DIR");
  ASSERT_FALSE(dir.empty() || out.empty());
  ASSERT_TRUE(std::filesystem::exists(dir + "/recording.txt")) << "the deadlock sample was not recorded: " << dir;
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(trace) << error;
  ASSERT_GE(trace->findings.size(), 2u);
  ASSERT_EQ(trace->findings[0].kind, trace::Finding::Kind::Deadlock) << "the cycle first";
  const uint32_t kill = trace->findings[1].cause;
  ASSERT_NE(kill, kNone) << "the workers' ends explained by the launcher's kill()";
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  window.controller().skipTo(kill + 1);
  window.networkView().fitToView();
  const QImage shot = windowOnScreen(window);
  const QString path = QString::fromStdString(out) + QStringLiteral("/replay-deadlock.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_FALSE(window.networkView().scene().waits.empty()) << "the cycle is drawn";
  std::printf("screenshot: %s (event %u)\n", path.toLocal8Bit().constData(), kill + 1);
}

// Two runs of the race sample that part (docs/analysis.md): side by side
// at their first difference, in lock step, both runs' findings below.
TEST(Screenshot, TwoRunsSideBySideAtTheirFirstDifference) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string first = env("RADAR_SCREENSHOT_RUN1"), second = env("RADAR_SCREENSHOT_RUN2");
  const std::string out = env("RADAR_SCREENSHOT_DIR");
  if (first.empty() || second.empty()) GTEST_SKIP() << "no two runs of the race sample that part";
  std::unique_ptr<MainWindow> runs[2];
  int k = 0;
  for (const std::string& dir : {first, second}) {
    std::string error;
    auto trace = trace::loadTrace({dir}, {}, &error);
    ASSERT_TRUE(trace) << error;
    runs[k] = std::make_unique<MainWindow>(std::move(trace));
    runs[k++]->setInteractive(false);
  }
  RunsWindow window(std::move(runs[0]), std::move(runs[1]), QStringLiteral("run1"), QStringLiteral("run2"));
  ASSERT_FALSE(window.diff().differences.empty()) << "the two runs do not part";
  window.resize(1400, 900);
  window.move(0, 0);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  window.first().networkView().fitToView();
  window.second().networkView().fitToView();
  window.goToDifference(0);
  QTest::qWait(300);
  const QImage screen = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
  const QImage shot = screen.copy(window.frameGeometry().intersected(screen.rect()));
  const QString path = QString::fromStdString(out) + QStringLiteral("/analysis-diff-side-by-side.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_GT(colours(shot), 40) << "the window looks empty: " << path.toStdString();
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());
}

// The window on the recording a variable names, shown; null where there is
// none (its program is not installed here).
std::unique_ptr<MainWindow> recordedWindow(const char* variable) {
  const std::string dir = env(variable);
  if (dir.empty() || !std::filesystem::exists(dir + "/recording.txt")) return nullptr;
  std::string error;
  auto trace = trace::loadTrace({dir}, {}, &error);
  EXPECT_TRUE(trace) << dir << ": " << error;
  if (!trace) return nullptr;
  auto window = std::make_unique<MainWindow>(std::move(trace));
  EXPECT_TRUE(showOnScreen(*window));
  return window;
}

// The screen's picture of the window, saved under docs' name for it.
void saveShot(const MainWindow& window, const char* name) {
  const QImage shot = windowOnScreen(window);
  const QString path = QString::fromStdString(env("RADAR_SCREENSHOT_DIR")) + QStringLiteral("/") + name;
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_GT(colours(shot), 40) << "the window looks empty: " << path.toStdString();
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());
}

// The receives that took bytes, by processes of that name, in story order.
std::vector<uint32_t> receivesBy(const trace::Trace& t, const std::string& name) {
  std::vector<uint32_t> found;
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (log::categoryOf(t.events[i].eventKind()) == log::Category::Receive && t.events[i].value &&
        t.processName(t.events[i].process) == name)
      found.push_back(i);
  return found;
}

// nginx answering curl (docs/replay.md): the timeline dragged taller and
// zoomed to the first requests, a range of them selected, its box telling
// their messages and latencies per connection.
TEST(Screenshot, AServersTimelineZoomedWithARangeSelected) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = recordedWindow("RADAR_SCREENSHOT_SERVER_REC");
  if (!window) GTEST_SKIP() << "no recording of nginx";
  const std::vector<uint32_t> answers = receivesBy(window->trace(), "curl");
  if (answers.size() < 8) GTEST_SKIP() << "nginx answered " << answers.size() << " requests";
  auto* split = qobject_cast<QSplitter*>(window->spaceTimeView().parentWidget());
  ASSERT_TRUE(split);
  split->setSizes({250, 470});
  Timeline& tl = window->spaceTimeView().timeline();
  const double begin = answers[1] - 30.0, end = answers[7] + 10.0;
  // nginx's lanes, and below them only the curls that ran in the window.
  const trace::Trace& t = window->trace();
  std::set<uint32_t> in_window;
  for (auto at = static_cast<uint32_t>(begin); at < end && at < t.events.size(); ++at)
    in_window.insert(t.events[at].process);
  for (size_t lane = 0; lane < tl.lanes().size();) {
    const uint32_t process = tl.lanes()[lane].process;
    if (t.processName(process) == "curl" && !in_window.count(process))
      tl.hideLane(lane);
    else
      ++lane;
  }
  tl.zoomTo(begin, end);
  tl.selectRange(answers[2] - 20.0, answers[4] + 1.0);
  ASSERT_TRUE(tl.range());
  EXPECT_GE(tl.rangeSummary().size(), 3) << "the range's box names its connections";
  window->controller().skipTo(answers[5] + 1);
  tl.scrollLanes(-static_cast<int>(tl.lanes().size()));
  saveShot(*window, "replay-timeline.png");
}

// The critical path to curl's first answer from nginx (docs/analysis.md):
// red in the space-time diagram, its segments in the panel.
TEST(Screenshot, TheCriticalPathOfAnAnswer) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = recordedWindow("RADAR_SCREENSHOT_SERVER_REC");
  if (!window) GTEST_SKIP() << "no recording of nginx";
  const std::vector<uint32_t> answers = receivesBy(window->trace(), "curl");
  if (answers.empty()) GTEST_SKIP() << "nginx answered no request";
  window->controller().skipTo(answers[0] + 1);
  ASSERT_TRUE(window->showCriticalPath());
  EXPECT_GT(window->criticalPathModel().rowCount(), 2);
  saveShot(*window, "analysis-critical-path.png");
}

// A statically linked program between sh and cat (docs/recording.md): a
// grey box with a dashed border that says why radar does not see into it.
TEST(Screenshot, AProgramRadarDoesNotSeeInto) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = recordedWindow("RADAR_SCREENSHOT_UNRECORDED_REC");
  if (!window) GTEST_SKIP() << "no recording of static_upper (the preload tests' programs are not built)";
  const std::vector<uint32_t> read = receivesBy(window->trace(), "cat");
  ASSERT_FALSE(read.empty()) << "cat read nothing";
  // Where cat reads what static_upper wrote, if static_upper is still on
  // the stage then (it may have ended first); else the last event it is.
  auto unrecordedShown = [&](uint32_t at) {
    window->controller().skipTo(at);
    const auto& boxes = window->networkView().scene().processes;
    return std::any_of(boxes.begin(), boxes.end(), [](const auto& box) { return !box.not_recorded.empty(); });
  };
  uint32_t at = read[0] + 1;
  while (at > 1 && !unrecordedShown(at)) --at;
  // Under a sanitizer the recording's timing can leave static_upper off the
  // stage at every event: no picture then, said (the story's own tests
  // check the process: Record.StaticProgramsAreReportedByName).
  if (!unrecordedShown(at)) GTEST_SKIP() << "static_upper is on the stage at no event of this recording";
  saveShot(*window, "replay-unrecorded.png");
}

// Four MPI ranks exchanging halos (docs/mpi.md), where a rank joins an
// all-reduce: the ranks of the communicator joined in the network.
TEST(Screenshot, FourRanksExchangingHalos) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = recordedWindow("RADAR_SCREENSHOT_HALO_REC");
  if (!window) GTEST_SKIP() << "no recording of the halo exchange (Open MPI is not installed)";
  const uint32_t joins = firstTold(*window, static_cast<uint32_t>(window->trace().events.size() / 2),
                                   QStringLiteral("joins MPI_Allreduce"));
  ASSERT_NE(joins, trace::kNone) << "no rank joins MPI_Allreduce in its second half";
  window->controller().skipTo(joins);
  saveShot(*window, "mpi-halo.png");
}

// Four ranks in a loop of MPI_Allreduce (docs/mpi.md): each collective a
// band across the ranks' lanes, named once where there is room.
TEST(Screenshot, CollectivesAsBandsAcrossTheRanks) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = recordedWindow("RADAR_SCREENSHOT_ALLREDUCE_REC");
  if (!window) GTEST_SKIP() << "no recording of the all-reduce loop (Open MPI is not installed)";
  const uint32_t joins = firstTold(*window, 1, QStringLiteral("joins MPI_Allreduce"));
  ASSERT_NE(joins, trace::kNone);
  window->controller().skipTo(joins);
  window->spaceTimeView().timeline().zoomTo(joins - 120.0, joins + 240.0);
  saveShot(*window, "mpi-allreduce.png");
}

// PostgreSQL (docs/replay.md): psql's query on its way to its backend.
TEST(Screenshot, APostgresQueryOnItsWayToTheBackend) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  auto window = recordedWindow("RADAR_SCREENSHOT_POSTGRES_REC");
  if (!window) GTEST_SKIP() << "no recording of PostgreSQL (not installed, or no postgres user)";
  const trace::Trace& t = window->trace();
  uint32_t query = trace::kNone;  // psql's first message to a backend
  for (uint32_t i = 0; i < t.events.size() && query == trace::kNone; ++i)
    if (log::categoryOf(t.events[i].eventKind()) == log::Category::Send && t.events[i].value > 40 &&
        t.processName(t.events[i].process) == "psql")
      query = i;
  ASSERT_NE(query, trace::kNone) << "psql sent no query";
  window->controller().skipTo(query + 1);
  saveShot(*window, "replay-postgres.png");
}

// Open MPI's ring on two hosts (docs/many-hosts.md), each rank's own
// recording read together: each host's processes framed and named, as
// rank 2 on host-b receives from rank 1 on host-a.
TEST(Screenshot, AnMpiRingOnTwoHosts) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string work = env("RADAR_SCREENSHOT_HOSTS_RING");
  std::vector<std::string> dirs;
  for (int rank = 0; rank < 4; ++rank) dirs.push_back(work + "/rank-" + std::to_string(rank));
  for (const std::string& dir : dirs)
    if (work.empty() || !std::filesystem::exists(dir + "/recording.txt"))
      GTEST_SKIP() << "no recording of the ring on two hosts (Open MPI, or namespaces, missing here)";
  std::string error;
  auto trace = trace::loadTrace(dirs, {}, &error);
  ASSERT_TRUE(trace) << error;
  MainWindow window(std::move(trace));
  ASSERT_TRUE(showOnScreen(window));
  const trace::Trace& t = window.trace();
  uint32_t received = trace::kNone;  // rank 2's first MPI_Recv (from rank 1, in a ring)
  for (uint32_t i = 0; i < t.events.size() && received == trace::kNone; ++i)
    if (t.events[i].eventKind() == log::Kind::MpiRecv && t.processes[t.events[i].process].mpi_rank == 2) received = i;
  ASSERT_NE(received, trace::kNone) << "rank 2 never receives";
  window.controller().skipTo(received + 1);
  std::set<std::string> hosts;
  for (const auto& p : t.processes) hosts.insert(p.host);
  EXPECT_EQ(hosts.size(), 2u);
  saveShot(window, "hosts-mpi-ring.png");
}

// xdotool's answer, its last line ("" when it gave none in time).
QString xdotool(const QStringList& args) {
  QProcess tool;
  tool.start(QStringLiteral("xdotool"), args);
  if (!tool.waitForFinished(30000)) tool.kill();
  const QStringList lines = QString::fromLocal8Bit(tool.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
  return lines.isEmpty() ? QString() : lines.last();
}

// Wireshark itself, on the same X server, reading a pcapng radar wrote:
// filtered, a packet selected, every tree of its details expanded (its
// Ctrl+Right), and the screen's picture of its window.
QImage wiresharkShowing(const std::string& file, const QString& filter, int packet) {
  QProcess shark;
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert(QStringLiteral("XDG_CONFIG_HOME"),
                     QString::fromStdString(env("RADAR_SCREENSHOT_WIRESHARK_CONFIG")));
  shark.setProcessEnvironment(environment);
  shark.start(QStringLiteral("wireshark"), {QStringLiteral("-r"), QString::fromStdString(file), QStringLiteral("-Y"),
                                            filter, QStringLiteral("-g"), QString::number(packet)});
  if (!shark.waitForStarted(10000)) return {};
  const QString window = xdotool({QStringLiteral("search"), QStringLiteral("--sync"), QStringLiteral("--onlyvisible"),
                                  QStringLiteral("--class"), QStringLiteral("wireshark")});
  QImage shot;
  if (!window.isEmpty()) {
    QTest::qWait(4000);  // the file read, filtered and drawn
    xdotool({QStringLiteral("windowfocus"), window});
    xdotool({QStringLiteral("key"), QStringLiteral("ctrl+Right")});
    QTest::qWait(1000);
    shot = QGuiApplication::primaryScreen()->grabWindow(0).toImage().copy(0, 0, 1300, 860);
  }
  shark.terminate();
  if (!shark.waitForFinished(10000)) shark.kill();
  return shot;
}

void wiresharkScreenshot(const char* variable, const QString& filter, int packet, const char* name) {
  const std::string file = env(variable);
  if (file.empty() || !std::filesystem::exists(file)) GTEST_SKIP() << "no pcapng export (" << variable << ")";
  if (QStandardPaths::findExecutable(QStringLiteral("wireshark")).isEmpty() ||
      QStandardPaths::findExecutable(QStringLiteral("xdotool")).isEmpty())
    GTEST_SKIP() << "Wireshark or xdotool is not installed (apt-get install wireshark-qt xdotool)";
  const QImage shot = wiresharkShowing(file, filter, packet);
  ASSERT_FALSE(shot.isNull()) << "Wireshark showed no window";
  const QString path = QString::fromStdString(env("RADAR_SCREENSHOT_DIR")) + QStringLiteral("/") + name;
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_GT(colours(shot), 40) << "Wireshark's window looks empty: " << path.toStdString();
  std::printf("screenshot: %s\n", path.toLocal8Bit().constData());
}

// docs/exporting.md: nginx's HTTP requests and replies in Wireshark, the
// first request's comment naming curl and the event, its interface.
TEST(Screenshot, WiresharkReadingNginxsExport) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const int first = std::atoi(env("RADAR_SCREENSHOT_WEB_PACKET").c_str());  // the first HTTP packet
  wiresharkScreenshot("RADAR_SCREENSHOT_WEB_PCAPNG", QStringLiteral("http"), first > 0 ? first : 1,
                      "export-wireshark-nginx.png");
}

// docs/exporting.md: HTTP over pipes and a Unix socket, DNS over a
// datagram pair, each on its kind's interface, decoded by Wireshark.
TEST(Screenshot, WiresharkReadingPipesAndUnixSockets) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  wiresharkScreenshot("RADAR_SCREENSHOT_PAIR_PCAPNG", QStringLiteral("http || dns"), 5, "export-wireshark-pipes.png");
}

// A Python pool recorded while the window follows it (docs/live.md): taken
// while the program runs, at a look that holds its four processes.
TEST(Screenshot, APoolFollowedWhileItRuns) {
  ASSERT_EQ(QGuiApplication::platformName(), QStringLiteral("xcb")) << "run by screenshots_test.sh, under Xvfb";
  const std::string dir = env("RADAR_SCREENSHOT_LIVE_REC"), out = env("RADAR_SCREENSHOT_DIR");
  ASSERT_FALSE(dir.empty() || out.empty());
  LiveWindow window({dir}, false);
  window.resize(1280, 900);
  window.move(0, 0);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QElapsedTimer waited;
  waited.start();
  auto ready = [&] {
    return window.replay() && window.replay()->trace().processes.size() >= 4 &&
           window.replay()->trace().events.size() >= 600;
  };
  while (!ready() && !window.ended() && waited.elapsed() < 90000) QTest::qWait(100);
  ASSERT_TRUE(ready()) << window.status().toStdString();
  ASSERT_FALSE(window.ended()) << "taken while the program runs";
  QTest::qWait(300);  // drawn, and the X server has it
  const QImage screen = QGuiApplication::primaryScreen()->grabWindow(0).toImage();
  const QImage shot = screen.copy(window.frameGeometry().intersected(screen.rect()));
  const QString path = QString::fromStdString(out) + QStringLiteral("/live-pool.png");
  ASSERT_TRUE(shot.save(path)) << path.toStdString();
  EXPECT_TRUE(window.following());
  EXPECT_GT(colours(shot), 20);
  std::printf("screenshot: %s (%s)\n", path.toLocal8Bit().constData(), window.status().toLocal8Bit().constData());
}

}  // namespace
}  // namespace radar::app

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("radar-tests"));
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
