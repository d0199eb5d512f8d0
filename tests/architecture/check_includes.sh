#!/usr/bin/env bash
# Every include of radar's own headers names the component it comes from
# ("trace/merge.h", not "merge.h"), that component is one of the folders
# below, and it is of the includer's stage or an earlier one: data never
# goes back a stage (the order of docs/architecture.md; the libraries'
# links are checked alike by layers.cmake). Prints each include that does
# not, and fails.
#
#   check_includes.sh [ROOT]   ROOT: the tree to check (default: this one)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$here/../.." && pwd)}
cd "$root" || exit 2
# component -> its folder, and its stage, in the data's order.
declare -A folder=(
  [radar]=radarlog/include/radar        # the public header; radar/proto/ is generated from proto/
  [log]=radarlog/log [inject]=radarlog/inject [preload]=radarlog/preload [mpi]=radarlog/mpi
  [fallback]=radarlog/fallback [record]=radarlog/record
  [trace]=replay-gui/trace [analysis]=replay-gui/analysis [netdesc]=netdesc [binding]=netdesc/binding
  [export]=replay-gui/export [driver]=single-process-driver/driver [rerun]=single-process-driver/rerun
  [app]=replay-gui/app [cli]=radarlog/cli)
declare -A stage=(
  [radar]=0 [log]=0 [inject]=1 [preload]=2 [mpi]=2 [fallback]=2 [record]=2 [trace]=3 [analysis]=4 [netdesc]=5 [binding]=6
  [export]=7 [driver]=8 [rerun]=8 [app]=9 [cli]=10)
# The component a source is in: the longest folder that holds it.
componentOf() {
  local best= len=0 c
  for c in "${!folder[@]}"; do
    if [[ $1 == "${folder[$c]}/"* ]] && [ "${#folder[$c]}" -gt "$len" ]; then
      best=$c
      len=${#folder[$c]}
    fi
  done
  echo "$best"
}
# shellcheck source=tests/architecture/production_sources.sh
source "$here/production_sources.sh" "${1:-}"
bad=0
for f in "${files[@]}"; do
  mine=$(componentOf "$f")
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
    elif [ -n "$mine" ] && [ "${stage[$component]}" -gt "${stage[$mine]}" ]; then
      echo "$f:$line: #include \"$header\": $component is a later stage than $mine (${folder[$mine]})"
      bad=1
    fi
  done < <(grep -n '^#include "' "$f")
done
[ "$bad" = 0 ] && echo "${#files[@]} sources: every include names its component, of its stage or an earlier one"
exit "$bad"
