#!/usr/bin/env bash
# The merge at scale, side by side with `zstd -d` on the same files.
#   bash tests/benchmarks/merge_benchmark.sh [PROCESSES EVENTS]...
#   (default: 100 10000000, then 1000 1000000)
# zstd -d and load + merge run in turn, ROUNDS times (default 5), and the
# ratio is that of their medians: both see the same moments of a shared,
# noisy machine.
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
  "$bench" run "$dir"
  rm -rf "$dir"
done
