#include "app/live_window.h"

#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QLabel>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>

#include "binding/binding.h"

namespace radar::app {

namespace {

int64_t wallNow() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A look's trace with the names the recording's own network description
// gives (radar run, radar record --net), where it carries one that fits.
std::unique_ptr<netdesc::Binding> describe(trace::Trace& t) {
  std::vector<std::string> unmatched;
  std::string error;
  auto net = netdesc::Binding::forRecording(t, "", true, &unmatched, &error);
  if (net) t.described = net->names();
  return net;
}

// Whether a look shows what the one in view does not: events, processes,
// or findings (a deadlock is told once its calls have waited half a second,
// in a look with no new event).
bool differs(const trace::Trace& a, const trace::Trace& b) {
  if (a.events.size() != b.events.size() || a.processes.size() != b.processes.size() ||
      a.findings.size() != b.findings.size())
    return true;
  for (size_t k = 0; k < a.findings.size(); ++k)
    if (a.findings[k].kind != b.findings[k].kind || a.findings[k].processes != b.findings[k].processes) return true;
  return false;
}

QString counted(size_t n, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

}  // namespace

LiveWindow::LiveWindow(std::vector<std::string> dirs, bool merge_unrelated, QWidget* parent)
    : QWidget(parent), follower_(dirs, merge_unrelated) {
  const QString name = dirs.empty() ? QString() : QFileInfo(QString::fromStdString(dirs.front())).fileName();
  setWindowTitle(tr("%1 — radar replay, following the recording").arg(name));
  layout_ = new QVBoxLayout(this);
  layout_->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QToolBar(this);
  follow_action_ = bar->addAction(tr("Follow"));
  follow_action_->setObjectName(QStringLiteral("follow"));
  follow_action_->setCheckable(true);
  follow_action_->setChecked(true);
  follow_action_->setToolTip(
      tr("Show the recording as it grows; a step or a skip back pauses following, Now (End) comes back"));
  connect(follow_action_, &QAction::toggled, this, &LiveWindow::setFollowing);
  QAction* now = bar->addAction(tr("Now"), this, &LiveWindow::goToNow);
  now->setObjectName(QStringLiteral("now"));
  now->setShortcut(QKeySequence(Qt::Key_End));
  now->setToolTip(tr("The latest look at the recording, at its last event, following again (End)"));
  status_ = new QLabel(bar);
  status_->setObjectName(QStringLiteral("live-status"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  bar->addWidget(status_);
  layout_->addWidget(bar);
  waiting_ = new QLabel(tr("Waiting for the recording to begin…"), this);
  static_cast<QLabel*>(waiting_)->setAlignment(Qt::AlignCenter);
  layout_->addWidget(waiting_, 1);
  // A look that waited for the replay's dialog or window to close.
  retry_.setSingleShot(true);
  connect(&retry_, &QTimer::timeout, this, &LiveWindow::showLatest);
  connect(&follower_, &LiveFollower::looked, this, &LiveWindow::looked);
  connect(&follower_, &LiveFollower::troubled, this, &LiveWindow::updateStatus);
  connect(&follower_, &LiveFollower::unreadable, this, [this](const QString& error) {
    unreadable_ = error;
    updateStatus();
  });
  resize(1280, 900);
  updateStatus();
  follower_.start();
}

LiveWindow::~LiveWindow() = default;

uint32_t LiveWindow::newerEvents() const {
  if (!latest_ || !latest_->trace) return 0;
  const auto latest = static_cast<uint32_t>(latest_->trace->events.size());
  return latest > shown_events_ ? latest - shown_events_ : 0;
}

void LiveWindow::looked(std::shared_ptr<trace::LiveLook> look) {
  if (!replay_ || look->ended || differs(*look->trace, replay_->trace())) latest_ = std::move(look);
  if (following_ || !replay_) showLatest();
  updateStatus();
}

// Whether the replay in view has a dialog or a window of its own open (a
// message's bytes, Skip to event): a new replay would close it.
bool LiveWindow::replayInUse() const {
  if (!replay_) return false;
  if (QApplication::activeModalWidget()) return true;
  for (QWidget* w : QApplication::topLevelWidgets()) {
    if (!w->isVisible()) continue;
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
      if (p == replay_) return true;
  }
  return false;
}

void LiveWindow::showLatest() {
  if (!latest_) return;
  if (replayInUse()) {
    retry_.start(200);
    return;
  }
  showLook(std::move(latest_));
}

// The look in view from now on: its replay, the events new since where the
// view was played in while following.
void LiveWindow::showLook(std::shared_ptr<trace::LiveLook> look) {
  QElapsedTimer making;
  making.start();
  latest_.reset();
  const auto events = static_cast<uint32_t>(look->trace->events.size());
  // The first look at its end (a recording followed late may be long);
  // later ones from where the last one was (the events before it are the
  // same), the new events played in before the next look comes.
  // Many at once (a busy program): the last of them played in, the others
  // passed over, so that the window keeps up.
  constexpr uint32_t kPlayedIn = 25;
  uint32_t from = replay_ ? std::min(replay_->controller().position(), events) : events;
  if (following_ && events - from > kPlayedIn) from = events - kPlayedIn;
  const int64_t newest = events ? look->trace->wallReturnTime(events - 1) : 0;
  auto net = describe(*look->trace);
  auto* replay = new MainWindow(std::move(look->trace), std::move(net), this);
  replay->setWindowFlags(Qt::Widget);
  showing_ = true;
  if (replay_) {
    MainWindow::ViewSetup setup = replay_->viewSetup();
    // A speed other than the play-in's is the user's: theirs after each play-in.
    if (setup.seconds_per_event != played_in_speed_) chosen_speed_ = setup.seconds_per_event;
    setup.seconds_per_event = chosen_speed_;
    replay->adoptViewSetup(setup);
    replay_->close();                                // keeps the boxes the user moved, for the new one
    delete layout_->replaceWidget(replay_, replay);  // the layout's item for the old one
    replay_->deleteLater();
  } else {
    delete layout_->replaceWidget(waiting_, replay);
    waiting_->hide();
  }
  replay_ = replay;
  replay_->show();
  shown_events_ = events;
  newest_ = newest;
  lost_ = look->recorder_lost;
  ReplayController& c = replay_->controller();
  connect(&c, &ReplayController::changed, this, &LiveWindow::positionChanged);
  connect(&c, &ReplayController::stateChanged, this, &LiveWindow::playChanged);
  c.skipTo(from);
  if (following_ && events > from) {
    // In half the time between looks (50 ms at least): done before the next.
    if (!chosen_speed_) chosen_speed_ = c.secondsPerEvent();
    c.setSecondsPerEvent(std::clamp(0.025 / (events - from), ReplayController::kMinSecondsPerEvent, 0.25));
    played_in_speed_ = c.secondsPerEvent();
    c.play();
  }
  last_position_ = c.position();
  showing_ = false;
  refresh_seconds_ += look->seconds + static_cast<double>(making.nsecsElapsed()) / 1e9;
  updateStatus();
  emit shown();
}

// A step or a skip back is the user looking at the past: following stops.
// The newest event shown whole: how long after its call it got there.
void LiveWindow::positionChanged() {
  if (!replay_) return;
  const ReplayController& c = replay_->controller();
  if (!showing_ && following_ && c.position() < last_position_) setFollowing(false);
  last_position_ = c.position();
  if (newest_ && c.position() == shown_events_ && !c.animating()) {
    lags_.push_back(static_cast<double>(wallNow() - newest_) / 1e9);
    newest_ = 0;
  }
}

// A pause (Space) or single-step mode before the last event: the user
// looks at this moment, and following stops.
void LiveWindow::playChanged() {
  ReplayController& c = replay_->controller();
  if (!showing_ && following_ && !c.playing() && c.position() < c.events()) setFollowing(false);
  // A play-in done: the user's own speed for what they play next.
  if (!showing_ && !c.playing() && chosen_speed_ && c.secondsPerEvent() == played_in_speed_) {
    played_in_speed_ = 0;
    c.setSecondsPerEvent(chosen_speed_);
  }
}

void LiveWindow::setFollowing(bool following) {
  if (following_ == following) return;
  following_ = following;
  follow_action_->setChecked(following);
  if (following) {
    showLatest();
    if (replay_) replay_->controller().skipTo(static_cast<uint32_t>(replay_->trace().events.size()));
  }
  updateStatus();
}

void LiveWindow::goToNow() {
  if (following_) {
    showLatest();
    if (replay_) replay_->controller().skipTo(static_cast<uint32_t>(replay_->trace().events.size()));
  }
  setFollowing(true);
}

QString LiveWindow::status() const { return status_->text(); }

void LiveWindow::updateStatus() {
  QString s;
  if (!unreadable_.isEmpty()) {
    s = tr("The recording ended and cannot be read: %1").arg(unreadable_);
  } else if (!replay_) {
    s = follower_.trouble().isEmpty() ? tr("Waiting for the recording…")
                                      : tr("Waiting for the recording (%1)").arg(follower_.trouble());
  } else {
    const trace::Trace& t = replay_->trace();
    const QString seen = counted(t.events.size(), tr("event"), tr("events")) + QStringLiteral(", ") +
                         counted(t.processes.size(), tr("process"), tr("processes"));
    if (follower_.ended() && !latest_ && lost_)
      s = tr("radar record is gone (killed?) and its processes have ended: %1, as their logs hold them").arg(seen);
    else if (follower_.ended() && !latest_)
      s = tr("The recording has ended: %1").arg(seen);
    else if (following_)
      s = tr("Following the recording: %1").arg(seen);
    else
      s = tr("Paused on a look at %1; %2 newer: Now (End) to see them")
              .arg(seen, counted(newerEvents(), tr("event"), tr("events")));
    // Looks that fail (a log being written as it was read, or damaged):
    // the one in view is older than it seems.
    if (!follower_.trouble().isEmpty() && !follower_.ended())
      s += tr(" — the last look could not read the recording: %1").arg(follower_.trouble());
  }
  status_->setText(s);
}

}  // namespace radar::app
