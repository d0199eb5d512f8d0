#!/usr/bin/env bash
# Data never goes back a stage: a log is opened (log/reader.h) only by the
# log library itself, the recorder, the loader that makes a trace of a
# recording, the re-run's script builder (it feeds one image exactly what
# its own log holds, outputs and header included, which no trace keeps)
# and radar dump. Every later stage reads the trace the loader made.
# Prints each other source that includes it, and fails.
#
#   check_log_readers.sh [ROOT]   ROOT: the tree to check (default: this one)
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2
allowed='^(radarlog/log/|radarlog/record/|replay-gui/trace/load\.cc$|replay-gui/trace/trace\.cc$|single-process-driver/driver/script_builder\.cc$|radarlog/cli/dump_command\.cc$)'
if git rev-parse --is-inside-work-tree > /dev/null 2>&1 && [ -z "${1:-}" ]; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^tests/\|^sample-programs/')
else
  mapfile -t files < <(find radarlog replay-gui single-process-driver netdesc \( -name '*.cc' -o -name '*.h' -o -name '*.c' \) \
    2> /dev/null | sed 's|^\./||')
fi
bad=0
for f in "${files[@]}"; do
  [[ $f =~ $allowed ]] && continue
  if line=$(grep -n '^#include "log/reader.h"' "$f"); then
    echo "$f:${line%%:*}: opens logs (log/reader.h): a stage after the loader reads the trace instead"
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "${#files[@]} sources: only the loader, the recorder, the re-run's script and radar dump open logs"
exit "$bad"
