# An mpiexec started by a rank of another job through $EMPI_MPIEXEC (as MPI_Comm_spawn will do)
# runs a job of its own: a fresh jobid (the outer one and 8 more digits), its own world, appnums and universe, none of the outer
# rank's EMPI_* variables in the way, and nothing left behind.
#   bash nested.sh MPIEXEC BOOT_TEST MPMD_TEST
source "$(dirname "$0")/common.sh"
APP=$(readlink -f "$1")
export EMPI_YIELD=always

# Each outer rank (two contexts, so the second has EMPI_APPNUM=1) starts an MPMD MPI job, then a
# boot_test that shows its jobid and what it was told.
inner='"$EMPI_MPIEXEC" -n 1 "$1" a "$2" : -n 2 "$1" b "$2" || exit 1
"$EMPI_MPIEXEC" -n 1 "$3" env EMPI_APPNUM EMPI_UNIVERSE_SIZE EMPI_SIZE "$2" || exit 1
echo "outer rank $EMPI_RANK appnum $EMPI_APPNUM jobid $EMPI_JOBID"'
run --tag-output -usize 10 -n 1 sh -c "$inner" sh "$APP" "$MARK" "$PROG" \
    : -n 1 sh -c "$inner" sh "$APP" "$MARK" "$PROG"
expect_status 0
for r in 0 1; do
    grep "^\[$r\] rank [0-9] size" "$WORK/out" | sort >"$WORK/got"
    printf '%s\n' "[$r] rank 0 size 3 appnum 0 universe 3 sum 2 prog mpmd_test var - args a $MARK" \
        "[$r] rank 1 size 3 appnum 1 universe 3 sum 2 prog mpmd_test var - args b $MARK" \
        "[$r] rank 2 size 3 appnum 1 universe 3 sum 2 prog mpmd_test var - args b $MARK" >"$WORK/want"
    diff "$WORK/want" "$WORK/got" >&2 || fail "inner MPI job of outer rank $r differs (want, got)"
    expect_in out "^\[$r\] rank 0 EMPI_APPNUM=0\$"
    expect_in out "^\[$r\] rank 0 EMPI_UNIVERSE_SIZE=1\$"
    expect_in out "^\[$r\] rank 0 EMPI_SIZE=1\$"
    expect_in out "^\[$r\] outer rank $r appnum $r jobid [0-9a-f]+\$"
done
outer=$(sed -n 's/^\[0\] outer rank 0 appnum 0 jobid //p' "$WORK/out")
expect_in out "^\[1\] outer rank 1 appnum 1 jobid $outer\$"
ids=$( (echo "$outer"; sed -n 's/^\[[01]\] jobid //p' "$WORK/out") | sort -u | wc -l)
[ "$ids" -eq 3 ] || fail "jobids of the outer job and the two inner ones are not all different"
# An inner jobid extends the outer one, so the outer cleanup of /dev/shm/empi-<outer>* covers it.
[ "$(sed -n 's/^\[[01]\] jobid //p' "$WORK/out" | grep -vc "^$outer[0-9a-f]\{8\}\$")" -eq 0 ] ||
    fail "an inner jobid does not begin with the outer one, $outer"
sleep 0.1
[ -z "$(leftover_pids)" ] || fail "processes left: $(leftover_pids)"
no_socket "$outer"
! ls /dev/shm/empi-"$outer"* >/dev/null 2>&1 || fail "/dev/shm/empi-$outer* left behind"
echo "PASS nested"
