// A message's window, as Wireshark's packet details and bytes panes: who
// sent it to whom above, the decoded contents as a tree on the left, the
// bytes in hex and ASCII on the right. Selecting a field marks its bytes.
#pragma once

#include <QDialog>
#include <string>
#include <utility>
#include <vector>

#include "netdesc/decode.h"

class QPlainTextEdit;
class QTreeWidget;
class QTreeWidgetItem;
class QDialogButtonBox;

namespace radar::app {

// Where bytes [offset, offset + length) stand in netdesc::hexDump's text:
// character ranges (start, length), in the hex columns and in the ASCII
// column of each line they cover. None past the dump's `limit`.
std::vector<std::pair<size_t, size_t>> hexDumpRanges(size_t offset, size_t length, size_t limit);

class MessageWindow : public QDialog {
  Q_OBJECT

 public:
  // `header`: who sent it to whom. `fields` the contents (describeFields),
  // `bytes` what their spans index; `bytes_error` instead when unreadable.
  MessageWindow(const QString& header, const std::vector<netdesc::FieldLine>& fields, std::string bytes,
                const QString& bytes_error, QWidget* parent = nullptr);

  QTreeWidget* tree() const { return tree_; }
  QPlainTextEdit* hex() const { return hex_; }
  QDialogButtonBox* buttons() const { return buttons_; }
  // The bytes marked in the hex pane: (offset, length), length 0 for none.
  std::pair<size_t, size_t> markedBytes() const { return marked_; }
  // The search's matches in the bytes, marked apart from a field's, the
  // first in view.
  void markMatches(std::vector<std::pair<size_t, size_t>> matches);
  const std::vector<std::pair<size_t, size_t>>& matchedBytes() const { return matches_; }

  static constexpr size_t kHexLimit = size_t{1} << 16;

 private:
  void mark(QTreeWidgetItem* item);

  QTreeWidget* tree_;
  QPlainTextEdit* hex_;
  QDialogButtonBox* buttons_;
  std::pair<size_t, size_t> marked_{0, 0};
  std::vector<std::pair<size_t, size_t>> matches_;
};

}  // namespace radar::app
