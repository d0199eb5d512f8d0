#!/usr/bin/env bash
# What one recorded call costs beyond the call itself, side by side in one
# run (alternating, median of N), pinned to one core: a process writing
# one byte to a pipe and reading it back, CALLS/2 times (no other process,
# no wake-up: the kernel's work per call is as small as it gets), bare,
# with an empty library preloaded (the floor of preloading anything), and
# under radar record (the byte kept, and with --payload-limit 0: nothing
# copied but the event). Prints the cost per recorded call in ns.
#   bash tests/benchmarks/call_cost.sh [RUNS]    (default 5)
# Environment: CALLS (default 2000000).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-5}
calls=${CALLS:-2000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
empty_preload
cat > "$work/loop.c" <<'EOF'
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char** argv) {
  long n = atol(argv[1]) / 2;
  int p[2];
  char b = 'x';
  if (pipe(p)) return 1;
  for (long i = 0; i < n; ++i)
    if (write(p[1], &b, 1) != 1 || read(p[0], &b, 1) != 1) return 1;
  return 0;
}
EOF
cc -O2 -o "$work/loop" "$work/loop.c"

for i in $(seq "$runs"); do
  time_ms bare taskset -c 0 "$work/loop" "$calls"
  time_ms empty taskset -c 0 env LD_PRELOAD="$work/empty.so" "$work/loop" "$calls"
  time_ms empty_none taskset -c 0 env LD_PRELOAD="$work/empty.so" "$work/loop" 0
  time_ms radar "$radar" record --force -o "$work/rec" -- taskset -c 0 "$work/loop" "$calls"
  time_ms radar0 "$radar" record --force --payload-limit 0 -o "$work/rec0" -- taskset -c 0 "$work/loop" "$calls"
  time_ms radar_none "$radar" record --force -o "$work/rec" -- taskset -c 0 "$work/loop" 0
done
# Beyond the floor, and beyond what radar record costs a program that
# makes no call (its start, and its reading of the logs at the end).
per_call() {
  awk -v a="$(median "$1")" -v a0="$(median radar_none)" -v b="$(median empty)" -v b0="$(median empty_none)" \
    -v n="$calls" 'BEGIN { printf "%.0f", ((a - a0) - (b - b0)) * 1e6 / n }'
}

printf '| %s calls, pinned (median of %s) | bare | floor: empty preload | radar record | --payload-limit 0 |\n' "$calls" "$runs"
printf '| --- | --- | --- | --- | --- |\n'
printf '| time | %s ms | %s ms | %s ms | %s ms |\n' "$(median bare)" "$(median empty)" "$(median radar)" "$(median radar0)"
printf '| the same program making no call | | %s ms | %s ms | |\n' "$(median empty_none)" "$(median radar_none)"
printf '| per recorded call, beyond the floor | | | %s ns | %s ns |\n' "$(per_call radar)" "$(per_call radar0)"
