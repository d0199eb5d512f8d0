#!/bin/sh
# Writes radar(1) and radar-COMMAND(1) for every command into DIR, each
# from the radar just built (radar help --man), and each compressed into
# GZ_DIR as Debian installs manual pages (gzip -9n: no name or time, so the
# same page gives the same bytes):
#   sh write_manual.sh RADAR DIR GZ_DIR
set -e
radar=$1 dir=$2 gz_dir=$3
mkdir -p "$dir" "$gz_dir"
"$radar" help --man > "$dir/radar.1"
for c in $("$radar" __complete 1 radar "" | tail -n +2); do
  "$radar" help --man "$c" > "$dir/radar-$c.1"
done
for page in "$dir"/*.1; do
  gzip -9n -c "$page" > "$gz_dir/$(basename "$page").gz"
done
