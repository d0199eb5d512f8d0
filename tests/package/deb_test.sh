#!/usr/bin/env bash
# The Debian package, installed as a user installs it: `cpack -G DEB` makes
# it from the build; a fresh Debian 12 root (debootstrap, minbase) installs
# it with apt, which brings in what it depends on, and then records the
# calc sample, checks the recording and draws the replay window's picture
# of it, all inside that root. Also: the package holds the desktop entry
# (valid), its icon, the manual pages, the completion and the docs.
#   deb_test.sh BUILD_DIR
# Skipped (77), saying why, without root, debootstrap or the archive.
set -euo pipefail
build=$(cd "$1" && pwd)
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot)"
command -v debootstrap > /dev/null || skip "debootstrap is not installed (apt-get install debootstrap)"
command -v cpack > /dev/null || skip "cpack is not installed"
work=$(mktemp -d /tmp/radar-deb.XXXXXX)
root=$work/root
# Only /proc is mounted in the root (debootstrap made its device nodes):
# nothing of the host's /dev is shared with it.
cleanup() {
  mountpoint -q "$root/proc" 2> /dev/null && umount "$root/proc"
  mountpoint -q "$root/proc" 2> /dev/null || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The package, and what it holds.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" > cpack.log 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/radar_*.deb)
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in usr/bin/radar usr/libexec/radar/radar-replay usr/lib/radar/libradar-preload.so \
  usr/share/applications/radar.desktop usr/share/icons/hicolor/scalable/apps/radar.svg \
  usr/share/man/man1/radar.1.gz usr/share/man/man1/radar-record.1.gz usr/share/bash-completion/completions/radar \
  usr/share/doc/radar/tutorial.md usr/share/doc/radar/images/tutorial-calc.png; do
  grep -qx "./$f" <<< "$contents" || fail "the package has no /$f"
done
depends=$(dpkg-deb -f "$deb" Depends)
for d in libqt6widgets6 libprotobuf32 libzstd1 libsqlite3-0; do
  grep -q "$d" <<< "$depends" || fail "the package does not depend on $d: $depends"
done
echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1); depends on: $depends"

# A fresh Debian 12 root, from the machine's own archive.
mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$work/debootstrap.log" 2>&1 ||
  { tail -5 "$work/debootstrap.log"; skip "debootstrap could not reach $mirror"; }
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/tmp/radar.deb"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
in_root apt-get update -q > "$work/apt.log" 2>&1 || { tail -5 "$work/apt.log"; fail "apt-get update in the root"; }
in_root apt-get install -y -q --no-install-recommends /tmp/radar.deb >> "$work/apt.log" 2>&1 ||
  { tail -20 "$work/apt.log"; fail "apt could not install the package"; }
in_root dpkg -s radar | grep -q "^Status: install ok installed" || fail "radar is not installed"
if command -v desktop-file-validate > /dev/null; then
  desktop-file-validate "$root/usr/share/applications/radar.desktop" || fail "the desktop entry is not valid"
else
  echo "(desktop-file-validate is not installed: the desktop entry is not checked)"
fi

# The calc sample, as a user's own program, recorded, checked and drawn.
mkdir -p "$root/opt/sample"
cp "$build/bin/calc" "$build/bin/calc_proc" "$build/bin/calc.netdesc" "$root/opt/sample/"
in_root sh -c "echo '10 - (2 + 3)' | radar record -o /tmp/rec -- /opt/sample/calc" > "$work/record.out" 2>&1 ||
  { cat "$work/record.out"; fail "radar record in the root"; }
grep -qx -- "= -5" "$work/record.out" || fail "calc's output under radar record: $(cat "$work/record.out")"
in_root radar check /tmp/rec > "$work/check.out" 2>&1 || { cat "$work/check.out"; fail "radar check in the root"; }
grep -q "^7 processes, " "$work/check.out" || fail "radar check: $(cat "$work/check.out")"
grep -qx "no findings" "$work/check.out" || fail "radar check: $(cat "$work/check.out")"
in_root radar replay /tmp/rec --snapshot /tmp/calc.png --at-event 30 --net /opt/sample/calc.netdesc \
  > "$work/replay.out" 2>&1 || { cat "$work/replay.out"; fail "radar replay --snapshot in the root"; }
size=$(stat -c %s "$root/tmp/calc.png")
[ "$size" -gt 20000 ] || fail "the snapshot is $size bytes: an empty picture?"
cp "$root/tmp/calc.png" "$build/package-replay-calc.png"  # to look at
# The manual pages as Debian keeps them: compressed, nothing else in man1.
grep '^\./usr/share/man/man1/.' <<< "$contents" | grep -qv '\.1\.gz$' && fail "a manual page not compressed"
gzip -t "$root/usr/share/man/man1/radar-record.1.gz" || fail "radar-record.1.gz is not gzip"
page=$(zcat "$root/usr/share/man/man1/radar-record.1.gz")
grep -q '^\.TH "\?RADAR-RECORD' <<< "$page" || fail "radar-record.1.gz is not the record page: $(head -3 <<< "$page")"
in_root radar help record > "$work/help.out" || fail "radar help in the root"
grep -q "^usage: radar record" "$work/help.out" || fail "radar help in the root: $(head -1 "$work/help.out")"
echo "in a fresh Debian 12 root: installed with apt, recorded calc ($(head -1 "$work/check.out")), drew the replay ($size bytes)"
