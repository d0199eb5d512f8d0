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

# A picture has no keys to press: the line before the first event says so.
for ext in png svg; do
  line=$("$radar" replay "$work/rec" --snapshot "$work/first.$ext" --at-event 0 2>/dev/null) || fail "snapshot .$ext at 0"
  [ "$line" = "Before the first event." ] || fail "the .$ext snapshot at event 0 printed '$line'"
done
# A disk that fills up (a file size limit of 1 KiB): an error, exit 1, and
# no file, whole or partial, under any name.
mkdir "$work/full"
for ext in png svg; do
  set +e
  out=$(bash -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" replay \"\$1\" --snapshot \"\$2\"" \
    "$radar" "$work/rec" "$work/full/x.$ext" 2>&1 >/dev/null)
  got=$?
  set -e
  [ "$got" = 1 ] || fail "a snapshot .$ext onto a full disk exited $got: $out"
  echo "$out" | grep -q "radar replay: cannot write $work/full/x.$ext" || fail "full disk, .$ext: said '$out'"
  [ -z "$(ls -A "$work/full")" ] || fail "full disk, .$ext: left $(ls -A "$work/full")"
done

# The animation as frames, over the first send: the view before it, then
# four frames an event (0.5 s at 8 a second), the message moving. (When
# its receiver has not exec'd into its program yet, the message only moves
# out beside its sender, in the first steps.)
send=$("$radar" events "$work/rec" 2>/dev/null | grep -n ' sends a message' | head -1 | cut -d: -f1)
[ -n "$send" ] || fail "no send in the recording"
out=$("$radar" replay "$work/rec" --frames "$work/frames" --at-event $((send - 1)) --to-event $((send + 1)) \
  --seconds-per-event 0.5 --fps 8 --size 1280x800 2>/dev/null) || fail "frames around event $send"
echo "$out" | grep -q "^9 frames in " || fail "frames: '$out', expected 9 frames"
[ "$(ls "$work/frames" | wc -l)" = 9 ] || fail "$(ls "$work/frames" | wc -l) files in the frames directory, expected 9"
for f in "$work"/frames/frame-00000[1-9].png; do
  [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
done
moving=$(md5sum "$work"/frames/frame-00000[2-5].png | cut -d' ' -f1 | sort -u | wc -l)
[ "$moving" -ge 2 ] || fail "the send's 4 frames are one picture: the animation does not move"

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
expect_exit 2 "not empty" "$radar" replay "$work/rec" --frames "$work/frames" --at-event 1 --to-event 2
expect_exit 2 "after --at-event" "$radar" replay "$work/rec" --frames "$work/f2" --at-event 5 --to-event 5
expect_exit 2 "recording has $events events" "$radar" replay "$work/rec" --frames "$work/f3" --to-event $((events + 1))
expect_exit 2 "--fps" "$radar" replay "$work/rec" --frames "$work/f4" --to-event 3 --fps 0
expect_exit 2 "at most 100000" "$radar" replay "$work/rec" --frames "$work/f5" --to-event "$events" --fps 120 --seconds-per-event 60
echo "ok: $events events replayed headless to the end, and an animation's frames"
