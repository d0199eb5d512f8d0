// The replay window on a recording in progress (radar replay --follow,
// radar record --live): the replay of the latest look at the recording,
// following it as it grows. Each look that holds new events is shown
// (the events new since where the view was played in); a step or a
// skip back pauses following and keeps the look in view, and "Now"
// (End) goes back to the latest.
#pragma once

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "app/live_follower.h"
#include "app/main_window.h"

class QAction;
class QLabel;
class QVBoxLayout;

namespace radar::app {

class LiveWindow : public QWidget {
  Q_OBJECT

 public:
  LiveWindow(std::vector<std::string> dirs, bool merge_unrelated, QWidget* parent = nullptr);
  ~LiveWindow() override;

  // The replay of the look in view; null until a first look has read.
  MainWindow* replay() { return replay_; }
  bool following() const { return following_; }
  void setFollowing(bool following);
  // Back to the latest look, at its last event, following again.
  void goToNow();
  bool ended() const { return follower_.ended(); }
  // Events of the latest look that the one in view does not have (paused).
  uint32_t newerEvents() const;
  QString status() const;
  // How long after its call returned the newest event of a look was on
  // screen, shown whole (s), for each look whose play-in got there.
  const std::vector<double>& lags() const { return lags_; }
  // The time spent on the looks shown: reading and merging the logs, and
  // making the replay of each (s, in all).
  double refreshSeconds() const { return refresh_seconds_; }

 signals:
  // A look is in view (a new one, or the latest after Now).
  void shown();

 private:
  void looked(std::shared_ptr<trace::LiveLook> look);
  void showLatest();
  void showLook(std::shared_ptr<trace::LiveLook> look);
  bool replayInUse() const;
  void positionChanged();
  void playChanged();
  void updateStatus();

  LiveFollower follower_;
  QVBoxLayout* layout_;
  QLabel* status_;
  QAction* follow_action_;
  QWidget* waiting_;
  MainWindow* replay_ = nullptr;
  std::shared_ptr<trace::LiveLook> latest_;  // not in view yet (paused)
  QTimer retry_;
  uint32_t shown_events_ = 0;
  int64_t newest_ = 0;  // the newest event of the look in view, until it is on screen (wall ns)
  uint32_t last_position_ = 0;
  double played_in_speed_ = 0;  // set for the play-in of the look in view (0: none going on)
  double chosen_speed_ = 0;     // the replay's speed the user chose (0: not known yet)
  bool following_ = true;
  bool lost_ = false;     // the look in view is the last: radar record was killed, its processes ended
  bool showing_ = false;  // the window moves itself: not a step back of the user's
  std::vector<double> lags_;
  double refresh_seconds_ = 0;
  QString unreadable_;
};

}  // namespace radar::app
