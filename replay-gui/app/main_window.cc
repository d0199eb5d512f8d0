#include "app/main_window.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QThread>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>
#include <functional>
#include <map>

#include "app/debug_launch.h"
#include "app/help_window.h"
#include "app/loader.h"
#include "app/message_text.h"
#include "app/message_window.h"
#include "app/view_image.h"
#include "netdesc/decode.h"
#include "trace/merge.h"

namespace radar::app {

using trace::kNone;

MainWindow::MainWindow(std::unique_ptr<trace::Trace> trace, std::unique_ptr<netdesc::Binding> net, QWidget* parent)
    : QMainWindow(parent), trace_(std::move(trace)), net_(std::move(net)) {
  // Its checkpoints are made in the background: the first frame does not
  // wait for a pass over every event.
  display_ = std::make_unique<trace::DisplayModel>(*trace_, 0, /*background=*/true);
  narrator_ = std::make_unique<analysis::Narrator>(*trace_, trace_->running);
  builder_ = std::make_unique<SceneBuilder>(*trace_, *display_);
  if (net_) builder_->placeDescribed(*net_);
  // Many processes: the siblings of one program (a pool's workers, a
  // shell's two hundred cats) start as one box each, to be opened at will.
  constexpr size_t kManyProcesses = 24;
  if (builder_->chainCount() > kManyProcesses) {
    if (const uint32_t groups = builder_->groupSiblings(4))
      statusBar()->showMessage(tr("%n group(s) of processes of one program drawn as one box; right-click a box, "
                                  "or Shift+G, to show them one by one",
                                  nullptr, static_cast<int>(groups)),
                               15000);
  }
  controller_ = new ReplayController(static_cast<uint32_t>(trace_->events.size()), this);
  controller_->setSecondsPerEvent(ReplayController::secondsPerEventFor(static_cast<uint32_t>(trace_->events.size())));

  QString title = QStringLiteral("radar replay");
  if (!trace_->directories.empty())
    title =
        QFileInfo(QString::fromStdString(trace_->directories.front())).fileName() + QStringLiteral(" — radar replay");
  setWindowTitle(title);
  setAcceptDrops(true);

  QSplitter* split = buildCentre();
  QDockWidget* events_dock = buildEventsDock();
  QDockWidget* findings_dock = buildFindingsDock();
  buildCriticalPathDock(events_dock);
  buildRequestsDock(findings_dock);
  position_label_ = new QLabel(this);
  statusBar()->addPermanentWidget(position_label_);
  buildActions();
  qApp->installEventFilter(this);
  connectViews();
  connect(&timer_, &QTimer::timeout, this, &MainWindow::tick);
  timer_.start(16);
  clock_.start();

  events_dock_ = events_dock;
  findings_dock_ = findings_dock;
  centre_split_ = split;
  restoreLayout();
  resize(1280, 860);
  shareTheCentre(700);
  resizeDocks({events_dock}, {170}, Qt::Vertical);
  resizeDocks({findings_dock}, {280}, Qt::Horizontal);
  refresh();
  refreshControls();
  reportProblems();
}

void MainWindow::setNarrativeWrapped(bool wrapped) {
  narrative_->setWordWrap(wrapped);
  narrative_->setSizePolicy(QSizePolicy::Ignored, wrapped ? QSizePolicy::Preferred : QSizePolicy::Fixed);
}

void MainWindow::setFindingsShown(bool shown) {
  findings_shown_ = shown;
  findings_dock_->setVisible(shown);
  if (requests_dock_) requests_dock_->setVisible(shown);
}

void MainWindow::shareTheWindow() {
  // A small picture has no room for the event table or the findings: the
  // network and the timeline keep it. Otherwise at most a fifth of the
  // height for the events, a fifth of the width for the findings.
  events_dock_->setVisible(height() >= 600);
  findings_dock_->setVisible(findings_shown_ && width() >= 900);
  if (requests_dock_) requests_dock_->setVisible(findings_dock_->isVisible());
  if (events_dock_->isVisible()) resizeDocks({events_dock_}, {std::min(170, height() / 5)}, Qt::Vertical);
  if (findings_dock_->isVisible()) resizeDocks({findings_dock_}, {std::min(280, width() / 5)}, Qt::Horizontal);
  QApplication::processEvents();
  shareTheCentre(centre_split_->height());
  QApplication::processEvents();
}

// The timeline as tall as its lanes need (4 to 15), but half the centre at
// most; the network the rest.
void MainWindow::shareTheCentre(int centre) {
  const size_t lanes = std::clamp<size_t>(spacetime_->timeline().lanes().size(), 4, 15);
  const int wanted = static_cast<int>(Timeline::kRulerHeight + Timeline::kOverviewHeight +
                                      static_cast<double>(lanes) * Timeline::kLaneHeight) +
                     6;
  const int timeline = std::min(wanted, centre / 2);
  centre_split_->setSizes({centre - timeline, timeline});
}

// The centre: the narrative over the network view, the timeline below, the
// slider at the bottom.
QSplitter* MainWindow::buildCentre() {
  auto* centre = new QWidget(this);
  auto* layout = new QVBoxLayout(centre);
  layout->setContentsMargins(4, 4, 4, 4);
  narrative_ = new QLabel(centre);
  narrative_->setObjectName(QStringLiteral("narrative"));
  // One line, whatever the sentence: a wrapped one would move everything
  // below at every event. The whole sentence is its tooltip.
  narrative_->setWordWrap(false);
  narrative_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  narrative_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  narrative_->setFrameShape(QFrame::Box);
  narrative_->setMargin(6);
  QFont nf = narrative_->font();
  nf.setPointSizeF(nf.pointSizeF() * 1.25);
  nf.setBold(true);
  narrative_->setFont(nf);
  layout->addWidget(narrative_);
  network_ = new NetworkView(*builder_, centre);
  spacetime_ = new SpaceTimeView(*trace_, centre);
  // A description's named patterns: each stretch one event on the timeline
  // (and in the narrative), expanded by a double-click.
  pattern_names_ = netdesc::patternNames(net_.get());
  if (!pattern_names_.empty()) {
    named_ = analysis::namedStretches(analysis::findPatterns(*trace_, netdesc::patternOptions(net_.get(), *trace_)),
                                      pattern_names_);
    std::vector<Timeline::Stretch> bars;
    for (const auto& st : named_)
      bars.push_back({st.process, st.first, st.last,
                      QStringLiteral("%1 × %2")
                          .arg(QString::fromStdString(pattern_names_[st.name].name))
                          .arg(static_cast<qulonglong>(st.repetitions))});
    spacetime_->timeline().setStretches(std::move(bars));
  }
  auto* split = new QSplitter(Qt::Vertical, centre);
  split->addWidget(network_);
  split->addWidget(spacetime_);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
  slider_ = new QSlider(Qt::Horizontal, centre);
  slider_->setRange(0, static_cast<int>(trace_->events.size()));
  slider_->setToolTip(tr("Drag to any event"));
  layout->addWidget(slider_);
  setCentralWidget(centre);
  return split;
}

// The events table with the filter and the search over contents above it.
QDockWidget* MainWindow::buildEventsDock() {
  event_model_ = new EventTableModel(*trace_, *narrator_, net_.get(), this);
  auto* events_dock = new QDockWidget(tr("Events"), this);
  events_dock->setObjectName(QStringLiteral("events"));
  auto* events_box = new QWidget(events_dock);
  auto* events_layout = new QVBoxLayout(events_box);
  events_layout->setContentsMargins(2, 2, 2, 2);
  filter_ = new QLineEdit(events_box);
  filter_->setObjectName(QStringLiteral("filter"));
  filter_->setPlaceholderText(
      tr("Filter: words, or process:NAME channel:NAME kind:NAME bytes>N field:NAME>N; -WORD leaves out, or"));
  filter_->setClearButtonEnabled(true);
  // Beside the filter, the search over contents: text, hex bytes or a
  // regular expression; its matches are marked on the timeline.
  search_ = new ContentSearch(*trace_, *narrator_, this);
  auto* find_row = new QHBoxLayout;
  find_row->setSpacing(4);
  find_row->addWidget(filter_, 1);
  filter_status_ = new QLabel(events_box);  // how many events it keeps, or why none
  filter_status_->setObjectName(QStringLiteral("filter-status"));
  find_row->addWidget(filter_status_);
  hide_polls_ = new QCheckBox(tr("Hide polls"), events_box);
  hide_polls_->setObjectName(QStringLiteral("hide-polls"));
  hide_polls_->setToolTip(
      tr("Leave out receives that found nothing, waits for a child that found none ended, "
         "and waits for channels that found none ready"));
  find_row->addWidget(hide_polls_);
  if (!trace_->mpi_library.empty()) {  // MPI ranks: their library's own calls, left out unless asked
    show_mpi_library_ = new QCheckBox(tr("MPI library"), events_box);
    show_mpi_library_->setObjectName(QStringLiteral("show-mpi-library"));
    show_mpi_library_->setToolTip(
        tr("Also the MPI library's own system calls: its transport inside the ranks' MPI calls, and its threads"));
    find_row->addWidget(show_mpi_library_);
  }
  find_ = new QLineEdit(events_box);
  find_->setObjectName(QStringLiteral("find"));
  find_->setPlaceholderText(tr("Find in contents and narrative (Ctrl+F; Enter: next, Shift+Enter: previous)"));
  find_->setClearButtonEnabled(true);
  find_row->addWidget(find_, 1);
  find_mode_ = new QComboBox(events_box);
  find_mode_->addItems({tr("Text"), tr("Hex bytes"), tr("Regular expression")});
  find_row->addWidget(find_mode_);
  auto* previous = new QToolButton(events_box);
  previous->setArrowType(Qt::LeftArrow);
  previous->setToolTip(tr("Previous match (Shift+F3)"));
  auto* next = new QToolButton(events_box);
  next->setArrowType(Qt::RightArrow);
  next->setToolTip(tr("Next match (F3)"));
  find_row->addWidget(previous);
  find_row->addWidget(next);
  find_status_ = new QLabel(events_box);
  find_status_->setMinimumWidth(150);
  find_row->addWidget(find_status_);
  events_layout->addLayout(find_row);
  connect(previous, &QToolButton::clicked, this, &MainWindow::findPrevious);
  connect(next, &QToolButton::clicked, this, &MainWindow::findNext);
  // Enter: a new search when the pattern changed, else the next match.
  auto enter = [this](int direction) {
    const auto mode = static_cast<ContentSearch::Mode>(find_mode_->currentIndex());
    if (find_->text() != find_->property("searched").toString() ||
        find_mode_->currentIndex() != find_->property("mode").toInt()) {
      QString error;
      if (!find(find_->text(), mode, &error)) return;
    }
    direction > 0 ? findNext() : findPrevious();
  };
  connect(find_, &QLineEdit::returnPressed, this,
          [enter] { enter(QApplication::keyboardModifiers() & Qt::ShiftModifier ? -1 : 1); });
  connect(find_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) find(QString(), ContentSearch::Mode::Text);
  });
  connect(search_, &ContentSearch::matchesChanged, this, [this] {
    spacetime_->timeline().setMarks(&search_->matches());
    if (find_jump_) jumpToMatch(find_jump_);
    updateFindStatus();
  });
  connect(search_, &ContentSearch::finished, this, [this] {
    if (find_jump_) jumpToMatch(find_jump_);
    updateFindStatus();
  });
  events_view_ = new QTableView(events_box);
  events_view_->setModel(event_model_);
  events_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  events_view_->setSelectionMode(QAbstractItemView::SingleSelection);
  events_view_->verticalHeader()->hide();
  events_view_->verticalHeader()->setDefaultSectionSize(20);
  events_view_->horizontalHeader()->setStretchLastSection(true);
  events_view_->setWordWrap(false);
  events_layout->addWidget(events_view_);
  events_dock->setWidget(events_box);
  addDockWidget(Qt::BottomDockWidgetArea, events_dock);

  return events_dock;
}

