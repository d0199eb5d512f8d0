#!/usr/bin/env bash
# Runs the netdesc fuzzer for a bounded time (ctest), seeded with the
# sample programs' descriptions (parsed) and a few messages (decoded).
#   run_netdesc_fuzzer.sh FUZZER SOURCE_DIR WORKDIR SECONDS
set -euo pipefail
fuzzer=$1 source=$2 work=$3 seconds=$4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/seeds"
n=0
for f in "$source"/sample-programs/*.netdesc "$source"/tests/netdesc/data/*.netdesc; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  { printf '\x00'; cat "$f"; } > "$work/seeds/description$n"
done
for k in 1 3 5 7 9 11 13; do
  printf "\\x$(printf %02x $k)\\x00\\x05hello\\x00\\x02ab\\n\\x01\\x02\\x03\\x04\\x05\\x06\\x07" > "$work/seeds/message$k"
done
cd "$work"
exec "$fuzzer" -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 corpus seeds
