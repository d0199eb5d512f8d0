#!/usr/bin/env bash
# The merge at scale, side by side with `zstd -d` on the same files.
#   bash tests/benchmarks/merge_benchmark.sh [PROCESSES EVENTS]...
#   (default: 100 10000000, then 1000 1000000)
# zstd -d and load + merge run in turn, ROUNDS times (default 5), and the
# ratio is that of their medians: both see the same moments of a shared,
# noisy machine. For 100 processes x 10 M events it checks the targets
# (time <= 3 x zstd -d, <= 64 bytes per event, display state near the end
# <= 2 x near the start) and exits 1 when one is missed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$root/build/tests/benchmarks/merge_benchmark
rounds=${ROUNDS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(100 10000000 1000 1000000)
now() { date +%s%N; }
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
"$bench" touch 1024
while [ ${#configs[@]} -ge 2 ]; do
  p=${configs[0]} e=${configs[1]}
  configs=("${configs[@]:2}")
  dir=$work/rec-$p-$e
  "$bench" generate "$dir" "$p" "$e"
  echo "== $p processes, $e events: $(du -sh --apparent-size "$dir" | cut -f1) of logs"
  cat "$dir"/*.rlog > /dev/null  # in the page cache for both
  zstd_ms=() merge_ms=()
  for ((r = 1; r <= rounds; r++)); do
    t0=$(now); zstd -q -d -c "$dir"/*.rlog > /dev/null; t1=$(now)
    zstd_ms+=($(( (t1 - t0) / 1000000 )))
    out=$("$bench" merge "$dir")
    merge_ms+=($(echo "$out" | sed -n 's/^load + merge: \([0-9.]*\) s.*/\1/p' | awk '{printf "%d", $1 * 1000}'))
    echo "round $r: zstd -d ${zstd_ms[-1]} ms, load + merge ${merge_ms[-1]} ms ($(echo "$out" | sed -n 's/^peak memory of load + merge: //p'))"
  done
  z=$(echo "${zstd_ms[@]}" | median) m=$(echo "${merge_ms[@]}" | median)
  awk -v z="$z" -v m="$m" 'BEGIN { printf "medians: zstd -d %d ms, load + merge %d ms; load + merge / zstd -d: %.2f\n", z, m, m / z }'
  out=$("$bench" run "$dir")
  echo "$out"
  rm -rf "$dir"
  # The targets, for the recording they are set for.
  if [ "$p" = 100 ] && [ "$e" = 10000000 ]; then
    per_event=$(echo "$out" | sed -n 's/^peak memory of load + merge: .*, \([0-9.]*\) bytes per event/\1/p')
    display=$(echo "$out" | sed -n 's/^display state near the start: .* ratio \([0-9.]*\)/\1/p')
    verdict=$(awk -v z="$z" -v m="$m" -v b="$per_event" -v d="$display" 'BEGIN {
      ok = 1
      if (b == "" || d == "" || z == 0) { print "MISSED: the benchmark printed no figure to check"; exit }
      if (m / z > 3) { printf "MISSED: load + merge is %.2f times zstd -d (target 3)\n", m / z; ok = 0 }
      if (b > 64) { printf "MISSED: %s bytes per event (target 64)\n", b; ok = 0 }
      if (d > 2) { printf "MISSED: display state near the end costs %s times near the start (target 2)\n", d; ok = 0 }
      if (ok) print "targets met: time <= 3 x zstd -d, memory <= 64 bytes per event, display ratio <= 2" }')
    echo "$verdict"
    case $verdict in MISSED*) failed=1 ;; esac
  fi
done
exit "${failed:-0}"
