#!/usr/bin/env bash
# Shows that layers.cmake fails on a library that links a later stage: the
# build's dependency edges, one planted (the merge linking the replay
# window), must be refused, naming it.
#
#   planted_link.sh EDGES_FILE
set -uo pipefail
edges=$1
layers=$(dirname "$0")/layers.cmake
planted=$(mktemp)
trap 'rm -f "$planted"' EXIT
cp "$edges" "$planted"
if ! cmake -DEDGES="$planted" -P "$layers" > /dev/null 2>&1; then
  echo "the build's own edges must pass first" >&2
  exit 1
fi
echo "radar_trace|radar_app" >> "$planted"
if out=$(cmake -DEDGES="$planted" -P "$layers" 2>&1); then
  echo "layers.cmake passed with radar_trace linking radar_app" >&2
  exit 1
fi
grep -q "radar_trace (stage [0-9]*) links radar_app" <<< "$out" || { echo "$out" >&2; exit 1; }
echo "planted radar_trace -> radar_app, found: $(grep -o 'radar_trace (stage.*' <<< "$out" | head -1)"
