# gdb commands for a process re-run by `radar debug`.
#
# The re-run program has libradar-rerun.so preloaded: it feeds the program
# the recorded messages and exposes where the replay is through a few C
# symbols (single-process-driver/rerun/replay_api.h). These commands read
# and set them:
#
#   radar event               the last event replayed and the next one
#   radar continue-to N       run until the replay reaches event N
#   radar continue-to -l N    ... or the debugged image's own local event N
#   radar next-message        run until the next send or receive
#
# and stop the program where the replay says so: before an event asked
# for, at a divergence from the recording, and at the recording's end.
import gdb

LIBRARY = "libradar-rerun"
OUTCOME_COMPLETE, OUTCOME_BLOCKED, OUTCOME_DIVERGED = 1, 2, 3


def _value(expression):
    return gdb.parse_and_eval(expression)


def _int(symbol, ctype="unsigned long long"):
    return int(_value("*(%s *)&%s" % (ctype, symbol)))


def _text(symbol):
    pointer = _value("*(const char **)&%s" % symbol)
    return pointer.string() if int(pointer) else None


def _require_running():
    if not gdb.selected_inferior().pid:
        raise gdb.GdbError("radar: the program is not running (`run` starts it, fed from the recording)")


def _request(symbol, value):
    # Stop requests: applied now, or once the library is loaded.
    ctype = "unsigned int" if symbol == "radar_replay_stop_on_message" else "unsigned long long"
    command = "set var *(%s *)&%s = %d" % (ctype, symbol, value)
    if gdb.selected_inferior().pid:
        gdb.execute(command, to_string=True)
    else:
        _PENDING.append(command)


def _describe(which):
    number = _int("radar_replay_%s_number" % which)
    if not number:
        return "none"
    local = _int("radar_replay_%s_local" % which)
    return "Event %d (local %d): %s" % (number, local, _text("radar_replay_%s_text" % which) or "")


def _resume():
    # `continue` when stopped, `run` before the program started.
    gdb.execute("continue" if gdb.selected_inferior().pid else "run")


class RadarCommand(gdb.Command):
    """Commands for a process re-run by radar debug, fed from its recording.

radar event               the last event replayed and the next one
radar continue-to N       run until just before the replay's event N
radar continue-to -l N    run until just before this process's local event N
radar next-message        run until just before the next send or receive"""

    def __init__(self):
        super().__init__("radar", gdb.COMMAND_RUNNING, prefix=True)


class EventCommand(gdb.Command):
    """Where the replay is: the last event replayed and the next one, as the
replay window and `radar events` number them."""

    def __init__(self):
        super().__init__("radar event", gdb.COMMAND_RUNNING)

    def invoke(self, argument, from_tty):
        _require_running()
        consumed = _int("radar_replay_consumed", "unsigned int")
        total = _int("radar_replay_total", "unsigned int")
        print("radar: %d of %d recorded events replayed" % (consumed, total))
        print("  last: " + _describe("last"))
        print("  next: " + _describe("next"))


class ContinueToCommand(gdb.Command):
    """Run until just before the replay reaches an event.

radar continue-to N      the replay's event N (or the first of this process after it)
radar continue-to -l N   this process's own local event N"""

    def __init__(self):
        super().__init__("radar continue-to", gdb.COMMAND_RUNNING)

    def invoke(self, argument, from_tty):
        words = gdb.string_to_argv(argument)
        local = bool(words) and words[0] in ("-l", "--local")
        if local:
            words = words[1:]
        if len(words) != 1 or not words[0].isdigit() or int(words[0]) == 0:
            raise gdb.GdbError("usage: radar continue-to [-l] N   (N: an event number, 1 or more)")
        target = int(words[0])
        if gdb.selected_inferior().pid:
            last = _int("radar_replay_last_local" if local else "radar_replay_last_number")
            if target <= last:
                raise gdb.GdbError("radar: event %d has been replayed already (last: %s)" % (target, _describe("last")))
        _request("radar_replay_stop_at_local" if local else "radar_replay_stop_at_number", target)
        _resume()


class NextMessageCommand(gdb.Command):
    """Run until just before the program's next send or receive."""

    def __init__(self):
        super().__init__("radar next-message", gdb.COMMAND_RUNNING)

    def invoke(self, argument, from_tty):
        _request("radar_replay_stop_on_message", 1)
        _resume()


# Stop requests made before the program (and the library) existed.
_PENDING = []


class _ReplayBreakpoint(gdb.Breakpoint):
    def __init__(self, function, stops):
        super().__init__(function, internal=True)
        self.silent = True
        self._stops = stops

    def stop(self):
        message = None
        try:
            message = _text("radar_replay_message")
        except gdb.error:
            pass
        if message:
            print(message)
        return self._stops()


def _select_program_frame(event):
    # Show the program's own code, not the hook and the library under it.
    if not isinstance(event, gdb.BreakpointEvent):
        return
    if not any(isinstance(b, _ReplayBreakpoint) for b in event.breakpoints):
        return
    frame = gdb.newest_frame()
    while frame is not None:
        name = gdb.solib_name(frame.pc()) or ""
        if LIBRARY not in name and "/libc.so" not in name and "/ld-linux" not in name:
            break
        frame = frame.older()
    if frame is not None:
        frame.select()
        gdb.execute("frame", to_string=False)


_BREAKPOINTS = []


def _after_load(event):
    # Once the library is mapped (before its constructor replays anything):
    # our breakpoints, and the requests made before `run`.
    if LIBRARY not in (event.new_objfile.filename or ""):
        return
    if not _BREAKPOINTS:
        _BREAKPOINTS.append(_ReplayBreakpoint("radar_replay_stop", lambda: True))
        _BREAKPOINTS.append(_ReplayBreakpoint("radar_replay_diverged", lambda: True))
        # The end of the recording: stop only where the program would now
        # wait for ever (it was blocked when the recording stopped); an exit
        # as recorded just says so.
        _BREAKPOINTS.append(
            _ReplayBreakpoint(
                "radar_replay_ended", lambda: _int("radar_replay_outcome", "unsigned int") == OUTCOME_BLOCKED
            )
        )
    for command in _PENDING:
        gdb.execute(command, to_string=True)
    del _PENDING[:]


RadarCommand()
EventCommand()
ContinueToCommand()
NextMessageCommand()
gdb.events.stop.connect(_select_program_frame)
gdb.events.new_objfile.connect(_after_load)
