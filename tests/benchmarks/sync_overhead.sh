#!/usr/bin/env bash
# The cost of radar record --sync per uncontended lock/unlock pair (and
# sem_post/sem_wait pair), side by side in one run, alternating, medians:
#   bare      the program alone
#   floor     with an empty preload that interposes the same four calls and
#             only passes them on (what any interposer costs)
#   radar     radar record, without --sync (the hooks pass the calls on)
#   sync      radar record --sync (each operation numbered and recorded)
# and the floor of any timestamped event: one read of the clock (bare).
# The program times its own loops (tests/threads/programs/lock_loop.c).
#   bash tests/benchmarks/sync_overhead.sh [RUNS]    (default 5; PAIRS=2000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
loop=$root/build/tests/threads/programs/lock_loop
runs=${1:-5} pairs=${PAIRS:-2000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/pass.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#define PASS(ret, name, type, arg)                                  \
  ret name(type arg) {                                              \
    static ret (*real)(type);                                       \
    if (!real) real = (ret(*)(type))dlsym(RTLD_NEXT, #name);        \
    return real(arg);                                               \
  }
PASS(int, pthread_mutex_lock, pthread_mutex_t*, m)
PASS(int, pthread_mutex_unlock, pthread_mutex_t*, m)
PASS(int, sem_post, sem_t*, s)
PASS(int, sem_wait, sem_t*, s)
C
cc -O2 -shared -fPIC -o "$work/pass.so" "$work/pass.c" -ldl
# run NAME COMMAND...: appends the program's figures to $work/NAME.{mutex,sem,clock}
run() {
  local name=$1; shift
  "$@" 2> /dev/null > "$work/out"
  read -r _ mutex _ sem < <(grep '^mutex' "$work/out")
  echo "$mutex" >> "$work/$name.mutex"
  echo "$sem" >> "$work/$name.sem"
  grep '^clock' "$work/out" | cut -d' ' -f2 >> "$work/$name.clock"
}
for i in $(seq "$runs"); do
  run bare "$loop" "$pairs"
  run floor env LD_PRELOAD="$work/pass.so" "$loop" "$pairs"
  run radar "$radar" record --force -o "$work/rec" -- "$loop" "$pairs"
  run sync "$radar" record --sync --force -o "$work/rec" -- "$loop" "$pairs"
done
median() { sort -g "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '| pair (%s of each, median of %s) | bare | empty preload | radar record | radar record --sync | --sync minus bare |\n' "$pairs" "$runs"
printf '| --- | --- | --- | --- | --- | --- |\n'
for what in mutex sem; do
  label=$([ "$what" = mutex ] && echo "pthread_mutex_lock + unlock" || echo "sem_post + sem_wait")
  printf '| %s | %s ns | %s ns | %s ns | %s ns | %s ns |\n' "$label" "$(median bare.$what)" "$(median floor.$what)" \
    "$(median radar.$what)" "$(median sync.$what)" \
    "$(awk -v a="$(median sync.$what)" -v b="$(median bare.$what)" 'BEGIN { printf "%.1f", a - b }')"
done
echo "one read of CLOCK_MONOTONIC, bare (median of $runs): $(median bare.clock) ns; a recorded pair reads it twice at least"
echo "log of the last --sync run: $(du -k "$work/rec" | tail -1 | cut -f1) KiB for $((4 * pairs)) operations"
