#include "app/live_follower.h"

#include <QThread>
#include <algorithm>

namespace radar::app {

namespace {
// Between looks: at least this, and at least as long as the last look
// took (looking takes at most half the time).
constexpr int kLeastPauseMs = 50;
}  // namespace

LiveFollower::LiveFollower(std::vector<std::string> dirs, bool merge_unrelated, QObject* parent)
    : QObject(parent), dirs_(std::move(dirs)), merge_unrelated_(merge_unrelated) {
  next_.setSingleShot(true);
  connect(&next_, &QTimer::timeout, this, &LiveFollower::lookAgain);
}

LiveFollower::~LiveFollower() {
  next_.stop();
  if (worker_) {
    worker_->disconnect(this);
    worker_->wait();
    delete worker_;
  }
}

void LiveFollower::start() { lookAgain(); }

void LiveFollower::lookAgain() {
  if (worker_ || ended_) return;
  auto look = std::make_shared<trace::LiveLook>();
  worker_ =
      QThread::create([look, dirs = dirs_, merge = merge_unrelated_] { *look = trace::lookAtRecording(dirs, merge); });
  // finished() comes from the worker's thread; the slot runs on this one.
  connect(worker_, &QThread::finished, this, [this, look] { lookDone(look); });
  worker_->start();
}

void LiveFollower::lookDone(std::shared_ptr<trace::LiveLook> look) {
  worker_->deleteLater();
  worker_ = nullptr;
  if (!look->trace) {
    trouble_ = QString::fromStdString(look->error);
    if (look->ended) {
      ended_ = true;
      emit unreadable(trouble_);
      return;
    }
    emit troubled();
  } else {
    trouble_.clear();
    ended_ = look->ended;
    emit looked(look);
    if (ended_) return;
  }
  next_.start(std::max(kLeastPauseMs, static_cast<int>(look->seconds * 1000)));
}

}  // namespace radar::app
