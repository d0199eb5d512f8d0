// The replay window: the network view with RADAR's running narrative above
// it, the space-time diagram, the event table and the findings, and the
// controls (menu, toolbar, keyboard) of the replay controller.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QTimer>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "app/content_search.h"
#include "app/controller.h"
#include "app/models.h"
#include "app/network_view.h"
#include "app/requests_model.h"
#include "app/scene.h"
#include "app/spacetime_view.h"
#include "binding/binding.h"
#include "trace/display.h"
#include "trace/trace.h"

class QLabel;
class QSlider;
class QDoubleSpinBox;
class QTableView;
class QLineEdit;
class QCheckBox;
class QComboBox;
class QAction;
class QDockWidget;
class QSplitter;
class QMenu;
class QToolBar;

namespace radar::app {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  // `net`: the network description already applied to `trace`, or null.
  explicit MainWindow(std::unique_ptr<trace::Trace> trace, std::unique_ptr<netdesc::Binding> net = nullptr,
                      QWidget* parent = nullptr);
  ~MainWindow() override;

  ReplayController& controller() { return *controller_; }
  NetworkView& networkView() { return *network_; }
  SpaceTimeView& spaceTimeView() { return *spacetime_; }
  EventTableModel& eventModel() { return *event_model_; }
  FindingsModel& findingsModel() { return *findings_model_; }
  const trace::Trace& trace() const { return *trace_; }
  const trace::DisplayModel& display() const { return *display_; }
  QString narrative() const;
  // Jumps to an event (position) and selects it in every view.
  void goToEvent(uint32_t position);
  // The window as it is drawn now, into a PNG or an SVG (by the name's
  // extension); false with *error when it cannot be written.
  // The window, or the network or the timeline alone, as a PNG or an SVG.
  enum class Part { Window, Network, Timeline };
  bool saveView(const QString& path, QString* error, Part part = Part::Window);
  QWidget& partWidget(Part part);
  // Opens the window showing a message's contents (a send's position).
  void showMessage(uint32_t send);
  // No selected message, no causal colouring, no critical path (Esc).
  void clearHighlight();
  // The critical path to the current event: its segments in a panel, its
  // events joined in the diagram, its processes outlined (P).
  bool showCriticalPath();
  CriticalPathModel& criticalPathModel() { return *path_model_; }
  // The Requests pane (only when a server answered requests: else null):
  // every request, sortable by each part of its time. Showing one moves
  // every view to its reply and draws its own critical path, from its
  // request's send (showRequest, with the model's row).
  RequestsModel* requestsModel() { return requests_model_; }
  QTableView* requestsView() { return requests_view_; }
  bool showRequest(int row);
  // Jumps to the first receive of a message.
  bool followMessage(uint32_t send);
  // Wireshark's Follow Stream: the whole byte stream of the channel a
  // message was sent on, both ways, in a window; returns its text.
  QString followChannel(uint32_t send);
  // Search over message contents and the narrative (the Find box): starts
  // one (false, with *error, for a bad pattern), then goes to the next /
  // previous match from the current event, as soon as one is found.
  bool find(const QString& pattern, ContentSearch::Mode mode, QString* error = nullptr);
  void findNext();
  void findPrevious();
  ContentSearch& contentSearch() { return *search_; }
  QString findStatus() const;
  // Not interactive (tests, snapshots): no dialog opens and no terminal
  // starts; what they would show is still computed (lastMessageText(),
  // debugFromHere()'s command).
  void setInteractive(bool interactive) { interactive_ = interactive; }
  // The narrative on as many lines as it takes (beside another run, where
  // one line would cut it), or on one line that stays put.
  void setNarrativeWrapped(bool wrapped);
  // Whether this run's findings (and requests, which share their place)
  // are shown beside it: beside another run, both runs' are one pane.
  void setFindingsShown(bool shown);
  // Whether the animation moves with the clock (on a timer), or only as
  // the controller is told to advance (frames made one by one).
  void followClock(bool follow) { follow ? timer_.start(16) : timer_.stop(); }
  // For a picture of the window at its present size (--snapshot, --frames):
  // the docks get a share of it (none when it is small) and the network
  // view most of the rest (a layout saved at a larger size left it none).
  void shareTheWindow();
  // The text of the message window last opened (for tests).
  QString lastMessageText() const { return last_message_text_; }
  // "Debug this process from here": radar debug for the selected process
  // (else the current event's) at the current event, in a terminal; the
  // command is shown to copy when no terminal is found. Returns it.
  QString debugFromHere();
  void selectProcess(uint32_t process) { selected_process_ = process; }
  // What the user set up to look with: the event filter, the find, the
  // lanes shown and the speed. A window on a newer look at a recording
  // being followed takes them over from the one it replaces.
  struct ViewSetup {
    QString filter, filter_typed;  // applied, and in the box (Enter not pressed yet)
    bool hide_polls = false, show_mpi_library = false;
    QString find;  // searched (empty: none)
    int find_mode = 0;
    QString lanes;
    bool wall_time = false;
    double seconds_per_event = 0;
  };
  ViewSetup viewSetup() const;
  // The same set up here (the find searches this window's trace).
  void adoptViewSetup(const ViewSetup& setup);
  // Loads recordings (app/loader.h) and opens a window on them; the one of
  // `parent` closes once the new one shows.
  static void openRecording(const QStringList& dirs, QWidget* parent);

