# Exit status: first non-zero code of a cleanly finalized rank; 0 when all are 0;
# plain (non-MPI) programs work; a missing or unrunnable program is reported; a rank that exits 0
# without starting MPI while the others did ends the job (they would wait for it forever).
source "$(dirname "$0")/common.sh"
run -n 3 "$PROG" exitcode 1 5 "$MARK"
expect_status 5
expect_not_in err 'ending the job'
run -n 3 "$PROG" exitcode 1 0 "$MARK"
expect_status 0
run -n 2 true
expect_status 0
run -n 2 false
expect_status 1
run -n 2 /nonexistent/program
expect_status 127
expect_in err "cannot find executable '/nonexistent/program'"
run -n 1 "$WORK"
expect_status 126
expect_in err "cannot run '$WORK': is a directory"
for who in 0 2; do   # before and after the others connect
    run -n 3 --timeout 30 "$PROG" preinit $who "$MARK"
    expect_status 1
    expect_in err "rank $who \(pid [0-9]+[^)]*\) exited with code 0 without calling MPI_Init"
    expect_faster_than 10000
done
echo "PASS exitcode"
