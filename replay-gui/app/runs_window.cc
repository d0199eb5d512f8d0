#include "app/runs_window.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace radar::app {

RunsWindow::RunsWindow(std::unique_ptr<MainWindow> first, std::unique_ptr<MainWindow> second, const QString& first_name,
                       const QString& second_name, QWidget* parent)
    : QWidget(parent) {
  diff_ = analysis::diffRuns(first->trace(), second->trace(), 1.0, analysis::DiffNames::Labels);
  alignment_ = std::make_unique<analysis::RunAlignment>(first->trace(), second->trace(), diff_);
  setWindowTitle(tr("radar replay: %1 and %2").arg(first_name, second_name));
  auto* layout = new QVBoxLayout(this);
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("difference"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont bold = summary_->font();
  bold.setBold(true);
  summary_->setFont(bold);
  layout->addWidget(summary_);
  // One toolbar for both runs: step, lock step, the differences.
  auto* bar = new QToolBar(this);
  bar->addAction(tr("Step back"), QKeySequence(Qt::Key_Left), this, &RunsWindow::stepBack);
  bar->addAction(tr("Step forward"), QKeySequence(Qt::Key_Right), this, &RunsWindow::stepForward);
  // The second run on its own (unlocked, or where the first has ended).
  auto* back2 = new QAction(tr("Step the second run back"), this);
  back2->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Left));
  connect(back2, &QAction::triggered, this, [this] { second_->controller().stepBack(); });
  auto* forward2 = new QAction(tr("Step the second run forward"), this);
  forward2->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Right));
  connect(forward2, &QAction::triggered, this, [this] { second_->controller().stepForward(); });
  addActions({back2, forward2});
  auto* lock = bar->addAction(tr("Lock step"));
  lock->setObjectName(QStringLiteral("lock-step"));
  lock->setCheckable(true);
  lock->setChecked(true);
  lock->setToolTip(tr("A step or a skip in either run moves the other to the same place in the program"));
  connect(lock, &QAction::toggled, this, &RunsWindow::setLockStep);
  differences_ = new QComboBox(bar);
  differences_->setObjectName(QStringLiteral("differences"));
  differences_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  differences_->setMinimumContentsLength(70);
  bar->addWidget(differences_);
  layout->addWidget(bar);
  auto* split = new QSplitter(Qt::Horizontal, this);
  // Each run's window is a widget of this one.
  first_ = first.release();
  second_ = second.release();
  // Each under its name: which run is which.
  const QString names[] = {tr("First run: %1").arg(first_name), tr("Second run: %1").arg(second_name)};
  int k = 0;
  for (MainWindow* w : {first_, second_}) {
    auto* side = new QWidget(split);
    auto* column = new QVBoxLayout(side);
    column->setContentsMargins(0, 0, 0, 0);
    auto* name = new QLabel(names[k++], side);
    name->setTextInteractionFlags(Qt::TextSelectableByMouse);
    column->addWidget(name);
    w->setParent(side);
    w->setWindowFlags(Qt::Widget);
    column->addWidget(w, 1);
    split->addWidget(side);
  }
  first_->setWindowTitle(first_name);
  second_->setWindowTitle(second_name);
  // Below both, both runs' findings in one pane.
  auto* runs_and_findings = new QSplitter(Qt::Vertical, this);
  runs_and_findings->addWidget(split);
  QWidget* findings = buildFindings();
  runs_and_findings->addWidget(findings);
  runs_and_findings->setStretchFactor(0, 1);
  runs_and_findings->setSizes({700, findings_->rowCount() ? 140 : findings->sizeHint().height()});
  layout->addWidget(runs_and_findings, 1);
  // The arrows are this window's (both runs'), one legend for both, each
  // run's narrative whole on as many lines as it takes.
  for (MainWindow* w : {first_, second_}) {
    quietOwnArrows(w);
    w->setNarrativeWrapped(true);
    w->setFindingsShown(false);
    connect(&w->controller(), &ReplayController::changed, this, [this, w] { follow(w); });
  }
  second_->networkView().setShowLegend(false);

  if (diff_.differences.empty()) {
    summary_->setText(tr("No causal difference: the %1 processes made the same calls, with the same messages from "
                         "the same senders (%2 on the left, %3 on the right).")
                          .arg(diff_.processes_matched)
                          .arg(first_name, second_name));
    differences_->setEnabled(false);
    return;
  }
  markDifferences();
  for (const auto& d : diff_.differences)
    differences_->addItem(QStringLiteral("%1 in %2: %3")
                              .arg(QString::fromUtf8(analysis::runDifferenceName(d.kind)), processesOf(d),
                                   QString::fromStdString(d.what)));
  connect(differences_, &QComboBox::currentIndexChanged, this, &RunsWindow::goToDifference);
  goToDifference(0);
}

// A difference's processes as radar names them everywhere ("client[4012]"),
// in each run: "client[4012] and client[4090]" where the pids differ.
QString RunsWindow::processesOf(const analysis::RunDifference& d) const {
  const QString a =
      d.process_a == trace::kNone ? QString() : QString::fromStdString(first_->trace().label(d.process_a));
  const QString b =
      d.process_b == trace::kNone ? QString() : QString::fromStdString(second_->trace().label(d.process_b));
  if (a.isEmpty() || b.isEmpty() || a == b) return a.isEmpty() ? b : a;
  return tr("%1 and %2").arg(a, b);
}

