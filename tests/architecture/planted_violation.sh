#!/usr/bin/env bash
# Shows that an architecture check fails on what it forbids: copies the
# sources to a scratch tree, checks that it passes there, plants one
# violation (the text of PLANT appended to FILE) and checks that it fails,
# naming the file.
#
#   planted_violation.sh 'CHECK COMMAND' FILE PLANT   (the command gets the tree as its last argument)
set -uo pipefail
check=$1 file=$2 plant=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for d in radarlog replay-gui single-process-driver netdesc sample-programs; do cp -r "$root/$d" "$scratch/"; done
# shellcheck disable=SC2086 # the command's words
if ! out=$($check "$scratch" 2>&1); then
  echo "the tree as it is must pass '$check' first:" >&2
  echo "$out" >&2
  exit 1
fi
cat "$plant" >> "$scratch/$file"
# shellcheck disable=SC2086
if out=$($check "$scratch" 2>&1); then
  echo "'$check' passed with $plant planted in $file:" >&2
  echo "$out" >&2
  exit 1
fi
if ! grep -qF "$file" <<< "$out"; then
  echo "'$check' failed but did not name $file:" >&2
  echo "$out" >&2
  exit 1
fi
echo "planted in $file, found: $(grep -F "$file" <<< "$out" | head -1)"
