#!/usr/bin/env bash
# Where a ping-pong log's bytes go: radar record of the ping-pong with no
# payload kept, then each field's share of one log once compressed.
#   bash tests/benchmarks/log_field_cost.sh    (ROUNDS: default 200000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$root/build/bin/radar" record --payload-limit 0 -o "$work/rec" -- \
  "$root/build/tests/preload/programs/pingpong" "${ROUNDS:-200000}" > /dev/null 2>&1
log=$(ls "$work"/rec/*.rlog | head -1)
python3 "$root/tests/benchmarks/log_field_cost.py" "$log"
