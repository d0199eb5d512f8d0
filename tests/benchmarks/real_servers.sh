#!/usr/bin/env bash
# Recording real servers, bare and recorded, alternating, side by side in
# one run (median of RUNS):
#   redis   redis-server under redis-benchmark -n REQUESTS -c 4 -t set,get:
#           requests per second, and the server's CPU time (user + system)
#   nginx   a master and 2 workers serving REQUESTS/10 requests from 4 curl
#           loops: wall time, and the server's CPU time (workers included)
#   apache2 prefork (workers as www-data when run as root) under ab -n REQUESTS/25 -c 4:
#           requests per second, and the server's CPU time (workers included)
#   shell   a 200-process pipeline moving `seq 1 PIPELINE_LINES` (200 000): wall time,
#           recorded into a new directory each round (as radar record
#           does by default), into the last round's with --force, and with
#           the recorder preloaded alone (no radar record around it), and
#           the floors: the bare run plus creating as many files as it has
#           logs, and plus writing the recording's bytes into them
#   bash tests/benchmarks/real_servers.sh [RUNS]    (default 5)
#   WORKLOADS="shell" bash tests/benchmarks/real_servers.sh   (some of them)
#   WORKLOADS="shell" PIPELINE_LINES=10 bash tests/benchmarks/real_servers.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-5}
requests=${REQUESTS:-50000}
lines=${PIPELINE_LINES:-200000}  # through the pipeline; a few: its processes' own cost alone
work=$(mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
median() { sort -n "$work/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$(median "$1")" -v b="$(median "$2")" 'BEGIN { printf "%.2f", a / b }'; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# cpu_ms PID: user + system time of a process and its reaped children, in ms
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15 + $16 + $17) * 1000 / hz) }' "/proc/$1/stat"; }

# The server runs under a small bash that, once it has reaped it, writes
# the CPU time of everything it reaped (the server, its workers, and radar
# record when recorded). Sets server_pid.
serve() {  # NAME PREFIX COMMAND... (PREFIX: "" or the radar record words)
  local name=$1 prefix=$2
  shift 2
  rm -f "$work/$name.cpu_last"
  bash -c "$prefix"' "$@"; awk -v hz=$(getconf CLK_TCK) "{ print int((\$16 + \$17) * 1000 / hz) }" /proc/$$/stat > '"$work/$name.cpu_last" -- "$@" &
  server_pid=$!
}

redis_round() {  # NAME PREFIX
  local name=$1 prefix=$2 port pid
  port=$(free_port)
  serve "$name" "$prefix" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no --logfile /dev/null
  pid=$server_pid
  wait_port "$port"
  redis-benchmark -p "$port" -n "$requests" -c 4 -t set,get -q --csv 2>/dev/null |
    awk -F'"' '/"SET"|"GET"/ { s += $4; n++ } END { printf "%d\n", s / n }' >> "$work/$name.rps"
  redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true
  wait "$pid" 2>/dev/null || true
  cat "$work/$name.cpu_last" >> "$work/$name.cpu"
}

nginx_round() {  # NAME PREFIX
  local name=$1 prefix=$2 port pid t0 t1 n=$((requests / 10))
  port=$(free_port)
  mkdir -p "$work/html"
  echo "hello" > "$work/html/index.html"
  cat > "$work/nginx.conf" <<EOF
worker_processes 2;
daemon off;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/body; proxy_temp_path $work/proxy; fastcgi_temp_path $work/fcgi;
  uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
  server { listen 127.0.0.1:$port; root $work/html; }
}
EOF
  serve "$name" "$prefix" nginx -p "$work" -c "$work/nginx.conf"
  pid=$server_pid
  wait_port "$port"
  t0=$(now)
  local clients=()
  for _ in 1 2 3 4; do
    (for _ in $(seq $((n / 4))); do echo "url = \"http://127.0.0.1:$port/\""; echo "output = /dev/null"; done |
      curl -s -K - > /dev/null) &
    clients+=($!)
  done
  wait "${clients[@]}"
  t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$work/$name.wall"
  kill -QUIT "$(cat "$work/nginx.pid")"
  wait "$pid" 2>/dev/null || true
  cat "$work/$name.cpu_last" >> "$work/$name.cpu"
}

