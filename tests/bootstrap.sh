#!/usr/bin/env bash
# Shared set-up for the README's two commands (and CI): installs what is
# missing from Debian's packages, then configures and builds radar.
# Idempotent: a second run installs nothing and rebuilds only what changed.
#
#   RADAR_PRESET   CMake preset to build (default: dev)
#   RADAR_NO_INSTALL=1   never call apt-get (fail if something is missing)
set -euo pipefail

RADAR_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RADAR_PRESET=${RADAR_PRESET:-dev}
export RADAR_ROOT RADAR_PRESET

radar_packages=(
  build-essential cmake ninja-build pkg-config
  libprotobuf-dev libprotoc-dev protobuf-compiler libzstd-dev zstd
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev qt6-svg-dev
  clang-14 libclang-rt-14-dev clang-format-14
  gdb python3 python3-jsonschema strace xauth xvfb librsvg2-bin
  tshark libsqlite3-dev sqlite3
  liburing-dev
  libopenmpi-dev openmpi-bin
  iproute2
  debootstrap desktop-file-utils zsh
)
# The real programs the `real` tests record (tests/real), Slurm for the
# `mpi` test that launches a job with srun, and Wireshark with xdotool for
# docs' screenshots of it; without them those tests skip, saying what is
# missing.
radar_real_packages=(
  nginx-light curl postgresql redis-server redis-tools golang-go tcpdump make
  apache2-bin apache2-utils nodejs dnsmasq-base bind9-dnsutils memcached libmemcached-tools
  slurmctld slurmd slurm-client
  wireshark-qt xdotool
)

radar_install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "${RADAR_NO_INSTALL:-0}" = 1 ]; then
    echo "radar: missing packages: ${missing[*]}" >&2
    return 1
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "radar: run as root or install sudo to install: ${missing[*]}" >&2; return 1; }
    sudo=(sudo)
  fi
  echo "radar: installing ${missing[*]}" >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# DuckDB from the npm registry: an independent reader of the Parquet
# export, for its tests only (radar never uses it); without it they skip.
radar_duckdb=${RADAR_DUCKDB:-$HOME/.cache/radar/duckdb}
radar_install_duckdb() {
  [ -d "$radar_duckdb/node_modules/@duckdb/node-api" ] && return 0
  [ "${RADAR_NO_INSTALL:-0}" = 1 ] && return 1
  command -v npm >/dev/null || return 1
  mkdir -p "$radar_duckdb"
  echo "radar: installing DuckDB (npm) into $radar_duckdb" >&2
  timeout 300 npm install --prefix "$radar_duckdb" --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1 >/dev/null
}

radar_build() {
  cd "$RADAR_ROOT"
  cmake --preset "$RADAR_PRESET" >/dev/null
  cmake --build --preset "$RADAR_PRESET"
}

radar_install_packages "${radar_packages[@]}"
radar_install_packages "${radar_real_packages[@]}" ||
  echo "radar: the real programs could not all be installed: their tests will skip" >&2
radar_install_duckdb || echo "radar: DuckDB (npm) could not be installed: the Parquet export's tests will skip" >&2
radar_build
