// A recording followed as it grows (radar replay --follow): looked at again
// and again off the GUI thread (trace::lookAtRecording), each look that
// read whole handed on, until radar record has ended.
#pragma once

#include <QObject>
#include <QTimer>
#include <memory>
#include <string>
#include <vector>

#include "trace/live.h"

class QThread;

namespace radar::app {

class LiveFollower : public QObject {
  Q_OBJECT

 public:
  LiveFollower(std::vector<std::string> dirs, bool merge_unrelated, QObject* parent = nullptr);
  ~LiveFollower() override;  // waits for a look in progress
  void start();
  bool ended() const { return ended_; }
  // Why the last looks could not read the recording ("" when the last did).
  const QString& trouble() const { return trouble_; }

 signals:
  // A look that read whole: its trace, and whether the recording has
  // ended (no look follows it then).
  void looked(std::shared_ptr<trace::LiveLook> look);
  // The recording ended and cannot be read.
  void unreadable(const QString& error);
  // A look could not read it, for now (trouble() says why).
  void troubled();

 private:
  void lookAgain();
  void lookDone(std::shared_ptr<trace::LiveLook> look);

  std::vector<std::string> dirs_;
  bool merge_unrelated_;
  QThread* worker_ = nullptr;
  QTimer next_;
  bool ended_ = false;
  QString trouble_;
};

}  // namespace radar::app
