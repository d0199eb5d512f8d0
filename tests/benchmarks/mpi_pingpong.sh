#!/usr/bin/env bash
# Recording MPI's calls: an MPI ping-pong of 64-byte messages over Open
# MPI's shared-memory transport, 2 ranks (mpi_loop.sh says how).
#   bash tests/benchmarks/mpi_pingpong.sh [ROUND_TRIPS] [ROUNDS]
exec bash "$(dirname "$0")/mpi_loop.sh" pingpong 2 "${1:-100000}" "${2:-5}"