QDockWidget* MainWindow::buildFindingsDock() {
  findings_model_ = new FindingsModel(*trace_, this);
  auto* findings_dock = new QDockWidget(tr("Findings"), this);
  findings_dock->setObjectName(QStringLiteral("findings"));
  auto* findings_box = new QStackedWidget(findings_dock);
  findings_view_ = new QTableView(findings_box);
  findings_view_->setModel(findings_model_);
  findings_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  findings_view_->verticalHeader()->hide();
  findings_view_->horizontalHeader()->setStretchLastSection(true);
  // What a finding says, whole: wrapped in its row, and as a tooltip.
  findings_view_->setWordWrap(true);
  findings_view_->setTextElideMode(Qt::ElideNone);
  findings_view_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  findings_box->addWidget(findings_view_);
  // A recording still being made, or a freeze, caught its processes
  // running: what has not happened yet is not said to have.
  const QString none =
      trace_->running ? tr("No problems found so far: the program is still running, and no processes wait for each "
                           "other.")
      : trace_->frozen_at_ns
          ? tr("No problems found: the processes ran on after this freeze, and none waited for each other in it.")
          : tr("No problems found: every message sent was received, every process ended normally, and no "
               "processes wait for each other.");
  auto* no_findings = new QLabel(none, findings_box);
  no_findings->setObjectName(QStringLiteral("no-findings"));
  no_findings->setWordWrap(true);
  no_findings->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  no_findings->setMargin(8);
  findings_box->addWidget(no_findings);
  findings_box->setCurrentWidget(trace_->findings.empty() ? static_cast<QWidget*>(no_findings) : findings_view_);
  // How the recordings were put together (a host's clock not lined up
  // with the others'): below the findings, for as long as the window is.
  auto* findings_area = new QWidget(findings_dock);
  auto* findings_layout = new QVBoxLayout(findings_area);
  findings_layout->setContentsMargins(0, 0, 0, 0);
  findings_layout->addWidget(findings_box, 1);
  if (!trace_->warnings.empty()) {
    QString text = tr("About the recording:");
    for (const auto& w : trace_->warnings) text += QStringLiteral("\n• ") + QString::fromStdString(w);
    auto* notes = new QLabel(text, findings_area);
    notes->setObjectName(QStringLiteral("recording-notes"));
    notes->setWordWrap(true);
    notes->setMargin(8);
    findings_layout->addWidget(notes);
  }
  findings_dock->setWidget(findings_area);
  addDockWidget(Qt::RightDockWidgetArea, findings_dock);

  return findings_dock;
}

