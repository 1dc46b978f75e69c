# A rank exiting without finalize ends the job with its exit code.
source "$(dirname "$0")/common.sh"
run -n 4 "$PROG" noexit 3 "$MARK"
expect_status 3
expect_in err 'rank 3 \(pid [0-9]+\) exited with code 3 before MPI_Finalize; ending the job'
expect_faster_than 3000
expect_clean
# Exit code 0 without finalize is still a failure for an MPI process.
run -n 2 "$PROG" noexit 0 "$MARK"
expect_status 1
expect_in err 'rank 1 \(pid [0-9]+\) exited with code 0 before MPI_Finalize'
expect_clean
echo "PASS noexit"
