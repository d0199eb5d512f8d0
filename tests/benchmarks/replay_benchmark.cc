// The replay window at scale, offscreen: time to first frame, seeking near
// the end vs near the start, frame times while many messages are in
// flight, and the memory the window holds per event.
//   replay_benchmark DIR [FIND]   (a recording, e.g. from `merge_benchmark generate`;
//                                  FIND: text to search for, timed to its first match)
#include <malloc.h>
#include <sys/resource.h>

#include <QApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "app/content_search.h"
#include "app/main_window.h"
#include "app/runs_window.h"
#include "app/scene.h"
#include "app/spacetime_view.h"
#include "trace/merge.h"

namespace {
using Clock = std::chrono::steady_clock;
double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }
long rssKiB() {  // current, not peak
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * 4;
}
double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}
}  // namespace

// --diff A B: two runs side by side, stepped from their middle 200 times,
// in lock step (the second follows) and with the lock off (the first alone):
// a step and both runs' views drawn, as on screen.
int diffSteps(const char* first, const char* second) {
  std::string error;
  auto a = radar::trace::loadTrace({first}, {}, &error);
  auto b = a ? radar::trace::loadTrace({second}, {}, &error) : nullptr;
  if (!a || !b) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const size_t events = a->events.size();
  const auto made = Clock::now();
  radar::app::RunsWindow runs(std::make_unique<radar::app::MainWindow>(std::move(a)),
                              std::make_unique<radar::app::MainWindow>(std::move(b)), "A", "B");
  runs.setAttribute(Qt::WA_DontShowOnScreen);
  runs.resize(1600, 900);
  runs.show();
  QApplication::processEvents();
  std::printf("two runs of %zu events: the side-by-side window made in %.0f ms (the diff and its alignment)\n", events,
              ms(made, Clock::now()));
  for (bool lock : {true, false}) {
    runs.setLockStep(lock);
    runs.first().controller().skipTo(static_cast<uint32_t>(events / 2));
    QApplication::processEvents();
    std::vector<double> steps;
    for (int k = 0; k < 200; ++k) {
      const auto t0 = Clock::now();
      runs.stepForward();
      runs.first().controller().advance(10);  // the step's animation to its end
      (void)runs.first().networkView().grab();
      (void)runs.second().networkView().grab();
      steps.push_back(ms(t0, Clock::now()));
    }
    std::printf("a step %s: p50 %.2f ms, p99 %.2f ms\n",
                lock ? "in lock step (the second run follows)" : "with the lock off (the first run alone)",
                percentile(steps, 0.5), percentile(steps, 0.99));
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: replay_benchmark DIR [FIND] | --diff RUN_A RUN_B\n");
    return 2;
  }
  ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  if (std::string(argv[1]) == "--diff") return argc == 4 ? diffSteps(argv[2], argv[3]) : 2;
  const auto t0 = Clock::now();
  std::string error;
  auto trace = radar::trace::loadTrace({argv[1]}, {}, &error);
  if (!trace) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const auto t1 = Clock::now();
  const long before = rssKiB();
  const size_t events = trace->events.size(), processes = trace->processes.size();
  radar::app::MainWindow window(std::move(trace));
  window.setAttribute(Qt::WA_DontShowOnScreen);
  window.resize(1280, 800);
  window.show();
  QApplication::processEvents();
  radar::app::NetworkView& view = window.networkView();
  view.fitToView();
  (void)view.grab();
  const auto t2 = Clock::now();
  // The display checkpoints are made in the background: the measures below
  // are with all of them.
  window.display().waitForCheckpoints();
  const auto t3 = Clock::now();
  const long after = rssKiB();
  std::printf("recording: %zu processes, %zu events\n", processes, events);
  std::printf("first frame: %.0f ms (load + merge %.0f ms, window and first frame %.0f ms)\n", ms(t0, t2), ms(t0, t1),
              ms(t1, t2));
  std::printf("display checkpoints made in the background by %.0f ms after the merge\n", ms(t1, t3));
  std::printf("memory held by the window beyond the trace: %.1f MiB, %.1f bytes per event\n", (after - before) / 1024.0,
              (after - before) * 1024.0 / static_cast<double>(events));

  // Seeking: skip + full redraw of the network view.
  auto& c = window.controller();
  std::mt19937 rng(1);
  auto seek = [&](uint32_t lo, uint32_t hi) {
    std::vector<double> t;
    for (int k = 0; k < 40; ++k) {
      const uint32_t n = lo + rng() % std::max(hi - lo, 1u);
      const auto a = Clock::now();
      c.skipTo(n);
      (void)view.grab();
      t.push_back(ms(a, Clock::now()));
    }
    return percentile(t, 0.5);
  };
  const uint32_t n = static_cast<uint32_t>(events);
  const double start = seek(1, std::max(n / 100, 2u)), end = seek(n - n / 100, n);
  std::printf("seek + frame near the start: %.2f ms, near the end: %.2f ms (median), ratio %.2f\n", start, end,
              end / start);

  // Frames while playing: where the most messages are in flight.
  uint32_t busiest = n / 2;
  size_t most = 0;
  for (uint32_t at = n / 20; at < n; at += n / 20) {
    c.skipTo(at);
    if (view.scene().messages.size() > most) {
      most = view.scene().messages.size();
      busiest = at;
    }
  }
  c.skipTo(busiest);
  c.setSecondsPerEvent(0.05);
  c.play();
  std::vector<double> frames;
  for (int k = 0; k < 300; ++k) {
    const auto a = Clock::now();
    c.advance(1.0 / 60);
    (void)view.grab();
    frames.push_back(ms(a, Clock::now()));
  }
  const auto state = window.display().stateAt(c.position());
  std::printf(
      "playing near event %u (%zu processes, %zu messages in flight, %zu drawn): frame p50 %.2f ms, "
      "p99 %.2f ms\n",
      busiest, view.scene().processes.size(), state.queued.size(), view.scene().messages.size(),
      percentile(frames, 0.5), percentile(frames, 0.99));

  // The network's layout there: a scene put together (boxes, lines, ports,
  // queues and the channels' names), and the names alone placed again.
  {
    radar::app::SceneBuilder builder(window.trace(), window.display());
    std::vector<double> whole, names;
    radar::app::Scene scene;
    for (int k = 0; k < 40; ++k) {
      const auto a = Clock::now();
      scene = builder.build(busiest, 1, /*names=*/false);
      const auto b = Clock::now();
      builder.placeLabels(scene);
      const auto named = Clock::now();
      whole.push_back(ms(a, named));
      names.push_back(ms(b, named));
    }
    std::printf(
        "network layout with its names at event %u (%zu boxes, %zu lines, %zu names placed): p50 %.2f ms, p99 %.2f "
        "ms; the names alone p50 %.2f ms, p99 %.2f ms\n",
        busiest, scene.processes.size(), scene.bundles.size(), scene.labels.size(), percentile(whole, 0.5),
        percentile(whole, 0.99), percentile(names, 0.5), percentile(names, 0.99));
  }

  // The timeline's part of the first frame: one made alone, and drawn.
  {
    const auto a = Clock::now();
    radar::app::SpaceTimeView alone(window.trace());
    alone.resize(1200, 300);
    (void)alone.grab();
    std::printf("timeline alone, made and first drawn: %.0f ms\n", ms(a, Clock::now()));
  }
  // The timeline: from the whole run down to single events and back, a
  // frame (layout and drawing) at each wheel step.
  radar::app::SpaceTimeView& spacetime = window.spaceTimeView();
  radar::app::Timeline& timeline = spacetime.timeline();
  for (bool wall : {false, true}) {
    timeline.setWallTime(wall);
    timeline.showWholeRun();
    std::vector<double> zoom;
    const double x = timeline.xOf((timeline.viewBegin() + timeline.viewEnd()) * 0.37);
    auto frame = [&](double factor) {
      const auto a = Clock::now();
      timeline.zoomBy(factor, x);
      (void)spacetime.grab();
      zoom.push_back(ms(a, Clock::now()));
    };
    const double smallest = wall ? 1000 : 4;
    while (timeline.viewEnd() - timeline.viewBegin() > smallest * 1.01) frame(1.25);
    const size_t in = zoom.size();
    while (timeline.viewEnd() - timeline.viewBegin() < timeline.axisEnd()) frame(0.8);
    std::printf(
        "timeline zoom in %s, whole run to one event and back (%zu + %zu frames): frame p50 %.2f ms, p99 %.2f ms, "
        "max %.2f ms\n",
        wall ? "wall time" : "logical order", in, zoom.size() - in, percentile(zoom, 0.5), percentile(zoom, 0.99),
        *std::max_element(zoom.begin(), zoom.end()));
  }
  // After seeking, playing and zooming: what the window holds then, and
  // what of it is only the C library's heap kept for reuse (given back by
  // malloc_trim).
  const long held = rssKiB();
  ::malloc_trim(0);
  std::printf(
      "memory held by the window after seeking, playing and zooming (the timeline's wall-time keys made): %.1f bytes "
      "per event, %.1f once the C library gives back its free heap\n",
      (held - before) * 1024.0 / static_cast<double>(events),
      (rssKiB() - before) * 1024.0 / static_cast<double>(events));

  // Search over every message's bytes, as the window runs it (slices on
  // the event loop): a pattern found nowhere reads them all; FIND (the
  // second argument) is timed to its first match and to the end.
  const auto& t = window.trace();
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].flags & radar::trace::kEventHasPayload) {
      std::string_view v;
      std::string why;
      if (t.payloadView(i, &v, &why)) bytes += v.size();
    }
  using Mode = radar::app::ContentSearch::Mode;
  auto search = [&](const char* what, const QString& pattern, Mode mode) {
    auto& s = window.contentSearch();
    double first = -1;
    const auto a = Clock::now();
    QObject::connect(&s, &radar::app::ContentSearch::matchesChanged, &s, [&] {
      if (first < 0 && !s.matches().empty()) first = ms(a, Clock::now());
    });
    s.start(pattern, mode, nullptr);
    while (s.running()) QApplication::processEvents();
    const double all = ms(a, Clock::now());
    QObject::disconnect(&s, &radar::app::ContentSearch::matchesChanged, nullptr, nullptr);
    std::printf("search %s: %.0f ms for %.1f MiB of message bytes (%.0f MiB/s), %zu matches", what, all,
                bytes / 1048576.0, bytes / 1048576.0 / (all / 1000), s.matches().size());
    if (first >= 0) std::printf(", the first shown after %.0f ms", first);
    std::printf("\n");
  };
  search("hex bytes found nowhere", QStringLiteral("de ad be ef 00 11 22 33"), Mode::Hex);
  search("text found nowhere (bytes and narrative)", QStringLiteral("nowhere-to-be-found"), Mode::Text);
  if (argc > 2) search("FIND", QString::fromUtf8(argv[2]), Mode::Text);
  return 0;
}
