// The Requests pane's model: every request a server answered, as
// `radar critical-path --interactions` finds them (analysis/interactions.h),
// one row each with where its response time went.
#pragma once

#include <QAbstractTableModel>
#include <utility>

#include "analysis/interactions.h"
#include "trace/trace.h"

namespace radar::app {

class RequestsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // The times first (a narrow pane still shows them): the total, then its
  // six parts in Interaction::Part's order; then who answered, who asked,
  // and the service.
  enum Column {
    Total,
    FirstPart,
    AnsweredBy = FirstPart + analysis::Interaction::kParts,
    AskedBy,
    Service,
    ColumnCount
  };
  // What a column sorts by: nanoseconds for the times, else its text.
  static constexpr int SortRole = Qt::UserRole + 1;
  static constexpr int partColumn(analysis::Interaction::Part part) { return FirstPart + static_cast<int>(part); }

  explicit RequestsModel(const trace::Trace& trace, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  const analysis::Interaction& interaction(int row) const { return found_.all[row]; }
  // The events a request's own critical path runs between (positions): the
  // request's send (its receive when the client was not recorded) and the
  // receive that got the reply (its send when nobody recorded received it).
  static std::pair<uint32_t, uint32_t> span(const analysis::Interaction& request);

 private:
  QString processName(uint32_t position) const;

  const trace::Trace& t_;
  analysis::Interactions found_;
};

}  // namespace radar::app
