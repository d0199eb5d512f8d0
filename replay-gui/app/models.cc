#include "app/models.h"

#include "app/story_time.h"
#include "trace/findings.h"

#include <QApplication>
#include <QRegularExpression>
#include <QStyle>

#include <QStringList>

namespace radar::app {

using trace::kNone;

EventTableModel::EventTableModel(const trace::Trace& trace, const analysis::Narrator& narrator,
                                 const netdesc::Binding* net, QObject* parent)
    : QAbstractTableModel(parent), t_(trace), narrator_(narrator), net_(net) {
  setFilter(QString());
}

int EventTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return static_cast<int>(all_ ? t_.events.size() : rows_.size());
}

int EventTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

uint32_t EventTableModel::positionOf(int row) const {
  if (row < 0 || row >= rowCount()) return kNone;
  return all_ ? static_cast<uint32_t>(row) : rows_[row];
}

int EventTableModel::rowOf(uint32_t position) const {
  if (position >= t_.events.size()) return -1;
  if (all_) return static_cast<int>(position);
  auto it = std::lower_bound(rows_.begin(), rows_.end(), position);
  return it != rows_.end() && *it == position ? static_cast<int>(it - rows_.begin()) : -1;
}

QVariant EventTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const uint32_t i = positionOf(index.row());
  const trace::Event& e = t_.events[i];
  if (role == Qt::TextAlignmentRole)
    return index.column() == Number || index.column() == Result ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                : QVariant();
  if (role == Qt::ToolTipRole && index.column() == Time) {
    const double began = static_cast<double>(t_.wallTime(i) - t_.wallTime(0)) / 1e9;
    return tr("The call began at %1 s and returned at %2 s; a call that waited for another process is "
              "told when it returned")
        .arg(began, 0, 'f', 6)
        .arg(began + static_cast<double>(e.durationNs()) / 1e9, 0, 'f', 6);
  }
  if (role == Qt::ToolTipRole) return QString::fromStdString(narrator_.sentence(i));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Number:
      return i + 1;
    case Time:
      return QString::number(static_cast<double>(storyTime(t_, i) - t_.wallTime(0)) / 1e9, 'f', 6);
    case Process:
      return QString::fromStdString(t_.label(e.process));
    case Kind:
      return QString::fromLatin1(log::kindName(e.eventKind()));
    case Channel: {
      const uint32_t c = t_.channelOf(i);
      return c == kNone ? QString() : QString::fromStdString(t_.channelLabel(c));
    }
    case Result:
      return e.result;
    case Description:
      return QString::fromStdString(narrator_.describe(i));
  }
  return {};
}

QVariant EventTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case Number:
      return tr("Event");
    case Time:
      return tr("Time (s)");
    case Process:
      return tr("Process");
    case Kind:
      return tr("Call");
    case Channel:
      return tr("Channel");
    case Result:
      return tr("Result");
    case Description:
      return tr("What happened");
  }
  return {};
}

namespace {
const QRegularExpression& bytesTest() {
  static const QRegularExpression re(QStringLiteral("^bytes(>=|<=|>|<|=)(\\d+)$"),
                                     QRegularExpression::CaseInsensitiveOption);
  return re;
}
// field:NAME, field:NAME=VALUE, field:NAME>3 ...
const QRegularExpression& fieldTest() {
  static const QRegularExpression re(QStringLiteral("^field:([^=<>!]+)(?:(>=|<=|!=|>|<|=)(.*))?$"),
                                     QRegularExpression::CaseInsensitiveOption);
  return re;
}
template <class T>
bool compare(const QString& op, T have, T want) {
  return op == QLatin1String(">")    ? have > want
         : op == QLatin1String(">=") ? have >= want
         : op == QLatin1String("<")  ? have < want
         : op == QLatin1String("<=") ? have <= want
         : op == QLatin1String("!=") ? have != want
                                     : have == want;
}
// A field's value against a test: the text (any case) for = and !=, and
// numbers as numbers, any element of an array.
bool valueMatches(const std::string& value, const QString& op, const QString& want) {
  if (op == QLatin1String("!=")) return !valueMatches(value, QStringLiteral("="), want);
  const QString v = QString::fromStdString(value);
  if (op == QLatin1String("=") && v.compare(want, Qt::CaseInsensitive) == 0) return true;
  bool want_number = false;
  const double w = want.toDouble(&want_number);
  if (!want_number) return false;
  for (const QString& element : v.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    bool is_number = false;
    const double h = element.toDouble(&is_number);
    if (!is_number) break;  // "... (64 in all)": the rest is not values
    if (compare(op, h, w)) return true;
  }
  return false;
}
}  // namespace

