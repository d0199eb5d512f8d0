# Sourced by the architecture checks: `files`, the production sources of
# the tree they run in (relative paths): git's list in a checkout, else
# every source under the product's folders (a scratch copy with a planted
# violation). $1: the tree was given (no git list then).
if git rev-parse --is-inside-work-tree > /dev/null 2>&1 && [ -z "${1:-}" ]; then
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^tests/\|^sample-programs/')
else
  mapfile -t files < <(find radarlog replay-gui single-process-driver netdesc \( -name '*.cc' -o -name '*.h' -o -name '*.c' \) \
    2> /dev/null | sed 's|^\./||')
fi
