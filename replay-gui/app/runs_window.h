// Two runs of one program side by side (`radar replay --diff RUN_A RUN_B`,
// `radar diff --replay`): a replay of each, both at the first event where
// they part (radar diff's), selected; a list of every difference moves
// both to it; below them, both runs' findings in one pane.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QTableView>
#include <QWidget>
#include <memory>
#include <vector>

#include "analysis/diff.h"
#include "app/main_window.h"
#include "app/runs_findings_model.h"

namespace radar::app {

class RunsWindow : public QWidget {
  Q_OBJECT

 public:
  // `first` and `second`: the runs' windows, not yet given a parent.
  RunsWindow(std::unique_ptr<MainWindow> first, std::unique_ptr<MainWindow> second, const QString& first_name,
             const QString& second_name, QWidget* parent = nullptr);

  MainWindow& first() { return *first_; }
  MainWindow& second() { return *second_; }
  const analysis::RunDiff& diff() const { return diff_; }
  // What the line above the runs says.
  QString summary() const { return summary_->text(); }
  // Both runs to difference k (0: the first), its events selected.
  void goToDifference(int k);
  // In lock step (the default), a step or a skip in either run moves the
  // other to the same place in the program (analysis::RunAlignment); the
  // arrow keys step both.
  bool lockStep() const { return lock_step_; }
  void setLockStep(bool on);
  void stepForward();
  void stepBack();
  // Both runs' findings (one pane below them); each run that has finding
  // `row` to its event.
  RunsFindingsModel& findings() { return *findings_; }
  void goToFinding(int row);

 private:
  void follow(MainWindow* leader);  // the other run to where `leader` is
  void quietOwnArrows(MainWindow* w);
  QString processesOf(const analysis::RunDifference& d) const;
  void markDifferences();
  QWidget* buildFindings();
  QTableView* buildFindingsTable();

  MainWindow* first_;
  MainWindow* second_;
  analysis::RunDiff diff_;
  std::unique_ptr<analysis::RunAlignment> alignment_;
  QLabel* summary_;
  QComboBox* differences_;
  RunsFindingsModel* findings_ = nullptr;
  std::vector<uint32_t> marks_[2];  // each run's events where it parts from the other, ascending
  bool lock_step_ = true;
  bool following_ = false;
};

}  // namespace radar::app
