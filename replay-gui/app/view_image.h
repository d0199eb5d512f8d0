// What the window shows, saved as an image: PNG (pixels, as on screen) or
// SVG (vector: lines and text stay sharp at any size, and the text can be
// searched and copied), by the file name's extension.
#pragma once

#include <QString>
#include <QWidget>

namespace radar::app {

// True when `path` ends in .png or .svg (any case).
bool isViewImageName(const QString& path);

// Draws `widget` and what it contains into `path`. False with *error when
// the name has another extension or the file cannot be written.
bool saveViewImage(QWidget& widget, const QString& path, QString* error);

}  // namespace radar::app
