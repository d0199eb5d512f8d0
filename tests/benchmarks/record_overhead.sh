#!/usr/bin/env bash
# Recording overhead, side by side in one run (alternating, median of N):
#   ping-pong  200 000 round trips of 64 bytes over a socketpair:
#              uninstrumented vs radar record vs strace -f (read,write), pinned
#              to one core and unpinned
#   bulk       2 GiB through a pipe in 64 KiB writes, payload recorded
#   forks      a shell starting 2 000 processes that each send one message
#   size       compressed log bytes per event of the ping-pong, payload excluded
#   bash tests/benchmarks/record_overhead.sh [RUNS]    (default 3)
# Environment: ROUNDS, BULK_MIB, FORKS override the sizes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
programs=$root/build/tests/preload/programs
tool=$root/build/tests/benchmarks/radar_log_tool
runs=${1:-3}
rounds=${ROUNDS:-200000} mib=${BULK_MIB:-2048} forks=${FORKS:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
rec() { "$radar" record --force -o "$work/rec" "$@"; }
strace_run() { strace -f -o "$work/strace.out" -s 65536 -e trace=read,write "$@"; }
forker() { sh -c "for i in \$(seq $forks); do /bin/echo message; done | cat > /dev/null"; }

for i in $(seq "$runs"); do
  time_ms pp_pinned_plain taskset -c 0 "$programs/pingpong" "$rounds"
  time_ms pp_pinned_radar taskset -c 0 "$radar" record --force -o "$work/rec" -- "$programs/pingpong" "$rounds"
  time_ms pp_pinned_strace taskset -c 0 strace -f -o "$work/strace.out" -s 65536 -e trace=read,write "$programs/pingpong" "$rounds"
  time_ms pp_plain "$programs/pingpong" "$rounds"
  time_ms pp_radar rec -- "$programs/pingpong" "$rounds"
  time_ms pp_strace strace_run "$programs/pingpong" "$rounds"
  time_ms bulk_plain "$programs/bulk" "$mib"
  time_ms bulk_radar rec -- "$programs/bulk" "$mib"
  rm -rf "$work/rec"
  time_ms forks_plain forker
  time_ms forks_radar rec -- sh -c "for i in \$(seq $forks); do /bin/echo message; done | cat > /dev/null"
done

printf '| workload | uninstrumented | radar record | ratio | strace -f | ratio |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
printf '| ping-pong %s round trips, pinned to one core | %s ms | %s ms | %s× | %s ms | %s× |\n' "$rounds" \
  "$(median pp_pinned_plain)" "$(median pp_pinned_radar)" "$(ratio pp_pinned_radar pp_pinned_plain)" \
  "$(median pp_pinned_strace)" "$(ratio pp_pinned_strace pp_pinned_plain)"
printf '| ping-pong %s round trips, unpinned | %s ms | %s ms | %s× | %s ms | %s× |\n' "$rounds" \
  "$(median pp_plain)" "$(median pp_radar)" "$(ratio pp_radar pp_plain)" \
  "$(median pp_strace)" "$(ratio pp_strace pp_plain)"
printf '| bulk %s MiB in 64 KiB writes | %s ms | %s ms | %s× | | |\n' "$mib" \
  "$(median bulk_plain)" "$(median bulk_radar)" "$(ratio bulk_radar bulk_plain)"
printf '| %s processes, one message each | %s ms | %s ms | %s× | | |\n' "$forks" \
  "$(median forks_plain)" "$(median forks_radar)" "$(ratio forks_radar forks_plain)"

"$radar" record --force --payload-limit 0 -o "$work/size" -- "$programs/pingpong" "$rounds" > /dev/null 2>&1
echo
echo "ping-pong log size, payload excluded (--payload-limit 0): $("$tool" size "$work/size")"
