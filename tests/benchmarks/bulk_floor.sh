#!/usr/bin/env bash
# Bulk recording against its floor, side by side in one run (alternating,
# median of N): BULK_MIB MiB through a pipe in 64 KiB writes,
#   bare    the program alone
#   floor   the program alone, then dd writing the same number of bytes in
#           the same chunk size to a file on the same file system (what
#           keeping the payload costs the machine at least)
#   radar   radar record of the program, payload recorded
# The recording and dd's file are removed after each run, and what is
# dirty written back before the next, so every run writes into the same
# free space and a clean page cache.
#   bash tests/benchmarks/bulk_floor.sh [RUNS]    (default 5)
# Environment: BULK_MIB (default 2048); TMPDIR picks the file system;
# PIN=1 runs everything on one core (the pipe's two ends then take turns,
# and the cross-core wake-ups that make unpinned runs vary are gone).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
bulk=$root/build/tests/preload/programs/bulk
runs=${1:-5}
mib=${BULK_MIB:-2048}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
chunks=$((mib * 16))
pin=()
[ "${PIN:-0}" = 1 ] && pin=(taskset -c 0)
floor() {
  "${pin[@]}" "$bulk" "$mib" && "${pin[@]}" dd if=/dev/zero of="$work/dd.out" bs=64k count="$chunks" status=none
}

for i in $(seq "$runs"); do
  sync
  time_ms bare "${pin[@]}" "$bulk" "$mib"
  sync
  time_ms floor floor
  rm -f "$work/dd.out"
  sync
  time_ms radar "${pin[@]}" "$radar" record --force -o "$work/rec" -- "$bulk" "$mib"
  kept=$(du -sm "$work/rec" | cut -f1)
  rm -rf "$work/rec"
done

printf '| bulk %s MiB through a pipe, 64 KiB writes | bare | floor: bare + dd of %s MiB | radar record | radar / floor | radar / bare | log size |\n' "$mib" "$mib"
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
printf '| %s | %s ms | %s ms | %s ms | **%s×** | %s× | %s MiB |\n' "$(df --output=fstype "$work" | tail -1)${pin:+, pinned}" \
  "$(median bare)" "$(median floor)" "$(median radar)" "$(ratio radar floor)" "$(ratio radar bare)" "$kept"
