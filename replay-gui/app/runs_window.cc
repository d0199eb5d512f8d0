#include "app/runs_window.h"

#include <QHBoxLayout>
#include <QSplitter>
#include <QVBoxLayout>

namespace radar::app {

RunsWindow::RunsWindow(std::unique_ptr<MainWindow> first, std::unique_ptr<MainWindow> second, const QString& first_name,
                       const QString& second_name, QWidget* parent)
    : QWidget(parent) {
  diff_ = analysis::diffRuns(first->trace(), second->trace());
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
  differences_ = new QComboBox(this);
  differences_->setObjectName(QStringLiteral("differences"));
  layout->addWidget(differences_);
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
  layout->addWidget(split, 1);

  if (diff_.differences.empty()) {
    summary_->setText(tr("No causal difference: the %1 processes made the same calls, with the same messages from "
                         "the same senders (%2 on the left, %3 on the right).")
                          .arg(diff_.processes_matched)
                          .arg(first_name, second_name));
    differences_->setEnabled(false);
    return;
  }
  for (const auto& d : diff_.differences)
    differences_->addItem(QStringLiteral("%1 in %2: %3")
                              .arg(QString::fromUtf8(analysis::runDifferenceName(d.kind)),
                                   QString::fromStdString(d.process), QString::fromStdString(d.what)));
  connect(differences_, &QComboBox::currentIndexChanged, this, &RunsWindow::goToDifference);
  goToDifference(0);
}

void RunsWindow::goToDifference(int k) {
  if (k < 0 || static_cast<size_t>(k) >= diff_.differences.size()) return;
  const analysis::RunDifference& d = diff_.differences[static_cast<size_t>(k)];
  summary_->setText(tr("%1 the runs part here (%2, in %3): %4")
                        .arg(k == 0 ? tr("First,") : tr("Then"), QString::fromUtf8(analysis::runDifferenceName(d.kind)),
                             QString::fromStdString(d.process), QString::fromStdString(d.what)));
  if (differences_->currentIndex() != k) differences_->setCurrentIndex(k);
  // A side with no such event (the process ended, or is in one run only)
  // goes to its process's last event, or stays.
  auto go = [](MainWindow* w, uint32_t event, uint32_t process) {
    if (event == trace::kNone && process != trace::kNone) event = w->trace().processes[process].last_event;
    if (event != trace::kNone) w->goToEvent(event);
  };
  go(first_, d.a, d.process_a);
  go(second_, d.b, d.process_b);
}

}  // namespace radar::app
