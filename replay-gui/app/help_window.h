// The guide installed with the program (share/doc/radar, as Debian keeps a
// package's documents), read in a window of its own: F1 opens it at
// replay.md, and its links lead to the other pages.
#pragma once

#include <QMainWindow>
#include <QString>
#include <QStringList>

class QTextBrowser;

namespace radar::app {

// Where the guide may be, first to last: beside the installed program
// (bin/ or libexec/radar/ under the prefix), then the sources it was built
// from (a build not installed).
QStringList guideCandidates(const QString& program_dir);
// The first of them that holds replay.md, or empty.
QString findGuide(const QStringList& candidates);

class HelpWindow : public QMainWindow {
  Q_OBJECT

 public:
  // The guide in `dir`, open at `page`.
  HelpWindow(const QString& dir, const QString& page, QWidget* parent = nullptr);
  QTextBrowser& browser() { return *browser_; }

 private:
  QTextBrowser* browser_;
};

}  // namespace radar::app
