#!/usr/bin/env bash
# radar critical-path and radar patterns at scale, beside radar stats on
# the same recording (what loading and merging it costs):
#   - the critical path of the last event of 100 processes x 10 M events
#     (merge_benchmark's ring of pipes), and the patterns of that run;
#   - the interactions of a server answering 100 clients, 1 M times (4 M
#     events).
#   bash tests/benchmarks/analysis_benchmark.sh [EVENTS [INTERACTIONS]]
# Each command runs ROUNDS times (default 3) in turn; medians. Checks the
# targets of docs/performance.md (critical path <= 2 s beyond the merge,
# the decomposition of 1 M interactions <= 5 s beyond it, patterns <= 10 s
# and 64 bytes per event beyond it) and exits 1 when one is missed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
bench=$root/build/tests/benchmarks/merge_benchmark
rounds=${ROUNDS:-3}
events=${1:-10000000} interactions=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bench" generate "$work/ring" 100 "$events" >/dev/null
"$bench" generate-rpc "$work/rpc" 100 "$interactions" >/dev/null
cat "$work"/ring/*.rlog "$work"/rpc/*.rlog > /dev/null
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err"; exit 1; }
  cat "$work/time"
}
ring_stats=() ring_path=() rpc_stats=() rpc_inter=() rss_stats=() rss_path=() ring_pat=() rss_pat=()
for ((r = 1; r <= rounds; r++)); do
  read -r s m < <(measure "$bin/radar" stats "$work/ring"); ring_stats+=("$s"); rss_stats+=("$m")
  read -r s m < <(measure "$bin/radar" critical-path "$work/ring"); ring_path+=("$s"); rss_path+=("$m")
  path_line=$(sed -n 3p "$work/out")
  read -r s m < <(measure "$bin/radar" patterns "$work/ring"); ring_pat+=("$s"); rss_pat+=("$m")
  pattern_line=$(sed -n 3p "$work/out")
  read -r s m < <(measure "$bin/radar" stats "$work/rpc"); rpc_stats+=("$s")
  read -r s m < <(measure "$bin/radar" critical-path --interactions "$work/rpc"); rpc_inter+=("$s")
  inter_line=$(head -1 "$work/out")
  echo "round $r: ring: stats ${ring_stats[-1]} s, critical-path ${ring_path[-1]} s, patterns ${ring_pat[-1]} s; rpc: stats ${rpc_stats[-1]} s, --interactions ${rpc_inter[-1]} s"
done
A=$(echo "${ring_stats[@]}" | median) B=$(echo "${ring_path[@]}" | median)
C=$(echo "${rpc_stats[@]}" | median) D=$(echo "${rpc_inter[@]}" | median)
RS=$(echo "${rss_stats[@]}" | median) RP=$(echo "${rss_path[@]}" | median)
E=$(echo "${ring_pat[@]}" | median) RT=$(echo "${rss_pat[@]}" | median)
echo "ring of 100 processes, $events events: $path_line"
echo "rpc, 100 clients: $inter_line"
echo "ring, the largest pattern: $pattern_line"
awk -v a="$A" -v b="$B" -v c="$C" -v d="$D" -v rs="$RS" -v rp="$RP" -v e="$events" -v pt="$E" -v rt="$RT" '
BEGIN {
  printf "medians: ring: stats %.2f s, critical-path %.2f s: %.2f s beyond the merge\n", a, b, b - a
  printf "         ring: patterns %.2f s: %.2f s beyond the merge\n", pt, pt - a
  printf "         rpc: stats %.2f s, critical-path --interactions %.2f s: %.2f s beyond the merge\n", c, d, d - c
  printf "peak memory: stats %.0f MiB, critical-path %.0f MiB: %.1f bytes per event beyond the merge\n", rs / 1024, rp / 1024, (rp - rs) * 1024 / e
  printf "             patterns %.0f MiB: %.1f bytes per event beyond the merge\n", rt / 1024, (rt - rs) * 1024 / e
  bad = 0
  if (b - a > 2) { print "MISSED: the critical path takes more than 2 s beyond the merge"; bad = 1 }
  if (d - c > 5) { print "MISSED: the interactions take more than 5 s beyond the merge"; bad = 1 }
  if (pt - a > 10) { print "MISSED: the patterns take more than 10 s beyond the merge"; bad = 1 }
  if ((rt - rs) * 1024 / e > 64) { print "MISSED: the patterns take more than 64 bytes per event beyond the merge"; bad = 1 }
  exit bad
}'