apache2_round() {  # NAME PREFIX
  local name=$1 prefix=$2 port pid n=$((requests / 25)) user=""
  port=$(free_port)
  mkdir -p "$work/html" "$work/apache"
  echo "hello" > "$work/html/index.html"
  [ "$(id -u)" = 0 ] && user=$'User www-data\nGroup www-data'
  cat > "$work/apache.conf" <<EOF
ServerRoot $work/apache
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
Listen 127.0.0.1:$port
ServerName localhost
PidFile $work/apache.pid
ErrorLog $work/apache-error.log
Mutex file:$work/apache default
$user
StartServers 4
MinSpareServers 4
MaxSpareServers 8
DocumentRoot $work/html
<Directory $work/html>
  Require all granted
</Directory>
EOF
  # In a session of its own: at its stop it signals its whole process group.
  serve "$name" "$prefix" setsid apache2 -f "$work/apache.conf" -DFOREGROUND
  pid=$server_pid
  wait_port "$port"
  ab -q -n "$n" -c 4 "http://127.0.0.1:$port/" 2>/dev/null |
    awk '/Requests per second/ { printf "%d\n", $4 }' >> "$work/$name.rps"
  kill -TERM "$(cat "$work/apache.pid")"
  wait "$pid" 2>/dev/null || true
  cat "$work/$name.cpu_last" >> "$work/$name.cpu"
}