bool EventTableModel::fieldMatches(uint32_t i, const QString& test) const {
  const auto m = fieldTest().match(test);
  if (!m.hasMatch() || !net_) return false;
  const trace::Event& e = t_.events[i];
  if (!log::isData(e.eventKind()) || (e.flags & trace::kEventFailed) || !e.value) return false;
  std::vector<netdesc::FieldLine> fields;
  std::string error;
  if (!netdesc::describeFields(net_, t_, i, &fields, nullptr, &error)) return false;
  const std::string name = m.captured(1).toLower().toStdString();
  const QString op = m.captured(2), want = m.captured(3);
  for (size_t k = 0; k < fields.size(); ++k) {
    std::string path = netdesc::fieldPath(fields, k);
    if (path.empty()) continue;
    for (char& c : path) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool named = path == name || (path.size() > name.size() && path.ends_with(name) &&
                                        path[path.size() - name.size() - 1] == '.');
    if (!named) continue;
    if (op.isEmpty() || valueMatches(netdesc::fieldValue(fields[k]), op, want)) return true;
  }
  return false;
}

// What a filter's words make: alternatives split by "or", each a list of
// words that must all match ("-word": must not).
std::vector<std::vector<EventTableModel::Term>> EventTableModel::parseFilter(const QString& filter) {
  std::vector<std::vector<Term>> alternatives(1);
  for (const QString& w : filter.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (w.compare(QLatin1String("or"), Qt::CaseInsensitive) == 0) {
      if (!alternatives.back().empty()) alternatives.emplace_back();
    } else if (w.size() > 1 && w.startsWith(QLatin1Char('-'))) {
      alternatives.back().push_back({w.mid(1), true});
    } else {
      alternatives.back().push_back({w, false});
    }
  }
  if (alternatives.back().empty()) alternatives.pop_back();
  return alternatives;
}

// One event's fields, made once for all the words tested on it.
struct EventTableModel::Subject {
  uint32_t position;
  QString process, kind, channel;
  QString description;  // made only when a plain word needs it
};

bool EventTableModel::termMatches(Subject& s, const QString& w) const {
  const trace::Event& e = t_.events[s.position];
  if (w.startsWith(QLatin1String("process:"))) return s.process.contains(w.mid(8), Qt::CaseInsensitive);
  if (w.startsWith(QLatin1String("channel:"))) return s.channel.contains(w.mid(8), Qt::CaseInsensitive);
  if (w.startsWith(QLatin1String("kind:"))) {
    // A call's name, or what it is: send, receive, readiness, process, user.
    const QString want = w.mid(5);
    if (e.eventKind() == log::Kind::MpiCollective &&  // a collective by its operation: kind:MPI_Allreduce
        QString::fromLatin1(trace::mpiCollectiveName(e.value)).compare(want, Qt::CaseInsensitive) == 0)
      return true;
    return s.kind.contains(want, Qt::CaseInsensitive) ||
           QString::fromLatin1(log::categoryName(log::categoryOf(e.eventKind()))).compare(want, Qt::CaseInsensitive) ==
               0;
  }
  if (w.startsWith(QLatin1String("field:"), Qt::CaseInsensitive)) return fieldMatches(s.position, w);
  if (const auto m = bytesTest().match(w); m.hasMatch()) {
    // bytes>100: data events that moved more than 100 bytes.
    return log::isData(e.eventKind()) && !(e.flags & trace::kEventFailed) &&
           compare<uint64_t>(m.captured(1), e.value, m.captured(2).toULongLong());
  }
  if (s.process.contains(w, Qt::CaseInsensitive) || s.kind.contains(w, Qt::CaseInsensitive) ||
      s.channel.contains(w, Qt::CaseInsensitive))
    return true;
  if (s.description.isNull()) s.description = QString::fromStdString(narrator_.describe(s.position));
  return s.description.contains(w, Qt::CaseInsensitive);
}

EventTableModel::Subject EventTableModel::subject(uint32_t i) const {
  const uint32_t c = t_.channelOf(i);
  return {i, QString::fromStdString(t_.label(t_.events[i].process)),
          QString::fromLatin1(log::kindName(t_.events[i].eventKind())),
          c == kNone ? QString() : QString::fromStdString(t_.channelLabel(c)), QString()};
}

bool EventTableModel::matches(uint32_t i, const std::vector<std::vector<Term>>& alternatives) const {
  Subject s = subject(i);
  return std::any_of(alternatives.begin(), alternatives.end(), [&](const std::vector<Term>& all) {
    return std::all_of(all.begin(), all.end(), [&](const Term& t) { return termMatches(s, t.word) != t.negated; });
  });
}

// Why nothing is kept: the first word that no event (kept by the MPI
// library's box) satisfies on its own, else their combination.
QString EventTableModel::explainEmpty(const std::vector<std::vector<Term>>& alternatives, bool hide_library) const {
  std::vector<const Term*> terms, unmet;
  for (const auto& all : alternatives)
    for (const Term& t : all) terms.push_back(&t);
  unmet = terms;
  for (uint32_t i = 0; i < t_.events.size() && !unmet.empty(); ++i) {
    if (hide_library && t_.byMpiLibrary(i)) continue;
    Subject s = subject(i);
    std::erase_if(unmet, [&](const Term* t) { return termMatches(s, t->word) != t->negated; });
  }
  if (t_.events.empty()) return tr("the recording has no events");
  if (!unmet.empty())
    return unmet.front()->negated ? tr("every event matches %1").arg(unmet.front()->word)
                                  : tr("no event matches %1").arg(unmet.front()->word);
  return tr("each word matches events, but no event matches them together");
}

