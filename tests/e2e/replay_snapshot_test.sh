#!/usr/bin/env bash
# End to end: record the calc sample, render its replay headless at every
# tenth event and at the end, and check what bad command lines get.
#   replay_snapshot_test.sh BUILD_DIR
set -euo pipefail
build=$1
radar=$build/bin/radar
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; echo "reproduce: echo '(2 + 3) * x' | $radar record -o rec -- $build/bin/calc && $radar replay rec --snapshot v.png --at-event N" >&2; exit 1; }

echo "(2 + 3) * x - 4 / 2" | "$radar" record -o "$work/rec" -- "$build/bin/calc" > /dev/null 2>&1 ||
  fail "recording calc"
events=$("$radar" events "$work/rec" 2>/dev/null | wc -l)
[ "$events" -gt 20 ] || fail "only $events events recorded"

# Headless, to the end: every tenth event and the last.
unset DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM
for n in $(seq 0 10 "$events") "$events"; do
  line=$("$radar" replay "$work/rec" --snapshot "$work/v$n.png" --at-event "$n" --size 900x600 2>/dev/null) ||
    fail "snapshot at event $n"
  [ "$(head -c 8 "$work/v$n.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "v$n.png is not a PNG"
  if [ "$n" -gt 0 ]; then
    # The narrative line is the one `radar events` gives for that event.
    expected=$("$radar" events "$work/rec" 2>/dev/null | sed -n "${n}p")
    [ "$line" = "$expected" ] || fail "narrative at $n: '$line', expected '$expected'"
  fi
done

# Bad input: a clear message and a non-zero exit, never a crash.
expect_exit() {
  local want=$1 pattern=$2
  shift 2
  set +e
  out=$("$@" 2>&1)
  got=$?
  set -e
  [ "$got" = "$want" ] || fail "'$*' exited $got, expected $want: $out"
  echo "$out" | grep -q -- "$pattern" || fail "'$*' said '$out', expected '$pattern'"
}
expect_exit 2 "recording has $events events" "$radar" replay "$work/rec" --snapshot "$work/x.png" --at-event $((events + 1))
expect_exit 2 "--size" "$radar" replay "$work/rec" --snapshot "$work/x.png" --size big
expect_exit 2 "which recording" "$radar" replay
expect_exit 1 "no display" "$radar" replay "$work/rec"
mkdir "$work/empty"
expect_exit 1 "radar replay:" "$radar" replay "$work/empty" --snapshot "$work/x.png"
expect_exit 1 "cannot write" "$radar" replay "$work/rec" --snapshot "$work/no/such/dir/x.png"
echo "ok: $events events replayed headless to the end"
