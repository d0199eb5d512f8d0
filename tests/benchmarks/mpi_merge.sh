#!/usr/bin/env bash
# Merging an MPI job's recording at scale, beside the machine's own floor
# for the same logs in the same run:
#   bash tests/benchmarks/mpi_merge.sh [RANKS [EVENTS_PER_RANK]]   (default 64 1000000)
# The recording is generated as radar's MPI layer writes one (ranks in a
# ring on MPI_COMM_WORLD, every send received, an MPI_Allreduce by every
# rank every 1000 events a rank). Then, ROUNDS times (default 3) in turn:
#   - the floor: every log decompressed into fresh memory of the size the
#     merge's peak is (merge_benchmark floor), so both pay this machine's
#     page faults;
#   - zstd -d > /dev/null on the same files (no memory at all);
#   - load + merge (merge_benchmark merge, in a child: its own peak).
# Medians; the target (load + merge <= 2 x the floor) is checked, exit 1
# when missed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=$root/build/tests/benchmarks/merge_benchmark
rounds=${ROUNDS:-3}
ranks=${1:-64} per_rank=${2:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=$work/job
"$bench" generate-mpi "$dir" "$ranks" $((ranks * per_rank))
echo "== $ranks ranks x $per_rank MPI events: $(du -sh --apparent-size "$dir" | cut -f1) of logs"
cat "$dir"/*.rlog > /dev/null  # in the page cache for every side
now() { date +%s%N; }
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
peak_of() { sed -n 's/^peak memory of load + merge: \([0-9.]*\) MiB.*/\1/p' | awk '{printf "%d", $1 + 0.5}'; }
out=$("$bench" merge "$dir")
echo "$out"
peak=$(echo "$out" | peak_of)
floor_ms=() zstd_ms=() merge_ms=()
for ((r = 1; r <= rounds; r++)); do
  f=$("$bench" floor "$dir" "$peak")
  floor_ms+=($(echo "$f" | sed -n 's/^floor: \([0-9.]*\) s.*/\1/p' | awk '{printf "%d", $1 * 1000}'))
  t0=$(now); zstd -q -d -c "$dir"/*.rlog > /dev/null; t1=$(now)
  zstd_ms+=($(( (t1 - t0) / 1000000 )))
  m=$("$bench" merge "$dir")
  merge_ms+=($(echo "$m" | sed -n 's/^load + merge: \([0-9.]*\) s.*/\1/p' | awk '{printf "%d", $1 * 1000}'))
  echo "round $r: floor ${floor_ms[-1]} ms ($f), zstd -d ${zstd_ms[-1]} ms, load + merge ${merge_ms[-1]} ms ($(echo "$m" | sed -n 's/^peak memory of load + merge: //p'))"
done
fl=$(echo "${floor_ms[@]}" | median) z=$(echo "${zstd_ms[@]}" | median) m=$(echo "${merge_ms[@]}" | median)
awk -v f="$fl" -v z="$z" -v m="$m" 'BEGIN {
  printf "medians: floor %d ms, zstd -d %d ms, load + merge %d ms\n", f, z, m
  printf "load + merge / floor: %.2f (target 2); load + merge / zstd -d: %.2f\n", m / f, m / z
  if (m / f > 2) { print "MISSED: load + merge is more than 2 x the floor"; exit 1 }
  print "target met: load + merge <= 2 x the floor" }'
