#!/usr/bin/env bash
# A change's cost, side by side in one run: the merge, the replay window and
# recording, each alternating between two builds (before and after), with
# the bare program as the recording's floor. Make the "before" build in a
# worktree first:
#   git worktree add /tmp/before REV && (cd /tmp/before && cmake --preset dev &&
#     ninja -C build -j2 merge_benchmark replay_benchmark radar radar_preload)
#   bash tests/benchmarks/before_after.sh /tmp/before/build [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
before=$1 after=$root/build rounds=${2:-5}
programs=$after/tests/preload/programs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$after/tests/benchmarks/merge_benchmark" generate "$work/m10" 100 10000000 > /dev/null
"$after/tests/benchmarks/merge_benchmark" generate "$work/m1" 100 1000000 > /dev/null

ms() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
forks() { "$1/bin/radar" record --force -o "$work/rec" -- sh -c 'for i in $(seq 500); do /bin/echo m; done | cat > /dev/null'; }
merge() { "$1/tests/benchmarks/merge_benchmark" merge "$work/m10" 2>&1 | sed -n 's/^load + merge: \([0-9.]*\) s.*/\1/p'; }
replay() {
  QT_QPA_PLATFORM=offscreen "$1/tests/benchmarks/replay_benchmark" "$work/m1" 2> /dev/null |
    sed -n -e 's/^first frame: \([0-9]*\) ms.*/first_frame_ms=\1/p' -e 's/^seek + frame near the start: \([0-9.]*\) ms.*/seek_ms=\1/p' \
      -e 's/^playing near .*frame p50 \([0-9.]*\) ms.*/play_p50_ms=\1/p' | tr '\n' ' '
}
for r in $(seq "$rounds"); do
  # The order swaps each round: the second of two runs finds the caches warmer.
  sides=(before after); [ $((r % 2)) = 0 ] && sides=(after before)
  for side in "${sides[@]}"; do
    build=$before; [ "$side" = after ] && build=$after
    echo "round $r $side merge_10M_events_s=$(merge "$build") $(replay "$build")" \
      "record_pingpong_pinned_ms=$(ms taskset -c 0 "$build/bin/radar" record --force -o "$work/rec" -- "$programs/pingpong" 100000)" \
      "record_500_processes_ms=$(ms forks "$build")"
  done
  echo "round $r floor pingpong_pinned_ms=$(ms taskset -c 0 "$programs/pingpong" 100000)" \
    "500_processes_ms=$(ms sh -c 'for i in $(seq 500); do /bin/echo m; done | cat > /dev/null')"
done
