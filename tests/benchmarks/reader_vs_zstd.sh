#!/usr/bin/env bash
# The log reader's speed as a ratio to `zstd -d` on the same file, measured
# side by side (alternating runs; the median of each).
#   bash tests/benchmarks/reader_vs_zstd.sh [RECORDS]   (default 5000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tool=$root/build/tests/benchmarks/radar_log_tool
records=${1:-5000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" generate "$work/log.rlog" "$records"
size=$(stat -c %s "$work/log.rlog")
now() { date +%s%N; }
zstd_times=() reader_times=()
for i in 1 2 3 4 5; do
  t0=$(now); zstd -q -d -c "$work/log.rlog" > /dev/null; t1=$(now)
  "$tool" read "$work/log.rlog" > /dev/null; t2=$(now)
  zstd_times+=($(( (t1 - t0) / 1000 ))) reader_times+=($(( (t2 - t1) / 1000 )))
done
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }
z=$(median "${zstd_times[@]}") r=$(median "${reader_times[@]}")
echo "records: $records, file: $size bytes"
echo "zstd -d:    $z us (median of 5)"
echo "LogReader:  $r us (median of 5)"
awk -v z="$z" -v r="$r" 'BEGIN { printf "reader speed / zstd -d speed: %.2f\n", z / r }'