bool EventTableModel::isPoll(const trace::Event& e) {
  const log::Kind k = e.eventKind();
  const bool failed = e.flags & trace::kEventFailed;
  if (log::categoryOf(k) == log::Category::Receive) return failed && e.result != trace::kResultNeverReturned;
  if (k == log::Kind::Wait) return failed || e.value == 0;
  if (log::categoryOf(k) == log::Category::Readiness) return !failed && e.result == 0;
  return false;
}

void EventTableModel::setFilter(const QString& filter) {
  const auto alternatives = parseFilter(filter);
  const bool hide_library = !show_mpi_library_ && !t_.mpi_library.empty();
  const auto left_out = [&](uint32_t i) {
    return (hide_library && t_.byMpiLibrary(i)) || (hide_polls_ && isPoll(t_.events[i]));
  };
  beginResetModel();
  filter_ = filter;
  rows_.clear();
  all_ = alternatives.empty() && !hide_library && !hide_polls_;
  if (!all_)
    for (uint32_t i = 0; i < t_.events.size(); ++i)
      if (!left_out(i) && (alternatives.empty() || matches(i, alternatives))) rows_.push_back(i);
  why_none_ = rowCount() == 0 && !alternatives.empty() ? explainEmpty(alternatives, hide_library) : QString();
  endResetModel();
}

void EventTableModel::setShowMpiLibrary(bool show) {
  show_mpi_library_ = show;
  setFilter(filter_);
}

void EventTableModel::setHidePolls(bool hide) {
  hide_polls_ = hide;
  setFilter(filter_);
}

// The platform's own icons for an error, a warning, a note.
QIcon severityIcon(trace::Finding::Severity severity) {
  const auto icon = severity == trace::Finding::Severity::Error     ? QStyle::SP_MessageBoxCritical
                    : severity == trace::Finding::Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                    : QStyle::SP_MessageBoxInformation;
  return QApplication::style()->standardIcon(icon);
}

FindingsModel::FindingsModel(const trace::Trace& trace, QObject* parent) : QAbstractTableModel(parent), t_(trace) {}

int FindingsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(t_.findings.size());
}

int FindingsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FindingsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const trace::Finding& f = t_.findings[index.row()];
  const QString severity = QString::fromLatin1(trace::severityName(f.severity));
  if (role == Qt::ToolTipRole) return severity + QStringLiteral(": ") + QString::fromStdString(trace::describe(t_, f));
  // The severity beside the kind: errors first, then warnings and notes,
  // as the findings come.
  if (role == Qt::DecorationRole && index.column() == Kind) return severityIcon(f.severity);
  if (role == SeverityRole) return severity;
  if (role != Qt::DisplayRole) return {};
  if (index.column() == Kind) return QString::fromLatin1(trace::findingKindName(f.kind));
  return QString::fromStdString(trace::describe(t_, f));
}

QVariant FindingsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  return section == Kind ? tr("Finding") : tr("What");
}

uint32_t FindingsModel::eventOf(int row) const {
  if (row < 0 || row >= rowCount()) return kNone;
  const auto& events = t_.findings[row].events;
  return events.empty() ? kNone : events.front();
}

CriticalPathModel::CriticalPathModel(const trace::Trace& trace, const analysis::Narrator& narrator, QObject* parent)
    : QAbstractTableModel(parent), t_(trace), narrator_(narrator) {}

void CriticalPathModel::setPath(analysis::CriticalPath path) {
  beginResetModel();
  path_ = std::move(path);
  endResetModel();
}

int CriticalPathModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(path_.segments.size());
}

int CriticalPathModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CriticalPathModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const analysis::PathSegment& s = path_.segments[index.row()];
  if (role == Qt::TextAlignmentRole)
    return index.column() <= Duration ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  switch (index.column()) {
    case At:
      return QString::number(static_cast<double>(s.begin_ns - path_.begin_ns) / 1e6, 'f', 3);
    case Duration:
      return QString::number(static_cast<double>(s.ns()) / 1e6, 'f', 3);
    case Kind:
      return QString::fromLatin1(analysis::pathSegmentName(s.kind));
    case Where:
      return QString::fromStdString(analysis::segmentOwner(t_, s));
    case Event:
      return s.event == kNone ? QVariant() : QString::fromStdString(narrator_.sentence(s.event));
    default:
      return {};
  }
}

QVariant CriticalPathModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case At:
      return tr("At (ms)");
    case Duration:
      return tr("ms");
    case Kind:
      return tr("Kind");
    case Where:
      return tr("Process / channel");
    case Event:
      return tr("Up to");
    default:
      return {};
  }
}

uint32_t CriticalPathModel::eventOf(int row) const {
  return row >= 0 && row < rowCount() ? path_.segments[row].event : kNone;
}

}  // namespace radar::app