// The critical path to an event, asked for with P: hidden until then.
void MainWindow::buildCriticalPathDock(QDockWidget* events_dock) {
  path_model_ = new CriticalPathModel(*trace_, *narrator_, this);
  path_dock_ = new QDockWidget(tr("Critical path"), this);
  path_dock_->setObjectName(QStringLiteral("critical-path"));
  auto* path_view = new QTableView(path_dock_);
  path_view->setModel(path_model_);
  path_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  path_view->verticalHeader()->hide();
  path_view->verticalHeader()->setDefaultSectionSize(20);
  path_view->horizontalHeader()->setStretchLastSection(true);
  // Whose time it was (and who released a lock) is read whole.
  for (int column : {CriticalPathModel::Kind, CriticalPathModel::Where})
    path_view->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
  path_dock_->setWidget(path_view);
  addDockWidget(Qt::BottomDockWidgetArea, path_dock_);
  tabifyDockWidget(events_dock, path_dock_);
  path_dock_->hide();
  connect(path_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const uint32_t position = path_model_->eventOf(index.row());
    if (position != kNone) goToEvent(position);
  });
}

// Every request a server answered, slowest first; picking one (a click,
// the arrow keys) takes every view to its reply and draws its own path.
void MainWindow::buildRequestsDock(QDockWidget* findings_dock) {
  auto* model = new RequestsModel(*trace_, this);
  if (model->rowCount() == 0) {
    delete model;
    return;
  }
  requests_model_ = model;
  auto* dock = requests_dock_ = new QDockWidget(tr("Requests"), this);
  dock->setObjectName(QStringLiteral("requests"));
  auto* sorted = new QSortFilterProxyModel(dock);
  sorted->setSourceModel(model);
  sorted->setSortRole(RequestsModel::SortRole);
  requests_view_ = new QTableView(dock);
  requests_view_->setModel(sorted);
  requests_view_->setSortingEnabled(true);
  requests_view_->sortByColumn(RequestsModel::Total, Qt::DescendingOrder);
  requests_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  requests_view_->setSelectionMode(QAbstractItemView::SingleSelection);
  requests_view_->verticalHeader()->hide();
  requests_view_->verticalHeader()->setDefaultSectionSize(20);
  requests_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  dock->setWidget(requests_view_);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(findings_dock, dock);
  findings_dock->raise();
  // A request picked (a click, the arrow keys), not the row the view makes
  // current as it takes the focus.
  connect(requests_view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this, sorted](const QItemSelection& selected) {
            if (!selected.indexes().isEmpty()) showRequest(sorted->mapToSource(selected.indexes().front()).row());
          });
}

bool MainWindow::showRequest(int row) {
  if (!requests_model_ || row < 0 || row >= requests_model_->rowCount()) return false;
  const auto [from, to] = RequestsModel::span(requests_model_->interaction(row));
  goToEvent(to);
  analysis::CriticalPath path;
  std::string error;
  if (!analysis::criticalPath(*trace_, from, to, &path, &error)) {
    statusBar()->showMessage(QString::fromStdString(error), 5000);
    return false;
  }
  showPath(std::move(path), tr("Critical path of the request from event %1 to event %2").arg(from + 1).arg(to + 1));
  return true;
}

// The table keeps what the filter (and the MPI library's and the polls'
// boxes) keeps; the timeline dims the rest, the network view fades it, and
// playing passes over it.
void MainWindow::applyFilter(const QString& text) {
  event_model_->setFilter(text);
  const auto kept = event_model_->kept();
  filter_status_->setText(!event_model_->whyNothingMatches().isEmpty() ? event_model_->whyNothingMatches()
                          : kept ? tr("%L1 of %L2 events").arg(kept->size()).arg(trace_->events.size())
                                 : QString());
  spacetime_->timeline().setKept(event_model_->kept());
  network_->setKept(event_model_->kept());
  controller_->setShown(event_model_->kept());
  table_position_ = ~0u;  // the current event again, in the rows left
  refresh();
}

MainWindow::ViewSetup MainWindow::viewSetup() const {
  ViewSetup setup;
  setup.filter = event_model_->filter();
  setup.filter_typed = filter_->text();
  setup.hide_polls = hide_polls_->isChecked();
  setup.show_mpi_library = show_mpi_library_ && show_mpi_library_->isChecked();
  setup.find = find_->property("searched").toString();
  setup.find_mode = find_->property("mode").toInt();
  setup.lanes = spacetime_->timeline().laneFilter();
  setup.wall_time = spacetime_->timeline().wallTime();
  setup.seconds_per_event = controller_->secondsPerEvent();
  return setup;
}

void MainWindow::adoptViewSetup(const ViewSetup& setup) {
  {
    const QSignalBlocker quiet_polls(hide_polls_);
    hide_polls_->setChecked(setup.hide_polls);
    event_model_->setHidePolls(setup.hide_polls);
  }
  if (show_mpi_library_) {
    const QSignalBlocker quiet_mpi(show_mpi_library_);
    show_mpi_library_->setChecked(setup.show_mpi_library);
    event_model_->setShowMpiLibrary(setup.show_mpi_library);
  }
  {
    const QSignalBlocker quiet_filter(filter_);
    filter_->setText(setup.filter);
  }
  applyFilter(setup.filter);
  if (setup.filter_typed != setup.filter) {
    const QSignalBlocker quiet_filter(filter_);
    filter_->setText(setup.filter_typed);
  }
  if (!setup.find.isEmpty()) find(setup.find, static_cast<ContentSearch::Mode>(setup.find_mode));
  spacetime_->timeline().setLaneFilter(setup.lanes);
  spacetime_->timeline().setWallTime(setup.wall_time);
  if (setup.seconds_per_event > 0) controller_->setSecondsPerEvent(setup.seconds_per_event);
}

