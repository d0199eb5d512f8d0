#!/usr/bin/env bash
# Recording MPI's calls, against the machine's floor in the same run: an
# MPI ping-pong of 64-byte messages over Open MPI's shared-memory transport,
# 2 ranks, each round bare, with an empty preload beside mpirun (what any
# preloaded library costs), and recorded (`radar record`, MPI calls
# included). The time is the ping-pong loop's own (MPI_Wtime in rank 0),
# then the whole run's.
#   bash tests/benchmarks/mpi_pingpong.sh [ROUND_TRIPS] [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/build trips=${1:-100000} rounds=${2:-5}
program=$build/tests/mpi/programs/pingpong
[ -x "$program" ] || { echo "mpi_pingpong: build the mpi_pingpong target first (needs libopenmpi-dev)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -shared -fPIC -o "$work/empty.so" -x c /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe -n 2)
loop() { sed -n 's/.*: \([0-9.]*\) s$/\1/p'; }
run() {
  local t0 t1 out
  t0=$(date +%s%N)
  out=$("$@" 2> /dev/null | loop)
  t1=$(date +%s%N)
  echo "loop_s=$out run_s=$(echo "scale=3; ($t1 - $t0) / 1000000000" | bc)"
}
for r in $(seq "$rounds"); do
  echo "round $r bare     $(run "${mpirun[@]}" "$program" "$trips")"
  echo "round $r preload  $(run "${mpirun[@]}" -x LD_PRELOAD="$work/empty.so" "$program" "$trips")"
  echo "round $r recorded $(run "$build/bin/radar" record --force -o "$work/rec" -- "${mpirun[@]}" "$program" "$trips")"
done
