#!/bin/bash
# mpi4py's own test suite (about 2000 tests written by others against the MPI standard) on our
# library. mpi4py is built once from its PyPI source with our mpicc into a cached virtualenv; it is a
# standard-ABI binary, so every later run loads this build's libmpi_abi.so.1 through
# LD_LIBRARY_PATH. Runs at 1, 2 and 3 processes, spawning and the process pool included. Left out:
# ULFM (not part of the standard; mpi4py's fallback for it calls collectives in different orders on
# different ranks).
# usage: mpi4py_suite.sh BUILD_DIR      Exits 77 (skipped) when PyPI cannot be reached.
set -u
build=$1
version=4.1.2
cache=${EMPI_MPI4PY_CACHE:-$HOME/.cache/empi/mpi4py-$version}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

if [ ! -e "$cache/.built" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    cmake --install "$build" --prefix "$tmp/inst" >/dev/null || fail "cannot install the build to a prefix"
    python3 -m venv "$cache/venv" || fail "python3 -m venv failed"
    "$cache/venv/bin/pip" download -q --no-binary :all: --no-deps "mpi4py==$version" -d "$tmp" ||
        { echo "SKIP: cannot download mpi4py $version from PyPI"; rm -rf "$cache"; exit 77; }
    tar xzf "$tmp/mpi4py-$version.tar.gz" -C "$cache" || fail "cannot unpack the mpi4py source"
    echo "building mpi4py $version with our mpicc (once; cached in $cache)"
    MPICC="$tmp/inst/bin/mpicc" "$cache/venv/bin/pip" install -q "$cache/mpi4py-$version" >"$tmp/pip.log" 2>&1 ||
        { tail -30 "$tmp/pip.log"; fail "mpi4py did not build with our mpicc"; }
    touch "$cache/.built"
fi

export LD_LIBRARY_PATH="$build/src${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
py="$cache/venv/bin/python"
# With numpy, about 80 more tests run (message buffers as arrays of every numeric type); without it
# they are skipped, so a registry that cannot serve it only narrows the run.
"$py" -c 'import numpy' 2>/dev/null || "$cache/venv/bin/pip" install -q numpy >/dev/null 2>&1 ||
    echo "note: numpy not installable; its tests are skipped"
"$py" -c 'from mpi4py import MPI; v = MPI.Get_library_version(); print(v.strip()); assert "EtherMPI" in v' ||
    fail "mpi4py does not load our library"
status=0
for np in 1 2 3; do
    # The datatype modules communicate nothing and spend their time in Python, pickling types
    # (50 s of the 1-process run); every rank would repeat what the 1-process run checked.
    local_only=()
    [ $np -gt 1 ] && local_only=(-e test_datatype -e test_util_dtlib)
    out=$(cd "$cache/mpi4py-$version/test" &&
          "$build/tools/mpiexec/mpiexec" -n $np --timeout 420 "$py" runtests.py -q \
              -e "ulfm" "${local_only[@]}" 2>&1)
    summary=$(grep -E "^(Ran|OK|FAILED)" <<<"$out" | sort -u | tr '\n' ' ')
    echo "np $np: $summary"
    if ! grep -q "^OK" <<<"$out" || grep -q "^FAILED" <<<"$out"; then
        grep -E -A12 "^(ERROR|FAIL):" <<<"$out" | head -80
        tail -5 <<<"$out"
        status=1
    fi
done
exit $status
