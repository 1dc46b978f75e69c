# A rank dying of SIGSEGV ends the whole job promptly, names rank and signal, and
# leaves no process (not even the crashing rank's child) and no /dev/shm file; the line it
# printed just before is not lost.
source "$(dirname "$0")/common.sh"
run -n 4 "$PROG" crash "$MARK"
expect_status 139
expect_in err 'rank 3 \(pid [0-9]+\) killed by signal 11 \(Segmentation fault\); ending the job'
expect_count err 'ending the job' 1
expect_in out '^rank 3 crashes now$' # printed just before, without fflush: ranks line-buffer stdout
expect_faster_than 3000
expect_clean
echo "PASS crash (${ELAPSED_MS} ms)"
