#!/usr/bin/env bash
# The merge at scale, side by side with `zstd -d` on the same files.
#   bash tests/benchmarks/merge_benchmark.sh [PROCESSES EVENTS]...
#   (default: 100 10000000, then 1000 1000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$root/build/tests/benchmarks/merge_benchmark
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(100 10000000 1000 1000000)
now() { date +%s%N; }
"$bench" touch 1024
while [ ${#configs[@]} -ge 2 ]; do
  p=${configs[0]} e=${configs[1]}
  configs=("${configs[@]:2}")
  dir=$work/rec-$p-$e
  "$bench" generate "$dir" "$p" "$e"
  echo "== $p processes, $e events: $(du -sh --apparent-size "$dir" | cut -f1) of logs"
  cat "$dir"/*.rlog > /dev/null  # in the page cache for both
  t0=$(now); zstd -q -d -c "$dir"/*.rlog > /dev/null; t1=$(now)
  out=$("$bench" run "$dir")
  echo "$out"
  load=$(echo "$out" | sed -n 's/^load + merge: \([0-9.]*\) s.*/\1/p')
  awk -v z=$(( (t1 - t0) / 1000000 )) -v l="$load" 'BEGIN {
    printf "zstd -d of the same files: %d ms; load + merge / zstd -d: %.2f\n", z, l * 1000 / z }'
  rm -rf "$dir"
done
