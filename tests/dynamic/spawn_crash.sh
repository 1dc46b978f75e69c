# A spawned job whose rank aborts ends the parent job too, promptly, with a message saying why,
# and no process of either job (all carry the marker) nor the parent's /dev/shm files remain.
#   bash spawn_crash.sh MPIEXEC SPAWN_CRASH
source "$(dirname "$0")/../shell/common.sh"
run --timeout 60 -n 2 "$PROG" "$MARK"
[ "$STATUS" -ne 0 ] || fail "the parent job exited 0"
[ "$STATUS" -ne 124 ] || fail "the parent job hung until its timeout"
expect_in err 'a job this process spawned failed'
expect_not_in out 'FAIL'
expect_faster_than 15000
expect_clean
echo "PASS spawn_crash (${ELAPSED_MS} ms)"
