#!/usr/bin/env bash
# No thread waits by spinning: a loop around yield() or sched_yield() takes
# the core the awaited thread needs on a machine of two cores shared with a
# build (a fuzzer timed out so). Waits block: std::latch, std::atomic::wait,
# sys::FutexLock. Prints each spinning wait, and fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^tests/')
else
  mapfile -t files < <(find radarlog replay-gui single-process-driver netdesc sample-programs -name '*.cc' -o -name '*.h' -o -name '*.c')
fi
hits=$(grep -nE '(this_thread::yield|sched_yield|pthread_yield)[[:space:]]*\(' "${files[@]}")
if [ -n "$hits" ]; then
  echo "$hits" | sed 's/$/  <- a wait that spins: block instead (std::atomic::wait, sys::FutexLock)/'
  exit 1
fi
echo "${#files[@]} sources: no wait spins"
