#!/usr/bin/env bash
# radar debug: how long until the re-run process replays its first recorded
# event, and how fast it replays, against the original (uninstrumented) run
# of the whole program, side by side in one run (median of N).
#   ping-pong  ROUNDS round trips of 64 bytes between two processes
#   bulk       BULK_MIB MiB through a pipe in 64 KiB writes
# Each process image of each recording is re-run with --no-gdb; its times
# come from RADAR_DEBUG_TIMING=1.
#   bash tests/benchmarks/debug_overhead.sh [RUNS]    (default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
programs=$root/build/tests/preload/programs
runs=${1:-3}
rounds=${ROUNDS:-200000} mib=${BULK_MIB:-256}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
median() { sort -n "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
plain() {  # NAME COMMAND...: the original run, uninstrumented
  local name=$1 t0 t1
  shift
  t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$work/$name"
}
rerun() {  # NAME DIR IMAGE: radar debug --no-gdb, with its timing
  local name=$1 dir=$2 image=$3 t0 t1 line
  t0=$(now)
  line=$(RADAR_DEBUG_TIMING=1 "$radar" debug --yes "$dir" "$image" --no-gdb 2>&1 >/dev/null | grep 'timing:')
  t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$work/$name.total"
  echo "$line" | sed -E 's/.*first event ([0-9.]+) ms.*/\1/' >> "$work/$name.first"
  echo "$line" | sed -E 's/.*first event ([0-9.]+) ms, last event ([0-9.]+) ms.*/\2 \1/' |
    awk '{ printf "%.0f\n", $1 - $2 }' >> "$work/$name.replay"
  echo "$line" | sed -E 's/.*, ([0-9]+) events/\1/' > "$work/$name.events"
}

"$radar" record -o "$work/pp" -- "$programs/pingpong" "$rounds" > /dev/null 2>&1
"$radar" record -o "$work/bulk" -- "$programs/bulk" "$mib" > /dev/null 2>&1
images() { ls "$1" | sed -n 's/^\([0-9]*\)-\([0-9]*\)-.*\.rlog$/\1.\2/p'; }
pp_images=$(images "$work/pp")
bulk_images=$(images "$work/bulk")

for i in $(seq "$runs"); do
  plain pp_plain "$programs/pingpong" "$rounds"
  plain bulk_plain "$programs/bulk" "$mib"
  k=0; for img in $pp_images; do rerun "pp$k" "$work/pp" "$img"; k=$((k + 1)); done
  k=0; for img in $bulk_images; do rerun "bulk$k" "$work/bulk" "$img"; k=$((k + 1)); done
done

row() {  # WORKLOAD PLAIN PREFIX COUNT
  local workload=$1 plain_ms k
  plain_ms=$(median "$2")
  for k in $(seq 0 $(( $4 - 1 ))); do
    local replay
    replay=$(median "$3$k.replay")
    printf '| %s, process %d of %d (%s events) | %s ms | %s ms | %s ms | %s ms | %s× |\n' "$workload" $((k + 1)) "$4" \
      "$(cat "$work/$3$k.events")" "$plain_ms" "$(median "$3$k.first")" "$replay" "$(median "$3$k.total")" \
      "$(awk -v a="$replay" -v b="$plain_ms" 'BEGIN { printf "%.2f", a / b }')"
  done
}
printf '| workload | original run (whole program) | re-run: to its first event | re-run: replaying | radar debug in all | replaying / original |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
row "ping-pong $rounds round trips" pp_plain pp "$(echo "$pp_images" | wc -w)"
row "bulk $mib MiB" bulk_plain bulk "$(echo "$bulk_images" | wc -w)"
