#include "app/requests_model.h"

namespace radar::app {

using trace::kNone;

RequestsModel::RequestsModel(const trace::Trace& trace, QObject* parent)
    : QAbstractTableModel(parent), t_(trace), found_(analysis::findInteractions(trace)) {}

int RequestsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(found_.all.size());
}

int RequestsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

std::pair<uint32_t, uint32_t> RequestsModel::span(const analysis::Interaction& r) {
  return {r.request_send != kNone ? r.request_send : r.request_receive,
          r.reply_receive != kNone ? r.reply_receive : r.reply_send};
}

// Who made the event; a request from outside the recording has none.
QString RequestsModel::processName(uint32_t position) const {
  if (position == kNone) return tr("outside the recording");
  return QString::fromStdString(t_.label(t_.events[position].process));
}

QVariant RequestsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const analysis::Interaction& r = found_.all[index.row()];
  const int column = index.column();
  if (column < AnsweredBy) {
    const int64_t ns = column == Total ? r.total() : r.ns[column - FirstPart];
    if (role == SortRole) return QVariant::fromValue<qint64>(ns);
    if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::DisplayRole) return QString::number(static_cast<double>(ns) / 1e6, 'f', 3);
    return {};
  }
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != SortRole) return {};
  switch (column) {
    case Service:
      return QString::fromStdString(found_.groups[r.group].name);
    case AnsweredBy:
      return processName(r.request_receive);
    default:
      return processName(r.request_send);
  }
}

QVariant RequestsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section >= FirstPart && section < AnsweredBy)
    return tr("Milliseconds of each response time spent in %1, as radar critical-path --interactions splits it")
        .arg(QString::fromLatin1(analysis::interactionPartName(section - FirstPart)));
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Service:
      return tr("Service");
    case AnsweredBy:
      return tr("Answered by");
    case AskedBy:
      return tr("Asked by");
    case Total:
      return tr("Total ms");
    default: {  // a part of the time
      QString part = QString::fromLatin1(analysis::interactionPartName(section - FirstPart));
      part[0] = part[0].toUpper();
      return part;
    }
  }
}

}  // namespace radar::app
