#!/usr/bin/env bash
# radar events --follow on a program that goes on, in one run: how soon each
# event is told after its call returned (p50, p99: the lines as they are
# read, against the times the JSON gives), and what following cost in CPU
# against its floor, telling the finished recording once.
#   bash tests/benchmarks/live_follow.sh [TICKS] [INTERVAL_MS]   (default 2000 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
ticker=$root/build/tests/preload/programs/ticker
ticks=${1:-2000} interval=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$radar" record -o "$work/rec" -- "$ticker" "$interval" "$ticks" > /dev/null 2>&1 &
/usr/bin/time -f '%U %S' -o "$work/follow.cpu" "$radar" events --follow --json "$work/rec" |
  python3 -c '
import json, sys, time
late = []
for line in sys.stdin:
    now = time.time_ns()
    e = json.loads(line)
    late.append((now - e["time_ns"] - e["duration_ns"]) / 1e6)
late.sort()
n = len(late)
print(n, late[n // 2], late[min(n - 1, n * 99 // 100)])' > "$work/late"
wait
/usr/bin/time -f '%U %S' -o "$work/once.cpu" "$radar" events --json "$work/rec" > /dev/null
read -r events p50 p99 < "$work/late"
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
printf '| events --follow, %s ticks %s ms apart | events | told after the call (p50) | (p99) | CPU following | floor: telling it once | ratio |\n' "$ticks" "$interval"
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
printf '| | %s | %.0f ms | %.0f ms | %s s | %s s | %s× |\n' "$events" "$p50" "$p99" "$(cpu "$work/follow.cpu")" \
  "$(cpu "$work/once.cpu")" "$(awk -v a="$(cpu "$work/follow.cpu")" -v b="$(cpu "$work/once.cpu")" 'BEGIN { printf "%.0f", a / b }')"
