#!/usr/bin/env bash
# The merge at scale, side by side with the machine's own floor for the
# same logs in the same run.
#   bash tests/benchmarks/merge_benchmark.sh [PROCESSES EVENTS]...
#   (default: 100 10000000, then 1000 1000000)
# Each round, in turn: load + merge (in a child: its own peak); the floor,
# every log decompressed into fresh memory of the size that merge's peak
# was (merge_benchmark floor), so both pay this machine's page faults; and
# zstd -d > /dev/null on the same files, which touches no memory. ROUNDS
# times (default 5); the ratios are those of the medians: all sides see the
# same moments of a shared, noisy machine. For 100 processes x 10 M events
# it checks the targets (time <= 2 x the floor, <= 64 bytes per event and
# the same peak within 2 % in every round, display state near the end
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
  zstd_ms=() merge_ms=() floor_ms=() per_event=()
  for ((r = 1; r <= rounds; r++)); do
    out=$("$bench" merge "$dir")
    merge_ms+=($(echo "$out" | sed -n 's/^load + merge: \([0-9.]*\) s.*/\1/p' | awk '{printf "%d", $1 * 1000}'))
    peak=$(echo "$out" | sed -n 's/^peak memory of load + merge: \([0-9.]*\) MiB.*/\1/p' | awk '{printf "%d", $1 + 0.5}')
    per_event+=($(echo "$out" | sed -n 's/^peak memory of load + merge: .*, \([0-9.]*\) bytes per event/\1/p'))
    f=$("$bench" floor "$dir" "$peak")
    floor_ms+=($(echo "$f" | sed -n 's/^floor: \([0-9.]*\) s.*/\1/p' | awk '{printf "%d", $1 * 1000}'))
    t0=$(now); zstd -q -d -c "$dir"/*.rlog > /dev/null; t1=$(now)
    zstd_ms+=($(( (t1 - t0) / 1000000 )))
    echo "round $r: load + merge ${merge_ms[-1]} ms ($(echo "$out" | sed -n 's/^peak memory of load + merge: //p')), floor ${floor_ms[-1]} ms ($f), zstd -d ${zstd_ms[-1]} ms"
  done
  z=$(echo "${zstd_ms[@]}" | median) m=$(echo "${merge_ms[@]}" | median) fl=$(echo "${floor_ms[@]}" | median)
  read -r least most < <(echo "${per_event[@]}" | tr ' ' '\n' | sort -n | awk 'NR == 1 {l = $1} {m = $1} END {print l, m}')
  awk -v z="$z" -v m="$m" -v f="$fl" -v l="$least" -v h="$most" 'BEGIN {
    printf "medians: load + merge %d ms, floor %d ms, zstd -d %d ms\n", m, f, z
    printf "load + merge / floor: %.2f; load + merge / zstd -d: %.2f\n", m / f, m / z
    printf "peak: %s to %s bytes per event over the rounds (%.1f %% apart)\n", l, h, (h - l) * 100 / l }'
  out=$("$bench" run "$dir")
  echo "$out"
  rm -rf "$dir"
  # The targets, for the recording they are set for.
  if [ "$p" = 100 ] && [ "$e" = 10000000 ]; then
    display=$(echo "$out" | sed -n 's/^display state near the start: .* ratio \([0-9.]*\)/\1/p')
    verdict=$(awk -v f="$fl" -v m="$m" -v l="$least" -v b="$most" -v d="$display" 'BEGIN {
      ok = 1
      if (b == "" || d == "" || f == 0) { print "MISSED: the benchmark printed no figure to check"; exit }
      if (m / f > 2) { printf "MISSED: load + merge is %.2f times the floor (target 2)\n", m / f; ok = 0 }
      if (b > 64) { printf "MISSED: %s bytes per event in a round (target 64)\n", b; ok = 0 }
      if ((b - l) / l > 0.02) { printf "MISSED: the peak varies by %.1f %% between rounds (target 2)\n", (b - l) * 100 / l; ok = 0 }
      if (d > 2) { printf "MISSED: display state near the end costs %s times near the start (target 2)\n", d; ok = 0 }
      if (ok) print "targets met: time <= 2 x the floor, memory <= 64 bytes per event in every round, display ratio <= 2" }')
    echo "$verdict"
    case $verdict in MISSED*) failed=1 ;; esac
  fi
done
exit "${failed:-0}"
