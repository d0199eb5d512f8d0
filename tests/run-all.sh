#!/usr/bin/env bash
# The README's second command: install, build, and run the whole test suite.
#   bash tests/run-all.sh            # dev build, every test
#   RADAR_ASAN=1 bash tests/run-all.sh   # also the host code under ASan+UBSan
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"
cd "$RADAR_ROOT"
ctest --preset "$RADAR_PRESET"
if [ "${RADAR_ASAN:-0}" = 1 ]; then
  RADAR_PRESET=asan radar_build
  ctest --preset asan
fi
