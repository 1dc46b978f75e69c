#!/bin/bash
# Jobs that can never finish end within seconds, with the deadlock watch's message naming a rank.
# usage: deadlock_watch.sh MPIEXEC PROGRAM
set -u
mpiexec=$1 prog=$2
export EMPI_DEADLOCK_TIMEOUT=1
status=0
for np in 2 4; do
    for mode in mismatch cycle finalized; do
        start=$(date +%s)
        err=$("$mpiexec" -n $np --timeout 60 "$prog" $mode 2>&1 >/dev/null)
        rc=$? took=$(($(date +%s) - start))
        if [ $rc -eq 0 ] || ! grep -Eq 'rank [0-9]+ has waited in MPI .* no wait can ever end' <<<"$err" ||
           [ $took -gt 20 ]; then
            echo "FAIL: $mode at $np processes: exit $rc after $took s; stderr:"
            head -5 <<<"$err"
            status=1
        else
            echo "ok: $mode at $np processes ended in $took s"
        fi
    done
done
[ $status -eq 0 ] && echo PASS
exit $status