// Every view follows the controller; clicking an event anywhere takes every
// view there.
void MainWindow::connectViews() {
  connect(controller_, &ReplayController::changed, this, &MainWindow::refresh);
  connect(controller_, &ReplayController::stateChanged, this, &MainWindow::refreshControls);
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (!updating_) controller_->skipTo(static_cast<uint32_t>(v));
  });
  connect(network_, &NetworkView::messageClicked, this, &MainWindow::showMessage);
  network_->setMessageTip(
      [this](uint32_t send) { return QString::fromStdString(messageTip(*trace_, *narrator_, net_.get(), send)); });
  connect(network_, &NetworkView::processClicked, this, [this](uint32_t p) { selected_process_ = p; });
  connect(network_, &NetworkView::boxMoved, this, &MainWindow::refresh);
  connect(network_, &NetworkView::layoutChanged, this, [this] { saveLayout(); });
  connect(network_, &NetworkView::groupingChanged, this, [this] {
    refresh();
    network_->fitToView();  // to the new layout's lines
  });
  // Clicking an event anywhere takes every view there.
  connect(spacetime_, &SpaceTimeView::eventClicked, this, &MainWindow::goToEvent);
  connect(events_view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const uint32_t position = event_model_->positionOf(index.row());
    if (position != kNone) goToEvent(position);
  });
  // Double-click: there, and a message's (or a user event's data's) contents.
  connect(events_view_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const uint32_t position = event_model_->positionOf(index.row());
    if (position == kNone) return;
    goToEvent(position);
    const trace::Event& e = trace_->events[position];
    const bool has_bytes = (e.flags & trace::kEventHasPayload) || e.value;
    if ((log::categoryOf(e.eventKind()) == log::Category::Send && e.value) ||
        (e.eventKind() == log::Kind::User && has_bytes))
      showMessage(position);
  });
  connect(findings_view_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const uint32_t position = findings_model_->eventOf(index.row());
    if (position != kNone) goToEvent(position);
  });
  connect(filter_, &QLineEdit::returnPressed, this, [this] { applyFilter(filter_->text()); });
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) applyFilter(QString());
  });
  connect(hide_polls_, &QCheckBox::toggled, this, [this](bool hide) {
    event_model_->setHidePolls(hide);
    applyFilter(filter_->text());
  });
  if (show_mpi_library_)
    connect(show_mpi_library_, &QCheckBox::toggled, this, [this](bool show) {
      event_model_->setShowMpiLibrary(show);
      applyFilter(filter_->text());
    });
  applyFilter(QString());
}

namespace {

// Whether a widget's keys mean nothing to it but what the window's would
// (a spin box's letters, a button's or a slider's): the filter, the find
// box and the timeline (W/S/A/D) keep theirs.
bool keysMeanNothingTo(const QWidget* w, const QKeyEvent* key) {
  if (qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QAbstractSpinBox*>(w->parentWidget())) {
    // Its own editing keys stay its own: digits, the caret's, Space.
    static const int editing[] = {Qt::Key_Left,  Qt::Key_Right,  Qt::Key_Home,     Qt::Key_End,       Qt::Key_Up,
                                  Qt::Key_Down,  Qt::Key_PageUp, Qt::Key_PageDown, Qt::Key_Backspace, Qt::Key_Delete,
                                  Qt::Key_Space, Qt::Key_Period, Qt::Key_Comma,    Qt::Key_Minus,     Qt::Key_Plus};
    const bool digit = key->key() >= Qt::Key_0 && key->key() <= Qt::Key_9;
    return !digit && std::find(std::begin(editing), std::end(editing), key->key()) == std::end(editing);
  }
  if (const auto* combo = qobject_cast<const QComboBox*>(w)) return !combo->isEditable();
  return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QAbstractSlider*>(w);
}

}  // namespace

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ShortcutOverride) return QMainWindow::eventFilter(watched, event);
  auto* widget = qobject_cast<QWidget*>(watched);
  const auto* key = static_cast<QKeyEvent*>(event);
  if (!widget || widget->window() != this || !keysMeanNothingTo(widget, key) ||
      (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)))
    return QMainWindow::eventFilter(watched, event);
  // The keypad's arrows are the arrows.
  const QKeySequence pressed(QKeyCombination(key->modifiers() & ~Qt::KeypadModifier, Qt::Key(key->key())));
  for (const QAction* action : findChildren<QAction*>(Qt::FindDirectChildrenOnly))
    if (action->shortcut() == pressed && action->isEnabled()) {
      event->ignore();  // not the widget's: the window's shortcut takes it
      return true;
    }
  return QMainWindow::eventFilter(watched, event);
}

// The views read the trace and the models, members that are gone before
// QWidget's destructor deletes its children (a table sizing its rows as it
// is hidden would read a freed trace): the views go first.
MainWindow::~MainWindow() {
  qApp->removeEventFilter(this);
  const auto docks = findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly);
  for (QDockWidget* dock : docks) delete dock;
  delete takeCentralWidget();
}

// An action of a menu (and of the tool bar, given one), on its shortcut
// anywhere in the window.
QAction* MainWindow::addMenuAction(QMenu* menu, const QString& text, const QKeySequence& key,
                                   std::function<void()> slot, QToolBar* bar) {
  auto* a = new QAction(text, this);
  if (!key.isEmpty()) a->setShortcut(key);
  a->setShortcutContext(Qt::WindowShortcut);
  connect(a, &QAction::triggered, this, std::move(slot));
  menu->addAction(a);
  if (bar) bar->addAction(a);
  return a;
}

void MainWindow::buildActions() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* replay = menuBar()->addMenu(tr("&Replay"));
  auto* view = menuBar()->addMenu(tr("&View"));
  auto* help = menuBar()->addMenu(tr("&Help"));
  auto* bar = addToolBar(tr("Replay"));
  bar->setObjectName(QStringLiteral("toolbar"));
  buildFileMenu(file);
  buildReplayMenu(replay, bar);
  buildViewMenu(view, bar);
  addMenuAction(help, tr("The replay &guide"), QKeySequence::HelpContents, [this] { showGuide(); });
  addMenuAction(help, tr("&Keys and mouse"), QKeySequence(), [this] { showHelp(); });
}

