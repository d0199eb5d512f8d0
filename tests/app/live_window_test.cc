// The replay window following a recording in progress (radar replay
// --follow): a program sending a message every 10 ms, recorded by radar
// record while the window (offscreen) shows each look at it, is seen as it
// runs; a step back pauses following on the look in view while newer ones
// come; Now returns to the latest; the end is the finished recording.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QTest>
#include <algorithm>
#include <cstdlib>

#include "app/live_window.h"
#include "recorded.h"
#include "trace/merge.h"

namespace radar::app {
namespace {

using radar::testing::programPath;
using radar::testing::radarPath;
using radar::testing::spawn;
using radar::testing::testTempDir;

// Lets the window work for `ms` milliseconds.
void work(int ms) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 10);
}

// Whether the window shows a look of more than `events` events before
// `clock` reaches `ms`.
bool showsMoreThan(LiveWindow& window, size_t events, const QElapsedTimer& clock, int ms) {
  while (!(window.replay() && window.replay()->trace().events.size() > events) && clock.elapsed() < ms) work(50);
  return window.replay() && window.replay()->trace().events.size() > events;
}

bool ended(pid_t pid, int* status) { return ::waitpid(pid, status, WNOHANG) == pid; }

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// radar record of the ticker into `dir`; a failure midway leaves no
// recording running (it is ended, unless the test reaped it).
struct RecordedTicker {
  pid_t pid;
  RecordedTicker(const std::string& dir, const std::string& interval_ms, const std::string& count)
      : pid(spawn({radarPath(), "record", "-o", dir, "--", programPath("ticker"), interval_ms, count}, -1, -1)) {}
  ~RecordedTicker() {
    if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == 0) {
      ::kill(pid, SIGTERM);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

TEST(LiveWindow, FollowsARunningProgramPausesOnTheLookInViewAndComesBackToNow) {
  // 20 s of ticks 10 ms apart (RADAR_LIVE_TICKS: how many,
  // RADAR_LIVE_INTERVAL_MS: how far apart, for the figures).
  const char* ticks_env = std::getenv("RADAR_LIVE_TICKS");
  const char* interval_env = std::getenv("RADAR_LIVE_INTERVAL_MS");
  const int ticks = ticks_env ? std::atoi(ticks_env) : 2000;
  const std::string interval = interval_env ? interval_env : "10";
  const std::string dir = testTempDir() + "/live";
  const RecordedTicker ticker(dir, interval, std::to_string(ticks));
  const pid_t recorder = ticker.pid;
  ASSERT_GT(recorder, 0);
  LiveWindow window({dir}, false);
  window.show();
  size_t looks_while_running = 0, false_findings = 0, looks = 0;
  bool running = true;
  QObject::connect(&window, &LiveWindow::shown, [&] {
    ++looks;
    if (!window.replay()->trace().running) return;
    ++looks_while_running;
    for (const trace::Finding& f : window.replay()->trace().findings)
      false_findings += f.kind == trace::Finding::Kind::NeverReceived || f.kind == trace::Finding::Kind::NeverEnded;
    // Nor is it said that every process ended.
    const auto* none = window.replay()->findChild<QLabel*>(QStringLiteral("no-findings"));
    false_findings += none && !none->text().contains(QStringLiteral("still running"));
  });
  int status = 0;
  // Running: looks come, with both processes and their messages.
  QElapsedTimer clock;
  clock.start();
  while (!(window.replay() && window.replay()->trace().events.size() > 200) && clock.elapsed() < 60000 &&
         !ended(recorder, &status))
    work(50);
  ASSERT_TRUE(window.replay()) << window.status().toStdString();
  ASSERT_GT(window.replay()->trace().events.size(), 200u) << window.status().toStdString();
  EXPECT_EQ(window.replay()->trace().processes.size(), 2u);
  EXPECT_TRUE(window.following());
  EXPECT_TRUE(window.status().contains(QStringLiteral("Following"))) << window.status().toStdString();

  // A skip back: following pauses on the look in view; newer looks wait.
  window.goToNow();
  const trace::Trace* paused_on = &window.replay()->trace();
  const size_t paused_events = paused_on->events.size();
  window.replay()->controller().skipTo(50);
  EXPECT_FALSE(window.following());
  window.replay()->controller().stepBack();
  EXPECT_EQ(window.replay()->controller().position(), 49u) << "single steps in the past";
  work(1500);
  running = !ended(recorder, &status);
  ASSERT_TRUE(running) << "the program ended too soon to be paused on";
  EXPECT_EQ(&window.replay()->trace(), paused_on) << "the look in view stays while paused";
  EXPECT_EQ(window.replay()->controller().position(), 49u);
  EXPECT_GT(window.newerEvents(), 50u);
  EXPECT_TRUE(window.status().contains(QStringLiteral(" newer: Now"))) << window.status().toStdString();

  // Now: the latest look, at its last event, following again.
  window.goToNow();
  EXPECT_TRUE(window.following());
  EXPECT_GT(window.replay()->trace().events.size(), paused_events);
  EXPECT_EQ(window.replay()->controller().position(), window.replay()->trace().events.size());

  // A message's window open on the replay: looks wait for it to close.
  uint32_t send = 0;
  const trace::Trace& open_on = window.replay()->trace();
  while (send < open_on.events.size() && log::categoryOf(open_on.events[send].eventKind()) != log::Category::Send)
    ++send;
  ASSERT_LT(send, open_on.events.size());
  window.replay()->showMessage(send);
  QPointer<QWidget> message;
  for (QWidget* w : QApplication::topLevelWidgets())
    if (w->isVisible() && w->parentWidget() == window.replay()) message = w;
  ASSERT_TRUE(message);
  work(600);
  EXPECT_TRUE(message && message->isVisible()) << "the message's window stays while looks come";
  EXPECT_EQ(&window.replay()->trace(), &open_on);
  if (message) message->close();
  window.goToNow();
  EXPECT_NE(&window.replay()->trace(), &open_on) << "the latest look once it closed";

  // The end: the finished recording, as radar replay opens it.
  while (running && clock.elapsed() < 120000) {
    running = !ended(recorder, &status);
    if (running) work(50);
  }
  ASSERT_FALSE(running) << "radar record did not end";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  while (!window.ended() && clock.elapsed() < 150000) work(50);
  work(200);
  ASSERT_TRUE(window.ended());
  // The floor of the figures below: the finished recording opened once.
  QElapsedTimer opening;
  opening.start();
  std::string error;
  auto whole = trace::loadTrace({dir}, {}, &error);
  ASSERT_TRUE(whole) << error;
  const size_t whole_events = whole->events.size();
  { MainWindow once(std::move(whole)); }
  const double floor_seconds = static_cast<double>(opening.nsecsElapsed()) / 1e9;
  EXPECT_EQ(window.replay()->trace().events.size(), whole_events);
  EXPECT_FALSE(window.replay()->trace().running);
  EXPECT_TRUE(window.status().contains(QStringLiteral("has ended"))) << window.status().toStdString();

  EXPECT_GE(looks_while_running, 5u) << "looks shown while the program ran";
  EXPECT_EQ(false_findings, 0u) << "a send not received yet, a process running: no finding";
  // How long after its call the newest event of each look was on screen:
  // a figure (docs/performance.md), bounded loosely for a busy machine.
  const double median = percentile(window.lags(), 0.5), p99 = percentile(window.lags(), 0.99);
  const size_t events = window.replay()->trace().events.size();
  const double per_event = window.refreshSeconds() * 1e6 / static_cast<double>(events);
  const double floor_per_event = floor_seconds * 1e6 / static_cast<double>(events);
  std::printf(
      "live window: %zu events, %zu looks shown (%zu played in to their newest event), that event on screen after "
      "its call: median %.3f s, p99 %.3f s; refresh %.1f us an event, floor (opening the finished recording once) "
      "%.1f us an event: %.0fx\n",
      events, looks, window.lags().size(), median, p99, per_event, floor_per_event, per_event / floor_per_event);
  EXPECT_LT(median, 2.0);
}

// The deadlock sample's ring, followed: the cycle is a finding of a look
// while its processes still wait (before the sample's watchdog ends them),
// though no event comes after it forms.
TEST(LiveWindow, ADeadlockIsShownAsItForms) {
  const std::string bin = radarPath().substr(0, radarPath().rfind('/'));
  const std::string dir = testTempDir() + "/live-deadlock";
  const pid_t recorder = spawn({radarPath(), "record", "-o", dir, "--", bin + "/deadlock", "ring"}, -1, -1);
  ASSERT_GT(recorder, 0);
  LiveWindow window({dir}, false);
  window.show();
  bool told_running = false;
  QObject::connect(&window, &LiveWindow::shown, [&] {
    const trace::Trace& t = window.replay()->trace();
    for (const trace::Finding& f : t.findings) told_running |= t.running && f.kind == trace::Finding::Kind::Deadlock;
  });
  int status = 0;
  QElapsedTimer clock;
  clock.start();
  while (!ended(recorder, &status) && clock.elapsed() < 60000) work(50);
  while (!window.ended() && clock.elapsed() < 90000) work(50);
  EXPECT_TRUE(told_running) << "a look of the running ring had its deadlock";
  ASSERT_TRUE(window.replay());
  ASSERT_FALSE(window.replay()->trace().findings.empty());
  EXPECT_EQ(window.replay()->trace().findings.front().kind, trace::Finding::Kind::Deadlock);
}

// radar record killed, then its program: the window takes the logs as
// they are for the end, and says why it ended.
TEST(LiveWindow, EndsOnceRadarRecordIsKilledAndItsProgramHasEnded) {
  const std::string dir = testTempDir() + "/live-killed";
  const pid_t recorder = spawn({radarPath(), "record", "-o", dir, "--", programPath("ticker"), "7", "99992"}, -1, -1);
  ASSERT_GT(recorder, 0);
  // A failure midway leaves no ticker running.
  struct Reaper {
    pid_t pid;
    ~Reaper() {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      radar::testing::shell("pkill -KILL -f 'ticke[r] 7 99992'");
    }
  } reaper{recorder};
  LiveWindow window({dir}, false);
  window.show();
  QElapsedTimer clock;
  clock.start();
  ASSERT_TRUE(showsMoreThan(window, 20, clock, 30000)) << window.status().toStdString();
  ::kill(recorder, SIGKILL);
  work(300);
  EXPECT_FALSE(window.ended()) << "its program runs on, writing its logs";
  EXPECT_EQ(radar::testing::shell("pkill -KILL -f 'ticke[r] 7 99992'").exit_code, 0);
  while (!window.ended() && clock.elapsed() < 60000) work(50);
  work(200);
  ASSERT_TRUE(window.ended()) << window.status().toStdString();
  EXPECT_TRUE(window.status().contains(QStringLiteral("radar record is gone"))) << window.status().toStdString();
  EXPECT_FALSE(window.replay()->trace().running) << "the logs taken as they are, as a finished recording";
}

// What the user set up in the replay (the event filter, the find, the lanes
// shown, the speed) stays as each newer look takes the place of the last;
// the play-in of a look's new events does not take the user's speed away.
TEST(LiveWindow, WhatTheUserSetUpStaysAsNewerLooksCome) {
  const std::string dir = testTempDir() + "/live-setup";
  const RecordedTicker ticker(dir, "10", "1500");
  ASSERT_GT(ticker.pid, 0);
  LiveWindow window({dir}, false);
  window.show();
  QElapsedTimer clock;
  clock.start();
  ASSERT_TRUE(showsMoreThan(window, 20, clock, 30000)) << window.status().toStdString();

  MainWindow* first = window.replay();
  auto* filter = first->findChild<QLineEdit*>(QStringLiteral("filter"));
  ASSERT_TRUE(filter);
  filter->setText(QStringLiteral("kind:write"));
  QTest::keyClick(filter, Qt::Key_Return);
  filter->setText(QStringLiteral("kind:write tick"));  // typed, Enter not pressed yet
  QString error;
  ASSERT_TRUE(first->find(QStringLiteral("tick 1"), ContentSearch::Mode::Text, &error)) << error.toStdString();
  first->spaceTimeView().timeline().setLaneFilter(QStringLiteral("ticker"));
  first->controller().setSecondsPerEvent(0.5);
  const MainWindow::ViewSetup set_up = first->viewSetup();
  ASSERT_EQ(set_up.filter, QStringLiteral("kind:write"));

  // Two newer looks (the second replaces one set up by the window, not by hand).
  for (int look = 0; look < 2; ++look) {
    const MainWindow* before = window.replay();
    while (window.replay() == before && clock.elapsed() < 60000) work(50);
    ASSERT_NE(window.replay(), before) << "a newer look: " << window.status().toStdString();
  }
  MainWindow* now = window.replay();
  const MainWindow::ViewSetup kept = now->viewSetup();
  EXPECT_EQ(kept.filter.toStdString(), set_up.filter.toStdString());
  EXPECT_EQ(now->eventModel().filter().toStdString(), "kind:write") << "applied to the new look's events";
  EXPECT_EQ(kept.filter_typed.toStdString(), "kind:write tick");
  EXPECT_EQ(kept.find.toStdString(), "tick 1");
  EXPECT_EQ(kept.lanes.toStdString(), "ticker");
  // Between play-ins of new events, the replay is at the user's speed.
  bool at_users_speed = false;
  while (!at_users_speed && clock.elapsed() < 60000) {
    work(20);
    const ReplayController& c = window.replay()->controller();
    at_users_speed = !c.playing() && c.secondsPerEvent() == 0.5;
  }
  EXPECT_TRUE(at_users_speed) << window.replay()->controller().secondsPerEvent();
  EXPECT_TRUE(window.following());
}

}  // namespace
}  // namespace radar::app
