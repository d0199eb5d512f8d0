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
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$here/../.." && pwd)}
cd "$root" || exit 2
allowed='^(radarlog/log/|radarlog/record/|replay-gui/trace/load\.cc$|replay-gui/trace/trace\.cc$|single-process-driver/driver/script_builder\.cc$|radarlog/cli/dump_command\.cc$)'
# shellcheck source=tests/architecture/production_sources.sh
source "$here/production_sources.sh" "${1:-}"
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
