#!/usr/bin/env bash
# Every include of radar's own headers names the component it comes from
# ("trace/merge.h", not "merge.h"), and that component is one of the
# folders below: an include says where the code it uses lives. Prints each
# include that does not, and fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# component -> its folder, in the data's order (docs/architecture.md).
declare -A folder=(
  [radar]=radarlog/include/radar        # the public header; radar/proto/ is generated from proto/
  [log]=radarlog/log [inject]=radarlog/inject [preload]=radarlog/preload [record]=radarlog/record
  [trace]=replay-gui/trace [netdesc]=netdesc [export]=replay-gui/export
  [driver]=single-process-driver/driver [rerun]=single-process-driver/rerun
  [app]=replay-gui/app [cli]=radarlog/cli)
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^tests/\|^sample-programs/')
else
  mapfile -t files < <(find radarlog replay-gui single-process-driver netdesc -name '*.cc' -o -name '*.h' -o -name '*.c')
fi
bad=0
for f in "${files[@]}"; do
  while IFS=: read -r line include; do
    header=${include#*\"}
    header=${header%%\"*}
    component=${header%%/*}
    if [ "$component" = "$header" ] || [ -z "${folder[$component]:-}" ]; then
      echo "$f:$line: #include \"$header\" does not name a component (${!folder[*]})"
      bad=1
    elif [ "$component" != radar ] && [ ! -f "${folder[$component]}/${header#*/}" ]; then
      echo "$f:$line: #include \"$header\": no ${folder[$component]}/${header#*/}"
      bad=1
    fi
  done < <(grep -n '^#include "' "$f")
done
[ "$bad" = 0 ] && echo "${#files[@]} sources: every include names its component"
exit "$bad"
