#!/bin/sh
# Writes radar(1) and radar-COMMAND(1) for every command into DIR, each
# from the radar just built (radar help --man):
#   sh write_manual.sh RADAR DIR
set -e
radar=$1 dir=$2
mkdir -p "$dir"
"$radar" help --man > "$dir/radar.1"
for c in $("$radar" __complete 1 radar "" | tail -n +2); do
  "$radar" help --man "$c" > "$dir/radar-$c.1"
done
