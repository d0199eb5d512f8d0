#!/usr/bin/env bash
# Real threaded servers recorded with --sync: CPython's ThreadingHTTPServer
# (python3 -m http.server: a thread per connection, its interpreter lock a
# mutex and a condition variable taken at every call that may block) under
# REQUESTS requests from ab, 4 at a time; memcached with four worker
# threads (locks taken by trylock loops, per item, per LRU, per statistic)
# under memcslap, 4 threads of SETS sets and gets. The server's CPU time
# (user + system, from /proc when the client is done), side by side in
# one run, alternating, medians:
#   bare      the server alone
#   floor     with an empty preload that interposes the locks and only
#             passes them on (what any interposer costs)
#   radar     radar record, without --sync
#   sync      radar record --sync
#   bash tests/benchmarks/sync_servers.sh [RUNS]    (default 3; REQUESTS=5000, SETS=20000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-3} requests=${REQUESTS:-5000} sets=${SETS:-20000}
command -v ab > /dev/null || { echo "needs ab (apache2-utils)"; exit 1; }
command -v memcslap > /dev/null && command -v memcached > /dev/null ||
  { echo "needs memcached and memcslap (memcached libmemcached-tools)"; exit 1; }
work=$(mktemp -d)
trap 'pkill -f "http.server.*--directory $work/site" 2> /dev/null || true; pkill -f "memcached -t 4 -l 127.0.0.1 -U 0 -p" 2> /dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/site"
head -c 2048 /dev/urandom | base64 > "$work/site/page.txt"
cat > "$work/pass.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#define PASS(ret, name, params, args)                                     \
  ret name params {                                                       \
    static ret(*real) params;                                             \
    if (!real) real = (ret(*) params)dlsym(RTLD_NEXT, #name);             \
    return real args;                                                     \
  }
PASS(int, pthread_mutex_lock, (pthread_mutex_t * m), (m))
PASS(int, pthread_mutex_trylock, (pthread_mutex_t * m), (m))
PASS(int, pthread_mutex_unlock, (pthread_mutex_t * m), (m))
PASS(int, pthread_cond_wait, (pthread_cond_t * c, pthread_mutex_t* m), (c, m))
PASS(int, pthread_cond_broadcast, (pthread_cond_t * c), (c))
PASS(int, pthread_cond_signal, (pthread_cond_t * c), (c))
PASS(int, pthread_cond_timedwait, (pthread_cond_t * c, pthread_mutex_t* m, const struct timespec* t), (c, m, t))
PASS(int, sem_post, (sem_t * s), (s))
PASS(int, sem_wait, (sem_t * s), (s))
PASS(int, sem_trywait, (sem_t * s), (s))
PASS(int, sem_clockwait, (sem_t * s, clockid_t c, const struct timespec* t), (s, c, t))
C
cc -O2 -shared -fPIC -o "$work/pass.so" "$work/pass.c" -ldl
ticks=$(getconf CLK_TCK)
# run NAME PREFIX...: the server's CPU milliseconds under ab, appended to $work/NAME
run() {
  local name=$1; shift
  local port=$((20000 + RANDOM % 20000))
  "$@" /usr/bin/python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/site" > /dev/null 2>&1 &
  local launcher=$! pid=""
  for _ in $(seq 100); do
    pid=$(pgrep -f "http.server $port" | while read -r p; do
      [ "$(readlink "/proc/$p/exe")" = "$(readlink -f /usr/bin/python3)" ] && echo "$p"; done | head -1 || true)
    [ -n "$pid" ] && curl -s "http://127.0.0.1:$port/page.txt" > /dev/null 2>&1 && break
    sleep 0.1
  done
  ab -q -n "$requests" -c 4 "http://127.0.0.1:$port/page.txt" > "$work/ab.txt" 2>&1
  grep -q "Failed requests: *0" "$work/ab.txt" || { echo "$name: ab saw failures"; cat "$work/ab.txt"; }
  awk -v t="$ticks" '{ print ($14 + $15) * 1000 / t }' "/proc/$pid/stat" >> "$work/$name"
  kill -TERM "$pid"
  wait "$launcher" 2> /dev/null || true
}
# memcached NAME PREFIX...: memcached's CPU milliseconds under memcslap, appended to $work/mc-NAME
memcached_run() {
  local name=$1; shift
  local port=$((20000 + RANDOM % 20000)) user=()
  [ "$(id -u)" = 0 ] && user=(-u root)
  "$@" memcached -t 4 -l 127.0.0.1 -U 0 -p "$port" "${user[@]}" > /dev/null 2>&1 &
  local launcher=$! pid=""
  for _ in $(seq 100); do
    pid=$(pgrep -f "memcached -t 4 -l 127.0.0.1 -U 0 -p $port" | while read -r p; do
      [ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$(command -v memcached)")" ] && echo "$p"; done | head -1 || true)
    [ -n "$pid" ] && memcping --servers="127.0.0.1:$port" > /dev/null 2>&1 && break
    sleep 0.1
  done
  memcslap --servers="127.0.0.1:$port" --concurrency=4 --execute-number="$sets" --binary > /dev/null ||
    echo "$name: memcslap failed"
  awk -v t="$ticks" '{ print ($14 + $15) * 1000 / t }' "/proc/$pid/stat" >> "$work/mc-$name"
  kill -TERM "$pid"
  wait "$launcher" 2> /dev/null || true
}
for i in $(seq "$runs"); do
  run bare env
  run floor env LD_PRELOAD="$work/pass.so"
  run radar "$radar" record --force -o "$work/rec" --
  run sync "$radar" record --sync --force -o "$work/rec" --
  memcached_run bare env
  memcached_run floor env LD_PRELOAD="$work/pass.so"
  memcached_run radar "$radar" record --force -o "$work/rec" --
  memcached_run sync "$radar" record --sync --force -o "$work/rec" --
done
median() { sort -g "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '| ThreadingHTTPServer, %s requests by ab -c 4 (server CPU, median of %s) | bare | empty preload | radar record | radar record --sync | --sync / bare |\n' "$requests" "$runs"
printf '| --- | --- | --- | --- | --- | --- |\n'
printf '| python3 -m http.server | %s ms | %s ms | %s ms | %s ms | %s |\n' "$(median bare)" "$(median floor)" \
  "$(median radar)" "$(median sync)" \
  "$(awk -v a="$(median sync)" -v b="$(median bare)" 'BEGIN { printf "%.2f", a / b }')"
echo
printf '| memcached -t 4, memcslap -c 4, %s sets and gets (server CPU, median of %s) | bare | empty preload | radar record | radar record --sync | --sync / bare |\n' "$sets" "$runs"
printf '| --- | --- | --- | --- | --- | --- |\n'
printf '| memcached | %s ms | %s ms | %s ms | %s ms | %s |\n' "$(median mc-bare)" "$(median mc-floor)" \
  "$(median mc-radar)" "$(median mc-sync)" \
  "$(awk -v a="$(median mc-sync)" -v b="$(median mc-bare)" 'BEGIN { printf "%.2f", a / b }')"
