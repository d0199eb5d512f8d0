#!/usr/bin/env bash
# Real screenshots of the replay window: the calc sample recorded, the
# window shown on an X server (Xvfb) and the screen grabbed
# (tests/app/screenshot_test.cc). Skipped, saying why, without Xvfb.
#   screenshots_test.sh BUILD_DIR [OUT_DIR]   (default OUT_DIR: BUILD_DIR/screenshots)
set -euo pipefail
build=$1
out=${2:-$build/screenshots}
command -v Xvfb > /dev/null || { echo "Xvfb is not installed (apt-get install xvfb): skipped"; exit 77; }
work=$(mktemp -d)
xvfb=
live=
cleanup() {
  # The program the live window follows ends once asked.
  [ -n "$live" ] && touch "$work/live-stop" && wait "$live" 2> /dev/null
  [ -n "$xvfb" ] && kill "$xvfb" 2> /dev/null && wait "$xvfb" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# Descriptors the caller left open (ctest leaves some) would be inherited by
# the samples and move their channels to other numbers than their
# descriptions name (kvstore.netdesc's ports are descriptors 3, 4 ...).
exec 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-
# What the recordings below say goes to one log, shown when a picture fails.
said=$work/recordings.log
echo "(2 + 3) * x - 4 / 2" | "$build/bin/radar" record -o "$work/rec" -- "$build/bin/calc" > /dev/null 2>> "$said" || true
# The tutorial's expression (docs/tutorial.md).
echo "10 - (2 + 3)" | "$build/bin/radar" record -o "$work/tutorial" -- "$build/bin/calc" > /dev/null 2>> "$said" || true
# A lock one thread waits for while another holds it (--sync), for the
# critical-path panel; none where the test programs are not built.
lock_wait=$build/tests/threads/programs/lock_wait
[ -x "$lock_wait" ] && "$build/bin/radar" record --sync -o "$work/sync" -- "$lock_wait" 1 > /dev/null 2>> "$said" || true
# nginx with two workers answering 20 requests from curl, for the Requests
# pane; none where nginx or curl is not installed.
record_nginx() {
  local web=$work/nginx port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$web/html" && chmod 755 "$work" "$web"
  for i in $(seq 0 19); do echo "page $i" > "$web/html/page$i.html"; done
  echo "index" > "$web/html/index.html"
  cat > "$web/nginx.conf" << CONF
worker_processes 2; daemon off; pid $web/nginx.pid; error_log $web/error.log;
events { worker_connections 64; }
http { access_log off; client_body_temp_path $web/body; proxy_temp_path $web/proxy;
  fastcgi_temp_path $web/fcgi; uwsgi_temp_path $web/uwsgi; scgi_temp_path $web/scgi;
  server { listen 127.0.0.1:$port; root $web/html; } }
CONF
  "$build/bin/radar" record -o "$work/nginx-rec" -- sh -c "nginx -p $web -c $web/nginx.conf & server=\$!
    for i in \$(seq 100); do curl -s -o /dev/null http://127.0.0.1:$port/ && break; sleep 0.05; done
    for i in \$(seq 0 19); do curl -s -o /dev/null http://127.0.0.1:$port/page\$i.html; done
    kill -QUIT \$(cat $web/nginx.pid); wait \$server" > /dev/null 2>> "$said" || true
}
if command -v nginx > /dev/null && command -v curl > /dev/null; then record_nginx; fi
# A Python multiprocessing pool of thirty workers mapping 60 tasks, for the
# network of many processes.
cat > "$work/many30.py" << 'PY'
import multiprocessing as mp
def square(x):
    return x * x
if __name__ == "__main__":
    with mp.Pool(30) as pool:
        print(sum(pool.map(square, range(60), chunksize=1)))
PY
if command -v python3 > /dev/null; then
  "$build/bin/radar" record -o "$work/pool-rec" -- python3 "$work/many30.py" > /dev/null 2>> "$said" || true
fi
# RADAR's Figure 4, run from its description (docs/netdesc.md).
"$build/bin/radar" run -o "$work/fig4" "$build/bin/static_net.netdesc" > /dev/null 2>> "$said" || true
# Two threads that take two locks in opposite orders (docs/threads.md).
lock_order=$build/tests/threads/programs/lock_order
[ -x "$lock_order" ] && "$build/bin/radar" record --sync -o "$work/lock-order" -- "$lock_order" > /dev/null 2>> "$said" || true
# The kvstore sample, for a message opened and a search.
"$build/bin/radar" record -o "$work/kvstore" -- "$build/bin/kvstore" > /dev/null 2>> "$said" || true
# The pipeline sample, drawn where its description places its programs.
"$build/bin/radar" record -o "$work/pipeline" -- "$build/bin/pipeline.sh" > /dev/null 2>> "$said" || true
# The bounded buffer sample with three servers and 200 requests, its
# patterns named as docs/analysis.md names them.
"$build/bin/radar" record -o "$work/mpx" -- "$build/bin/mpx" 3 200 > /dev/null 2>> "$said" || true
{ cat "$build/bin/mpx.netdesc"; cat << 'NET'
pattern { name: "serving" process: "server"
          step: "receives Request from initiator" step: "sends Reply to initiator" }
pattern { name: "queueing" process: "initiator" step: "sends Request to server" }
NET
} > "$work/mpx-named.netdesc"
# The deadlock sample's ring, for its cycle.
"$build/bin/radar" record -o "$work/deadlock" -- "$build/bin/deadlock" ring > /dev/null 2>> "$said" || true
# Two runs of the race sample that part (radar diff exits 1), for the diff
# view: the clients' order is the scheduler's, so a few tries at most.
run1= run2=
"$build/bin/radar" record -o "$work/race0" -- "$build/bin/race" > /dev/null 2>> "$said" || true
for i in $(seq 1 8); do
  "$build/bin/radar" record -o "$work/race$i" -- "$build/bin/race" > /dev/null 2>> "$said" || true
  status=0
  "$build/bin/radar" diff "$work/race0" "$work/race$i" > /dev/null 2>&1 || status=$?
  if [ "$status" = 1 ]; then run1=$work/race0 run2=$work/race$i; break; fi
done
# A statically linked program between two that radar records, the
# fallback recorder off: a process of the story radar does not see into.
static_upper=$build/tests/preload/programs/static_upper
[ -x "$static_upper" ] && "$build/bin/radar" record --fallback off -o "$work/unrecorded" -- sh -c "echo hello | $static_upper | cat" \
  > /dev/null 2>> "$said" || true
# Open MPI (as root if need be): four ranks exchanging halos, and four in a
# loop of MPI_Allreduce; none where mpirun or the MPI programs are missing.
record_mpi() {
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$build/bin/radar" record -o "$work/mpi-$1" -- \
    mpirun --oversubscribe -n 4 "$build/tests/mpi/programs/$1" "$2" > /dev/null 2>> "$said" || true
}
if command -v mpirun > /dev/null && [ -x "$build/tests/mpi/programs/halo" ]; then
  record_mpi halo 4
  record_mpi allreduce 200
fi
# PostgreSQL: a server, psql creating a table, inserting 1 000 rows and
# summing them, then pg_ctl stop; as the postgres user where run as root
# (PostgreSQL refuses root). None where PostgreSQL is not installed.
record_postgres() {
  local bin=$1 pg=$work/pg as=() port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$pg" && chmod 755 "$work"
  if [ "$(id -u)" = 0 ]; then
    id postgres > /dev/null 2>&1 || return 0
    chown postgres "$pg"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -A trust -D "$pg/data" > /dev/null 2>> "$said" || return 0
  cat > "$pg/s.sh" << SH
$bin/postgres -D $pg/data -k $pg -p $port -c listen_addresses=127.0.0.1 > $pg/log 2>&1 &
until $bin/pg_isready -q -h 127.0.0.1 -p $port; do sleep 0.1; done
psql -X -q -h 127.0.0.1 -p $port -d postgres -c 'create table t (x int)' \
  -c 'insert into t select generate_series(1, 1000)' -c 'select sum(x) from t'
$bin/pg_ctl stop -D $pg/data -m fast > /dev/null
SH
  chmod 755 "$pg/s.sh"
  "${as[@]}" "$build/bin/radar" record -o "$pg/rec" -- sh "$pg/s.sh" > /dev/null 2>> "$said" || true
}
for bin in /usr/lib/postgresql/*/bin; do
  [ -x "$bin/postgres" ] && command -v psql > /dev/null && record_postgres "$bin" && break
done
# Open MPI's ring of four ranks on two hosts simulated with namespaces,
# each rank recording itself (docs/many-hosts.md), as the MPI tests make
# it; none where namespaces cannot be made.
if [ -x "$build/bin/mpi_tests" ] && command -v mpirun > /dev/null; then
  mkdir -p "$work/hosts-ring"
  RADAR_MPI_HOSTS_RING_DIR="$work/hosts-ring" "$build/bin/mpi_tests" \
    --gtest_filter=Mpi.RingOfFourRanksOnTwoHostsIsOneStory > /dev/null 2>> "$said" || true
fi
# What Wireshark opens: the pcapng export of nginx's recording, and of a
# program that speaks HTTP over pipes and a Unix socket and DNS over a
# datagram pair, each channel decoded as its protocol; Wireshark's window
# where the screenshots take it, 1300x860 at the top left.
[ -d "$work/nginx-rec" ] && "$build/bin/radar" export --pcapng "$work/web.pcapng" "$work/nginx-rec" \
  > /dev/null 2>> "$said" || true
first_http=$( (tshark -r "$work/web.pcapng" -Y http -T fields -e frame.number 2> /dev/null || true) | head -1)
http_pair=$build/tests/export/programs/http_pair
if [ -x "$http_pair" ]; then
  "$build/bin/radar" record -o "$work/pair" -- "$http_pair" "$work/s.sock" > /dev/null 2>> "$said" || true
  decode=()
  while IFS=, read -r name type; do
    [ "$type" = "unix datagram socket" ] && decode+=(--decode-as "$name=dns") || decode+=(--decode-as "$name=http")
  done < <("$build/bin/radar" sql "$work/pair" "select name, type from channels where external = 0" --format csv |
    tail -n +2)
  "$build/bin/radar" export --pcapng "$work/pair.pcapng" "${decode[@]}" "$work/pair" > /dev/null 2>> "$said" || true
fi
mkdir -p "$work/config/wireshark"
printf 'gui.geometry_main_x: 0\ngui.geometry_main_y: 0\ngui.geometry_main_width: 1300\ngui.geometry_main_height: 860\n' \
  > "$work/config/wireshark/recent_common"
# A display of its own: Xvfb picks a free number and writes it to fd 3.
Xvfb -displayfd 3 -screen 0 1400x950x24 -nolisten tcp 3> "$work/display" 2> "$work/xvfb.log" &
xvfb=$!
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { echo "Xvfb did not start: $(cat "$work/xvfb.log")"; exit 1; }
mkdir -p "$out"
# A pool of three workers squaring numbers sent one every 50 ms, recorded
# while the live window follows it (until the screenshots are taken).
cat > "$work/live_pool.py" << 'PY'
import multiprocessing as mp, os, sys, time
def square(jobs, answers):
    for n in iter(jobs.get, None):
        answers.put((os.getpid(), n * n))
if __name__ == "__main__":
    jobs, answers = mp.Queue(), mp.Queue()
    workers = [mp.Process(target=square, args=(jobs, answers)) for _ in range(3)]
    for w in workers: w.start()
    n = 0
    while not os.path.exists(sys.argv[1]) and n < 12000:
        jobs.put(n); answers.get(); n += 1
        time.sleep(0.05)
    for w in workers: jobs.put(None)
    for w in workers: w.join()
    print(n, "squared")
PY
"$build/bin/radar" record -o "$work/live" -- /usr/bin/python3 "$work/live_pool.py" "$work/live-stop" > /dev/null 2>> "$said" &
live=$!
# Under LeakSanitizer: the D-Bus library Qt's X11 platform loads keeps a
# buffer to the end, not radar's to free.
echo "leak:libdbus-1.so" > "$work/lsan.supp"
export LSAN_OPTIONS="suppressions=$work/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
DISPLAY=":$(head -1 "$work/display")" QT_QPA_PLATFORM=xcb XDG_RUNTIME_DIR="$work" \
  RADAR_SCREENSHOT_REC="$work/rec" RADAR_SCREENSHOT_SYNC_REC="$work/sync" RADAR_SCREENSHOT_DIR="$out" \
  RADAR_SCREENSHOT_TUTORIAL_REC="$work/tutorial" RADAR_SCREENSHOT_SERVER_REC="$work/nginx-rec" RADAR_SCREENSHOT_POOL_REC="$work/pool-rec" \
  RADAR_SCREENSHOT_FIG4_REC="$work/fig4" RADAR_SCREENSHOT_FIG4_NET="$build/bin/static_net.netdesc" \
  RADAR_SCREENSHOT_LOCK_ORDER_REC="$work/lock-order" \
  RADAR_SCREENSHOT_KV_REC="$work/kvstore" RADAR_SCREENSHOT_KV_NET="$build/bin/kvstore.netdesc" \
  RADAR_SCREENSHOT_PIPELINE_REC="$work/pipeline" RADAR_SCREENSHOT_PIPELINE_NET="$build/bin/pipeline.netdesc" \
  RADAR_SCREENSHOT_MPX_REC="$work/mpx" RADAR_SCREENSHOT_MPX_NET="$work/mpx-named.netdesc" \
  RADAR_SCREENSHOT_UNRECORDED_REC="$work/unrecorded" RADAR_SCREENSHOT_HALO_REC="$work/mpi-halo" \
  RADAR_SCREENSHOT_ALLREDUCE_REC="$work/mpi-allreduce" RADAR_SCREENSHOT_POSTGRES_REC="$work/pg/rec" \
  RADAR_SCREENSHOT_WEB_PCAPNG="$work/web.pcapng" RADAR_SCREENSHOT_WEB_PACKET="$first_http" RADAR_SCREENSHOT_PAIR_PCAPNG="$work/pair.pcapng" \
  RADAR_SCREENSHOT_WIRESHARK_CONFIG="$work/config" RADAR_SCREENSHOT_HOSTS_RING="$work/hosts-ring" \
  RADAR_SCREENSHOT_DEADLOCK_REC="$work/deadlock" RADAR_SCREENSHOT_RUN1="$run1" RADAR_SCREENSHOT_RUN2="$run2" RADAR_SCREENSHOT_NET="$build/bin/calc.netdesc" \
  RADAR_SCREENSHOT_LIVE_REC="$work/live" \
  "$build/bin/screenshot_tests" || { status=$?; echo "what the recordings said:"; cat "$said"; exit $status; }
# Every picture docs/ shows is one the screenshots above take.
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for image in "$source_dir"/docs/images/*.png; do
  name=$(basename "$image")
  grep -q "\"$name\"\|\"/$name\"" "$source_dir/tests/app/screenshot_test.cc" ||
    { echo "docs/images/$name is taken by no screenshot of tests/app/screenshot_test.cc"; exit 1; }
done
