#include "app/loader.h"

#include <QProgressDialog>
#include <QThread>
#include <QTimer>
#include <atomic>

#include "trace/merge.h"

namespace radar::app {

namespace {

// What the worker thread and the GUI thread share while a load runs.
struct Load {
  std::vector<std::string> dirs;
  bool merge_unrelated = false;
  std::atomic<bool> cancel{false};
  std::atomic<uint64_t> done{0}, total{0};
  std::unique_ptr<trace::Trace> trace;
  std::string error;
};

}  // namespace

void loadRecording(std::vector<std::string> dirs, bool merge_unrelated, QWidget* parent, LoadDone done) {
  auto load = std::make_shared<Load>();
  load->dirs = std::move(dirs);
  load->merge_unrelated = merge_unrelated;
  QThread* worker = QThread::create([load] {
    trace::LoadOptions options;
    options.cancel = &load->cancel;
    options.merge_unrelated = load->merge_unrelated;
    options.progress = [load](uint64_t d, uint64_t t) {
      load->done = d;
      load->total = t;
    };
    load->trace = trace::loadTrace(load->dirs, options, &load->error);
  });
  auto* progress = new QProgressDialog(QObject::tr("Loading the recording…"), QObject::tr("Cancel"), 0, 1000, parent);
  progress->setWindowModality(Qt::WindowModal);
  progress->setMinimumDuration(300);
  auto* poll = new QTimer(progress);
  QObject::connect(poll, &QTimer::timeout, progress, [progress, load] {
    if (load->total) progress->setValue(static_cast<int>(load->done * 1000 / load->total));
    if (progress->wasCanceled()) load->cancel = true;
  });
  poll->start(50);
  // finished() comes from the worker's thread; the slot runs on the GUI's
  // (the progress dialog's thread).
  QObject::connect(worker, &QThread::finished, progress, [worker, progress, load, done = std::move(done)] {
    worker->deleteLater();
    progress->deleteLater();
    QString error;
    if (!load->trace)
      error = load->cancel ? QObject::tr("Loading was cancelled.") : QString::fromStdString(load->error);
    done(std::move(load->trace), error);
  });
  worker->start();
}

}  // namespace radar::app
