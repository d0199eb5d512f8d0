#include "app/debug_launch.h"

#include <QDir>
#include <QFileInfo>

namespace radar::app {
namespace {

QString shellQuoted(const QString& s) {
  static const QString safe = QStringLiteral("-_./:=+,@%");
  bool plain = !s.isEmpty();
  for (QChar c : s) plain = plain && (c.isLetterOrNumber() || safe.contains(c));
  if (plain) return s;
  QString q = s;
  q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + q + QLatin1Char('\'');
}

QString inPath(const QString& name, const QProcessEnvironment& env) {
  if (name.contains(QLatin1Char('/'))) return QFileInfo(name).isExecutable() ? name : QString();
  for (const QString& dir : env.value(QStringLiteral("PATH")).split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
    const QString candidate = dir + QLatin1Char('/') + name;
    if (QFileInfo(candidate).isExecutable()) return candidate;
  }
  return {};
}

}  // namespace

QString DebugCommand::commandLine() const {
  QStringList words{shellQuoted(program)};
  for (const QString& a : arguments) words << shellQuoted(a);
  return words.join(QLatin1Char(' '));
}

DebugCommand debugCommand(const trace::Trace& t, uint32_t process, uint32_t position, const QString& radar) {
  DebugCommand c;
  c.program = radar;
  c.arguments << QStringLiteral("debug");
  // Whole: the terminal it runs in may start in another directory.
  for (const auto& dir : t.directories) c.arguments << QFileInfo(QString::fromStdString(dir)).absoluteFilePath();
  const trace::Process& p = t.processes[process];
  c.arguments << QStringLiteral("%1.%2").arg(p.pid).arg(p.generation);
  for (uint32_t pos : t.process_events[process])
    if (pos >= position) {
      c.at_event = pos + 1;
      break;
    }
  if (c.at_event) c.arguments << QStringLiteral("--at-event") << QString::number(c.at_event);
  return c;
}

QString findTerminal(const QProcessEnvironment& env) {
  const QString chosen = env.value(QStringLiteral("TERMINAL"));
  if (!chosen.isEmpty()) {
    const QString found = inPath(chosen, env);
    if (!found.isEmpty()) return found;
  }
  for (const char* name : {"x-terminal-emulator", "gnome-terminal", "konsole", "xterm"}) {
    const QString found = inPath(QString::fromLatin1(name), env);
    if (!found.isEmpty()) return found;
  }
  return {};
}

QStringList terminalArguments(const QString& terminal, const DebugCommand& command) {
  // Debian's x-terminal-emulator, xterm and konsole take the program after
  // -e; gnome-terminal after --.
  const bool gnome = QFileInfo(terminal).fileName() == QLatin1String("gnome-terminal");
  QStringList args{gnome ? QStringLiteral("--") : QStringLiteral("-e"), command.program};
  return args + command.arguments;
}

}  // namespace radar::app
