#!/usr/bin/env bash
# radar diff at scale: two identical recordings of 100 processes x EVENTS
# (merge_benchmark's ring of pipes, generated twice), `radar stats A` (one
# load and merge) and `radar diff A B`, in turn, ROUNDS times (default 3);
# medians. Checks the target of docs/performance.md (radar diff <= 3 x one
# merge) and exits 1 when it is missed.
#   bash tests/benchmarks/diff_benchmark.sh [EVENTS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
bench=$root/build/tests/benchmarks/merge_benchmark
rounds=${ROUNDS:-3}
events=${1:-10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bench" generate "$work/a" 100 "$events" >/dev/null
"$bench" generate "$work/b" 100 "$events" >/dev/null
cat "$work"/a/*.rlog "$work"/b/*.rlog >/dev/null
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
seconds() {
  local status=0
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || status=$?
  # radar diff exits 1 when the runs part: these do not.
  if ((status != 0)); then cat "$work/err" "$work/out"; exit 1; fi
  cat "$work/time"
}
stats=() diffs=() rss=()
for ((r = 1; r <= rounds; r++)); do
  read -r s _ < <(seconds "$bin/radar" stats "$work/a"); stats+=("$s")
  read -r s m < <(seconds "$bin/radar" diff "$work/a" "$work/b"); diffs+=("$s"); rss+=("$m")
  echo "round $r: stats ${stats[-1]} s, diff ${diffs[-1]} s"
done
head -1 "$work/out"
S=$(echo "${stats[@]}" | median) D=$(echo "${diffs[@]}" | median) M=$(echo "${rss[@]}" | median)
awk -v s="$S" -v d="$D" -v m="$M" -v e="$events" 'BEGIN {
  printf "medians: stats %.2f s, diff %.2f s = %.2f x one merge; diff peak memory %.0f MiB (%.1f bytes per event of both runs)\n", s, d, d / s, m / 1024, m * 1024 / (2 * e)
  if (d / s > 3) { print "MISSED: radar diff takes more than 3 x one merge"; exit 1 }
}'
