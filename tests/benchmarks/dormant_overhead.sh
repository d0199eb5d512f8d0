#!/usr/bin/env bash
# What a program costs while radar record --dormant waits for radar attach,
# side by side in one run (alternating, median of N), against its floor:
#   ping-pong  ROUNDS round trips of 64 bytes over a socketpair, pinned to one
#              core: bare; with an empty library preloaded (the floor of
#              preloading anything); with radar's interposer preloaded but
#              switched off (no RADAR_DIR: the floor of interposing the
#              calls); under radar record --dormant (never attached); and
#              under radar record
#   bash tests/benchmarks/dormant_overhead.sh [RUNS]    (default 5)
# Environment: ROUNDS (default 200000).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
pingpong=$root/build/tests/preload/programs/pingpong
interposer=$root/build/lib/radar/libradar-preload.so
runs=${1:-5}
rounds=${ROUNDS:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
empty_preload

for i in $(seq "$runs"); do
  time_ms bare taskset -c 0 "$pingpong" "$rounds"
  time_ms empty taskset -c 0 env LD_PRELOAD="$work/empty.so" "$pingpong" "$rounds"
  time_ms off taskset -c 0 env LD_PRELOAD="$interposer" "$pingpong" "$rounds"
  time_ms dormant taskset -c 0 "$radar" record --force --dormant -o "$work/dormant-rec" -- "$pingpong" "$rounds"
  time_ms recorded taskset -c 0 "$radar" record --force -o "$work/recorded-rec" -- "$pingpong" "$rounds"
done

printf '| ping-pong, %s round trips, pinned (median of %s) | bare | floor: empty preload | floor: interposer off | radar record --dormant | radar record |\n' "$rounds" "$runs"
printf '| --- | --- | --- | --- | --- | --- |\n'
printf '| time | %s ms | %s ms (%s×) | %s ms (%s×) | %s ms (%s×) | %s ms (%s×) |\n' "$(median bare)" \
  "$(median empty)" "$(ratio empty bare 3)" "$(median off)" "$(ratio off bare 3)" "$(median dormant)" "$(ratio dormant bare 3)" \
  "$(median recorded)" "$(ratio recorded bare 3)"
