#!/usr/bin/env bash
# What the fallback recorder costs a Go client and server (each a Go
# program, which the interposer cannot see into), side by side in one run
# (alternating, median of N): a shell starts the server and a client that
# makes REQUESTS request-response round trips over one TCP connection on
# loopback; bare, under strace -f (the floor of any ptrace tool), and under
# radar record (the shell's children ask to be traced through their exec).
#   bash tests/benchmarks/fallback_go.sh [RUNS]    (default 5)
# Environment: REQUESTS (default 20000). Needs golang-go and strace.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
radar=$root/build/bin/radar
runs=${1:-5}
requests=${REQUESTS:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for tool in go strace; do
  command -v $tool > /dev/null || { echo "fallback_go.sh: $tool is not installed" >&2; exit 1; }
done
cat > "$work/server.go" << 'GO'
// Answers each line of one client with the line upper-cased, then ends.
package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		panic(err)
	}
	c, err := l.Accept()
	if err != nil {
		panic(err)
	}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		c.Write(bytes.ToUpper(line))
	}
}
GO
cat > "$work/client.go" << 'GO'
// Sends N lines to the server, one at a time, each answered before the next.
package main

import (
	"bufio"
	"net"
	"os"
	"strconv"
	"time"
)

func main() {
	var c net.Conn
	var err error
	for i := 0; i < 500; i++ {
		if c, err = net.Dial("tcp", "127.0.0.1:"+os.Args[1]); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		panic(err)
	}
	n, _ := strconv.Atoi(os.Args[2])
	r := bufio.NewReader(c)
	for i := 0; i < n; i++ {
		c.Write([]byte("request\n"))
		if _, err := r.ReadBytes('\n'); err != nil {
			panic(err)
		}
	}
	c.Close()
}
GO
(cd "$work" && HOME=$work GOCACHE=$work/gocache GO111MODULE=off go build -o server server.go &&
  HOME=$work GOCACHE=$work/gocache GO111MODULE=off go build -o client client.go)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
session() { echo "cd $work; ./server $1 & ./client $1 $requests; wait"; }

source "$root/tests/benchmarks/timing.sh"

for i in $(seq "$runs"); do
  time_ms bare sh -c "$(session "$(port)")"
  time_ms strace strace -f -o /dev/null sh -c "$(session "$(port)")"
  time_ms radar "$radar" record --force -o "$work/rec" -- sh -c "$(session "$(port)")"
done
"$radar" check "$work/rec" | sed -n 2p
printf '| Go client and server, %s round trips (median of %s) | bare | floor: strace -f | radar record (fallback) |\n' "$requests" "$runs"
printf '| --- | --- | --- | --- |\n'
rate() { awk -v n="$requests" -v ms="$(median "$1")" 'BEGIN { printf "%.0f", n / (ms / 1000) }'; }
printf '| requests/s | %s | %s (%s× the time) | %s (%s× the time) |\n' "$(rate bare)" "$(rate strace)" \
  "$(ratio strace bare 2)" "$(rate radar)" "$(ratio radar bare 2)"
printf 'fallback against strace -f: %s×\n' "$(ratio radar strace 2)"
