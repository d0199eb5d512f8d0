#include "app/view_image.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace radar::gui {

namespace {
bool endsWith(const QString& path, const char* extension) {
  return path.endsWith(QLatin1String(extension), Qt::CaseInsensitive);
}
}  // namespace

bool isViewImageName(const QString& path) { return endsWith(path, ".png") || endsWith(path, ".svg"); }

bool saveViewImage(QWidget& widget, const QString& path, QString* error) {
  if (endsWith(path, ".png")) {
    if (widget.grab().toImage().save(path, "PNG")) return true;
    *error = QObject::tr("cannot write %1").arg(path);
    return false;
  }
  if (!endsWith(path, ".svg")) {
    *error = QObject::tr("%1: the name should end in .png or .svg").arg(path);
    return false;
  }
  // Written whole to a file of its own, then put in place: a failed save
  // leaves nothing half written under the name.
  const QString partial = path + QStringLiteral(".radar-partial");
  {
    QSvgGenerator svg;
    svg.setFileName(partial);
    svg.setSize(widget.size());
    svg.setViewBox(QRect(QPoint(0, 0), widget.size()));
    svg.setTitle(widget.windowTitle());
    svg.setDescription(QObject::tr("radar replay"));
    QPainter painter;
    if (!painter.begin(&svg)) {
      QFile::remove(partial);
      *error = QObject::tr("cannot write %1").arg(path);
      return false;
    }
    widget.render(&painter);
    painter.end();
  }
  QFile::remove(path);
  if (!QFile::exists(partial) || !QFile::rename(partial, path)) {
    QFile::remove(partial);
    *error = QObject::tr("cannot write %1").arg(path);
    return false;
  }
  return true;
}

}  // namespace radar::gui
