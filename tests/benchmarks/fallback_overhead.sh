#!/usr/bin/env bash
# What the fallback recorder (ptrace) costs, side by side in one run
# (alternating, median of N), against the floor of any ptrace tool here:
#   ping-pong  ROUNDS round trips of 64 bytes over a socketpair, pinned to
#              one core: bare; under strace -f (every call stopped and
#              printed: the floor a ptrace recorder is held to); under
#              radar record with the interposer; with the fallback
#              (--fallback always); and its static build under radar
#              record (the fallback, as a static program gets it)
#   bash tests/benchmarks/fallback_overhead.sh [RUNS]    (default 5)
# Environment: ROUNDS (default 20000).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
pingpong=$root/build/tests/preload/programs/pingpong
runs=${1:-5}
rounds=${ROUNDS:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v strace > /dev/null || { echo "fallback_overhead.sh: strace is not installed (apt-get install strace)" >&2; exit 1; }
# The ping-pong, statically linked, as a user's static build would be.
cc -O1 -static -D_GNU_SOURCE -o "$work/pingpong-static" "$root/tests/preload/programs/pingpong.c" -I"$root/tests/preload/programs" -I"$root/radarlog/include"

source "$root/tests/benchmarks/timing.sh"

for i in $(seq "$runs"); do
  time_ms bare taskset -c 0 "$pingpong" "$rounds"
  time_ms strace taskset -c 0 strace -f -o /dev/null "$pingpong" "$rounds"
  time_ms interposer taskset -c 0 "$radar" record --force -o "$work/interposer-rec" -- "$pingpong" "$rounds"
  time_ms fallback taskset -c 0 "$radar" record --force --fallback always -o "$work/fallback-rec" -- "$pingpong" "$rounds"
  time_ms static taskset -c 0 "$radar" record --force -o "$work/static-rec" -- "$work/pingpong-static" "$rounds"
done

printf '| ping-pong, %s round trips, pinned (median of %s) | bare | floor: strace -f | radar record (interposer) | radar record --fallback always | a static build, radar record |\n' "$rounds" "$runs"
printf '| --- | --- | --- | --- | --- | --- |\n'
printf '| time | %s ms | %s ms (%s×) | %s ms (%s×) | %s ms (%s×) | %s ms (%s×) |\n' "$(median bare)" \
  "$(median strace)" "$(ratio strace bare 2)" "$(median interposer)" "$(ratio interposer bare 2)" \
  "$(median fallback)" "$(ratio fallback bare 2)" "$(median static)" "$(ratio static bare 2)"
printf 'fallback against strace -f: %s×\n' "$(ratio fallback strace 2)"