void MainWindow::buildFileMenu(QMenu* file) {
  addMenuAction(file, tr("&Open recording…"), QKeySequence::Open, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open a recording directory"));
    if (!dir.isEmpty()) openRecording({dir}, this);
  });
  auto* recent = file->addMenu(tr("Open &recent"));
  connect(recent, &QMenu::aboutToShow, this, [this, recent] {
    recent->clear();
    const QStringList list = QSettings().value(QStringLiteral("recent")).toStringList();
    for (const QString& dir : list) recent->addAction(dir, this, [this, dir] { openRecording({dir}, this); });
    if (list.isEmpty()) recent->addAction(tr("(none)"))->setEnabled(false);
  });
  file->addSeparator();
  auto save = [this](const QString& title, Part part) {
    QString path =
        QFileDialog::getSaveFileName(this, title, QString(), tr("PNG image (*.png);;SVG image, vectors (*.svg)"));
    if (path.isEmpty()) return;
    if (!isViewImageName(path)) path += QStringLiteral(".png");
    QString error;
    if (!saveView(path, &error, part)) QMessageBox::warning(this, title, error);
  };
  addMenuAction(file, tr("Save the &network as image…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
                [save] { save(tr("Save the network as an image"), Part::Network); });
  addMenuAction(file, tr("Save the &timeline as image…"), QKeySequence(),
                [save] { save(tr("Save the timeline as an image"), Part::Timeline); });
  addMenuAction(file, tr("Save the &window as image…"), QKeySequence(),
                [save] { save(tr("Save the window as an image"), Part::Window); });
  addMenuAction(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });
}

// RADAR's menu (seed 002, Figure 14), and what a scrubbing viewer adds.
void MainWindow::buildReplayMenu(QMenu* replay, QToolBar* bar) {
  play_action_ = addMenuAction(
      replay, tr("&Play"), QKeySequence(Qt::Key_Space), [this] { controller_->togglePlay(); }, bar);
  mode_action_ = addMenuAction(
      replay, tr("&Single-step"), QKeySequence(Qt::Key_S), [this] { controller_->toggleMode(); }, bar);
  mode_action_->setCheckable(true);
  addMenuAction(
      replay, tr("Step &forward"), QKeySequence(Qt::Key_Right), [this] { controller_->stepForward(); }, bar);
  addMenuAction(
      replay, tr("Step &back"), QKeySequence(Qt::Key_Left), [this] { controller_->stepBack(); }, bar);
  addMenuAction(
      replay, tr("S&kip to event…"), QKeySequence(Qt::CTRL | Qt::Key_G), [this] { askSkip(); }, bar);
  addMenuAction(
      replay, tr("&Instant replay…"), QKeySequence(Qt::Key_R), [this] { askInstantReplay(); }, bar);
  addMenuAction(replay, tr("Instant replay &again"), QKeySequence(Qt::SHIFT | Qt::Key_R),
                [this] { controller_->instantReplay(instant_replay_count_); });
  addMenuAction(replay, tr("&End instant replay"), QKeySequence(Qt::Key_E),
                [this] { controller_->endInstantReplay(); });
  addMenuAction(
      replay, tr("Start from s&cratch"), QKeySequence(Qt::Key_Home), [this] { controller_->restart(); }, bar);
  replay->addSeparator();
  addMenuAction(replay, tr("&Faster"), QKeySequence(Qt::Key_BracketRight),
                [this] { speed_->setValue(speed_->value() / 2); });
  addMenuAction(replay, tr("S&lower"), QKeySequence(Qt::Key_BracketLeft),
                [this] { speed_->setValue(speed_->value() * 2); });
  addMenuAction(replay, tr("&Message under the mouse"), QKeySequence(Qt::Key_M), [this] { showMessageUnderMouse(); });
  addMenuAction(replay, tr("F&ollow selected message"), QKeySequence(Qt::Key_O), [this] {
    if (selected_message_ != kNone) followMessage(selected_message_);
  });
  replay->addSeparator();
  addMenuAction(replay, tr("&Find in contents…"), QKeySequence::Find, [this] {
    find_->setFocus();
    find_->selectAll();
  });
  addMenuAction(replay, tr("Find ne&xt"), QKeySequence(Qt::Key_F3), [this] { findNext(); });
  addMenuAction(replay, tr("Find pre&vious"), QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { findPrevious(); });
  addMenuAction(replay, tr("Critical &path to this event"), QKeySequence(Qt::Key_P), [this] { showCriticalPath(); });
  addMenuAction(replay, tr("&Debug this process from here…"), QKeySequence(Qt::CTRL | Qt::Key_D),
                [this] { debugFromHere(); });
  addMenuAction(replay, tr("&Never mind"), QKeySequence(), [] {});

  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Seconds per event "), bar));
  speed_ = new QDoubleSpinBox(bar);
  speed_->setDecimals(3);
  speed_->setRange(ReplayController::kMinSecondsPerEvent, 60);
  speed_->setValue(controller_->secondsPerEvent());
  speed_->setToolTip(
      tr("Seconds each event takes to show ([ slower, ] faster); at first, the whole recording in "
         "about a minute, at most 3 s an event"));
  bar->addWidget(speed_);
  connect(speed_, &QDoubleSpinBox::valueChanged, controller_, &ReplayController::setSecondsPerEvent);
}

void MainWindow::buildViewMenu(QMenu* view, QToolBar* bar) {
  addMenuAction(
      view, tr("&Fit"), QKeySequence(Qt::Key_F), [this] { network_->fitToView(); }, bar);
  addMenuAction(view, tr("Zoom &in"), QKeySequence::ZoomIn, [this] { network_->zoomBy(1.25); });
  addMenuAction(view, tr("Zoom &out"), QKeySequence::ZoomOut, [this] { network_->zoomBy(0.8); });
  auto* channels = addMenuAction(view, tr("Show &channels"), QKeySequence(Qt::Key_C),
                                 [this] { network_->setShowChannels(!network_->showChannels()); });
  channels->setCheckable(true);
  channels->setChecked(network_->showChannels());
  auto* legend = addMenuAction(view, tr("Colour &legend"), QKeySequence(Qt::Key_L),
                               [this] { network_->setShowLegend(!network_->showLegend()); });
  legend->setCheckable(true);
  legend->setChecked(network_->showLegend());
  auto* wall = addMenuAction(view, tr("&Wall time in the diagram"), QKeySequence(Qt::Key_W),
                             [this] { spacetime_->timeline().setWallTime(!spacetime_->timeline().wallTime()); });
  wall->setCheckable(true);
  addMenuAction(view, tr("Whole run in the &diagram"), QKeySequence(),
                [this] { spacetime_->timeline().showWholeRun(); });
  auto* life = addMenuAction(view, tr("Hide creation and e&xit arrows"), QKeySequence(), [this] {
    spacetime_->timeline().setLifeArrowsHidden(!spacetime_->timeline().lifeArrowsHidden());
  });
  life->setCheckable(true);
  addMenuAction(view, tr("Clear the causal &highlight"), QKeySequence(Qt::Key_Escape), [this] { clearHighlight(); });
  addMenuAction(view, tr("&Group the processes of one program"), QKeySequence(Qt::Key_G), [this] {
    builder_->groupSiblings(2);
    emit network_->groupingChanged();
  });
  addMenuAction(view, tr("Show every process &apart"), QKeySequence(Qt::SHIFT | Qt::Key_G), [this] {
    builder_->ungroupAll();
    emit network_->groupingChanged();
  });
  addMenuAction(view, tr("&Reset layout"), QKeySequence(), [this] {
    builder_->resetLayout();
    saveLayout();
    refresh();
    network_->fitToView();
  });
}

