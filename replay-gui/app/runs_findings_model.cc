#include "app/runs_findings_model.h"

#include "app/models.h"
#include "trace/findings.h"

namespace radar::app {

RunsFindingsModel::RunsFindingsModel(const trace::Trace& first, const trace::Trace& second, QObject* parent)
    : QAbstractTableModel(parent), runs_{&first, &second}, rows_(analysis::pairFindings(first, second)) {}

int RunsFindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunsFindingsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const trace::Finding* RunsFindingsModel::finding(int row, int side) const {
  if (row < 0 || row >= rowCount()) return nullptr;
  const uint32_t k = side == 0 ? rows_[row].a : rows_[row].b;
  return k == trace::kNone ? nullptr : &runs_[side]->findings[k];
}

QVariant RunsFindingsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const trace::Finding* a = finding(index.row(), 0);
  const trace::Finding* b = finding(index.row(), 1);
  // Told as the run it is in tells it (the first run's where both have it).
  const int side = a ? 0 : 1;
  const trace::Finding& f = a ? *a : *b;
  const auto severity = b && b->severity < f.severity ? b->severity : f.severity;
  if (role == SeverityRole) return QString::fromLatin1(trace::severityName(severity));
  if (role == Qt::ToolTipRole) {
    QString tip;
    for (const auto& [run, in] : {std::pair{tr("First run"), a}, std::pair{tr("Second run"), b}})
      if (in)
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) +
               tr("%1, %2: %3")
                   .arg(run, QString::fromLatin1(trace::severityName(in->severity)),
                        QString::fromStdString(trace::describe(*runs_[in == a ? 0 : 1], *in)));
    return tip;
  }
  if (role == Qt::DecorationRole && index.column() == Kind) return severityIcon(severity);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Run:
      return a && b ? tr("both") : a ? tr("first") : tr("second");
    case Kind:
      return QString::fromLatin1(trace::findingKindName(f.kind));
    default:
      return QString::fromStdString(trace::describe(*runs_[side], f));
  }
}

QVariant RunsFindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  return section == Run ? tr("Run") : section == Kind ? tr("Finding") : tr("What");
}

uint32_t RunsFindingsModel::eventOf(int row, int side) const {
  const trace::Finding* f = finding(row, side);
  return f == nullptr || f->events.empty() ? trace::kNone : f->events.front();
}

}  // namespace radar::app