 protected:
  void dragEnterEvent(class QDragEnterEvent*) override;
  void dropEvent(class QDropEvent*) override;
  void closeEvent(class QCloseEvent*) override;
  // One shortcut map for the window: a one-key shortcut of its actions
  // goes to the window whatever widget has the focus, where the widget
  // would take the key for nothing (the speed box after a skip, a button,
  // the slider); the filter, the find box and the timeline keep theirs.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QSplitter* buildCentre();
  QDockWidget* buildEventsDock();
  QDockWidget* buildFindingsDock();
  void buildCriticalPathDock(QDockWidget* events_dock);
  void buildRequestsDock(QDockWidget* findings_dock);
  void showPath(analysis::CriticalPath path, const QString& what);
  void buildActions();
  void buildFileMenu(QMenu* file);
  void buildReplayMenu(QMenu* replay, QToolBar* bar);
  void buildViewMenu(QMenu* view, QToolBar* bar);
  QAction* addMenuAction(QMenu* menu, const QString& text, const QKeySequence& key, std::function<void()> slot,
                         QToolBar* bar = nullptr);
  void connectViews();
  void applyFilter(const QString& text);
  void shareTheCentre(int centre);
  void refresh();
  void refreshControls();
  void tick();
  void askSkip();
  void askInstantReplay();
  void showMessageUnderMouse();
  void showGuide();
  void showHelp(const QString& before = {});
  void saveLayout();
  void restoreLayout();
  void reportProblems();
  QString settingsKey() const;

  std::unique_ptr<trace::Trace> trace_;
  std::unique_ptr<netdesc::Binding> net_;
  std::unique_ptr<trace::DisplayModel> display_;
  std::unique_ptr<analysis::Narrator> narrator_;
  std::unique_ptr<SceneBuilder> builder_;
  ReplayController* controller_;
  NetworkView* network_;
  SpaceTimeView* spacetime_;
  // The description's named patterns and their stretches (the timeline's
  // bars, by the same index).
  std::vector<analysis::PatternName> pattern_names_;
  std::vector<analysis::NamedStretch> named_;
  EventTableModel* event_model_;
  FindingsModel* findings_model_;
  QLabel* narrative_;
  QSlider* slider_;
  QDoubleSpinBox* speed_;
  QTableView* events_view_;
  QTableView* findings_view_;
  QLineEdit* filter_;
  QLabel* filter_status_ = nullptr;
  QCheckBox* hide_polls_ = nullptr;
  QCheckBox* show_mpi_library_ = nullptr;  // only when the recording has MPI ranks
  ContentSearch* search_ = nullptr;
  QLineEdit* find_ = nullptr;
  QComboBox* find_mode_ = nullptr;
  QLabel* find_status_ = nullptr;
  int find_jump_ = 0;  // a jump asked before a match was found: +1 next, -1 previous
  void jumpToMatch(int direction);
  void updateFindStatus();
  QLabel* position_label_;
  QTimer timer_;
  QElapsedTimer clock_;
  uint32_t instant_replay_count_ = 10;
  uint32_t selected_message_ = trace::kNone;
  uint32_t selected_process_ = trace::kNone;
  QString last_message_text_;
  QAction* play_action_ = nullptr;
  QAction* mode_action_ = nullptr;
  bool updating_ = false;          // the views follow the controller, not the reverse
  uint32_t table_position_ = ~0u;  // the event the table was last put on
  CriticalPathModel* path_model_ = nullptr;
  QDockWidget* path_dock_ = nullptr;
  RequestsModel* requests_model_ = nullptr;
  QTableView* requests_view_ = nullptr;
  QDockWidget* requests_dock_ = nullptr;
  QDockWidget* events_dock_ = nullptr;
  QDockWidget* findings_dock_ = nullptr;
  QSplitter* centre_split_ = nullptr;
  bool interactive_ = true;
  bool findings_shown_ = true;
};

}  // namespace radar::app
