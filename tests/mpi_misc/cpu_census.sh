#!/bin/bash
# Ranks per CPU counts the CPUs of all a host's ranks together: squeezed onto one CPU by taskset
# they take turns (the tuning table's ranks_per_cpu key picks the chain scan, and waits yield);
# bound one CPU each, as srun --cpu-bind=cores does, they do not, although each sees one CPU.
# usage: cpu_census.sh MPIEXEC PROGRAM
set -u
mpiexec=$1 prog=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }
cat >"$tmp/table" <<'TABLE'
scan  *  *  *  2-  linear
scan  *  *  *      recursive_doubling
TABLE
export EMPI_DEBUG=1 EMPI_TUNING_FILE=$tmp/table

taskset -c "$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')" \
    "$mpiexec" -n 3 --timeout 60 "$prog" >"$tmp/out" 2>&1 || fail "3 ranks on one CPU"
grep -q "3 ranks of the job on 1 CPUs (3 per CPU): oversubscribed" "$tmp/out" || fail "census on one CPU"
grep -q "scan on 3 ranks (3 per host, 3 per CPU), 4 bytes: linear" "$tmp/out" || fail "selection on one CPU"
grep -q "scan ok" "$tmp/out" || fail "scan result on one CPU"
echo "ok: 3 ranks squeezed onto one CPU"

# Two CPUs we may use, one for each rank.
cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
set -- $cpus
if [ $# -lt 2 ]; then
    echo "ok: one CPU only, per-rank binding not tested"
    exit 0
fi
echo "#!/bin/sh
[ \"\$EMPI_LOCAL_RANK\" = 0 ] && exec taskset -c $1 \"\$@\"
exec taskset -c $2 \"\$@\"" >"$tmp/bind"
chmod +x "$tmp/bind"
"$mpiexec" -n 2 --timeout 60 "$tmp/bind" "$prog" >"$tmp/out" 2>&1 || fail "2 ranks bound apart"
grep -q "2 ranks of the job on 2 CPUs (1 per CPU)$" "$tmp/out" || fail "census of ranks bound apart"
grep -q "scan on 2 ranks (2 per host, 1 per CPU), 4 bytes: recursive_doubling" "$tmp/out" ||
    fail "selection of ranks bound apart"
grep -q "scan ok" "$tmp/out" || fail "scan result of ranks bound apart"
echo "ok: 2 ranks bound to CPUs $1 and $2"
