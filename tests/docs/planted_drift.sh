#!/usr/bin/env bash
# The document test fails on a document that drifted, naming the line of
# the command whose output is not what the document says, and only that.
#   planted_drift.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
here=$(dirname "$0")
out=$(python3 "$here/doc_test.py" "$1" "$2" "$here/planted/drift.md")
status=$?
echo "$out"
[ "$status" -eq 77 ] && exit 77
[ "$status" -eq 1 ] || { echo "FAIL: the document test exited $status on a drifted document"; exit 1; }
grep -q "drift.md:14: differs" <<< "$out" || { echo "FAIL: the drifted command is not named"; exit 1; }
grep -q "drift.md:7: ok" <<< "$out" || { echo "FAIL: the command as written was not accepted"; exit 1; }
grep -q "^1 of 2 commands as the document says$" <<< "$out" || { echo "FAIL: wrong count"; exit 1; }
echo "the drift is caught"
