#!/usr/bin/env bash
# What recording a program's writes to a file costs (each is kept as its
# length and checksum, an OUTPUT record), side by side in one run
# (alternating, median of N), against its floors:
#   dd         dd writing COUNT blocks of BS bytes to a regular file:
#              bare, with an empty library preloaded (the floor of
#              preloading anything), and under radar record
#   cat        cat copying that file (copy_file_range, checksummed from the
#              source): bare and under radar record
#   log bytes  what the recording of the dd run takes per write
#   bash tests/benchmarks/file_writes.sh [RUNS]    (default 5)
# Environment: BS (default 4096), COUNT (default 100000) override the sizes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-5}
bs=${BS:-4096} count=${COUNT:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
empty_preload
dd_to() { dd if=/dev/zero of="$1" bs="$bs" count="$count" status=none; }

for i in $(seq "$runs"); do
  time_ms dd_bare dd_to "$work/out"
  time_ms dd_empty env LD_PRELOAD="$work/empty.so" dd if=/dev/zero of="$work/out" bs="$bs" count="$count" status=none
  time_ms dd_radar "$radar" record --force -o "$work/rec" -- dd if=/dev/zero of="$work/out" bs="$bs" count="$count" status=none
  time_ms cat_bare sh -c "cat '$work/out' > '$work/copy'"
  time_ms cat_radar "$radar" record --force -o "$work/rec2" -- sh -c "cat '$work/out' > '$work/copy'"
done
"$radar" record --force -o "$work/rec" -- dd if=/dev/zero of="$work/out" bs="$bs" count="$count" status=none > /dev/null 2>&1
log_bytes=$(du -bc "$work"/rec/*.rlog | tail -1 | cut -f1)
mib=$(( bs * count / 1048576 ))

printf '| workload | bare | radar record | ratio | floor: empty preload | ratio |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
printf '| dd, %s writes of %s bytes to a file (%s MiB) | %s ms | %s ms | %s× | %s ms | %s× |\n' "$count" "$bs" "$mib" \
  "$(median dd_bare)" "$(median dd_radar)" "$(ratio dd_radar dd_bare)" "$(median dd_empty)" "$(ratio dd_empty dd_bare)"
printf '| cat of that file to another (copy_file_range) | %s ms | %s ms | %s× | | |\n' \
  "$(median cat_bare)" "$(median cat_radar)" "$(ratio cat_radar cat_bare)"
printf '| log of the dd run | | %s bytes, %s per write | | | |\n' "$log_bytes" \
  "$(awk -v b="$log_bytes" -v n="$count" 'BEGIN { printf "%.1f", b / n }')"
