#!/bin/bash
# Every empi-bench case at small sizes under a peer library (portability of the suite): builds the
# sources with the peer's mpicc and runs each case with the peer's mpiexec, validating data (-c).
#   usage: run_under_peer.sh PEER_PREFIX BENCH_SRC_DIR WORK_DIR CASE...
set -uo pipefail
prefix=$1 src=$2 work=$3
shift 3
if [ ! -x "$prefix/bin/mpicc" ] || [ ! -x "$prefix/bin/mpiexec" ]; then
    echo "SKIP: no peer MPI at $prefix (scripts/peers.sh mpich installs it)"
    exit 77
fi
mkdir -p "$work"
"$prefix/bin/mpicc" -std=c11 -O2 "$src"/*.c -o "$work/empi-bench-peer" -lm || { echo "FAIL: build with $prefix/bin/mpicc"; exit 1; }
failed=0
for c in "$@"; do
    args=(-m 1:1024 -i 5 -x 1 -c)
    case $c in init|hello|barrier|ibarrier) args=(-i 5 -x 1) ;; esac
    if ! timeout 120 "$prefix/bin/mpiexec" -n 2 "$work/empi-bench-peer" "$c" "${args[@]}" >"$work/$c.out" 2>&1; then
        echo "FAIL: $c under $prefix"; tail -5 "$work/$c.out"; failed=1
    fi
done
[ $failed = 0 ] && echo "PASS: $# cases under $prefix"
exit $failed
