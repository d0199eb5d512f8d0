// Loading a recording from the replay window: off the GUI thread, with a
// progress dialog that can cancel it, and without a nested event loop —
// the caller goes on, and `done` runs on the GUI thread when the trace is
// ready (or with the reason it is not: the error, or "cancelled").
#pragma once

#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace radar::app {

using LoadDone = std::function<void(std::unique_ptr<trace::Trace> trace, const QString& error)>;

// Directories that share no channel are refused unless merge_unrelated.
void loadRecording(std::vector<std::string> dirs, bool merge_unrelated, QWidget* parent, LoadDone done);

}  // namespace radar::app
