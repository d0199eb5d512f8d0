// radar-replay: the replay window (started by `radar replay`), or, with
// --snapshot, the view at an event rendered to a PNG without a display.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QMessageBox>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/live_window.h"
#include "app/loader.h"
#include "app/main_window.h"
#include "app/replay_options.h"
#include "app/runs_window.h"
#include "app/view_image.h"
#include "trace/merge.h"

namespace {
// The offscreen platform's notes about what it cannot do are not the
// user's business; everything else goes to stderr as usual.
void quietOffscreenMessages(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtDebugMsg || type == QtInfoMsg || message.contains(QLatin1String("propagateSizeHints")) ||
      message.contains(QLatin1String("XDG_RUNTIME_DIR")))
    return;
  std::fprintf(stderr, "radar replay: %s\n", message.toLocal8Bit().constData());
}
}  // namespace

namespace {

// The window on a loaded recording, named by its description: -1 and
// *window made, or the exit status when it cannot be (said on stderr).
int openWindow(std::unique_ptr<radar::trace::Trace> trace, const radar::app::ReplayOptions& options,
               std::unique_ptr<radar::app::MainWindow>* window) {
  std::string error;
  for (const auto& p : trace->problems)
    std::fprintf(stderr, "radar replay: %s%s%s\n", p.path.c_str(), p.path.empty() ? "" : ": ", p.message.c_str());
  std::vector<std::string> unmatched;
  auto net = radar::netdesc::Binding::forRecording(*trace, options.net, !options.no_net, &unmatched, &error);
  if (!net && !error.empty()) {
    std::fprintf(stderr,
                 "%s\nradar replay: the network description cannot be used (--no-net ignores the one a "
                 "recording carries)\n",
                 error.c_str());
    return 2;
  }
  if (net) trace->described = net->names();
  for (const auto& u : unmatched)
    std::fprintf(stderr, "radar replay: %s: %s\n",
                 options.net.empty() ? "the recording's network description" : options.net.c_str(), u.c_str());
  const uint32_t events = static_cast<uint32_t>(trace->events.size());
  if (options.at_event > events) {
    std::fprintf(stderr, "radar replay: --at-event %u: the recording has %u events\n", options.at_event, events);
    return 2;
  }
  *window = std::make_unique<radar::app::MainWindow>(std::move(trace), std::move(net));
  if (options.seconds_per_event > 0) (*window)->controller().setSecondsPerEvent(options.seconds_per_event);
  return -1;
}

// --snapshot FILE: the view at --at-event, drawn offscreen into a PNG or
// an SVG.
int snapshot(radar::app::MainWindow& window, const radar::app::ReplayOptions& options) {
  window.setInteractive(false);  // a picture: nothing to click
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(options.width, options.height);
  window.show();
  QApplication::processEvents();
  window.shareTheWindow();
  window.controller().skipTo(options.at_event);
  if (options.critical_path) window.showCriticalPath();
  QApplication::processEvents();
  window.networkView().fitToView();  // to the lines of the event shown
  QApplication::processEvents();
  using Part = radar::app::MainWindow::Part;
  const Part part = options.view == "network"    ? Part::Network
                    : options.view == "timeline" ? Part::Timeline
                                                 : Part::Window;
  QString error;
  if (!window.saveView(QString::fromStdString(options.snapshot), &error, part)) {
    std::fprintf(stderr, "radar replay: %s\n", error.toLocal8Bit().constData());
    return 1;
  }
  std::printf("%s\n", window.narrative().toLocal8Bit().constData());
  return 0;
}

// --frames DIR: the animation from --at-event to --to-event, a PNG a
// frame: each event starts, then moves on by 1/fps of a second until it is
// shown whole. Frame 1 is the view at --at-event.
int frames(radar::app::MainWindow& window, const radar::app::ReplayOptions& options) {
  const uint32_t events = static_cast<uint32_t>(window.trace().events.size());
  if (options.to_event > events) {
    std::fprintf(stderr, "radar replay: --to-event %u: the recording has %u events\n", options.to_event, events);
    return 2;
  }
  auto& c = window.controller();
  // Unless asked, the clip (not the whole recording) plays in about a minute.
  if (options.seconds_per_event <= 0)
    c.setSecondsPerEvent(radar::app::ReplayController::secondsPerEventFor(options.to_event - options.at_event));
  const double seconds = c.secondsPerEvent();
  const uint64_t per_event = std::max<uint64_t>(1, static_cast<uint64_t>(std::lround(seconds * options.fps)));
  const uint64_t total = 1 + per_event * (options.to_event - options.at_event);
  constexpr uint64_t kMostFrames = 100000;
  if (total > kMostFrames) {
    std::fprintf(stderr,
                 "radar replay: --frames: %llu frames (%u events of %llu frames each); at most %llu: fewer events, a "
                 "lower --fps or a shorter --seconds-per-event\n",
                 static_cast<unsigned long long>(total), options.to_event - options.at_event,
                 static_cast<unsigned long long>(per_event), static_cast<unsigned long long>(kMostFrames));
    return 2;
  }
  // The directory is made, or must be empty: frames of another animation
  // left among these would play as part of it.
  QDir out(QString::fromStdString(options.frames));
  if (out.exists() && !out.isEmpty()) {
    std::fprintf(stderr, "radar replay: --frames: %s is not empty\n", options.frames.c_str());
    return 2;
  }
  if (!out.exists() && !QDir().mkpath(out.path())) {
    std::fprintf(stderr, "radar replay: --frames: cannot make the directory %s\n", options.frames.c_str());
    return 1;
  }
  window.setInteractive(false);
  window.followClock(false);  // each frame 1/fps of a second on, however long drawing it takes
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(options.width, options.height);
  window.show();
  QApplication::processEvents();
  window.shareTheWindow();
  window.networkView().fitToView();
  c.skipTo(options.at_event);
  uint64_t written = 0;
  auto frame = [&]() {
    QApplication::processEvents();
    QString error;
    const QString name = out.filePath(QStringLiteral("frame-%1.png").arg(written + 1, 6, 10, QLatin1Char('0')));
    if (!radar::app::saveViewImage(window, name, &error)) {
      std::fprintf(stderr, "radar replay: %s\n", error.toLocal8Bit().constData());
      return false;
    }
    ++written;
    return true;
  };
  if (!frame()) return 1;
  for (uint32_t e = options.at_event; e < options.to_event; ++e) {
    c.stepForward();
    for (uint64_t f = 0; f < per_event; ++f) {
      // The last step lands exactly on the event shown whole.
      c.advance(f + 1 == per_event ? seconds : seconds / static_cast<double>(per_event));
      if (!frame()) return 1;
    }
  }
  std::printf("%llu frames in %s (%d a second): events %u to %u\n", static_cast<unsigned long long>(written),
              options.frames.c_str(), options.fps, options.at_event, options.to_event);
  std::printf(
      "a video, where ffmpeg is installed: ffmpeg -framerate %d -i %s/frame-%%06d.png -pix_fmt yuv420p out.mp4\n",
      options.fps, options.frames.c_str());
  return 0;
}

// --diff RUN_A RUN_B: both runs side by side, at their first difference;
// with --snapshot, drawn into a PNG.
int sideBySide(const radar::app::ReplayOptions& options) {
  std::unique_ptr<radar::app::MainWindow> windows[2];
  for (int k = 0; k < 2; ++k) {
    std::string error;
    auto trace = radar::trace::loadTrace({options.dirs[k]}, {}, &error);
    if (!trace) {
      std::fprintf(stderr, "radar replay: %s\n", error.c_str());
      return 1;
    }
    if (const int status = openWindow(std::move(trace), options, &windows[k]); status >= 0) return status;
  }
  radar::app::RunsWindow runs(std::move(windows[0]), std::move(windows[1]), QString::fromStdString(options.dirs[0]),
                              QString::fromStdString(options.dirs[1]));
  if (options.snapshot.empty()) {
    runs.resize(1600, 900);
    runs.show();
    return QApplication::exec();
  }
  for (auto* w : {&runs.first(), &runs.second()}) w->setInteractive(false);
  runs.setAttribute(Qt::WA_DontShowOnScreen);
  runs.resize(options.width, options.height);
  runs.show();
  QApplication::processEvents();
  runs.first().networkView().fitToView();
  runs.second().networkView().fitToView();
  runs.goToDifference(0);
  QApplication::processEvents();
  QString error;
  if (!radar::app::saveViewImage(runs, QString::fromStdString(options.snapshot), &error)) {
    std::fprintf(stderr, "radar replay: %s\n", error.toLocal8Bit().constData());
    return 1;
  }
  std::printf("%s\n", runs.summary().toLocal8Bit().constData());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using radar::app::ReplayOptions;
  ReplayOptions options;
  std::string error;
  if (!radar::app::parseReplayOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "radar replay: %s\nTry 'radar help replay'.\n", error.c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(radar::app::kReplayUsage, stdout);
    return 0;
  }
  const bool have_display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || std::getenv("QT_QPA_PLATFORM");
  if (!have_display) {
    if (options.snapshot.empty() && options.frames.empty()) {
      std::fprintf(stderr,
                   "radar replay: no display (DISPLAY is not set); use --snapshot FILE.png to render the view "
                   "to an image, or `radar events` for the narrative\n");
      return 1;
    }
    ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  }
  // Offscreen, whoever chose it.
  if (const char* platform = std::getenv("QT_QPA_PLATFORM"); platform && std::strcmp(platform, "offscreen") == 0)
    qInstallMessageHandler(quietOffscreenMessages);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("radar"));
  QApplication::setApplicationName(QStringLiteral("replay"));
  if (options.dirs.empty()) {  // --choose: from the desktop's menu, say
    const QString dir =
        QFileDialog::getExistingDirectory(nullptr, QObject::tr("Open a recording directory"), QDir::currentPath());
    if (dir.isEmpty()) return 0;  // none chosen: nothing to do
    options.dirs.push_back(QFile::encodeName(dir).toStdString());
  }

