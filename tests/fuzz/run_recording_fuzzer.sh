#!/usr/bin/env bash
# Runs the structure-aware recording fuzzer from its corpus. The corpus in
# the source tree is read, never written: what the run finds goes to
# WORKDIR.
#   run_recording_fuzzer.sh FUZZER CORPUS_DIR WORKDIR SECONDS [RUNS]
# With RUNS (as ctest runs it), a fixed seed and that many inputs: the same
# run every time, so that a failure is the code's, not the draw's; without,
# as long as SECONDS allow, from a new seed (to explore).
set -euo pipefail
fuzzer=$1 corpus=$2 work=$3 seconds=$4 runs=${5:-}
rm -rf "$work"
mkdir -p "$work/found"
cd "$work"
fixed=()
[ -n "$runs" ] && fixed=(-seed=1 -runs="$runs")
exec "$fuzzer" "${fixed[@]}" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 -timeout=20 \
  -print_final_stats=1 found "$corpus"
