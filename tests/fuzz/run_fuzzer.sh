#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time from seed logs (ctest), and
# first on the inputs that once failed it (REGRESSIONS, read only).
#   run_fuzzer.sh FUZZER SEED_MAKER WORKDIR SECONDS [REGRESSIONS]
set -euo pipefail
fuzzer=$1 make_seeds=$2 work=$3 seconds=$4 regressions=${5:-}
rm -rf "$work"
mkdir -p "$work/corpus" "$work/seeds"
"$make_seeds" "$work/seeds"
cd "$work"
exec "$fuzzer" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -print_final_stats=1 corpus seeds ${regressions:+"$regressions"}
