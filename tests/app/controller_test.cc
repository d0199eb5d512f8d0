#include "app/controller.h"

#include <gtest/gtest.h>

#include <QSignalSpy>
#include <vector>

namespace radar::app {
namespace {

using Mode = ReplayController::Mode;

TEST(Controller, StartsBeforeTheFirstEventWithRadarsDefaults) {
  ReplayController c(10);
  EXPECT_EQ(c.position(), 0u);
  EXPECT_FALSE(c.playing());
  EXPECT_EQ(c.secondsPerEvent(), 3.0);
  EXPECT_EQ(c.mode(), Mode::Continuous);
  c.advance(100);  // time passing while paused changes nothing
  EXPECT_EQ(c.position(), 0u);
}

// A replay starts so that the whole recording plays in about a minute,
// no event longer than RADAR's 3 s: nginx's 1 013 events in 60 s, not 50
// minutes; a short run at 3 s an event.
TEST(Controller, ARecordingPlaysInAboutAMinuteAtFirst) {
  EXPECT_EQ(ReplayController::secondsPerEventFor(1013), 0.059);  // to the millisecond the speed box shows
  EXPECT_EQ(ReplayController::secondsPerEventFor(12), 3.0);
  EXPECT_EQ(ReplayController::secondsPerEventFor(20), 3.0);
  EXPECT_EQ(ReplayController::secondsPerEventFor(49), 1.224);
  EXPECT_EQ(ReplayController::secondsPerEventFor(100'000'000), ReplayController::kMinSecondsPerEvent);
  EXPECT_EQ(ReplayController::secondsPerEventFor(0), 3.0);
}

// Events the filter or Hide polls leaves out take no time: playing and
// stepping go from one shown event to the next, the others applied at once;
// back goes to the shown event before.
TEST(Controller, PlayingAndSteppingPassOverTheEventsNotShown) {
  ReplayController c(10);
  const std::vector<uint32_t> shown{2, 5, 6};
  c.setShown(&shown);
  c.setSecondsPerEvent(1);
  std::vector<uint32_t> started;
  QObject::connect(&c, &ReplayController::changed, [&] {
    if (c.animating() && c.progress() == 0) started.push_back(c.position() - 1);
  });
  QSignalSpy said(&c, &ReplayController::stateChanged);
  c.play();
  for (int k = 0; k < 10 && c.playing(); ++k) c.advance(1);
  EXPECT_EQ(started, shown) << "only the shown events play, each for its time";
  EXPECT_GE(said.count(), 2) << "started, and stopped: Play reads Play again";
  EXPECT_EQ(c.position(), 10u) << "the rest applied at once";
  EXPECT_FALSE(c.playing());
  c.stepBack();
  EXPECT_EQ(c.position(), 7u);  // event 6 shown
  c.stepBack();
  EXPECT_EQ(c.position(), 6u);
  c.stepBack();
  EXPECT_EQ(c.position(), 3u);
  c.stepBack();
  EXPECT_EQ(c.position(), 0u);
  c.stepForward();
  EXPECT_EQ(c.position(), 3u);
  // An instant replay of the last 5 events (2 to 6) from event 6 shown:
  // the shown ones of them replay, and it ends where it began.
  c.skipTo(7);
  started.clear();
  c.instantReplay(5);
  for (int k = 0; k < 10 && c.inInstantReplay(); ++k) c.advance(1);
  EXPECT_EQ(started, shown);
  EXPECT_EQ(c.position(), 7u);
  c.setShown(nullptr);
  c.skipTo(0);
  c.stepForward();
  EXPECT_EQ(c.position(), 1u) << "every event again";
}

TEST(Controller, ContinuousPlayTakesSecondsPerEvent) {
  ReplayController c(10);
  c.setSecondsPerEvent(2);
  c.play();
  EXPECT_EQ(c.position(), 1u);
  EXPECT_DOUBLE_EQ(c.progress(), 0);
  c.advance(1);
  EXPECT_EQ(c.position(), 1u);
  EXPECT_DOUBLE_EQ(c.progress(), 0.5);
  c.advance(1.5);  // event 1 ends, event 2 is a quarter through
  EXPECT_EQ(c.position(), 2u);
  EXPECT_DOUBLE_EQ(c.progress(), 0.25);
  c.advance(2 * 0.75 + 8 * 2);  // the rest of event 2 and 8 more: all 10 shown, play stops
  EXPECT_EQ(c.position(), 10u);
  EXPECT_DOUBLE_EQ(c.progress(), 1);
  EXPECT_FALSE(c.playing());
}

TEST(Controller, SpeedChangesMidPlayApplyToTheRestOfTheEvent) {
  ReplayController c(10);
  c.play();        // 3 s per event
  c.advance(1.5);  // half of event 1
  c.setSecondsPerEvent(1);
  c.advance(0.25);  // a quarter more at the new speed
  EXPECT_EQ(c.position(), 1u);
  EXPECT_DOUBLE_EQ(c.progress(), 0.75);
  c.advance(0.25);
  EXPECT_EQ(c.position(), 2u);
}

TEST(Controller, SingleStepWaitsAfterEachEventButEachTakesItsTime) {
  ReplayController c(5);
  c.setMode(Mode::SingleStep);
  c.stepForward();
  EXPECT_EQ(c.position(), 1u);
  EXPECT_TRUE(c.animating());
  c.advance(1);
  EXPECT_TRUE(c.animating());  // RADAR: the event takes the full time in single-step too
  c.advance(10);
  EXPECT_FALSE(c.animating());
  EXPECT_EQ(c.position(), 1u);  // and waits
  c.play();                     // Play in single-step shows the next event, and waits again
  c.advance(3);
  c.advance(10);
  EXPECT_EQ(c.position(), 2u);
  EXPECT_FALSE(c.playing());
  // Space (togglePlay) steps: never a pause first, during an event neither.
  c.togglePlay();
  EXPECT_EQ(c.position(), 3u);
  EXPECT_TRUE(c.animating());
  c.togglePlay();
  EXPECT_EQ(c.position(), 4u);
  EXPECT_FALSE(c.playing());
  // Switched to continuous, Space plays on by itself.
  c.setMode(Mode::Continuous);
  c.advance(10);
  c.togglePlay();
  EXPECT_TRUE(c.playing());
  c.advance(0.001);
  EXPECT_EQ(c.position(), 5u);
}

TEST(Controller, SwitchedToSingleStepWhilePlayingTheEventEndsThenItWaits) {
  ReplayController c(10);
  c.setSecondsPerEvent(1);
  c.play();
  c.advance(0.5);
  EXPECT_EQ(c.position(), 1u);
  c.setMode(Mode::SingleStep);
  EXPECT_FALSE(c.playing());
  EXPECT_TRUE(c.animating());  // the event being shown goes on to its end
  c.advance(10);
  EXPECT_EQ(c.position(), 1u);
  EXPECT_FALSE(c.animating());
  c.togglePlay();  // the first Space after: the next event
  EXPECT_EQ(c.position(), 2u);
}

TEST(Controller, StepBackShowsThePreviousEventComplete) {
  ReplayController c(5);
  c.skipTo(3);
  c.stepBack();
  EXPECT_EQ(c.position(), 2u);
  EXPECT_DOUBLE_EQ(c.progress(), 1);
  c.stepForward();
  c.advance(1);  // event 3 a third through
  c.stepBack();  // back to before it
  EXPECT_EQ(c.position(), 2u);
  EXPECT_FALSE(c.animating());
  c.skipTo(0);
  c.stepBack();
  EXPECT_EQ(c.position(), 0u);
}

TEST(Controller, SkipToIsClampedAndStopsNothing) {
  ReplayController c(5);
  QSignalSpy changed(&c, &ReplayController::changed);
  c.skipTo(4);
  EXPECT_EQ(c.position(), 4u);
  EXPECT_FALSE(c.animating());
  c.skipTo(99);
  EXPECT_EQ(c.position(), 5u);
  EXPECT_EQ(changed.count(), 2);
}

TEST(Controller, InstantReplayReplaysTheLastEventsThenRestoresTheView) {
  ReplayController c(100);
  c.setMode(Mode::SingleStep);
  c.setSecondsPerEvent(1);
  c.skipTo(50);
  c.instantReplay(5);
  EXPECT_TRUE(c.inInstantReplay());
  EXPECT_EQ(c.position(), 46u);  // from 45 applied: event 46 is the first replayed
  EXPECT_TRUE(c.playing());
  c.advance(2.5);
  EXPECT_EQ(c.position(), 48u);
  // Asked again during the replay: starts over, still returns to 50.
  c.instantReplay(5);
  EXPECT_EQ(c.position(), 46u);
  EXPECT_EQ(c.instantReplayReturn(), 50u);
  c.advance(5);  // the five events
  EXPECT_FALSE(c.inInstantReplay());
  EXPECT_EQ(c.position(), 50u);
  EXPECT_DOUBLE_EQ(c.progress(), 1);
  EXPECT_EQ(c.mode(), Mode::SingleStep);  // restored
  EXPECT_FALSE(c.playing());
  // Repeatable after it ended, before going on.
  c.instantReplay(3);
  EXPECT_EQ(c.position(), 48u);
  c.endInstantReplay();
  EXPECT_EQ(c.position(), 50u);
  EXPECT_FALSE(c.inInstantReplay());
}

TEST(Controller, InstantReplayNearTheStartBeginsAtTheStart) {
  ReplayController c(10);
  c.skipTo(2);
  c.instantReplay(50);
  EXPECT_EQ(c.position(), 1u);
  c.advance(100);
  EXPECT_EQ(c.position(), 2u);
  EXPECT_FALSE(c.inInstantReplay());
}

TEST(Controller, RestartGoesBackToTheBeginningAndKeepsPlaying) {
  ReplayController c(10);
  c.play();
  c.advance(10);
  c.restart();
  EXPECT_EQ(c.position(), 1u);  // playing: the first event is on its way
  EXPECT_TRUE(c.playing());
  c.pause();
  c.restart();
  EXPECT_EQ(c.position(), 0u);
  EXPECT_FALSE(c.playing());
}

TEST(Controller, EmptyRecordingDoesNothing) {
  ReplayController c(0);
  c.play();
  EXPECT_FALSE(c.playing());
  c.stepForward();
  c.stepBack();
  c.instantReplay(3);
  c.advance(5);
  EXPECT_EQ(c.position(), 0u);
}

}  // namespace
}  // namespace radar::app
