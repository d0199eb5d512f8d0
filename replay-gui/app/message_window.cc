#include "app/message_window.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTextBlock>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "app/palette.h"

namespace radar::app {

namespace {
// netdesc::hexDump's layout: "00000010  " then 16 bytes as "xx " with one
// more space after the eighth, then " |" and one character a byte, "|\n".
constexpr size_t kOffsetWidth = 10, kAsciiAt = kOffsetWidth + 16 * 3 + 1 + 2, kLineWidth = kAsciiAt + 16 + 2;
size_t hexColumn(size_t k) { return kOffsetWidth + 3 * k + (k >= 8 ? 1 : 0); }
}  // namespace

std::vector<std::pair<size_t, size_t>> hexDumpRanges(size_t offset, size_t length, size_t limit) {
  std::vector<std::pair<size_t, size_t>> out;
  const size_t end = std::min(offset + length, limit);
  for (size_t at = offset; at < end;) {
    const size_t line = at / 16, first = at % 16, last = std::min<size_t>(15, (end - 1) - line * 16);
    const size_t base = line * kLineWidth;
    out.push_back({base + hexColumn(first), hexColumn(last) + 2 - hexColumn(first)});
    out.push_back({base + kAsciiAt + first, last - first + 1});
    at = (line + 1) * 16;
  }
  return out;
}

MessageWindow::MessageWindow(const QString& header, const std::vector<netdesc::FieldLine>& fields, std::string bytes,
                             const QString& bytes_error, QWidget* parent)
    : QDialog(parent) {
  auto* box = new QVBoxLayout(this);
  auto* head = new QLabel(header, this);
  head->setWordWrap(true);
  head->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->addWidget(head);
  auto* panes = new QSplitter(Qt::Horizontal, this);
  tree_ = new QTreeWidget(panes);
  tree_->setHeaderLabel(tr("Contents"));
  // Nested by depth: the open item at each depth is the parent of the next deeper line.
  std::vector<QTreeWidgetItem*> open;
  for (const netdesc::FieldLine& f : fields) {
    const size_t depth = static_cast<size_t>(std::max(f.depth, 0));
    open.resize(std::min(open.size(), depth));
    auto* item = open.empty() ? new QTreeWidgetItem(tree_) : new QTreeWidgetItem(open.back());
    item->setText(0, QString::fromStdString(f.text));
    QString tip = item->text(0);
    if (f.bytes.length) tip += tr("\nbytes %1 to %2").arg(f.bytes.offset).arg(f.bytes.offset + f.bytes.length - 1);
    item->setToolTip(0, tip);
    item->setData(0, Qt::UserRole, QVariant::fromValue<qulonglong>(f.bytes.offset));
    item->setData(0, Qt::UserRole + 1, QVariant::fromValue<qulonglong>(f.bytes.length));
    open.push_back(item);
  }
  tree_->expandAll();
  hex_ = new QPlainTextEdit(bytes_error.isEmpty() ? QString::fromStdString(netdesc::hexDump(bytes, kHexLimit))
                                                  : tr("The bytes could not be read: %1").arg(bytes_error),
                            panes);
  hex_->setReadOnly(true);
  hex_->setLineWrapMode(QPlainTextEdit::NoWrap);
  hex_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  if (bytes_error.isEmpty())
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) { mark(item); });
  box->addWidget(panes, 1);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::close);
  box->addWidget(buttons_);
  resize(1120, 480);
  panes->setSizes({400, 700});  // a hex line (78 characters) whole
}

void MessageWindow::markMatches(std::vector<std::pair<size_t, size_t>> matches) {
  matches_ = std::move(matches);
  mark(tree_->currentItem());
  if (matches_.empty() || marked_.second) return;
  const auto ranges = hexDumpRanges(matches_.front().first, matches_.front().second, kHexLimit);
  if (ranges.empty()) return;
  QTextCursor c(hex_->document());  // the first match in view
  c.setPosition(static_cast<int>(ranges.front().first));
  hex_->setTextCursor(c);
  hex_->ensureCursorVisible();
}

// A field's bytes (the tree's current item) and the search's matches, each
// in its colour.
void MessageWindow::mark(QTreeWidgetItem* item) {
  marked_ = {0, 0};
  QList<QTextEdit::ExtraSelection> selections;
  // Bytes [offset, offset + length) in the hex and in the characters.
  auto select = [&](size_t offset, size_t length, const QColor& colour) {
    QTextCharFormat format;
    format.setBackground(colour);
    for (const auto& [start, chars] : hexDumpRanges(offset, length, kHexLimit)) {
      QTextEdit::ExtraSelection s;
      s.cursor = QTextCursor(hex_->document());
      s.cursor.setPosition(static_cast<int>(start));
      s.cursor.setPosition(static_cast<int>(start + chars), QTextCursor::KeepAnchor);
      s.format = format;
      selections.push_back(s);
    }
  };
  for (const auto& [offset, length] : matches_) select(offset, length, colors::kSearchMatch);
  const qsizetype found_count = selections.size();
  if (item) {
    marked_ = {item->data(0, Qt::UserRole).toULongLong(), item->data(0, Qt::UserRole + 1).toULongLong()};
    select(marked_.first, marked_.second, colors::kActive);
    if (selections.size() > found_count) {  // the first marked line in view
      QTextCursor c(hex_->document());
      c.setPosition(selections[found_count].cursor.selectionStart());
      hex_->setTextCursor(c);
      hex_->ensureCursorVisible();
    }
  }
  hex_->setExtraSelections(selections);
}

}  // namespace radar::app