QString MainWindow::narrative() const { return narrative_->text(); }

void MainWindow::refresh() {
  const uint32_t pos = controller_->position();
  network_->setScene(builder_->build(pos, controller_->progress(), /*names=*/false));  // the view names what it shows
  updating_ = true;
  // (A picture has no keys to press.)
  QString sentence = pos != 0       ? QString::fromStdString(narrator_->sentence(pos - 1))
                     : interactive_ ? tr("Before the first event. Press Space to play, → to step.")
                                    : tr("Before the first event.");
  // Inside a folded named stretch: the higher-level event, then the step.
  if (const uint32_t k = pos == 0 ? kNone : spacetime_->timeline().foldedStretchOf(pos - 1); k != kNone) {
    const analysis::NamedStretch& st = named_[k];
    sentence = tr("Process %1 does %2 × %3 (events %4 to %5). Now: %6")
                   .arg(QString::fromStdString(trace_->label(st.process)),
                        QString::fromStdString(pattern_names_[st.name].name))
                   .arg(static_cast<qulonglong>(st.repetitions))
                   .arg(st.first + 1)
                   .arg(st.last + 1)
                   .arg(sentence);
  }
  narrative_->setText(sentence);
  narrative_->setToolTip(narrative_->text());
  slider_->setValue(static_cast<int>(pos));
  spacetime_->timeline().setCurrent(pos == 0 ? kNone : pos - 1);
  // The event table on the current event, while playing too.
  if (pos != table_position_) {
    table_position_ = pos;
    const int row = pos == 0 ? -1 : event_model_->rowOf(pos - 1);
    if (row >= 0) {
      events_view_->selectRow(row);
      events_view_->scrollTo(event_model_->index(row, 0));
    } else {
      events_view_->clearSelection();
    }
  }
  updating_ = false;
  position_label_->setText(tr("Event %1 of %2").arg(pos).arg(trace_->events.size()));
}

void MainWindow::refreshControls() {
  play_action_->setText(controller_->playing() ? tr("&Pause") : tr("&Play"));
  mode_action_->setChecked(controller_->mode() == ReplayController::Mode::SingleStep);
  if (speed_->value() != controller_->secondsPerEvent()) speed_->setValue(controller_->secondsPerEvent());
  if (controller_->inInstantReplay())
    statusBar()->showMessage(
        tr("Instant replay: back to event %1 at the end (E ends it now)").arg(controller_->instantReplayReturn()));
  else
    statusBar()->clearMessage();
}

void MainWindow::tick() {
  const double elapsed = clock_.restart() / 1000.0;
  if (controller_->playing() || controller_->animating()) controller_->advance(elapsed);
}

QWidget& MainWindow::partWidget(Part part) {
  if (part == Part::Network) return *network_;
  if (part == Part::Timeline) return *spacetime_;
  return *this;
}

bool MainWindow::saveView(const QString& path, QString* error, Part part) {
  return saveViewImage(partWidget(part), path, error);
}

void MainWindow::goToEvent(uint32_t position) {
  controller_->skipTo(position + 1);
  spacetime_->timeline().setSelected(position);
  const int row = event_model_->rowOf(position);
  if (row >= 0) {
    events_view_->selectRow(row);
    events_view_->scrollTo(event_model_->index(row, 0));
  }
}

bool MainWindow::find(const QString& pattern, ContentSearch::Mode mode, QString* error) {
  find_jump_ = 0;
  QString why;
  const bool ok = search_->start(pattern, mode, &why);
  find_->setProperty("searched", ok ? pattern : QString());
  find_->setProperty("mode", static_cast<int>(mode));
  if (find_->text() != pattern) {
    const QSignalBlocker quiet(find_);
    find_->setText(pattern);
  }
  find_mode_->setCurrentIndex(static_cast<int>(mode));
  spacetime_->timeline().setMarks(&search_->matches());
  if (!ok) {
    find_status_->setStyleSheet(QStringLiteral("color: #c00"));
    find_status_->setText(why);
    find_status_->setToolTip(why);
    if (error) *error = why;
    return false;
  }
  find_status_->setStyleSheet(QString());
  updateFindStatus();
  return true;
}

void MainWindow::findNext() { jumpToMatch(1); }
void MainWindow::findPrevious() { jumpToMatch(-1); }

// The match after (before) the current event; while the search runs and
// none is found that way yet, the jump waits for one.
void MainWindow::jumpToMatch(int direction) {
  const uint32_t pos = controller_->position();
  const uint32_t current = pos == 0 ? kNone : pos - 1;
  const auto& m = search_->matches();
  uint32_t to = kNone;
  if (direction > 0) {
    auto it = current == kNone ? m.begin() : std::upper_bound(m.begin(), m.end(), current);
    if (it != m.end())
      to = *it;
    else if (!search_->running())
      to = search_->nextAfter(current);  // round to the first
  } else {
    auto it = current == kNone ? m.end() : std::lower_bound(m.begin(), m.end(), current);
    if (it != m.begin())
      to = *(it - 1);
    else if (!search_->running())
      to = search_->previousBefore(current);  // round to the last
  }
  if (to == kNone) {
    find_jump_ = search_->running() ? direction : 0;  // when one is found
    updateFindStatus();
    return;
  }
  find_jump_ = 0;
  goToEvent(to);
  updateFindStatus();
}

QString MainWindow::findStatus() const { return find_status_->text(); }

void MainWindow::updateFindStatus() {
  if (!find_->property("searched").toString().isEmpty() || search_->running()) {
    const auto& m = search_->matches();
    const uint32_t pos = controller_->position();
    auto at = pos == 0 ? m.end() : std::lower_bound(m.begin(), m.end(), pos - 1);
    QString text = at != m.end() && *at == pos - 1    ? tr("match %1 of %2").arg(at - m.begin() + 1).arg(m.size())
                   : m.empty() && !search_->running() ? tr("no match")
                                                      : tr("%n match(es)", nullptr, static_cast<int>(m.size()));
    if (search_->running()) text += tr(" · searching %1 %").arg(static_cast<int>(search_->progress() * 100));
    find_status_->setText(text);
  } else if (find_status_->styleSheet().isEmpty()) {
    find_status_->clear();
  }
}

void MainWindow::askSkip() {
  bool ok = false;
  const int n =
      QInputDialog::getInt(this, tr("Skip to event"), tr("Event number:"), static_cast<int>(controller_->position()), 0,
                           static_cast<int>(trace_->events.size()), 1, &ok);
  if (ok) controller_->skipTo(static_cast<uint32_t>(n));
}

