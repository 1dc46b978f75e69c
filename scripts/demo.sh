#!/bin/bash
# The demo: an MPI program built with the installed mpicc on all local cores, then a short
# latency/bandwidth table from empi-bench.   usage: demo.sh PREFIX
set -euo pipefail
prefix=$1
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$prefix/bin/mpicc" -O2 "$here/examples/ring.c" -o "$tmp/ring"
echo "== $prefix/bin/mpiexec -n $(nproc) ring"
"$prefix/bin/mpiexec" -n "$(nproc)" "$tmp/ring"
if [ -x "$prefix/bin/empi-bench" ]; then
    echo "== empi-bench latency (2 ranks)"
    "$prefix/bin/mpiexec" -n 2 "$prefix/bin/empi-bench" latency -m 1:65536
    echo "== empi-bench bw (2 ranks)"
    "$prefix/bin/mpiexec" -n 2 "$prefix/bin/empi-bench" bw -m 1024:4194304
fi
