#!/usr/bin/env bash
# The injected libraries leave the program's memory where it would be
# without them, so that a re-run sees the recorded addresses: both are
# linked at the address set aside for them (radarlog/inject/CMakeLists.txt),
# and their thread-local storage is the same size and alignment, which
# glibc places among the program's first mappings (inject::kThreadLocalBytes).
#   injected_layout.sh PRELOAD.so RERUN.so
set -euo pipefail
command -v readelf > /dev/null || { echo "injected_layout: readelf (binutils) is missing" >&2; exit 1; }
status=0
first_load() { readelf -lW "$1" | awk '$1 == "LOAD" { print $3; exit }'; }
tls() { readelf -lW "$1" | awk '$1 == "TLS" { print $6, $8 }'; }
for lib in "$@"; do
  load=$(first_load "$lib")
  if [ "$((load))" -ne "$((0x7f0000000000))" ]; then
    echo "$(basename "$lib") is linked at $load, not at 0x7f0000000000: it moves the program's mappings"
    status=1
  fi
done
if [ "$(tls "$1")" != "$(tls "$2")" ]; then
  echo "thread-local storage (size, alignment) differs: $(basename "$1") $(tls "$1"), $(basename "$2") $(tls "$2");" \
    "pad both to inject::kThreadLocalBytes"
  status=1
fi
[ "$(tls "$1")" != "" ] || { echo "no thread-local storage read from $1" >&2; status=1; }
[ $status -eq 0 ] && echo "both libraries at 0x7f0000000000, thread-local storage $(tls "$1") in both"
exit $status
