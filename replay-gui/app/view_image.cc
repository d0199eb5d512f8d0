#include "app/view_image.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>

namespace radar::app {

namespace {
bool endsWith(const QString& path, const char* extension) {
  return path.endsWith(QLatin1String(extension), Qt::CaseInsensitive);
}

// Qt writes the picture's size in millimetres, rounded: another renderer
// makes a pixel more or less of it. Its size in pixels, exactly.
void inPixels(QByteArray& svg, QSize size) {
  const QRegularExpression size_in_mm(QStringLiteral("<svg width=\"[0-9.]+mm\" height=\"[0-9.]+mm\""));
  const QString head = QString::fromUtf8(svg.left(512));
  const QRegularExpressionMatch m = size_in_mm.match(head);
  if (!m.hasMatch()) return;
  const QByteArray exact =
      QStringLiteral("<svg width=\"%1\" height=\"%2\"").arg(size.width()).arg(size.height()).toUtf8();
  svg.replace(static_cast<int>(head.left(m.capturedStart()).toUtf8().size()),
              static_cast<int>(m.capturedTexts()[0].toUtf8().size()), exact);
}
}  // namespace

bool isViewImageName(const QString& path) { return endsWith(path, ".png") || endsWith(path, ".svg"); }

bool saveViewImage(QWidget& widget, const QString& path, QString* error) {
  const bool png = endsWith(path, ".png");
  if (!png && !endsWith(path, ".svg")) {
    *error = QObject::tr("%1: the name should end in .png or .svg").arg(path);
    return false;
  }
  // Drawn in memory, then written whole to a file of its own and put in
  // place: a failed write (a full disk) leaves nothing under the name, and
  // is an error, not a file cut short.
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  bool drawn = false;
  if (png) {
    drawn = widget.grab().toImage().save(&buffer, "PNG");
  } else {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setResolution(96);  // as SVG's pixel: other renderers draw it at the size it has on screen
    svg.setSize(widget.size());
    svg.setViewBox(QRect(QPoint(0, 0), widget.size()));
    svg.setTitle(widget.windowTitle());
    svg.setDescription(QObject::tr("radar replay"));
    QPainter painter;
    if ((drawn = painter.begin(&svg))) {
      widget.render(&painter);
      drawn = painter.end();
    }
  }
  if (!drawn) {
    *error = QObject::tr("cannot draw the view for %1").arg(path);
    return false;
  }
  if (!png) inPixels(bytes, widget.size());
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    *error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace radar::app
