# Exit status: first non-zero code of a cleanly finalized rank; 0 when all are 0;
# plain (non-MPI) programs work; a missing program is reported.
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
echo "PASS exitcode"
