#!/usr/bin/env bash
# Recording many short-lived processes, side by side in one run
# (alternating, median of N), against the machine's floor for the same
# work: the workload with a preloaded library that does only what a log
# needs of the file system, each image creating one file and writing as
# many bytes as an image's log holds on average (measured in this run).
#   forks   a C program forking FORKS children that each write one byte
#           to a pipe and exit
#   shell   sh starting FORKS /bin/echo processes, one message each
#   bash tests/benchmarks/process_heavy.sh [RUNS]    (default 5)
# Environment: FORKS (default 2000); TMPDIR places the recordings.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-5}
forks=${FORKS:-2000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$root/tests/benchmarks/timing.sh"
cat > "$work/forker.c" <<'EOF'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char** argv) {
  int n = atoi(argv[1]), p[2];
  char b;
  if (pipe(p)) return 1;
  for (int i = 0; i < n; ++i) {
    if (fork() == 0) _exit(write(p[1], "x", 1) != 1);
    if (read(p[0], &b, 1) != 1 || wait(NULL) < 0) return 1;
  }
  return 0;
}
EOF
cc -O2 -o "$work/forker" "$work/forker.c"
# The floor's library: each process image, and each forked child (radar
# gives it a log of its own), makes a file of FLOOR_BYTES.
cat > "$work/floor.c" <<'EOF'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static char bytes[1 << 16];
static void make(void) {
  const char* dir = getenv("FLOOR_DIR");
  long n = atol(getenv("FLOOR_BYTES") ? getenv("FLOOR_BYTES") : "0");
  if (!dir) return;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  char path[4096];
  snprintf(path, sizeof path, "%s/%d-%ld.log", dir, (int)getpid(), (long)t.tv_nsec);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
  for (long left = n; fd >= 0 && left > 0;) {
    long w = write(fd, bytes, left < (long)sizeof bytes ? left : (long)sizeof bytes);
    if (w <= 0) break;
    left -= w;
  }
  if (fd >= 0) close(fd);
}
__attribute__((constructor)) static void start(void) { make(); }
__attribute__((constructor)) static void handlers(void) { pthread_atfork(0, 0, make); }
EOF
cc -shared -fPIC -O2 -o "$work/floor.so" "$work/floor.c" -lpthread

shell_line="for i in \$(seq $forks); do /bin/echo message; done | cat > /dev/null"
# Each workload's average log size on disk, from one recording of it (a
# log is a sparse file: its blocks, not its apparent length).
average_log() {
  "$radar" record --force -o "$work/size" -- "$@" > /dev/null 2>&1
  du -B1 -c "$work"/size/*.rlog | awk -v n="$(ls "$work"/size/*.rlog | wc -l)" 'END { printf "%d", $1 / n }'
}
forks_bytes=$(average_log "$work/forker" "$forks")
shell_bytes=$(average_log sh -c "$shell_line")
floor() {
  local bytes=$1; shift
  rm -rf "$work/floor" && mkdir "$work/floor"
  FLOOR_DIR=$work/floor FLOOR_BYTES=$bytes LD_PRELOAD=$work/floor.so "$@"
}

for i in $(seq "$runs"); do
  time_ms forks_bare "$work/forker" "$forks"
  time_ms forks_floor floor "$forks_bytes" "$work/forker" "$forks"
  time_ms forks_radar "$radar" record --force -o "$work/rec" -- "$work/forker" "$forks"
  time_ms shell_bare sh -c "$shell_line"
  time_ms shell_floor floor "$shell_bytes" sh -c "$shell_line"
  time_ms shell_radar "$radar" record --force -o "$work/rec" -- sh -c "$shell_line"
done

printf '| workload (median of %s) | bare | floor: a file an image | radar record | radar / floor |\n' "$runs"
printf '| --- | --- | --- | --- | --- |\n'
printf '| %s forked children, one byte each (logs of %s bytes) | %s ms | %s ms | %s ms | **%s×** |\n' "$forks" \
  "$forks_bytes" "$(median forks_bare)" "$(median forks_floor)" "$(median forks_radar)" "$(ratio forks_radar forks_floor)"
printf '| sh starting %s /bin/echo (logs of %s bytes) | %s ms | %s ms | %s ms | **%s×** |\n' "$forks" \
  "$shell_bytes" "$(median shell_bare)" "$(median shell_floor)" "$(median shell_radar)" "$(ratio shell_radar shell_floor)"
