#!/usr/bin/env bash
# What radar record --flight costs a program, against radar record as
# always, side by side in one run (alternating, median of N), with the
# machine's floors measured in the same run:
#   ping-pong  ROUNDS round trips of 64 bytes over a socketpair, the program
#              pinned to one core: bare; with an empty library preloaded (the
#              floor of preloading anything); under radar record; under radar
#              record --flight 1M (the logs trimmed to their last megabyte
#              while the program runs, by radar record, free to use the other
#              core as it is in both)
#   bash tests/benchmarks/flight_overhead.sh [RUNS]    (default 5)
# Environment: ROUNDS (default 200000).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
pingpong=$root/build/tests/preload/programs/pingpong
runs=${1:-5}
rounds=${ROUNDS:-200000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
empty_preload

for i in $(seq "$runs"); do
  time_ms bare taskset -c 0 "$pingpong" "$rounds"
  time_ms empty taskset -c 0 env LD_PRELOAD="$work/empty.so" "$pingpong" "$rounds"
  time_ms recorded "$radar" record --force -o "$work/recorded-rec" -- taskset -c 0 "$pingpong" "$rounds"
  time_ms flight "$radar" record --force --flight 1M -o "$work/flight-rec" -- taskset -c 0 "$pingpong" "$rounds"
done
kept=$(du -k "$work"/flight-rec/*.rlog | sort -n | tail -1 | cut -f1)
whole=$(du -k "$work"/recorded-rec/*.rlog | sort -n | tail -1 | cut -f1)

printf '| ping-pong, %s round trips, pinned (median of %s) | bare | floor: empty preload | radar record | radar record --flight 1M |\n' "$rounds" "$runs"
printf '| --- | --- | --- | --- | --- |\n'
printf '| time | %s ms | %s ms (%s×) | %s ms (%s×) | %s ms (%s×; %s× radar record) |\n' "$(median bare)" \
  "$(median empty)" "$(ratio empty bare 3)" "$(median recorded)" "$(ratio recorded bare 3)" \
  "$(median flight)" "$(ratio flight bare 3)" "$(ratio flight recorded 3)"
printf '| largest log on disk | | | %s KiB | %s KiB |\n' "$whole" "$kept"
