#!/usr/bin/env bash
# Every C and C++ source of the tree is as .clang-format lays it out:
# prints each file that is not, and fails. Reformat with
#   git ls-files '*.cc' '*.h' '*.c' | xargs clang-format-14 -i
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
format=$(command -v clang-format-14 || command -v clang-format) || {
  echo "clang-format is not installed (apt-get install clang-format-14): skipped"
  exit 77
}
cd "$root"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c')
else
  mapfile -t files < <(find radarlog replay-gui single-process-driver netdesc proto sample-programs tests \
    -name '*.cc' -o -name '*.h' -o -name '*.c')
fi
bad=0
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  if ! "$format" --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "not formatted as .clang-format says: $f"
    bad=1
  fi
done
[ "$bad" = 0 ] && echo "${#files[@]} sources, all formatted"
exit "$bad"