void MainWindow::askInstantReplay() {
  bool ok = false;
  const int n = QInputDialog::getInt(this, tr("Instant replay"), tr("Replay the last how many events?"),
                                     static_cast<int>(instant_replay_count_), 1, 1000000, 1, &ok);
  if (!ok) return;
  instant_replay_count_ = static_cast<uint32_t>(n);
  controller_->instantReplay(instant_replay_count_);
}

void MainWindow::showMessageUnderMouse() {
  const QPointF at = network_->mapFromGlobal(QCursor::pos());
  const uint32_t m = network_->messageAt(at);
  if (m == kNone) {
    statusBar()->showMessage(tr("No message under the mouse"), 3000);
    return;
  }
  showMessage(m);
}

void MainWindow::clearHighlight() {
  selected_message_ = kNone;
  network_->setSelectedMessage(kNone);
  spacetime_->timeline().setSelected(kNone);
  spacetime_->timeline().setPath({});
  network_->setPathProcesses({});
  path_model_->setPath({});
  path_dock_->hide();
}

bool MainWindow::showCriticalPath() {
  const uint32_t pos = controller_->position();
  if (pos == 0) return false;
  analysis::CriticalPath path;
  std::string error;
  if (!analysis::criticalPath(*trace_, kNone, pos - 1, &path, &error)) {
    statusBar()->showMessage(QString::fromStdString(error), 5000);
    return false;
  }
  showPath(std::move(path), tr("Critical path to event %1").arg(pos));
  return true;
}

// A path's events joined in the diagram, its processes outlined, its
// segments in their panel.
void MainWindow::showPath(analysis::CriticalPath path, const QString& what) {
  std::vector<uint32_t> processes;
  for (uint32_t e : path.events) processes.push_back(trace_->events[e].process);
  std::sort(processes.begin(), processes.end());
  processes.erase(std::unique(processes.begin(), processes.end()), processes.end());
  spacetime_->timeline().setPath(path.events);
  network_->setPathProcesses(std::move(processes));
  statusBar()->showMessage(tr("%1: %2 ms, %3 events")
                               .arg(what)
                               .arg(static_cast<double>(path.end_ns - path.begin_ns) / 1e6, 0, 'f', 3)
                               .arg(path.events.size()),
                           10000);
  path_model_->setPath(std::move(path));
  path_dock_->show();
  path_dock_->raise();
}

