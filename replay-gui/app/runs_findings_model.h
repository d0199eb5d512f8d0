// Both runs' findings in one table (`radar replay --diff`), each row marked
// with the run or runs it was found in: the same finding in both is one
// row (analysis::pairFindings).
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "analysis/diff.h"

namespace radar::app {

class RunsFindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Run, Kind, Description, ColumnCount };
  static constexpr int SeverityRole = Qt::UserRole + 1;  // "error", "warning", "note"
  RunsFindingsModel(const trace::Trace& first, const trace::Trace& second, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  // Where to look for finding `row` in run `side` (0: the first): an event
  // position, or kNone where that run has no such finding or it has no event.
  uint32_t eventOf(int row, int side) const;

 private:
  const trace::Finding* finding(int row, int side) const;
  const trace::Trace* runs_[2];
  std::vector<analysis::FindingPair> rows_;
};

}  // namespace radar::app
