#!/bin/bash
# The ABI proof, both ways:
#  1. a program compiled with MPICH's standard-ABI wrapper (mpicc_abi) runs on our libmpi_abi.so.1;
#  2. a program compiled against our mpi.h runs on MPICH's libmpi_abi.so.1 under MPICH's mpiexec.
# usage: abi_interop.sh MPICH_PREFIX OUR_INCLUDE OUR_LIBDIR OUR_MPIEXEC SOURCE
# Exits 77 (skipped) when MPICH's standard-ABI build is not installed.
set -u
peer=$1 inc=$2 libdir=$3 mpiexec=$4 src=$5
if [ ! -x "$peer/bin/mpicc_abi" ] || [ ! -e "$peer/lib/libmpi_abi.so.1" ]; then
    echo "SKIP: MPICH with the standard ABI not found under $peer (pip install mpich)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$peer/bin/mpicc_abi" "$src" -o "$tmp/built_by_mpich" || fail "mpicc_abi could not build the program"
resolved=$(LD_LIBRARY_PATH="$libdir" ldd "$tmp/built_by_mpich" | awk '/libmpi_abi/ {print $3}')
[ "$(readlink -f "$resolved")" = "$(readlink -f "$libdir/libmpi_abi.so.1")" ] ||
    fail "the MPICH-built program would load $resolved, not ours"
out=$(LD_LIBRARY_PATH="$libdir" "$mpiexec" -n 2 --timeout 60 "$tmp/built_by_mpich" 2>&1)
echo "$out"
grep -q "abi_prog: PASS" <<<"$out" && grep -q "EtherMPI" <<<"$out" ||
    fail "the mpicc_abi-built program did not pass on EtherMPI"

cc -std=c11 -I"$inc" "$src" -o "$tmp/built_by_us" -L"$libdir" -lmpi_abi -Wl,--enable-new-dtags \
    -Wl,-rpath,"$libdir" || fail "could not build against our mpi.h"
out=$(LD_LIBRARY_PATH="$peer/lib" timeout 120 "$peer/bin/mpiexec" -n 2 "$tmp/built_by_us" 2>&1)
echo "$out"
grep -q "abi_prog: PASS" <<<"$out" && grep -qi "MPICH" <<<"$out" ||
    fail "the program built against our mpi.h did not pass on MPICH's libmpi_abi.so"
echo "1 passed, 0 failed"
