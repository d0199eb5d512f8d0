#!/usr/bin/env bash
# The README's first command: install what is missing, build, record the
# bundled `calc` sample (seed 002, Appendix J: scanner -> parser ->
# interpreter) on an expression, and open the replay. Without a display it
# prints the event narrative and writes a PNG of the replay view instead.
#   bash sample-programs/demo.sh ['EXPRESSION']
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../tests/bootstrap.sh"
cd "$RADAR_ROOT"
radar=build/bin/radar
expression=${1:-"(2 + 3) * x - 4 / 2"}
out=recordings/demo-calc

have() { "$radar" help "$1" >/dev/null 2>&1; }

if ! have record || [ ! -x build/bin/calc ]; then
  echo "radar: this build has no recorder yet; here is what it can do:" >&2
  "$radar" help
  exit 0
fi

rm -rf "$out"
mkdir -p "$(dirname "$out")"
echo "radar: recording calc on: $expression" >&2
echo "$expression" | "$radar" record --force -o "$out" -- build/bin/calc

if have events; then
  echo
  "$radar" events "$out"
fi
if have replay; then
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec "$radar" replay "$out"
  fi
  # An interesting moment: the first message sent between the workers.
  at=$("$radar" events "$out" 2>/dev/null | grep -n "sends a message to" | head -1 | cut -d: -f1)
  at=${at:-1}
  echo
  "$radar" replay "$out" --snapshot "$out/replay.png" --at-event "$at"
  echo "radar: no display; the replay view at event $at is in $out/replay.png" >&2
fi