void MainWindow::showMessage(uint32_t send) {
  selected_message_ = send;
  network_->setSelectedMessage(send);
  spacetime_->timeline().setSelected(send);
  // Shown in a window, the contents are its tree of fields, decoded there:
  // the text needs only who sent it to whom (a big message is decoded once).
  last_message_text_ = QString::fromStdString(describeMessage(*trace_, *narrator_, net_.get(), send, !interactive_));
  if (!interactive_) return;
  // Who sent it to whom above the contents; the contents as a tree of
  // fields beside the bytes.
  const QString all = last_message_text_;
  const qsizetype contents_at = all.indexOf(QStringLiteral(":\n\n"));
  std::vector<netdesc::FieldLine> fields;
  std::string bytes, why;
  const bool readable = netdesc::describeFields(net_.get(), *trace_, send, &fields, &bytes, &why);
  // What Find looks for, marked in the bytes.
  auto matches = readable ? search_->rangesIn(std::string_view(bytes).substr(0, MessageWindow::kHexLimit))
                          : std::vector<std::pair<size_t, size_t>>{};  // as far as the hex pane shows
  auto* dialog = new MessageWindow(contents_at < 0 ? all : all.left(contents_at + 1), fields, std::move(bytes),
                                   readable ? QString() : QString::fromStdString(why), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->markMatches(std::move(matches));
  // RADAR's freeze frame: the replay waits while a message is open (closed
  // any way, the dialog finishes; destroyed with the window, it does not).
  if (controller_->playing()) {
    controller_->pause();
    connect(dialog, &QDialog::finished, this, [this] { controller_->play(); });
  }
  dialog->setWindowTitle(tr("Message of event %1").arg(send + 1));
  auto* follow = dialog->buttons()->addButton(tr("Follow this message"), QDialogButtonBox::ActionRole);
  connect(follow, &QPushButton::clicked, dialog, [this, dialog, send] {
    followMessage(send);
    dialog->close();
  });
  follow->setEnabled(trace_->events[send].eventKind() != log::Kind::User);
  auto* stream = dialog->buttons()->addButton(tr("Follow this channel"), QDialogButtonBox::ActionRole);
  stream->setEnabled(trace_->channelOf(send) != kNone);
  connect(stream, &QPushButton::clicked, dialog, [this, send] { followChannel(send); });
  dialog->show();
}

QString MainWindow::followChannel(uint32_t send) {
  const uint32_t channel = send < trace_->events.size() ? trace_->channelOf(send) : kNone;
  if (channel == kNone) return {};
  const QString text = QString::fromStdString(describeChannel(*trace_, *narrator_, net_.get(), channel));
  if (!interactive_) return text;
  auto* dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(tr("Follow channel: %1").arg(QString::fromStdString(trace_->channelLabel(channel))));
  auto* box = new QVBoxLayout(dialog);
  auto* view = new QPlainTextEdit(text, dialog);
  view->setReadOnly(true);
  view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  box->addWidget(view);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  box->addWidget(buttons);
  dialog->resize(820, 560);
  dialog->show();
  return text;
}

QString MainWindow::debugFromHere() {
  const uint32_t position = controller_->position();
  uint32_t process = selected_process_;
  if (process == kNone && position > 0) process = trace_->events[position - 1].process;
  if (process == kNone || trace_->processes[process].external) {
    statusBar()->showMessage(tr("Select a recorded process (click its box) to debug it"), 4000);
    return {};
  }
  const QString radar = QCoreApplication::applicationDirPath() + QStringLiteral("/../../bin/radar");
  // From the current event on: the process's next event is where it stops.
  const DebugCommand command = debugCommand(
      *trace_, process, position > 0 ? position - 1 : 0,
      QFileInfo(radar).canonicalFilePath().isEmpty() ? QStringLiteral("radar") : QFileInfo(radar).canonicalFilePath());
  const QString line = command.commandLine();
  const QString terminal = findTerminal(QProcessEnvironment::systemEnvironment());
  if (interactive_ && !terminal.isEmpty() && QProcess::startDetached(terminal, terminalArguments(terminal, command))) {
    statusBar()->showMessage(
        tr("Debugging %1 in a terminal: %2").arg(QString::fromStdString(trace_->label(process)), line), 8000);
    return line;
  }
  // No terminal: the command, ready to copy.
  if (!interactive_) return line;
  auto* dialog = new QDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowTitle(tr("Debug %1").arg(QString::fromStdString(trace_->label(process))));
  auto* box = new QVBoxLayout(dialog);
  box->addWidget(new QLabel(tr("No terminal was found ($TERMINAL, x-terminal-emulator, xterm). Run this in one "
                               "to re-run the process under gdb, stopped before event %1:")
                                .arg(command.at_event),
                            dialog));
  auto* text = new QLineEdit(line, dialog);
  text->setReadOnly(true);
  text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  box->addWidget(text);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  auto* copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
  connect(copy, &QPushButton::clicked, dialog, [line] { QGuiApplication::clipboard()->setText(line); });
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  box->addWidget(buttons);
  dialog->resize(760, 140);
  dialog->show();
  return line;
}

bool MainWindow::followMessage(uint32_t send) {
  // Its first receive: the earliest event with an edge from it.
  uint32_t first = kNone;
  for (uint32_t k : trace_->messagesFrom(send)) first = std::min(first, trace_->edges[k].to);
  if (first == kNone) {
    statusBar()->showMessage(tr("No recorded process received this message"), 4000);
    return false;
  }
  goToEvent(first);
  return true;
}

// The guide installed with the program, at replay.md; where it is not
// installed, the keys and where the guide was looked for.
void MainWindow::showGuide() {
  const QStringList candidates = guideCandidates(QCoreApplication::applicationDirPath());
  const QString dir = findGuide(candidates);
  if (dir.isEmpty()) {
    showHelp(tr("<p>The guide is not installed here (looked in %1).</p>").arg(candidates.join(QStringLiteral(", "))));
    return;
  }
  auto* guide = new HelpWindow(dir, QStringLiteral("replay.md"), this);
  guide->setWindowFlag(Qt::Window);
  guide->show();
}

void MainWindow::showHelp(const QString& before) {
  QMessageBox::information(
      this, tr("radar replay"),
      before + tr("<p>The replay shows what the recorded processes did, one event at a time, in an order "
                  "that respects causality. Boxes are processes (name, pid, channel ends open for input and "
                  "output); a port opens on a box's border while it is used; small boxes are messages, "
                  "travelling (orange) or queued in front of the receiver's input port (blue). The process "
                  "taking part in the event changes colour.</p>"
                  "<p><b>Space</b> play/pause · <b>S</b> single-step or continuous · <b>→</b> next event · "
                  "<b>←</b> back · <b>Ctrl+G</b> skip to event · <b>R</b> instant replay of the last n "
                  "events, <b>Shift+R</b> again, <b>E</b> end it · <b>Home</b> from the start · "
                  "<b>[</b> <b>]</b> slower, faster · click a message or <b>M</b> over it: its contents · "
                  "<b>O</b> follow the selected message · <b>P</b> critical path to this event · <b>Esc</b> clear "
                  "highlights · "
                  "<b>F</b> fit · wheel: zoom · drag: pan or move a "
                  "box · <b>C</b> channels · <b>L</b> colour legend · <b>W</b> wall time in the diagram · click a "
                  "process, then "
                  "<b>Ctrl+D</b>: debug it from here, re-run alone under gdb (radar debug).</p>"
                  "<p>The timeline: wheel zoom, drag pan, Shift+wheel lanes; focused, <b>W</b>/<b>S</b> zoom, "
                  "<b>A</b>/<b>D</b> pan, <b>0</b> the whole run · Shift+drag: a range's statistics · "
                  "right-click: lanes. <b>Ctrl+F</b> find in contents and narrative (text, hex bytes or a "
                  "regular expression), <b>F3</b>/<b>Shift+F3</b> next/previous match.</p>"
                  "<p>Double-click an event or a finding to go there. <b>F1</b>: the guide.</p>"));
}

QString MainWindow::settingsKey() const {
  QString key = QStringLiteral("layout/");
  for (const auto& d : trace_->directories) key += QFileInfo(QString::fromStdString(d)).absoluteFilePath();
  return key.replace(QLatin1Char('/'), QLatin1Char('|'));
}

void MainWindow::saveLayout() {
  QStringList boxes;
  for (const auto& [p, at] : builder_->movedBoxes())
    boxes << QStringLiteral("%1:%2:%3").arg(trace_->processes[p].log_id).arg(at.x).arg(at.y);
  // Unchanged, not written again (the live window makes a replay a look).
  QSettings settings;
  if (settings.value(settingsKey()).toStringList() != boxes) settings.setValue(settingsKey(), boxes);
}

void MainWindow::restoreLayout() {
  const QStringList boxes = QSettings().value(settingsKey()).toStringList();
  for (const QString& b : boxes) {
    const QStringList parts = b.split(QLatin1Char(':'));
    if (parts.size() != 3) continue;
    const uint64_t id = parts[0].toULongLong();
    for (const auto& p : trace_->processes)
      if (p.log_id == id) builder_->moveBox(p.index, {parts[1].toDouble(), parts[2].toDouble()});
  }
  if (!trace_->directories.empty()) {
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recent")).toStringList();
    const QString dir = QFileInfo(QString::fromStdString(trace_->directories.front())).absoluteFilePath();
    if (recent.value(0) != dir) {
      recent.removeAll(dir);
      recent.prepend(dir);
      while (recent.size() > 10) recent.removeLast();
      settings.setValue(QStringLiteral("recent"), recent);
    }
  }
}

void MainWindow::reportProblems() {
  if (trace_->problems.empty()) return;
  QString text;
  for (const auto& p : trace_->problems)
    text += QString::fromStdString(p.path.empty() ? p.message : p.path + ": " + p.message) + QLatin1Char('\n');
  statusBar()->showMessage(tr("%1 problem(s) reading the recording: see the Findings").arg(trace_->problems.size()));
  statusBar()->setToolTip(text);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList dirs;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) dirs << url.toLocalFile();
  if (!dirs.isEmpty()) openRecording(dirs, this);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  event->accept();
}

void MainWindow::openRecording(const QStringList& dirs, QWidget* parent) {
  std::vector<std::string> list;
  for (const QString& d : dirs) list.push_back(d.toStdString());
  QPointer<QWidget> from(parent);
  loadRecording(std::move(list), false, parent, [from](std::unique_ptr<trace::Trace> trace, const QString& error) {
    if (!trace) {
      QMessageBox::critical(from, tr("radar replay"), tr("The recording could not be opened:\n%1").arg(error));
      return;
    }
    // A recording made by radar run carries its network description.
    std::vector<std::string> unmatched;
    std::string net_error;
    auto net = netdesc::Binding::forRecording(*trace, "", true, &unmatched, &net_error);
    if (!net_error.empty())
      QMessageBox::warning(from, tr("radar replay"),
                           tr("The recording's network description cannot be used; processes keep their program "
                              "names:\n%1")
                               .arg(QString::fromStdString(net_error)));
    if (net) trace->described = net->names();
    auto* window = new MainWindow(std::move(trace), std::move(net));
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->show();
    if (from && from->window() != window) from->window()->close();
  });
}

}  // namespace radar::app
