#!/usr/bin/env bash
# The exports at scale, side by side with `radar stats` on the same
# recording (what loading and merging it costs).
#   bash tests/benchmarks/export_benchmark.sh [PROCESSES EVENTS]
#   (default: 100 10000000)
# Each command runs ROUNDS times (default 3) in turn; the medians are
# compared. Checks the targets of docs/performance.md (the database in
# <= 3 x radar stats, the latency query <= 1 s, pcapng >= 200 MB/s of
# payload, <= 64 bytes per event beyond the trace, the Parquet files no
# slower than the database beyond the merge, DuckDB's slowest 10 messages
# over them <= 1 s) and exits 1 when one is missed. The pcapng's rate is radar's own, written to /dev/null; written
# to a file, the file system's part comes on top, and its floor (writing a
# file of that size) is measured beside it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bin
bench=$root/build/tests/benchmarks/merge_benchmark
rounds=${ROUNDS:-3}
p=${1:-100} e=${2:-10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
dir=$work/rec
"$bench" generate "$dir" "$p" "$e" >/dev/null
echo "== $p processes, $e events: $(du -sh --apparent-size "$dir" | cut -f1) of logs"
cat "$dir"/*.rlog > /dev/null  # in the page cache for every command
median() { tr ' ' '\n' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# Wall seconds and peak RSS (KiB) of a command.
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err"; exit 1; }
  cat "$work/time"
}
stats=() sqlite=() pcapng=() perfetto=() rss_stats=() rss_sqlite=() rss_pcapng=() beyond=() beyond_null=()
parquet=() rss_parquet=() sqlite_beyond=() parquet_beyond=()
# The seconds an export says it took beyond loading and merging.
beyondMerge() { sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$work/err" | tail -1; }
for ((r = 1; r <= rounds; r++)); do
  read -r s m < <(measure "$bin/radar" stats "$dir"); stats+=("$s"); rss_stats+=("$m")
  rm -f "$work/run.sqlite"
  read -r s m < <(measure "$bin/radar" export --sqlite "$work/run.sqlite" "$dir"); sqlite+=("$s"); rss_sqlite+=("$m")
  sqlite_beyond+=("$(beyondMerge)")
  rm -rf "$work/run.parquet"
  read -r s m < <(measure "$bin/radar" export --parquet "$work/run.parquet" "$dir"); parquet+=("$s"); rss_parquet+=("$m")
  parquet_beyond+=("$(beyondMerge)")
  read -r s m < <(measure "$bin/radar" export --pcapng "$work/run.pcapng" "$dir"); pcapng+=("$s"); rss_pcapng+=("$m")
  pcap_line=$(grep 'packets' "$work/err"); beyond+=("$(beyondMerge)")
  # The same to /dev/null: radar's own part, without the file system's.
  measure sh -c "exec '$bin/radar' export --pcapng - '$dir' > /dev/null" >/dev/null; beyond_null+=("$(beyondMerge)")
  read -r s m < <(measure "$bin/radar" export --perfetto "$work/run.pftrace" "$dir"); perfetto+=("$s")
  echo "round $r: stats ${stats[-1]} s, --sqlite ${sqlite[-1]} s (${sqlite_beyond[-1]} beyond the merge), --parquet ${parquet[-1]} s (${parquet_beyond[-1]}), --pcapng ${pcapng[-1]} s, --perfetto ${perfetto[-1]} s"
done
S=$(echo "${stats[@]}" | median) Q=$(echo "${sqlite[@]}" | median)
P=$(echo "${pcapng[@]}" | median) F=$(echo "${perfetto[@]}" | median)
RS=$(echo "${rss_stats[@]}" | median) RQ=$(echo "${rss_sqlite[@]}" | median) RP=$(echo "${rss_pcapng[@]}" | median)
echo "$pcap_line"
bytes=$(echo "$pcap_line" | sed -n 's/.* packets, \([0-9]*\) bytes of messages.*/\1/p')
write_s=$(echo "${beyond[@]}" | median) null_s=$(echo "${beyond_null[@]}" | median)
# The pcapng's floor: writing a file of its size from memory, in 1 MiB
# writes as the export does.
mib=$(( $(stat -c %s "$work/run.pcapng") / 1048576 + 1 ))
t0=$(date +%s%N); dd if=/dev/zero of="$work/copy.pcapng" bs=1M count="$mib" 2>/dev/null; t1=$(date +%s%N); rm -f "$work/copy.pcapng"
copy_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
# The database's: the same for the database file.
cat "$work/run.sqlite" > /dev/null
t0=$(date +%s%N); cp "$work/run.sqlite" "$work/copy.sqlite"; t1=$(date +%s%N); rm -f "$work/copy.sqlite"
db_copy_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
packets=$(echo "$pcap_line" | sed -n 's/.*: \([0-9]*\) packets.*/\1/p')
# Big messages: 256 MiB through a pipe, recorded, then exported.
head -c 256M /dev/urandom > "$work/bulk.data"
"$bin/radar" record -o "$work/bulk" -- sh -c "cat '$work/bulk.data' | cat > /dev/null" >/dev/null 2>&1
rm -f "$work/bulk.data"
bulk_line=$("$bin/radar" export --pcapng "$work/bulk.pcapng" "$work/bulk" 2>&1 | grep packets)
read -r bulk_bytes bulk_s < <(echo "$bulk_line" | sed -n 's/.* packets, \([0-9]*\) bytes of messages.* in \([0-9.]*\) s$/\1 \2/p')
rm -rf "$work/bulk" "$work/bulk.pcapng"
echo "files: $(du -h --apparent-size "$work/run.sqlite" | cut -f1) database, $(du -h --apparent-size "$work/run.pcapng" | cut -f1) pcapng, $(du -h --apparent-size "$work/run.pftrace" | cut -f1) Perfetto trace"
# The query, on the database radar sql keeps (made by a first call).
"$bin/radar" sql "$dir" 'select 1' >/dev/null
query=()
for ((r = 1; r <= rounds; r++)); do
  read -r s m < <(measure "$bin/radar" sql "$dir" 'select count(*) from messages where latency_ns > 1e6')
  query+=("$s")
done
Y=$(echo "${query[@]}" | median)
# The Parquet files: the same rows as the database, and the slowest ten
# messages asked of DuckDB (npm; tests/bootstrap.sh installs it) over them.
QB=$(echo "${sqlite_beyond[@]}" | median) PB=$(echo "${parquet_beyond[@]}" | median)
RPQ=$(echo "${rss_parquet[@]}" | median)
duckdb_dir=${RADAR_DUCKDB:-$HOME/.cache/radar/duckdb}
duck="not measured: no DuckDB in $duckdb_dir"
if [ -d "$duckdb_dir/node_modules/@duckdb/node-api" ]; then
  duck=$(node "$root/tests/benchmarks/duckdb_time.mjs" "$duckdb_dir" "$rounds" \
    "select * from read_parquet('$work/run.parquet/messages/*/*/*.parquet') order by latency_ns desc nulls last limit 10")
fi
echo "parquet: $(du -sh --apparent-size "$work/run.parquet" | cut -f1) in $(find "$work/run.parquet" -type f | wc -l) files"
# For comparison: SQLite itself filling tables of the same shape with as
# many rows, from inside (generate_series, no calls across its API), with
# the same settings: what an export inserting rows through SQLite costs at
# least (radar writes the two big tables in SQLite's file format instead).
messages=$("$bin/radar" sql --format csv "$dir" 'select count(*) from messages' | tail -1 | tr -d '\r')
columns=$("$bin/radar" sql --format csv "$dir" "select group_concat(name || ' ' || type, ', ') from pragma_table_info('events')" | tail -1 | tr -d '\r"')
floor=()
for ((r = 1; r <= rounds; r++)); do
  rm -f "$work/floor.sqlite"
  read -r s m < <(measure sqlite3 "$work/floor.sqlite" "pragma journal_mode = off; pragma synchronous = off;
    pragma page_size = 65536; begin; create table events ($columns, primary key (event));
    create table messages (send integer, receive integer, channel integer, bytes integer, latency_ns integer);
    insert into events select value, value / 2, value % $p + 1, 0, 'send', 'write', value % $p + 1,
      1795681367824422553 + value * 1000, 1795681367824423053 + value * 1000, 32, 0, null, 32, null, 0, 0
      from generate_series(1, $e);
    insert into messages select value, value + 7, value % $p + 1, 32, 123456 from generate_series(1, $messages);
    commit;")
  floor+=("$s")
done
L=$(echo "${floor[@]}" | median)
awk -v ns="$null_s" -v rp="$RP" -v dc="$db_copy_s" -v c="$copy_s" -v n="$packets" -v bb="$bulk_bytes" -v bs="$bulk_s" -v l="$L" -v s="$S" -v q="$Q" -v p="$P" -v f="$F" -v y="$Y" -v b="$bytes" -v w="$write_s" -v rs="$RS" -v rq="$RQ" -v e="$e" \
  -v pq="$(echo "${parquet[@]}" | median)" -v qb="$QB" -v pb="$PB" -v rpq="$RPQ" -v duck="$duck" '
BEGIN {
  printf "medians: radar stats %.2f s; --sqlite %.2f s (%.2f x stats); --pcapng %.2f s; --perfetto %.2f s\n", s, q, q / s, p, f
  printf "database floor: copying a file of its size takes %.2f s; stats + copy = %.2f x stats\n", dc, (s + dc) / s
  printf "SQLite inserting the same rows from inside: %.2f s; stats + that = %.2f x stats\n", l, (s + l) / s
  printf "pcapng: %.0f MB of payload in %d packets written in %.2f s beyond the merge: %.0f MB/s, %.2f us a packet\n", b / 1e6, n, w, b / 1e6 / w, w * 1e6 / n
  printf "pcapng to /dev/null (radar'"'"'s own part): %.2f s beyond the merge: %.0f MB/s\n", ns, b / 1e6 / ns
  printf "pcapng floor: writing a file of its size from memory takes %.2f s\n", c
  printf "peak memory of --pcapng: %.0f MiB: %.1f bytes per event beyond stats\n", rp / 1024, (rp - rs) * 1024 / e
  printf "pcapng of big messages (256 MiB through a pipe): %.0f MB in %.2f s: %.0f MB/s\n", bb / 1e6, bs, bb / 1e6 / bs
  printf "query (count of messages with latency > 1 ms), radar sql on the kept database: %.2f s\n", y
  printf "peak memory: stats %.0f MiB, --sqlite %.0f MiB: %.1f bytes per event beyond the trace\n", rs / 1024, rq / 1024, (rq - rs) * 1024 / e
  printf "--parquet %.2f s; beyond the merge: --sqlite %.2f s, --parquet %.2f s (%.2f x); peak %.0f MiB, %.1f bytes per event beyond stats\n", pq, qb, pb, pb / qb, rpq / 1024, (rpq - rs) * 1024 / e
  printf "DuckDB, the slowest 10 messages over the Parquet files: %s\n", duck
  bad = 0
  if (q > 3 * s) { print "MISSED: the database takes more than 3 x radar stats"; bad = 1 }
  if (y > 1) { print "MISSED: the query takes more than 1 s"; bad = 1 }
  if (b / 1e6 / ns < 200) { print "MISSED: pcapng below 200 MB/s of payload (to /dev/null)"; bad = 1 }
  if ((rq - rs) * 1024 / e > 64) { print "MISSED: more than 64 bytes per event beyond the trace"; bad = 1 }
  if (duck ~ /^[0-9.]+ s/ && duck + 0 > 1) { print "MISSED: DuckDB takes more than 1 s for the slowest 10 messages"; bad = 1 }
  if (pb > qb) { print "MISSED: the Parquet files take longer than the database beyond the merge"; bad = 1 }
  exit bad
}'
