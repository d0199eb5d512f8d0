#!/usr/bin/env bash
# What the re-run's sandbox costs radar debug: the same re-run with and
# without it (--no-sandbox), alternated, RUNS times each, side by side in one
# run; medians of the time until the program starts (RADAR_DEBUG_TIMING=1)
# and of radar debug's whole run. The floor: a bare fork and exec of the
# same program (true), measured in the same run.
#   bash tests/benchmarks/sandbox_overhead.sh [RUNS]    (default 20)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", (b - a) / 1e6 }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
median() { sort -n "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "1 + 2" | "$radar" record -o "$work/rec" -- "$root/build/bin/calc" > /dev/null 2>&1
once() {  # NAME [OPTION]
  local name=$1 t0 t1 line
  shift
  t0=$(now)
  line=$(RADAR_DEBUG_TIMING=1 "$radar" debug --yes "$work/rec" interpreter --no-gdb "$@" 2>&1 >/dev/null | grep 'timing:')
  t1=$(now)
  ms "$t0" "$t1" >> "$work/$name.total"
  echo "$line" | sed -E 's/.*script built ([0-9.]+) ms, program started ([0-9.]+) ms.*/\2 \1/' |
    awk '{ printf "%.1f\n", $1 - $2 }' >> "$work/$name.start"
}
for i in $(seq "$runs"); do
  once sandboxed
  once plain --no-sandbox
  t0=$(now); /bin/true; t1=$(now)
  ms "$t0" "$t1" >> "$work/floor"
done
printf '| | script written → program started | radar debug in all |\n| --- | --- | --- |\n'
printf '| `--no-sandbox` | %s ms | %s ms |\n' "$(median plain.start)" "$(median plain.total)"
printf '| sandboxed | %s ms | %s ms |\n' "$(median sandboxed.start)" "$(median sandboxed.total)"
printf '| the sandbox adds | %s ms | %s ms |\n' \
  "$(minus "$(median sandboxed.start)" "$(median plain.start)")" "$(minus "$(median sandboxed.total)" "$(median plain.total)")"
printf '\nfloor: fork and exec of /bin/true from the shell: %s ms (median of %d)\n' "$(median floor)" "$runs"
