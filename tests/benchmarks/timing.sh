# Shared by the benchmark scripts (sourced): wall times of commands, kept
# one per line in $work/NAME, and their medians and ratios.
now() { date +%s%N; }
# time_ms NAME COMMAND...: runs COMMAND (output discarded), appends its wall time in ms.
time_ms() {
  local name=$1; shift
  local t0 t1
  t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$work/$name"
}
median() { sort -n "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# ratio A B [DIGITS]: median of A over median of B (2 decimals by default).
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" -v d="${3:-2}" 'BEGIN { printf "%.*f", d, a / b }'; }
# empty_preload: $work/empty.so, a library with nothing in it, whose
# preloading is the floor of preloading anything.
empty_preload() { echo 'int radar_benchmark_empty;' | cc -shared -fPIC -x c - -o "$work/empty.so"; }
