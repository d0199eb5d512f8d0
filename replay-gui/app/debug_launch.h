// "Debug this process from here": the `radar debug` command line that
// re-runs a process image under gdb, stopped at an event of the replay, and
// the terminal to run it in.
#pragma once

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include "trace/trace.h"

namespace radar::app {

struct DebugCommand {
  QString program;        // radar
  QStringList arguments;  // debug DIR... PID.GEN [--at-event N]
  uint32_t at_event = 0;  // the event it stops before (1, 2 ...), 0: from its start
  // The command line as a user would type it (shell-quoted).
  QString commandLine() const;
};

// The command that debugs `process` from the replay's event `position`
// (0-based): it stops before that process's first event at or after it.
DebugCommand debugCommand(const trace::Trace& trace, uint32_t process, uint32_t position, const QString& radar);

// The terminal emulator to run it in: $TERMINAL, else the first of
// x-terminal-emulator, gnome-terminal, konsole, xterm found in PATH; empty
// when there is none.
QString findTerminal(const QProcessEnvironment& env);
// The terminal's arguments that run `command` in it.
QStringList terminalArguments(const QString& terminal, const DebugCommand& command);

}  // namespace radar::app
