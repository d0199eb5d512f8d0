// The replay's clock: which event is shown and how far its animation has
// got, continuous play or single-step, seconds per event, skipping, stepping
// back, instant replay and restart (RADAR's REPLAY menu, seed 002 §4.2).
// No widgets: the window drives it with a timer, tests call advance().
#pragma once

#include <QObject>
#include <cstdint>
#include <optional>
#include <vector>

namespace radar::app {

class ReplayController : public QObject {
  Q_OBJECT

 public:
  enum class Mode { Continuous, SingleStep };

  explicit ReplayController(uint32_t events, QObject* parent = nullptr);

  uint32_t events() const { return events_; }
  // Events applied so far (0: nothing yet); the last of them is the one
  // being shown, `progress()` of the way through its animation.
  uint32_t position() const { return position_; }
  double progress() const { return progress_; }
  bool playing() const { return playing_; }
  Mode mode() const { return mode_; }
  double secondsPerEvent() const { return seconds_per_event_; }
  bool inInstantReplay() const { return saved_.has_value(); }
  // Where an instant replay will come back to.
  uint32_t instantReplayReturn() const { return saved_ ? saved_->position : position_; }
  // True while the event being shown is still moving.
  bool animating() const { return position_ > 0 && progress_ < 1; }

  static constexpr double kDefaultSecondsPerEvent = 3;  // RADAR's default, the most a recording starts with
  static constexpr double kMinSecondsPerEvent = 0.001;
  static constexpr double kSecondsToPlayARecording = 60;
  // What a replay starts with: the whole recording played in about a
  // minute, but no event longer than RADAR's 3 s.
  static double secondsPerEventFor(uint32_t events);
  // The events shown (positions, ascending; null: all): playing and
  // stepping pass over the others at once (the filter's and Hide polls'
  // leftovers take no time). Kept by the caller.
  void setShown(const std::vector<uint32_t>* positions) { shown_ = positions; }

 public slots:
  void play();
  void pause();
  void togglePlay();
  void setMode(Mode mode);
  void toggleMode();
  void setSecondsPerEvent(double seconds);
  // The next event, animated (in single-step mode: the one step it waits for).
  void stepForward();
  // Back one event, shown complete at once.
  void stepBack();
  // Event `number` (1-based, as the narrative counts) shown complete; 0 is
  // before the first.
  void skipTo(uint32_t number);
  // Replays the last `count` events from a state saved now, then restores
  // it (position, mode, playing). Asked again during a replay, starts it
  // over; the saved state stays the first one.
  void instantReplay(uint32_t count);
  // Ends an instant replay early, back to the saved state.
  void endInstantReplay();
  void restart();
  // Time passes: moves the animation on by `seconds`.
  void advance(double seconds);

 signals:
  // Position or progress changed: the views redraw.
  void changed();
  // Something other than the animation's progress changed (mode, play,
  // speed, instant replay): the controls update.
  void stateChanged();

 private:
  void startEvent();                                // the next event shown begins its animation
  uint32_t lastShownUpTo(uint32_t position) const;  // the position after the last shown event before it, or 0
  uint32_t replayStart(uint32_t back_to, uint32_t count) const;
  void stop();
  void finishInstantReplay();

  uint32_t events_;
  uint32_t position_ = 0;
  double progress_ = 1;
  bool playing_ = false;
  Mode mode_ = Mode::Continuous;
  double seconds_per_event_ = kDefaultSecondsPerEvent;
  struct Saved {
    uint32_t position;
    double progress;
    bool playing;
    Mode mode;
    uint32_t count;
  };
  std::optional<Saved> saved_;
  const std::vector<uint32_t>* shown_ = nullptr;
};

}  // namespace radar::app
