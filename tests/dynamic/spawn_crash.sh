# A spawned job whose rank aborts ends the parent job too, promptly, with a message saying why (the
# launcher of the spawned job failed, or: which process of it died),
# and no process of either job (all carry the marker) nor the parent's /dev/shm files remain; the
# same for a parent started without mpiexec (a singleton), which took minutes to notice before.
# A spawned job that fails after disconnecting does not touch its parent job.
#   bash spawn_crash.sh MPIEXEC SPAWN_CRASH
source "$(dirname "$0")/../shell/common.sh"
run --timeout 60 -n 2 "$PROG" "$MARK"
[ "$STATUS" -ne 0 ] || fail "the parent job exited 0"
[ "$STATUS" -ne 124 ] || fail "the parent job hung until its timeout"
expect_in err 'a job this process spawned failed|of job [0-9a-f]+, connected to this job through .* ended without MPI_Finalize'
expect_not_in out 'FAIL'
expect_faster_than 15000
expect_clean
echo "PASS spawn_crash (${ELAPSED_MS} ms)"

t0=$(now_ms)
timeout 60 "$PROG" "$MARK" >"$WORK/out" 2>"$WORK/err"
STATUS=$?
ELAPSED_MS=$(( $(now_ms) - t0 ))
[ "$STATUS" -ne 0 ] || fail "the singleton parent exited 0"
[ "$STATUS" -ne 124 ] || fail "the singleton parent hung until its timeout"
expect_in err 'a job this process spawned failed|of job [0-9a-f]+, connected to this job through .* ended without MPI_Finalize'
expect_faster_than 15000
sleep 0.1 # a singleton has no job id for expect_clean's file check: its processes only
left=$(leftover_pids)
[ -z "$left" ] || fail "processes left: $left"
echo "PASS spawn_crash singleton (${ELAPSED_MS} ms)"

# Spawned from a helper thread (no parent-death signal: it would follow the thread), the children
# and their launcher still go when the parent's mpiexec is killed outright (they were left running).
start_job -n 1 "$PROG" "$MARK" orphan
wait_for_ready 1
kill -KILL "$BG_PID"
wait "$BG_PID" 2>/dev/null
BG_PID=
for _ in $(seq 50); do [ -z "$(leftover_pids)" ] && break; sleep 0.1; done
left=$(leftover_pids)
[ -z "$left" ] || { kill -KILL $left 2>/dev/null; fail "processes left after the parent's mpiexec was killed: $left"; }
echo "PASS spawn_crash orphan"

run --timeout 60 -n 2 "$PROG" "$MARK" independent
expect_status 0
expect_in out 'parent went on after its disconnected children failed'
expect_not_in out 'FAIL'
expect_not_in err 'a job this process spawned failed'
expect_clean
echo "PASS spawn_crash independent (${ELAPSED_MS} ms)"