  if (options.diff) return sideBySide(options);
  if (options.follow) {
    radar::app::LiveWindow live(options.dirs, options.merge_unrelated);
    live.show();
    return QApplication::exec();
  }
  // A picture or an animation's frames: loaded here, drawn, and done.
  if (!options.snapshot.empty() || !options.frames.empty()) {
    radar::trace::LoadOptions load_options;
    load_options.merge_unrelated = options.merge_unrelated;
    std::unique_ptr<radar::trace::Trace> trace = radar::trace::loadTrace(options.dirs, load_options, &error);
    if (!trace) {
      std::fprintf(stderr, "radar replay: %s\n", error.c_str());
      return 1;
    }
    std::unique_ptr<radar::app::MainWindow> window;
    if (const int status = openWindow(std::move(trace), options, &window); status >= 0) return status;
    return options.snapshot.empty() ? frames(*window, options) : snapshot(*window, options);
  }
  // The window: loaded off the GUI thread, the event loop running meanwhile.
  std::unique_ptr<radar::app::MainWindow> window;
  radar::app::loadRecording(options.dirs, options.merge_unrelated, nullptr,
                            [&](std::unique_ptr<radar::trace::Trace> trace, const QString& load_error) {
                              if (!trace) {
                                std::fprintf(stderr, "radar replay: %s\n", load_error.toLocal8Bit().constData());
                                // Chosen in a dialog (from the desktop's menu, say): said in one too.
                                if (options.choose)
                                  QMessageBox::critical(nullptr, QObject::tr("radar replay"), load_error);
                                QApplication::exit(1);
                                return;
                              }
                              if (const int status = openWindow(std::move(trace), options, &window); status >= 0) {
                                QApplication::exit(status);
                                return;
                              }
                              if (options.at_event) window->controller().skipTo(options.at_event);
                              if (options.critical_path) window->showCriticalPath();
                              window->show();
                            });
  return QApplication::exec();
}