// Both runs' findings, each marked with the run (or both) it is found in;
// a double click takes each run that has it to its event. None: one line
// says so. Below them, what each run's own pane says about how its
// recording was put together.
QWidget* RunsWindow::buildFindings() {
  findings_ = new RunsFindingsModel(first_->trace(), second_->trace(), this);
  auto* pane = new QWidget(this);
  auto* column = new QVBoxLayout(pane);
  column->setContentsMargins(0, 0, 0, 0);
  if (findings_->rowCount() == 0) {
    auto* none = new QLabel(tr("No problems found in either run."), pane);
    none->setObjectName(QStringLiteral("no-findings"));
    none->setMargin(4);
    column->addWidget(none);
  } else {
    column->addWidget(buildFindingsTable(), 1);
  }
  QString notes;
  int side = 0;
  for (MainWindow* w : {first_, second_}) {
    const QString run = side++ == 0 ? tr("About the first run's recording:") : tr("About the second run's recording:");
    if (!w->trace().warnings.empty()) notes += (notes.isEmpty() ? QString() : QStringLiteral("\n")) + run;
    for (const auto& warning : w->trace().warnings) notes += QStringLiteral("\n• ") + QString::fromStdString(warning);
  }
  if (!notes.isEmpty()) {
    auto* label = new QLabel(notes, pane);
    label->setObjectName(QStringLiteral("recording-notes"));
    label->setWordWrap(true);
    label->setMargin(4);
    column->addWidget(label);
  }
  if (findings_->rowCount() == 0) pane->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  return pane;
}

QTableView* RunsWindow::buildFindingsTable() {
  auto* view = new QTableView(this);
  view->setObjectName(QStringLiteral("findings"));
  view->setModel(findings_);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->verticalHeader()->hide();
  view->horizontalHeader()->setStretchLastSection(true);
  for (int column : {RunsFindingsModel::Run, RunsFindingsModel::Kind})
    view->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
  view->setWordWrap(true);
  view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  connect(view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { goToFinding(index.row()); });
  return view;
}

void RunsWindow::goToFinding(int row) {
  following_ = true;  // each run to its own finding's event, not where the other's stands
  int side = 0;
  for (MainWindow* w : {first_, second_})
    if (const uint32_t event = findings_->eventOf(row, side++); event != trace::kNone) w->goToEvent(event);
  following_ = false;
}

// Every difference marked in both runs: its events along the top of each
// timeline, its processes ringed in each network.
void RunsWindow::markDifferences() {
  std::vector<uint32_t> processes[2];
  for (const auto& d : diff_.differences) {
    if (d.a != trace::kNone) marks_[0].push_back(d.a);
    if (d.b != trace::kNone) marks_[1].push_back(d.b);
    if (d.process_a != trace::kNone) processes[0].push_back(d.process_a);
    if (d.process_b != trace::kNone) processes[1].push_back(d.process_b);
  }
  int side = 0;
  for (MainWindow* w : {first_, second_}) {
    std::sort(marks_[side].begin(), marks_[side].end());
    w->spaceTimeView().timeline().setMarks(&marks_[side]);
    w->networkView().setPartedProcesses(std::move(processes[side]));
    ++side;
  }
}

void RunsWindow::quietOwnArrows(MainWindow* w) {
  for (QAction* a : w->findChildren<QAction*>())
    if (a->shortcut() == QKeySequence(Qt::Key_Left) || a->shortcut() == QKeySequence(Qt::Key_Right))
      a->setShortcut(QKeySequence());
}

void RunsWindow::setLockStep(bool on) {
  lock_step_ = on;
  if (on) follow(first_);
}

// The first run leads; where it has ended, the second goes on.
void RunsWindow::stepForward() {
  ReplayController& first = first_->controller();
  (first.position() < first.events() || first.animating() ? first : second_->controller()).stepForward();
}

void RunsWindow::stepBack() { first_->controller().stepBack(); }

// The other run to the event standing where the leader's is (shown whole);
// unlocked, or before the first event, it stays.
void RunsWindow::follow(MainWindow* leader) {
  if (!lock_step_ || following_) return;
  MainWindow* other = leader == first_ ? second_ : first_;
  const uint32_t at = leader->controller().position();
  if (at == 0) return;
  const uint32_t there = leader == first_ ? alignment_->inSecond(at - 1) : alignment_->inFirst(at - 1);
  if (there == trace::kNone || other->controller().position() == there + 1) return;
  following_ = true;
  other->controller().pause();  // one run leads: both playing would pull each other
  other->controller().skipTo(there + 1);
  following_ = false;
}

void RunsWindow::goToDifference(int k) {
  if (k < 0 || static_cast<size_t>(k) >= diff_.differences.size()) return;
  const analysis::RunDifference& d = diff_.differences[static_cast<size_t>(k)];
  summary_->setText(tr("%1 the runs part here (%2, in %3): %4")
                        .arg(k == 0 ? tr("First,") : tr("Then"), QString::fromUtf8(analysis::runDifferenceName(d.kind)),
                             processesOf(d), QString::fromStdString(d.what)));
  if (differences_->currentIndex() != k) differences_->setCurrentIndex(k);
  // A side with no such event (the process ended, or is in one run only)
  // goes to its process's last event, or stays.
  auto go = [](MainWindow* w, uint32_t event, uint32_t process) {
    if (event == trace::kNone && process != trace::kNone) event = w->trace().processes[process].last_event;
    if (event != trace::kNone) w->goToEvent(event);
  };
  // Both where the difference is, not one of them where the other's stands.
  following_ = true;
  go(first_, d.a, d.process_a);
  go(second_, d.b, d.process_b);
  following_ = false;
}

}  // namespace radar::app
