#include "app/controller.h"

#include <algorithm>
#include <cmath>

namespace radar::app {

ReplayController::ReplayController(uint32_t events, QObject* parent) : QObject(parent), events_(events) {}

void ReplayController::play() {
  if (playing_) return;
  if (position_ >= events_ && !animating()) {
    // At the end: nothing left to play.
    emit stateChanged();
    return;
  }
  playing_ = true;
  if (!animating()) startEvent();
  emit stateChanged();
  emit changed();
}

void ReplayController::pause() {
  if (!playing_) return;
  playing_ = false;
  emit stateChanged();
}

// In single-step mode Play (Space) is "show the next event": it never
// pauses first (an instant replay plays on its own, and pauses as usual).
void ReplayController::togglePlay() {
  if (mode_ == Mode::SingleStep && !saved_) {
    const bool was_playing = playing_;
    playing_ = false;
    stepForward();
    if (was_playing) emit stateChanged();
    return;
  }
  playing_ ? pause() : play();
}

void ReplayController::setMode(Mode mode) {
  if (mode_ == mode) return;
  mode_ = mode;
  // Into single-step while playing: the event being shown ends, then it waits.
  if (mode_ == Mode::SingleStep && !saved_) playing_ = false;
  emit stateChanged();
}

void ReplayController::toggleMode() { setMode(mode_ == Mode::Continuous ? Mode::SingleStep : Mode::Continuous); }

double ReplayController::secondsPerEventFor(uint32_t events) {
  if (events == 0) return kDefaultSecondsPerEvent;
  // To the millisecond the speed box shows.
  const double seconds = std::round(kSecondsToPlayARecording / events * 1000) / 1000;
  return std::clamp(seconds, kMinSecondsPerEvent, kDefaultSecondsPerEvent);
}

void ReplayController::setSecondsPerEvent(double seconds) {
  seconds = std::max(seconds, kMinSecondsPerEvent);
  if (seconds == seconds_per_event_) return;
  seconds_per_event_ = seconds;
  emit stateChanged();
}

void ReplayController::startEvent() {
  if (position_ >= events_) {
    stop();
    return;
  }
  uint32_t next = position_;  // the next event's index
  if (shown_) {
    const auto it = std::lower_bound(shown_->begin(), shown_->end(), position_);
    next = it == shown_->end() ? events_ : *it;
  }
  // An instant replay ends where it began, whatever is shown after.
  const uint32_t end = saved_ ? std::min(saved_->position, events_) : events_;
  if (next >= end) {
    // Nothing shown before the end: the rest is applied at once.
    position_ = std::max(position_, end);
    progress_ = 1;
    if (!saved_) stop();
    return;
  }
  position_ = next + 1;
  progress_ = 0;
}

// Playing stops by itself (the end, or nothing shown before it): said, so
// that Play reads Play again.
void ReplayController::stop() {
  if (!playing_) return;
  playing_ = false;
  emit stateChanged();
}

// Where an instant replay of the last `count` events shown before `back_to`
// starts (every event counts where all are shown).
uint32_t ReplayController::replayStart(uint32_t back_to, uint32_t count) const {
  if (!shown_) return back_to > count ? back_to - count : 0;
  const auto end = std::lower_bound(shown_->begin(), shown_->end(), back_to);
  return static_cast<uint32_t>(end - shown_->begin()) > count ? *(end - count) : 0;
}

uint32_t ReplayController::lastShownUpTo(uint32_t position) const {
  if (!shown_ || position == 0) return position;
  const auto it = std::upper_bound(shown_->begin(), shown_->end(), position - 1);
  return it == shown_->begin() ? 0 : *std::prev(it) + 1;
}

void ReplayController::stepForward() {
  if (animating()) {
    // The event being shown is finished at once; the next one starts.
    progress_ = 1;
  }
  if (position_ >= events_) {
    if (saved_) finishInstantReplay();
    emit changed();
    return;
  }
  startEvent();
  // Each event takes its full time, in single-step too (RADAR: long enough
  // for the process's change of colour to make an impression).
  emit changed();
}

void ReplayController::stepBack() {
  if (saved_) {
    saved_.reset();
    emit stateChanged();
  }
  playing_ = false;
  if (position_ > 0) --position_;  // animating: back to before the event being shown
  position_ = lastShownUpTo(position_);
  progress_ = 1;
  emit stateChanged();
  emit changed();
}

void ReplayController::skipTo(uint32_t number) {
  if (saved_) saved_.reset();
  position_ = std::min(number, events_);
  progress_ = 1;
  emit stateChanged();
  emit changed();
}

void ReplayController::instantReplay(uint32_t count) {
  if (!saved_) saved_ = Saved{position_, progress_, playing_, mode_, count};
  saved_->count = count;
  const uint32_t back_to = saved_->position;
  position_ = replayStart(back_to, count);
  progress_ = 1;
  // The replay plays on its own, continuously, up to where it started.
  playing_ = position_ < back_to;
  if (playing_)
    startEvent();
  else
    finishInstantReplay();
  emit stateChanged();
  emit changed();
}

void ReplayController::endInstantReplay() {
  if (!saved_) return;
  finishInstantReplay();
  emit stateChanged();
  emit changed();
}

void ReplayController::finishInstantReplay() {
  const Saved s = *saved_;
  saved_.reset();
  position_ = s.position;
  progress_ = s.progress < 1 ? 1 : s.progress;
  playing_ = false;  // the user goes on when ready (or replays again)
  mode_ = s.mode;
}

void ReplayController::restart() {
  saved_.reset();
  position_ = 0;
  progress_ = 1;
  const bool was_playing = playing_;
  playing_ = false;
  if (was_playing) play();
  emit stateChanged();
  emit changed();
}

void ReplayController::advance(double seconds) {
  if (seconds <= 0) return;
  bool moved = false;
  // Several events may pass in one call at high speed.
  for (;;) {
    if (animating()) {
      const double left = (1 - progress_) * seconds_per_event_;
      if (seconds < left) {
        progress_ += seconds / seconds_per_event_;
        moved = true;
        break;
      }
      seconds -= left;
      progress_ = 1;
      moved = true;
    }
    if (saved_ && position_ >= saved_->position) {
      finishInstantReplay();
      emit stateChanged();
      moved = true;
      break;
    }
    const bool go_on = playing_ && (saved_ || mode_ == Mode::Continuous);
    if (!go_on || position_ >= events_) {
      // The end, or an event shown in single-step: nothing plays on.
      if (playing_ && (position_ >= events_ || !saved_)) {
        playing_ = false;
        emit stateChanged();
      }
      break;
    }
    startEvent();
    moved = true;
  }
  if (moved) emit changed();
}

}  // namespace radar::app
