// Item models of the replay window: every event as a table row (filtered
// by process, channel, kind or text, without copying millions of rows), and
// the merge's findings, a critical path's segments.
#pragma once

#include <QAbstractTableModel>
#include <QIcon>
#include <QString>
#include <vector>

#include "analysis/critical_path.h"
#include "analysis/narrative.h"
#include "binding/binding.h"
#include "trace/trace.h"

namespace radar::app {

class EventTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Number, Time, Process, Kind, Channel, Result, Description, ColumnCount };

  // `net` (may be null) decodes messages for field: words.
  EventTableModel(const trace::Trace& trace, const analysis::Narrator& narrator, const netdesc::Binding* net = nullptr,
                  QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // Keeps the events whose process name or pid, kind, channel or
  // description contain every word of `filter` (case-insensitive; "" keeps
  // all); "-word" keeps those that do not, and "or" between words keeps
  // what either side keeps (kind:read or kind:write -process:nginx).
  // A word may be qualified: process:NAME, channel:NAME, kind:NAME
  // (a call, or send, receive, readiness, process, user), or compare the
  // bytes a data event moved: bytes>100, bytes<=4, bytes=0. With a network
  // description, a decoded field: field:NAME (present), field:NAME=green,
  // field:NAME!=0, field:count>3 (>=, <, <= compare numbers; an array
  // matches when one of its elements does); NAME is a field's name or its
  // path (header.count) or the end of its path.
  void setFilter(const QString& filter);
  QString filter() const { return filter_; }
  // When the filter keeps nothing: why, for people ("no event matches
  // kind:waitt"); empty otherwise.
  const QString& whyNothingMatches() const { return why_none_; }
  // Whether the MPI library's own events (Trace::mpi_library) are kept;
  // they are left out by default, whatever the filter.
  void setShowMpiLibrary(bool show);
  bool showsMpiLibrary() const { return show_mpi_library_; }
  // Whether polls are left out: a receive that found nothing (the call
  // failed), a wait for a child that found none ended, a wait for
  // channels that found none ready.
  void setHidePolls(bool hide);
  static bool isPoll(const trace::Event& e);
  // The positions kept (ascending), or null when nothing is filtered out.
  const std::vector<uint32_t>* kept() const { return all_ ? nullptr : &rows_; }
  // Event position of a row, and the row of an event (-1 if filtered out).
  uint32_t positionOf(int row) const;
  int rowOf(uint32_t position) const;

 private:
  struct Term {
    QString word;
    bool negated;
  };
  struct Subject;
  static std::vector<std::vector<Term>> parseFilter(const QString& filter);
  Subject subject(uint32_t position) const;
  bool termMatches(Subject& s, const QString& word) const;
  bool matches(uint32_t position, const std::vector<std::vector<Term>>& alternatives) const;
  QString explainEmpty(const std::vector<std::vector<Term>>& alternatives, bool hide_library) const;
  bool fieldMatches(uint32_t position, const QString& test) const;

  const trace::Trace& t_;
  const analysis::Narrator& narrator_;
  const netdesc::Binding* net_;
  QString filter_;
  QString why_none_;
  bool show_mpi_library_ = false;
  bool hide_polls_ = false;
  bool all_ = true;
  std::vector<uint32_t> rows_;  // positions kept, when filtered
};

QIcon severityIcon(trace::Finding::Severity severity);

class FindingsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Kind, Description, ColumnCount };
  static constexpr int SeverityRole = Qt::UserRole + 1;  // "error", "warning", "note"
  explicit FindingsModel(const trace::Trace& trace, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  // Where to look for finding `row`: an event position, or kNone.
  uint32_t eventOf(int row) const;

 private:
  const trace::Trace& t_;
};

// The segments of a critical path (radar critical-path), as a table.
class CriticalPathModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { At, Duration, Kind, Where, Event, ColumnCount };
  CriticalPathModel(const trace::Trace& trace, const analysis::Narrator& narrator, QObject* parent = nullptr);

  void setPath(analysis::CriticalPath path);
  const analysis::CriticalPath& path() const { return path_; }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  // The event a segment leads to (a position), or kNone.
  uint32_t eventOf(int row) const;

 private:
  const trace::Trace& t_;
  const analysis::Narrator& narrator_;
  analysis::CriticalPath path_;
};

}  // namespace radar::app
