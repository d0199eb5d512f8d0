#!/usr/bin/env bash
# Recording MPI's calls, against the machine's floor in the same run: an
# MPI program of tests/mpi/programs that times its own loop (it prints
# "...: S s"), each round bare, with an empty preload beside mpirun (what
# any preloaded library costs), and recorded (`radar record`, MPI calls
# included). The time is the loop's own (MPI_Wtime in rank 0), then the
# whole run's.
#   bash tests/benchmarks/mpi_loop.sh PROGRAM RANKS LOOP_ARGUMENT [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build name=$1 ranks=$2 argument=$3 rounds=${4:-5}
program=$build/tests/mpi/programs/$name
[ -x "$program" ] || { echo "mpi_loop: build the mpi_$name target first (needs libopenmpi-dev)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -shared -fPIC -o "$work/empty.so" -x c /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe -n "$ranks")
loop() { sed -n 's/.*: \([0-9.]*\) s$/\1/p'; }
run() {
  local t0 t1 out
  t0=$(date +%s%N)
  out=$("$@" 2> /dev/null | loop)
  t1=$(date +%s%N)
  echo "loop_s=$out run_s=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)"
}
for r in $(seq "$rounds"); do
  echo "round $r bare     $(run "${mpirun[@]}" "$program" "$argument")"
  echo "round $r preload  $(run "${mpirun[@]}" -x LD_PRELOAD="$work/empty.so" "$program" "$argument")"
  echo "round $r recorded $(run "$build/bin/radar" record --force -o "$work/rec" -- "${mpirun[@]}" "$program" "$argument")"
done
