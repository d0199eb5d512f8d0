#!/usr/bin/env bash
# Bytes kept once: what a recording's logs hold when a send of bytes its
# process just received refers to that receive (radar record's default),
# against a copy in every send (radar record --copies), side by side in
# one run (median of RUNS):
#   pipeline      seq 1 LINES (200 000) | cat x 198 | md5sum: the 200-process pipeline
#   haproxy-tcp   haproxy (mode tcp) in front of nginx, 40 curl downloads of a 1 MiB
#                 file of random bytes through it; haproxy and nginx recorded
#   haproxy-http  the same with haproxy in mode http
#   broker        redis-server's publish/subscribe: a publisher sends 2 000 messages of
#                 4 KiB of random bytes, two subscribers get each one; redis recorded
# For each: the logs' bytes beyond their fixed tail regions (what a
# recording keeps once its processes end), the payload bytes their records
# hold, and the wall time, bare and recorded both ways.
#   bash tests/benchmarks/same_bytes.sh [RUNS]    (default 3)
#   WORKLOADS="pipeline broker" bash tests/benchmarks/same_bytes.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-3}
lines=${PIPELINE_LINES:-200000}
workloads=${WORKLOADS:-pipeline haproxy-tcp haproxy-http broker}
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
median() { sort -n "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }
wants() { [[ " $workloads " == *" $1 "* ]]; }

# What a recording's logs hold beyond their tail regions (each log file
# reserves one of a fixed size, 4096 + 256 KiB + 4 KiB by default), in
# bytes, and the payload bytes of their records.
measure() {  # NAME DIR
  local tail=266240
  find "$2" -name '*.rlog' -printf '%s\n' | awk -v t=$tail '{ s += ($1 > t ? $1 - t : 0) } END { print s }' >> "$work/$1.logs"
  for log in "$2"/*.rlog; do "$radar" dump "$log"; done |
    awk '{ for (i = 1; i < NF; i++) if ($i == "payload" && $(i + 1) ~ /^[0-9]+$/ && $(i + 2) == "B") s += $(i + 1) } END { print s + 0 }' >> "$work/$1.payload"
}

timed() {  # NAME COMMAND...
  local name=$1 t0 t1
  shift
  t0=$(now)
  "$@" 2>> "$work/errors"
  t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$work/$name.wall"
}

pipeline() {
  local p="seq 1 $lines"
  for _ in $(seq 198); do p="$p | cat"; done
  sh -c "$p | md5sum" > /dev/null
}

# --- haproxy in front of nginx, both recorded -----------------------------------
haproxy_round() {  # NAME MODE PREFIX...
  local name=$1 mode=$2 port backend_port pid
  shift 2
  port=$(free_port)
  backend_port=$(free_port)
  mkdir -p "$work/html"
  [ -s "$work/html/big" ] || head -c 1048576 /dev/urandom > "$work/html/big"
  cat > "$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/body; proxy_temp_path $work/proxy; fastcgi_temp_path $work/fcgi;
  uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
  server { listen 127.0.0.1:$backend_port; root $work/html; }
}
EOF
  cat > "$work/haproxy.cfg" <<EOF
global
  maxconn 64
defaults
  mode $mode
  timeout connect 5s
  timeout client 30s
  timeout server 30s
frontend f
  bind 127.0.0.1:$port
  default_backend b
backend b
  server s1 127.0.0.1:$backend_port
EOF
  # shellcheck disable=SC2016
  "$@" sh -c 'nginx -p "$1" -c "$1/nginx.conf" & n=$!; haproxy -db -f "$1/haproxy.cfg"; kill -QUIT $n; wait $n' \
    -- "$work" > /dev/null 2>> "$work/errors" &
  pid=$!
  wait_port "$port"
  wait_port "$backend_port"
  timed "$name" sh -c "for i in \$(seq 40); do curl -s -o /dev/null http://127.0.0.1:$port/big; done"
  pkill -USR1 -f "^haproxy -db -f $work/haproxy.cfg"  # haproxy's soft stop
  wait "$pid" 2>/dev/null || true
}

# --- redis publish/subscribe ---------------------------------------------------
broker_round() {  # NAME PREFIX...
  local name=$1 port pid
  shift
  port=$(free_port)
  "$@" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --logfile /dev/null 2>> "$work/errors" &
  pid=$!
  wait_port "$port"
  timed "$name" /usr/bin/python3 - "$port" <<'PY'
import os, socket, sys, threading
port, count, size = int(sys.argv[1]), 2000, 4096
def connect():
    s = socket.create_connection(("127.0.0.1", port))
    return s, s.makefile("rb")
def subscriber(ready, done):
    s, f = connect()
    s.sendall(b"*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n")
    for _ in range(6): f.readline()
    ready.release()
    for _ in range(count):
        assert f.readline() == b"*3\r\n"
        for _ in range(4): f.readline()
        n = int(f.readline()[1:])
        f.read(n + 2)
    done.append(1)
ready, done = threading.Semaphore(0), []
subs = [threading.Thread(target=subscriber, args=(ready, done)) for _ in range(2)]
for t in subs: t.start()
for _ in subs: ready.acquire()
s, f = connect()
for i in range(count):
    body = os.urandom(size)  # as little for zstd to squeeze as the messages of a real broker
    s.sendall(b"*3\r\n$7\r\nPUBLISH\r\n$1\r\nc\r\n$%d\r\n%s\r\n" % (size, body))
    f.readline()
for t in subs: t.join()
assert len(done) == 2
PY
  redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
}

for _ in $(seq "$runs"); do
  for how in bare once copies; do
    rm -rf "$work/rec"
    prefix=()
    [ "$how" = once ] && prefix=("$radar" record -o "$work/rec" --)
    [ "$how" = copies ] && prefix=("$radar" record --copies -o "$work/rec" --)
    if wants pipeline; then
      timed "pipeline_$how" "${prefix[@]}" sh -c "$(declare -f pipeline); lines=$lines; pipeline"
      [ "$how" = bare ] || measure "pipeline_$how" "$work/rec"
      rm -rf "$work/rec"
    fi
    for mode in tcp http; do
      wants "haproxy-$mode" || continue
      haproxy_round "haproxy-${mode}_$how" "$mode" "${prefix[@]}"
      [ "$how" = bare ] || measure "haproxy-${mode}_$how" "$work/rec"
      rm -rf "$work/rec"
    done
    if wants broker; then
      broker_round "broker_$how" "${prefix[@]}"
      [ "$how" = bare ] || measure "broker_$how" "$work/rec"
      rm -rf "$work/rec"
    fi
  done
done

printf '| workload | logs, --copies (MB) | logs, kept once (MB) | saved | payloads, --copies / kept once (MB) | wall (ms): bare, kept once, --copies |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
for w in $workloads; do
  [ -s "$work/${w}_once.logs" ] || continue
  awk -v w="$w" -v c="$(median "${w}_copies.logs")" -v o="$(median "${w}_once.logs")" \
      -v pc="$(median "${w}_copies.payload")" -v po="$(median "${w}_once.payload")" \
      -v b="$(median "${w}_bare.wall")" -v wo="$(median "${w}_once.wall")" -v wc="$(median "${w}_copies.wall")" \
      'BEGIN { printf "| %s | %.1f | %.1f | **%.0f %%** | %.1f / %.1f | %d, %d, %d |\n", w, c / 1e6, o / 1e6,
               (c > 0 ? 100 * (c - o) / c : 0), pc / 1e6, po / 1e6, b, wo, wc }'
done