pipeline() {
  local p="seq 1 $lines"
  for _ in $(seq 198); do p="$p | cat"; done
  echo "$p | md5sum"
}
shell_round() {  # NAME PREFIX
  local name=$1 prefix=$2 t0 t1
  t0=$(now)
  # shellcheck disable=SC2086
  $prefix sh -c "$(pipeline)" > /dev/null 2>&1
  t1=$(now)
  echo $(( (t1 - t0) / 1000000 )) >> "$work/$name.wall"
}
# The pipeline's floors beyond its bare run, in a new directory of the same
# file system: a new file for each process image's log, made with the
# recorder's calls (open O_EXCL, ftruncate to a log's size, fallocate its
# first 20 KiB, close), as many as the last recording holds; and the same
# files with the bytes each log holds beyond its tail region written into
# them, 64 KiB at a time (a message's frame goes to its log in one pwritev).
files_round() {
  local n
  n=$(find "$work/new" -name '*.rlog' | wc -l)
  echo "$n" > "$work/shell_files.count"
  for with_bytes in 0 1; do
    rm -rf "$work/files" && mkdir "$work/files"
    python3 - "$work/files" "$work/new" "$with_bytes" "$work/shell_files.mb" >> "$work/shell_files$with_bytes.ms" <<'PY'
import os, sys, time
d, recording, with_bytes, mb = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
tail = 266240
sizes = [os.path.getsize(os.path.join(recording, f)) for f in os.listdir(recording) if f.endswith(".rlog")]
chunk = memoryview(b"\x5a" * 65536)
t = time.perf_counter()
written = 0
for i, size in enumerate(sizes):
    fd = os.open(f"{d}/{i}.rlog", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    os.ftruncate(fd, tail)
    os.posix_fallocate(fd, 0, 20480)
    at = tail
    while with_bytes and at < size:
        n = os.pwrite(fd, chunk[: min(len(chunk), size - at)], at)
        at += n
        written += n
    os.close(fd)
print(int((time.perf_counter() - t) * 1000))
if with_bytes:
    with open(mb, "w") as f:
        print(f"{written / 1e6:.1f}", file=f)
PY
  done
}
workloads=${WORKLOADS:-redis nginx apache2 shell}
wants() { [[ " $workloads " == *" $1 "* ]]; }

record="$radar record --force -o $work/rec --"
# The floor of preloading anything: a library with no code.
echo 'int radar_benchmark_empty;' | cc -shared -fPIC -x c - -o "$work/empty.so"
for _ in $(seq "$runs"); do
  if wants redis && command -v redis-server > /dev/null && command -v redis-benchmark > /dev/null; then
    redis_round redis_bare ""
    redis_round redis_radar "$record"
  fi
  if wants nginx && command -v nginx > /dev/null && command -v curl > /dev/null; then
    nginx_round nginx_bare ""
    nginx_round nginx_radar "$record"
  fi
  if wants apache2 && command -v apache2 > /dev/null && command -v ab > /dev/null; then
    apache2_round apache2_bare ""
    apache2_round apache2_empty "env LD_PRELOAD=$work/empty.so"
    apache2_round apache2_radar "$record"
  fi
  if wants shell; then
    shell_round shell_bare ""
    rm -rf "$work/new"
    shell_round shell_radar "$radar record -o $work/new --"
    files_round
    echo $(( $(tail -1 "$work/shell_bare.wall") + $(tail -1 "$work/shell_files0.ms") )) >> "$work/shell_floor.wall"
    echo $(( $(tail -1 "$work/shell_bare.wall") + $(tail -1 "$work/shell_files1.ms") )) >> "$work/shell_floor_bytes.wall"
    shell_round shell_force "$record"
    rm -rf "$work/alone" && mkdir "$work/alone"
    shell_round shell_alone "env LD_PRELOAD=$root/build/lib/radar/libradar-preload.so RADAR_DIR=$work/alone"
  fi
done

printf '| workload | bare | recorded | recorded / bare |\n| --- | --- | --- | --- |\n'
if [ -s "$work/redis_bare.rps" ]; then
  printf '| redis, %d requests (set, get), 4 clients: requests/s | %s | %s | %s× |\n' "$requests" \
    "$(median redis_bare.rps)" "$(median redis_radar.rps)" "$(ratio redis_radar.rps redis_bare.rps)"
  printf '| redis: server CPU (ms) | %s | %s | **%s×** |\n' \
    "$(median redis_bare.cpu)" "$(median redis_radar.cpu)" "$(ratio redis_radar.cpu redis_bare.cpu)"
fi
if [ -s "$work/nginx_bare.wall" ]; then
  printf '| nginx, %d requests, 4 curl clients: wall (ms) | %s | %s | %s× |\n' "$((requests / 10))" \
    "$(median nginx_bare.wall)" "$(median nginx_radar.wall)" "$(ratio nginx_radar.wall nginx_bare.wall)"
  printf '| nginx: server CPU, master and workers (ms) | %s | %s | **%s×** |\n' \
    "$(median nginx_bare.cpu)" "$(median nginx_radar.cpu)" "$(ratio nginx_radar.cpu nginx_bare.cpu)"
fi
if [ -s "$work/apache2_bare.rps" ]; then
  printf '| apache2 prefork, %d requests, ab -c 4: requests/s | %s | %s | %s× |\n' "$((requests / 25))" \
    "$(median apache2_bare.rps)" "$(median apache2_radar.rps)" "$(ratio apache2_radar.rps apache2_bare.rps)"
  printf '| apache2: server CPU, parent and workers (ms) | %s | %s | **%s×** |\n' \
    "$(median apache2_bare.cpu)" "$(median apache2_radar.cpu)" "$(ratio apache2_radar.cpu apache2_bare.cpu)"
  printf '| the floor: apache2 with an empty library preloaded, requests/s | %s | %s | %s× |\n' \
    "$(median apache2_bare.rps)" "$(median apache2_empty.rps)" "$(ratio apache2_empty.rps apache2_bare.rps)"
  printf '| the floor: its server CPU (ms) | %s | %s | %s× |\n' \
    "$(median apache2_bare.cpu)" "$(median apache2_empty.cpu)" "$(ratio apache2_empty.cpu apache2_bare.cpu)"
fi
if [ -s "$work/shell_bare.wall" ]; then
  printf '| 200-process shell pipeline, %s lines: wall (ms) | %s | %s | **%s×** |\n' "$lines" \
    "$(median shell_bare.wall)" "$(median shell_radar.wall)" "$(ratio shell_radar.wall shell_bare.wall)"
  printf '| the same, --force into the last round'"'"'s directory | %s | %s | %s× |\n' \
    "$(median shell_bare.wall)" "$(median shell_force.wall)" "$(ratio shell_force.wall shell_bare.wall)"
  printf '| the same, the recorder preloaded alone (no radar record) | %s | %s | %s× |\n' \
    "$(median shell_bare.wall)" "$(median shell_alone.wall)" "$(ratio shell_alone.wall shell_bare.wall)"
  printf '| the floor: the bare run, then a file for each of its %s logs (%s ms) | %s | %s | %s× |\n' \
    "$(cat "$work/shell_files.count")" "$(median shell_files0.ms)" \
    "$(median shell_bare.wall)" "$(median shell_floor.wall)" "$(ratio shell_floor.wall shell_bare.wall)"
  printf '| the floor with the bytes: those files, with the %s MB its logs hold beyond their tails (%s ms) | %s | %s | %s× |\n' \
    "$(cat "$work/shell_files.mb")" "$(median shell_files1.ms)" \
    "$(median shell_bare.wall)" "$(median shell_floor_bytes.wall)" "$(ratio shell_floor_bytes.wall shell_bare.wall)"
fi
