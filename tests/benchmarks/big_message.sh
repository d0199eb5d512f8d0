#!/usr/bin/env bash
# One message of MIB MiB (default 100) sent in one write and read in 1 MiB
# reads: how long `radar events --decode` and `radar debug` of the reader
# take next to `radar check` of the same recording (target: at most 2x).
#   bash tests/benchmarks/big_message.sh [MIB] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RADAR_BUILD:-$root/build}
radar=$build/bin/radar
program=$build/tests/preload/programs/big_message
mib=${1:-100}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$radar" record -o "$work/rec" -- "$program" "$mib" > /dev/null 2>&1
root_pid=$(sed -n 's/^root_pid: //p' "$work/rec/recording.txt")
reader=$(ls "$work/rec" | grep '\.rlog$' | grep -v "^$root_pid-" | cut -d- -f1)
now() { date +%s%N; }
timed() {  # prints milliseconds
  local t0 t1
  t0=$(now)
  "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
  t1=$(now)
  echo $(( (t1 - t0) / 1000000 ))
}
printf '| round | radar check | radar events --decode | radar debug --no-gdb (reader) |\n|---|---|---|---|\n'
for r in $(seq "$rounds"); do
  c=$(timed "$radar" check "$work/rec")
  e=$(timed "$radar" events --decode "$work/rec")
  d=$(timed "$radar" debug --yes "$work/rec" "$reader" --no-gdb)
  awk -v r="$r" -v c="$c" -v e="$e" -v d="$d" \
    'BEGIN { printf "| %d | %d ms | %d ms (%.2fx) | %d ms (%.2fx) |\n", r, c, e, e / c, d, d / c }'
done
