#include "app/help_window.h"

#include <QDir>
#include <QFileInfo>
#include <QTextBrowser>
#include <QToolBar>
#include <QUrl>

namespace radar::app {

QStringList guideCandidates(const QString& program_dir) {
  const QDir dir(program_dir);
  QStringList out{QDir::cleanPath(dir.filePath(QStringLiteral("../share/doc/radar"))),
                  QDir::cleanPath(dir.filePath(QStringLiteral("../../share/doc/radar")))};
#ifdef RADAR_SOURCE_DOCS
  out << QStringLiteral(RADAR_SOURCE_DOCS);
#endif
  return out;
}

QString findGuide(const QStringList& candidates) {
  for (const QString& dir : candidates)
    if (QFileInfo(dir + QStringLiteral("/replay.md")).isFile()) return dir;
  return {};
}

HelpWindow::HelpWindow(const QString& dir, const QString& page, QWidget* parent)
    : QMainWindow(parent), browser_(new QTextBrowser(this)) {
  setAttribute(Qt::WA_DeleteOnClose);
  setWindowTitle(tr("radar guide"));
  // Relative links and pictures (images/...) resolve in the guide's
  // directory; a web link opens in the desktop's browser.
  browser_->setSearchPaths({dir});
  browser_->setOpenExternalLinks(true);
  browser_->setSource(QUrl::fromLocalFile(QDir(dir).filePath(page)), QTextDocument::MarkdownResource);
  auto* bar = addToolBar(tr("Guide"));
  bar->setMovable(false);
  bar->addAction(tr("Back"), QKeySequence::Back, browser_, &QTextBrowser::backward);
  bar->addAction(tr("Forward"), QKeySequence::Forward, browser_, &QTextBrowser::forward);
  setCentralWidget(browser_);
  resize(900, 760);
}

}  // namespace radar::app
