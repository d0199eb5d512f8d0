#!/usr/bin/env bash
# The two injected libraries hook the same calls: a call recorded by
# libradar-preload.so and forgotten by libradar-rerun.so would run for real
# in a re-run (and the other way round). Compares the symbols each exports;
# every difference must be in the allow-list, with its reason, and every
# entry of the allow-list must still be a difference.
#   injected_symbols.sh PRELOAD.so REPLAY.so ALLOWED.txt
set -euo pipefail
preload=$1 replay=$2 allowed=$3
command -v nm > /dev/null || { echo "injected_symbols: nm (binutils) is missing" >&2; exit 1; }

exported() { nm -D --defined-only "$1" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' | sort -u; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exported "$preload" > "$work/preload"
exported "$replay" > "$work/replay"
[ -s "$work/preload" ] && [ -s "$work/replay" ] || { echo "injected_symbols: no symbols read" >&2; exit 1; }
comm -23 "$work/preload" "$work/replay" | sed 's/^/preload /' > "$work/differences"
comm -13 "$work/preload" "$work/replay" | sed 's/^/replay /' >> "$work/differences"

# Allow-list lines: "preload NAME  # why" or "replay NAME  # why"; NAME may
# end in * (a prefix).
grep -v '^[[:space:]]*\(#\|$\)' "$allowed" | sed 's/[[:space:]]*#.*//' > "$work/allowed"
matches() {  # matches LIB NAME PATTERN-LINE...
  local lib=$1 name=$2 line plib pat
  while read -r plib pat; do
    [ "$plib" = "$lib" ] || continue
    case "$pat" in *\*) [[ "$name" == "${pat%\*}"* ]] && return 0 ;; *) [ "$name" = "$pat" ] && return 0 ;; esac
  done < "$work/allowed"
  return 1
}
status=0
while read -r lib name; do
  if ! matches "$lib" "$name"; then
    if [ "$lib" = preload ]; then
      echo "only libradar-preload.so exports $name: the re-run does not hook it (add it to hooks.cc, or say why in $allowed)"
    else
      echo "only libradar-rerun.so exports $name: recording does not hook it (add it to hooks.cc, or say why in $allowed)"
    fi
    status=1
  fi
done < "$work/differences"
while read -r lib pat; do
  found=0
  while read -r dlib name; do
    [ "$dlib" = "$lib" ] || continue
    case "$pat" in *\*) [[ "$name" == "${pat%\*}"* ]] && found=1 ;; *) [ "$name" = "$pat" ] && found=1 ;; esac
  done < "$work/differences"
  [ $found = 1 ] || { echo "the allow-list names '$lib $pat', which is no longer a difference: remove it"; status=1; }
done < "$work/allowed"
[ $status = 0 ] && echo "injected libraries: $(wc -l < "$work/preload") and $(wc -l < "$work/replay") symbols, $(wc -l < "$work/differences") differences, each explained"
exit $status
