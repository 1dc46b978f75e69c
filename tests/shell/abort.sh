# empi_boot_abort: message printed once, all ranks killed, exit with the code.
source "$(dirname "$0")/common.sh"
run -n 4 "$PROG" abort 7 "$MARK"
expect_status 7
expect_count err '^mpiexec: rank 3 called MPI_Abort\(7\): test abort$' 1
expect_faster_than 3000
expect_clean
# The code's low byte is the exit status, but 0 only for the code 0.
run -n 2 "$PROG" abort 256 "$MARK"
expect_status 1
expect_in err 'MPI_Abort\(256\)'
expect_clean
run -n 2 "$PROG" abort 0 "$MARK"
expect_status 0
expect_in err 'MPI_Abort\(0\)'
expect_clean
echo "PASS abort"
